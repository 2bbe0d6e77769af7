/*
 * main.c - allocbench's entry point: finds the subcommand and runs it.
 * `run` is the default, so `allocbench --sizes 4,40` measures.
 */
#include "cli.h"
#include "commands.h"
#include "compare.h"
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
	struct result_file baseline;
	struct output out;
	int ret;

	cli_parse_run(argc, argv, &config);
	/* An unusable baseline is refused before anything is measured. */
	if (config.baseline_path &&
	    compare_baseline_open(config.baseline_path, &config, &baseline)) {
		cli_config_release(&config);
		return 2;
	}
	if (output_open(&out, config.output_path)) {
		if (config.baseline_path)
			results_release(&baseline);
		cli_config_release(&config);
		return 2;
	}
	if (run_measure_all(&config, &report)) {
		output_abort(&out);
		run_report_release(&report);
		if (config.baseline_path)
			results_release(&baseline);
		cli_config_release(&config);
		return 1;
	}
	switch (config.format) {
	case FORMAT_JSON:
		ret = report_json_write(out.file, &report);
		break;
	case FORMAT_CSV:
		ret = report_csv_write(out.file, &report);
		break;
	case FORMAT_MARKDOWN:
		ret = report_markdown_write(out.file, &report);
		break;
	case FORMAT_TEXT:
	default:
		ret = report_text_write(out.file, &report);
		break;
	}
	if (ret) {
		error("cannot write the report");
		output_abort(&out);
	} else {
		ret = output_commit(&out);
	}
	ret = ret ? 1 : report.failed ? 1 : 0;
	/*
	 * The comparison goes to standard error, so that standard output (or
	 * -o) holds the report alone, in its format.
	 */
	if (config.baseline_path) {
		int cmp = compare_baseline_run(&baseline, &report, stderr);

		ret = cmp < 0 ? 2 : cmp ? 1 : ret;
		results_release(&baseline);
	}
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
	{ "compare", cmd_compare },
	{ "plot", cmd_plot },
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
			usage_die("unknown command '%s' (expected run, compare, plot or counters; "
				  "see allocbench --help)", argv[1]);
	}
	return cmd_run(argc, argv);
}
