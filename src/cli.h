/*
 * cli.h - the command line of `allocbench run`: getopt_long tables, the help
 * text and the checks that turn what the user typed into a struct run_config.
 * Like main.c, this module may exit: status 2 on bad usage, 0 after --help.
 */
#ifndef ALLOCBENCH_CLI_H
#define ALLOCBENCH_CLI_H

#include "run.h"

#include <stdio.h>

/* Prints the run command's help (the tool's main help) to OUT. */
void cli_run_help(FILE *out);

/*
 * Parses the run command's ARGV (ARGV[0] is the command name) into *CONFIG.
 * Exits with status 2 and a message naming the bad value on bad usage, and
 * with status 0 after --help or --version.
 */
void cli_parse_run(int argc, char **argv, struct run_config *config);

/*
 * Parses a --counters LIST (counters_parse_list()) into *LIST; exits with
 * status 2 and a message naming the bad item when it is malformed. An event
 * this machine cannot count is not malformed: it is reported, not refused.
 */
void cli_parse_counters(const char *text, struct counter_list *list);

struct option;

/*
 * Reports what getopt_long returned as C (':' or '?') for ARGV, parsed with
 * OPTSTRING and OPTIONS, and exits 2: a missing value, a value given to an
 * option that takes none, an unknown option (a short one named alone, even
 * inside a cluster such as -Zq), or an abbreviation of several long options
 * (listed), each naming it and pointing at HELP ("allocbench plot --help").
 */
_Noreturn void cli_option_error(int c, char **argv, const char *optstring,
				const struct option *options, const char *help);

/* Frees what cli_parse_run() allocated. */
void cli_config_release(struct run_config *config);

#endif
