/*
 * cmd_counters.c - `allocbench counters`: every requested event, whether this
 * machine can count it, and if not why, in PAPI's own words, with a hint on
 * how to fix it. Like main.c and cli.c, a command's own file may exit.
 */
#include "cmd/cli.h"
#include "cmd/parse_options.h"
#include "cmd/commands.h"
#include "platform/counters.h"
#include "report/report_counters.h"
#include "platform/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum {
	OPT_COUNTERS = 256,
};

/* The formats of --format, the default first: a new format is one entry. */
static const struct counters_writer counters_writers[] = {
	{ "text", report_counters_check_text },
	{ "json", report_counters_check_json },
	{ NULL, NULL },
};

/* What the counters command's options fill: the context of its option table. */
struct counters_cmd {
	struct counter_list list;                /* --counters */
	const struct counters_writer *writer;    /* --format */
};

static int opt_counters(const struct cli_option *o, const char *arg, void *ctx)
{
	(void)o;
	cli_parse_counters(arg, &((struct counters_cmd *)ctx)->list);
	return 0;
}

static int opt_format(const struct cli_option *o, const char *arg, void *ctx)
{
	(void)o;
	((struct counters_cmd *)ctx)->writer = CLI_FORMAT(counters_writers, arg, "");
	return 0;
}

static const struct cli_option counters_options[] = {
	{ OPT_CALLBACK(OPT_COUNTERS, "counters", "LIST", opt_counters,
	  "the events to check, as run's (default above)") },
	{ OPT_CALLBACK('f', "format", "FORMAT", opt_format, "text (default) or json") },
	CLI_OPT_HELP,
	CLI_OPTIONS_END,
};

static void counters_help(FILE *out)
{
	fputs(
"usage: allocbench counters [--counters LIST] [--format FORMAT]\n"
"\n"
"Says for every event whether this machine can count it through PAPI and, if\n"
"not, why and how to fix it. The default events, as the run command's:\n"
"  " COUNTERS_DEFAULT_PRESETS ",allocbench\n"
"\n"
"Options:\n", out);
	cli_help_options(out, counters_options, 25);
	fputs(
"\n"
"Exit status: 0 (also when some events cannot be counted), 1 the report could\n"
"not be written, 2 bad usage.\n"
"allocbench-counters(1) says more.\n", out);
}

int cmd_counters(int argc, char **argv)
{
	struct counters_cmd cmd = { .writer = &counters_writers[0] };
	struct counters_check *check;
	struct cli_parser parser;
	int ret;

	counters_default_list(&cmd.list);
	cli_parser_init(&parser, counters_options, counters_help, "allocbench counters --help",
			argc, argv);
	parser.ctx = &cmd;
	while (cli_next(&parser) != -1)
		;
	if (optind < argc)
		usage_die("unexpected argument '%s' (see allocbench counters --help)", argv[optind]);

	check = malloc(sizeof(*check));
	if (!check)
		die_out_of_memory();
	counters_check(&cmd.list, check);
	ret = cmd.writer->write(stdout, check);
	free(check);
	if (ret) {
		if (!broken_pipe(errno))
			error("cannot write the report to standard output: %s",
			      strerror(errno ? errno : EIO));
		return 1;
	}
	if (stdout_flush_check())
		return 1;
	return 0;
}
