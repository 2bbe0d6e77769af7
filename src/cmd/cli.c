/*
 * cli.c - the option tables of the commands (cli.h): getopt_long's tables
 * and the help's option lines from one table, the shared options, lists,
 * and the messages for bad options.
 */
#include "cmd/cli.h"
#include "platform/counters.h"
#include "model/runner.h"
#include "cmd/parse_options.h"
#include "platform/util.h"

#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

/* The long option of OPTIONS that NAME (up to LEN bytes, no "--") names, or NULL. */
static const struct option *find_long(const struct option *options, const char *name, size_t len)
{
	const struct option *found = NULL;
	size_t matches = 0;

	for (const struct option *o = options; o->name; o++) {
		if (strncmp(o->name, name, len))
			continue;
		if (strlen(o->name) == len)
			return o;   /* an exact name wins over longer ones */
		found = o;
		matches++;
	}
	return matches == 1 ? found : NULL;
}

/*
 * Reports what getopt_long returned as C (':' or '?') for ARGV, parsed with
 * OPTSTRING and OPTIONS, and exits 2: a missing value, a value given to an
 * option that takes none, an unknown option (a short one named alone, even
 * inside a cluster such as -Zq), or an abbreviation of several long options
 * (listed), each naming it and pointing at HELP ("allocbench plot --help").
 */
static _Noreturn void option_error(int c, char **argv, const char *optstring,
				   const struct option *options, const char *help)
{
	/* getopt_long has stepped past a long option and a whole short cluster only. */
	const char *arg = argv[optind - 1];
	int is_long = !strncmp(arg, "--", 2) && arg[2];
	size_t len = is_long ? strcspn(arg + 2, "=") : 0;
	const struct option *o = is_long ? find_long(options, arg + 2, len) : NULL;

	if (c == ':') {
		if (is_long)
			usage_die("option '--%s' needs a value (see %s)", o ? o->name : arg + 2,
				  help);
		usage_die("option '-%c' needs a value (see %s)", optopt, help);
	}
	/* A known long option given a value it does not take: --force=yes. */
	if (optopt >= 256 || (optopt && optopt != ':' && strchr(optstring, optopt))) {
		if (o)
			usage_die("option '--%s' takes no value (given '%s'; see %s)", o->name,
				  arg, help);
		usage_die("option '%.*s' takes no value (given '%s'; see %s)", (int)len + 2, arg,
			  arg, help);
	}
	if (optopt) {
		if (optopt > ' ' && optopt < 0x7f)
			usage_die("unknown option '-%c' (see %s)", optopt, help);
		usage_die("unknown option byte 0x%02x after '-' (see %s)", optopt & 0xff, help);
	}
	if (is_long) {
		char candidates[512] = "";
		size_t used = 0, n = 0;

		for (const struct option *k = options; k->name; k++)
			if (!strncmp(k->name, arg + 2, len) && used < sizeof(candidates)) {
				used += (size_t)snprintf(candidates + used, sizeof(candidates) - used,
							 "%s--%s", n++ ? ", " : "", k->name);
			}
		if (n > 1)
			usage_die("option '--%.*s' is ambiguous: it could be %s (see %s)",
				  (int)len, arg + 2, candidates, help);
	}
	if (is_long && arg[2 + len])
		usage_die("unknown option '%.*s' (given '%s'; see %s)", (int)len + 2, arg, arg,
			  help);
	usage_die("unknown option '%s' (see %s)", arg, help);
}

void cli_parser_init(struct cli_parser *parser, const struct cli_option *options,
		     void (*help)(FILE *out), const char *help_command, int argc, char **argv)
{
	char *s = parser->optstring;
	size_t n = 0;

	memset(parser, 0, sizeof(*parser));
	parser->options = options;
	parser->help = help;
	parser->help_command = help_command;
	parser->argc = argc;
	parser->argv = argv;
	/* ':' first: a missing value is told apart from an unknown option. */
	*s++ = ':';
	for (const struct cli_option *o = options; o->name; o++, n++) {
		if (n == CLI_MAX_OPTIONS)
			die(1, "more than %d options in the table of %s", CLI_MAX_OPTIONS,
			    help_command);
		parser->longopts[n] = (struct option){
			.name = o->name,
			.has_arg = o->arg ? required_argument : no_argument,
			.val = o->id,
		};
		if (o->id < 256) {
			*s++ = (char)o->id;
			if (o->arg)
				*s++ = ':';
		}
	}
	*s = '\0';
	parser->longopts[n] = (struct option){ 0, 0, 0, 0 };
	opterr = 0;
	optind = 1;
	if (argc == 2 && !strcmp(argv[1], "--dump-options")) {
		parse_options_dump(stdout, options);
		cli_exit_printed();
	}
}

