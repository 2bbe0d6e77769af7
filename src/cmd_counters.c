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
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

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
"Options:\n"
"      --counters LIST    the events to check, as for the run command (default:\n"
"                         " COUNTERS_DEFAULT_PRESETS ",\n"
"                         allocbench)\n"
"  -f, --format FORMAT    text (default) or json\n"
"  -h, --help             print this help and exit\n"
"\n"
"Exit status: 0 (also when some events cannot be counted), 1 the report could\n"
"not be written, 2 bad usage.\n", out);
}

enum {
	OPT_COUNTERS = 256,
};

static const struct option counters_options[] = {
	{ "counters", required_argument, NULL, OPT_COUNTERS },
	{ "format", required_argument, NULL, 'f' },
	{ "help", no_argument, NULL, 'h' },
	{ 0, 0, 0, 0 },
};

/* The short options, for getopt_long and cli_option_error. */
static const char optstring[] = ":f:h";

int cmd_counters(int argc, char **argv)
{
	struct counters_check *check;
	struct counter_list list;
	int json = 0, c, ret;

	counters_default_list(&list);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, optstring, counters_options, NULL)) != -1) {
		switch (c) {
		case OPT_COUNTERS:
			cli_parse_counters(optarg, &list);
			break;
		case 'f':
			if (!strcmp(optarg, "text") || !strcmp(optarg, "json"))
				json = !strcmp(optarg, "json");
			else
				usage_die("invalid --format '%s' (expected text or json)", optarg);
			break;
		case 'h':
			counters_help(stdout);
			exit(stdout_flush_check() ? 1 : 0);
		default:
			cli_option_error(c, argv, optstring, counters_options,
					 "allocbench counters --help");
		}
	}
	if (optind < argc)
		usage_die("unexpected argument '%s' (see allocbench counters --help)", argv[optind]);

	check = malloc(sizeof(*check));
	if (!check)
		die(1, "out of memory");
	counters_check(&list, check);
	ret = json ? report_counters_check_json(stdout, check) :
		     report_counters_check_text(stdout, check);
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
