/*
 * cmd_counters.c - `allocbench counters`: every requested event, whether this
 * machine can count it, and if not why, in PAPI's own words, with a hint on
 * how to fix it. Like main.c and cli.c, a command's own file may exit.
 */
#include "cli.h"
#include "commands.h"
#include "counters.h"
#include "report_counters.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum {
	OPT_COUNTERS = 256,
};

static const struct cli_option counters_options[] = {
	CLI_OPT(OPT_COUNTERS, "counters", "LIST",
	  "the events to check, as for the run command (default:\n"
	  COUNTERS_DEFAULT_PRESETS ",\n"
	  "allocbench)"),
	CLI_OPT_FORMAT("text (default) or json"),
	CLI_OPT_HELP,
	CLI_OPTIONS_END,
};

static void counters_help(FILE *out)
{
	fputs(
"usage: allocbench counters [--counters LIST] [--format FORMAT]\n"
"\n"
"Says for every event whether this machine can count it through PAPI and, if\n"
"not, why (in PAPI's words: a component's disabled reason, an error) and how to\n"
"fix it where there is a way. The run command measures without the events it\n"
"cannot count.\n"
"\n"
"Options:\n", out);
	cli_help_options(out, counters_options, 25);
	fputs(
"\n"
"Exit status: 0 (also when some events cannot be counted), 1 the report could\n"
"not be written, 2 bad usage.\n", out);
}

/* The formats of --format, the default first: a new format is one entry. */
static const struct counters_writer counters_writers[] = {
	{ "text", report_counters_check_text },
	{ "json", report_counters_check_json },
	{ NULL, NULL },
};

int cmd_counters(int argc, char **argv)
{
	struct counters_check *check;
	struct counter_list list;
	struct cli_parser parser;
	const struct counters_writer *writer = &counters_writers[0];
	int c, ret;

	counters_default_list(&list);
	cli_parser_init(&parser, counters_options, counters_help, "allocbench counters --help",
			argc, argv);
	while ((c = cli_next(&parser)) != -1) {
		switch (c) {
		case OPT_COUNTERS:
			cli_parse_counters(optarg, &list);
			break;
		case 'f':
			writer = CLI_FORMAT(counters_writers, optarg, "");
			break;
		}
	}
	if (optind < argc)
		usage_die("unexpected argument '%s' (see allocbench counters --help)", argv[optind]);

	check = malloc(sizeof(*check));
	if (!check)
		die_out_of_memory();
	counters_check(&list, check);
	ret = writer->write(stdout, check);
	free(check);
	if (ret) {
		error("cannot write the report to standard output: %s",
		      strerror(errno ? errno : EIO));
		return 1;
	}
	if (stdout_flush_check())
		return 1;
	return 0;
}