/* The entry of PARSER's table whose id is C, or NULL. */
static const struct cli_option *find_id(const struct cli_parser *parser, int c)
{
	for (const struct cli_option *o = parser->options; o->name; o++)
		if (o->id == c)
			return o;
	return NULL;
}

int cli_next(struct cli_parser *parser)
{
	for (;;) {
		int c = getopt_long(parser->argc, parser->argv, parser->optstring,
				    parser->longopts, NULL);
		const struct cli_option *o;

		if (c == ':' || c == '?')
			option_error(c, parser->argv, parser->optstring, parser->longopts,
				     parser->help_command);
		if (c == 'h' && parser->help) {
			parser->help(stdout);
			cli_exit_printed();
		}
		o = c == -1 ? NULL : find_id(parser, c);
		if (!o || o->type == CLI_RETURN)
			return c;
		if (parse_options_apply(o, optarg, parser->ctx))
			exit(2);
	}
}

/* One option's line of the help, then what its more() prints (cli_help_options()). */
static void help_option(FILE *out, const struct cli_option *o, size_t column)
{
	int len;

	if (o->id < 256)
		len = fprintf(out, "  -%c, --%s", o->id, o->name);
	else
		len = fprintf(out, "      --%s", o->name);
	if (o->arg)
		len += fprintf(out, " %s", o->arg);
	/* The help at COLUMN; two spaces after the option where it reaches COLUMN. */
	fprintf(out, "%*s%s\n", len < 0 || (size_t)len >= column ? 2 :
		(int)(column - (size_t)len), "", o->help);
	if (o->more)
		o->more(out);
}

void cli_help_options(FILE *out, const struct cli_option *options, size_t column)
{
	for (const struct cli_option *o = options; o->name; o++) {
		if (o->help_under)
			continue;
		help_option(out, o, column);
		for (const struct cli_option *u = options; u->name; u++)
			if (u->help_under && !strcmp(u->help_under, o->name))
				help_option(out, u, column);
	}
}

_Noreturn void cli_exit(int status)
{
	if (broken_pipe_seen())
		runner_signal_exit(SIGPIPE);
	exit(status);
}

_Noreturn void cli_exit_printed(void)
{
	cli_exit(stdout_flush_check() ? 1 : 0);
}

const char *cli_file_name(const char *file, const char *option)
{
	if (!*file)
		usage_die("empty file name for %s", option);
	return file;
}

/* The name of the writer at INDEX of a table (cli_format_index()). */
static const char *format_name(const char *const *first_name, size_t stride, size_t index)
{
	const char *name;

	/* Copied, not cast: the entry is a struct, not an array of names. */
	memcpy(&name, (const char *)first_name + index * stride, sizeof(name));
	return name;
}

size_t cli_format_index(const char *value, const char *const *first_name, size_t stride,
			const char *for_what)
{
	const char *name;
	char expected[256];
	size_t i, n, used = 0;

	for (n = 0; (name = format_name(first_name, stride, n)); n++)
		if (!strcmp(value, name))
			return n;
	expected[0] = '\0';
	for (i = 0; i < n && used < sizeof(expected); i++)
		used += (size_t)snprintf(expected + used, sizeof(expected) - used, "%s%s",
					 !i ? "" : i + 1 < n ? ", " : " or ",
					 format_name(first_name, stride, i));
	usage_die("invalid --format '%s'%s (expected %s)", value, for_what, expected);
}

void cli_list_init(struct cli_list *list, const char *text, const char *option,
		   const char *hint)
{
	parse_list_init(&list->list, text, option, hint);
	if (list->list.failed)
		exit(1);
}

char *cli_list_next(struct cli_list *list)
{
	char *item = parse_list_next(&list->list);

	if (!item && list->list.failed)
		exit(2);
	return item;
}

void cli_list_release(struct cli_list *list)
{
	parse_list_release(&list->list);
}

void cli_parse_counters(const char *text, struct counter_list *list)
{
	char bad[COUNTERS_NAME_MAX];
	const char *why = "";

	if (counters_parse_list(text, list, bad, sizeof(bad), &why))
		usage_die("invalid event '%s' in --counters: %s (expected PAPI event names, "
			  "e.g. PAPI_TOT_CYC,allocbench::allocs, or none)", bad, why);
}

double cli_decimal(const char *option, const char *arg, double low, double high,
		   const char *expected)
{
	const char *why = "";
	double v;

	if (parse_decimal(arg, &v, &why) || v <= low || v >= high)
		usage_die("invalid %s '%s': %s (expected %s)", option, arg,
			  *why ? why : "out of range", expected);
	return v;
}
