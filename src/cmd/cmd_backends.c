/*
 * cmd_backends.c - `allocbench backends`: every backend --backend knows,
 * whether it can run on this machine, and if not why (not installed, which
 * package installs it; a sanitizer build). Like every command file, it may
 * exit.
 */
#include "model/backends_list.h"
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "platform/util.h"

#include <errno.h>
#include <string.h>

static const struct cli_option backends_options[] = {
	CLI_OPT_FORMAT("text (default) or json"),
	CLI_OPT_HELP,
	CLI_OPTIONS_END,
};

static void backends_help(FILE *out)
{
	fputs(
"usage: allocbench backends [--format FORMAT]\n"
"\n"
"Lists every backend --backend knows (also: allocbench --backend list): the\n"
"built-in ones, then the third-party allocators, each looked up where the run\n"
"command looks for it; for each, whether it can be measured here and, if not,\n"
"why and which package installs it.\n"
"\n"
"Options:\n", out);
	cli_help_options(out, backends_options, 25);
	fputs(
"\n"
"Exit status: 0, 1 the list could not be written, 2 bad usage.\n", out);
}

static const char *const backends_formats[] = { "text", "json", NULL };

int cmd_backends(int argc, char **argv)
{
	struct cli_parser parser;
	int c, json = 0;

	cli_parser_init(&parser, backends_options, backends_help, "allocbench backends --help",
			argc, argv);
	while ((c = cli_next(&parser)) != -1) {
		switch (c) {
		case 'f':
			json = (int)cli_format_index(optarg, &backends_formats[0],
						     sizeof(backends_formats[0]), "");
			break;
		}
	}
	if (optind < argc)
		usage_die("unexpected argument '%s' (see allocbench backends --help)", argv[optind]);
	if (backends_list_write(stdout, json, NULL, 0)) {
		error("cannot write the list to standard output: %s", strerror(errno ? errno : EIO));
		return 1;
	}
	return stdout_flush_check() ? 1 : 0;
}
