/*
 * cmd_backends.c - `allocbench backends`: every backend --backend knows,
 * whether it can run on this machine, and if not why (not installed, which
 * package installs it; a sanitizer build). Like every command file, it may
 * exit.
 */
#include "report/report_backends.h"
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "cmd/parse_options.h"
#include "platform/util.h"

#include <errno.h>
#include <string.h>

static const char *const backends_formats[] = { "text", "json", NULL };

/* What the backends command's options fill: the context of its option table. */
struct backends_cmd {
	int json;   /* --format json */
};

static int opt_format(const struct cli_option *o, const char *arg, void *ctx)
{
	(void)o;
	((struct backends_cmd *)ctx)->json =
		(int)cli_format_index(arg, &backends_formats[0], sizeof(backends_formats[0]), "");
	return 0;
}

static const struct cli_option backends_options[] = {
	{ OPT_CALLBACK('f', "format", "FORMAT", opt_format, "text (default) or json") },
	CLI_OPT_HELP,
	CLI_OPTIONS_END,
};

static void backends_help(FILE *out)
{
	fputs(
"usage: allocbench backends [--format FORMAT]\n"
"\n"
"Lists every backend --backend knows (also: allocbench --backend list) and\n"
"whether it can be measured here: if not, why and which package installs it.\n"
"\n"
"Options:\n", out);
	cli_help_options(out, backends_options, 25);
	fputs(
"\n"
"Exit status: 0, 1 the list could not be written, 2 bad usage.\n"
"allocbench-backends(1) says more.\n", out);
}

int cmd_backends(int argc, char **argv)
{
	struct backends_cmd cmd = { 0 };
	struct cli_parser parser;

	cli_parser_init(&parser, backends_options, backends_help, "allocbench backends --help",
			argc, argv);
	parser.ctx = &cmd;
	while (cli_next(&parser) != -1)
		;
	if (optind < argc)
		usage_die("unexpected argument '%s' (see allocbench backends --help)", argv[optind]);
	if (report_backends_write(stdout, cmd.json, NULL, 0)) {
		if (!broken_pipe(errno))
			error("cannot write the list to standard output: %s",
			      strerror(errno ? errno : EIO));
		return 1;
	}
	return stdout_flush_check() ? 1 : 0;
}
