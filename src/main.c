/*
 * main.c - allocbench's entry point: finds the subcommand and runs it.
 * `run` is the default, so `allocbench --sizes 4,40` measures.
 */
#include "cli.h"
#include "output.h"
#include "run.h"
#include "runner.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

static int cmd_run(int argc, char **argv)
{
	struct run_config config;
	struct run_report report;
	struct output out;
	int ret;

	cli_parse_run(argc, argv, &config);
	if (output_open(&out, config.output_path)) {
		cli_config_release(&config);
		return 2;
	}
	if (run_measure_all(&config, &report)) {
		output_abort(&out);
		run_report_release(&report);
		cli_config_release(&config);
		return 1;
	}
	ret = config.format == FORMAT_JSON ? report_json_write(out.file, &report) :
					      report_text_write(out.file, &report);
	if (ret) {
		error("cannot write the report");
		output_abort(&out);
	} else {
		ret = output_commit(&out);
	}
	ret = ret ? 1 : report.failed ? 1 : 0;
	run_report_release(&report);
	cli_config_release(&config);
	return ret;
}

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
};

static const struct command commands[] = {
	{ "run", cmd_run },
	{ "counters", cmd_counters },
	{ RUNNER_CHILD_COMMAND, runner_child_main },
};

int main(int argc, char **argv)
{
	if (argc > 1) {
		for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
			if (!strcmp(argv[1], commands[i].name))
				return commands[i].fn(argc - 1, argv + 1);
		if (argv[1][0] != '-')
			usage_die("unknown command '%s' (expected run or counters; see allocbench --help)",
				  argv[1]);
	}
	return cmd_run(argc, argv);
}
