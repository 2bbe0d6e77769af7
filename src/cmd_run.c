/*
 * cmd_run.c - `allocbench [run]`, the default command: parses the options,
 * refuses what cannot run (no /proc, more memory than is available, an
 * unusable --baseline), measures (run.h), writes the report in its format
 * and, with --baseline, compares it with the baseline as compare does.
 * Exit status: 0, 1 a measurement failed or a regression, 2 bad usage,
 * 128+N after signal N. Like every command file, it may exit.
 */
#include "cli.h"
#include "commands.h"
#include "compare.h"
#include "output.h"
#include "probe.h"
#include "results.h"
#include "run.h"
#include "runner.h"
#include "util.h"
#include "workloads.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * Refuses (returns -1 after saying why) a run whose largest measurement
 * needs more memory than the machine has available: it would be killed by
 * the OOM killer after minutes, or push the machine into swap and measure
 * that. Without MemAvailable (no /proc) the check is skipped with a warning.
 */
static int check_memory(const struct run_config *config)
{
	uint64_t available, need;
	size_t size;

	if (probe_meminfo_read("/proc/meminfo", "MemAvailable", &available)) {
		warning("cannot read MemAvailable from '/proc/meminfo': the memory a "
			"measurement needs is not checked");
		return 0;
	}
	need = run_estimate_bytes(config, &size);
	if (need <= available)
		return 0;
	if (size)
		return error("--total %llu bytes needs about %llu MiB at size %zu (the chunks, "
			     "their 8-byte pointers and the allocator's overhead), more than "
			     "the %llu MiB available (MemAvailable); use a smaller --total, or "
			     "--force to measure anyway", (unsigned long long)config->total_bytes,
			     (unsigned long long)(need >> 20), size,
			     (unsigned long long)(available >> 20));
	return error("--total %llu bytes needs about %llu MiB (the chunks of the mix, their "
		     "8-byte pointers, the plan and the allocator's overhead), more than the "
		     "%llu MiB available (MemAvailable); use a smaller --total, or --force to "
		     "measure anyway", (unsigned long long)config->total_bytes,
		     (unsigned long long)(need >> 20), (unsigned long long)(available >> 20));
}

/*
 * After a terminating signal: nothing is written, and the status says which
 * (main() then ends the process by the signal). SIGPIPE, a reader that went
 * away, is as silent as its default action.
 */
static int interrupted_status(int sig, const struct run_config *config)
{
	if (sig == SIGPIPE)
		return 128 + sig;
	error("interrupted by SIG%s: the measuring process was stopped and no report "
	      "was written%s%s%s", sigabbrev_np(sig), config->output_path ? " ('" : "",
	      config->output_path ? config->output_path : "",
	      config->output_path ? "' is left as it was)" : "");
	return 128 + sig;
}

/* --baseline: the comparison after a run, as compare makes it. */

/* The settings a run with CONFIG will record, as report_json.c records them. */
static void settings_of_config(const struct run_config *config, struct compare_settings *out)
{
	memset(out, 0, sizeof(*out));
	out->workload = workload_name(config->workload);
	out->total_bytes = config->total_bytes;
	out->touch = touch_name(config->touch);
	if (config->align)
		snprintf(out->align, sizeof(out->align), "%zu", config->align);
	else
		copy_string(out->align, sizeof(out->align), "natural");
	out->pool_block_bytes = (double)config->pool_block_bytes;
	out->sanitizers = ALLOCBENCH_SANITIZE;
	out->threads = out->seed = -1;
	/* As report_json.c records them, per workload. */
	if (config->workload == WORKLOAD_CHURN || config->workload == WORKLOAD_THREADS) {
		if (config->rounds)
			snprintf(out->rounds, sizeof(out->rounds), "%u", config->rounds);
		else
			copy_string(out->rounds, sizeof(out->rounds), "auto");
	}
	if (config->workload == WORKLOAD_THREADS)
		out->threads = config->threads;
	if (config->workload == WORKLOAD_RANDOM) {
		size_t used = 0;

		out->seed = (double)config->seed;
		for (size_t i = 0; i < config->nsizes && used < sizeof(out->sizes); i++)
			used += (size_t)snprintf(out->sizes + used, sizeof(out->sizes) - used,
						 "%s%zu", i ? "," : "", config->sizes[i]);
	}
}

/*
 * Reads REPORT back as a result file named NAME, through its JSON, so that a
 * run compares exactly as its written report would. Returns 0, or -1 after
 * an error.
 */
static int load_report(const struct run_report *report, const char *name,
		       struct result_file *out)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int ret;

	if (!f)
		return error("out of memory");
	ret = report_json_write(f, report);
	if (fclose(f) || ret) {
		free(text);
		return error("cannot serialise this run's report");
	}
	ret = results_load_buffer(name, text, len, out);
	free(text);
	return ret;
}

/* Whether a run with CONFIG measures ROW's backend and size. */
static int measures(const struct run_config *config, const struct result_row *row)
{
	int size_found = config->workload == WORKLOAD_RANDOM && row->size == 0;

	for (size_t i = 0; i < config->nsizes && !size_found; i++)
		size_found = config->sizes[i] == row->size;
	if (!size_found)
		return 0;
	for (size_t i = 0; i < config->nbackends; i++)
		if (!strcmp(config->backends[i]->name, row->backend))
			return 1;
	return 0;
}

/*
 * Before measuring: loads the report at PATH into *BASELINE and checks it
 * as compare would (its rows, that a run with CONFIG measures the same way,
 * and that it measures every row of the baseline). Returns 0, or -1 after
 * an error naming the file and the problem, with nothing to release.
 */
static int baseline_open(const char *path, const struct run_config *config,
			 struct result_file *baseline)
{
	struct compare_settings wanted_settings, settings;
	struct compare_options options;
	struct comparison self;

	if (results_load(path, baseline))
		return -1;
	settings_of_config(config, &wanted_settings);
	compare_options_init(&options);
	/* Comparing the baseline with itself checks every row as the real comparison will. */
	if (compare_settings_of_file(baseline, &settings) ||
	    compare_settings_check(&settings, baseline->path, &wanted_settings, "this run") ||
	    compare_reports(baseline, baseline, &options, &self)) {
		results_release(baseline);
		return -1;
	}
	comparison_release(&self);
	for (size_t i = 0; i < baseline->nrows; i++) {
		const struct result_row *row = &baseline->rows[i];

		if (measures(config, row))
			continue;
		error("'%s': results[%zu] (%s, %llu B) is not measured by this run: add it to "
		      "--sizes and --backend, or record a new baseline", baseline->path, i,
		      row->backend, (unsigned long long)row->size);
		results_release(baseline);
		return -1;
	}
	return 0;
}

/*
 * After measuring: compares REPORT with BASELINE under the default options
 * and writes the text comparison to OUT. Returns 0 (no regression), 1 (a
 * regression), or -1 after an error.
 */
static int baseline_compare(struct result_file *baseline, const struct run_report *report,
			    FILE *out)
{
	struct compare_options options;
	struct result_file current;
	struct comparison comparison;
	int ret;

	if (load_report(report, "this run", &current))
		return -1;
	compare_options_init(&options);
	if (compare_reports(baseline, &current, &options, &comparison)) {
		results_release(&current);
		return -1;
	}
	ret = compare_write_text(out, &comparison);
	if (!ret)
		ret = comparison.regression ? 1 : 0;
	else
		error("cannot write the comparison");
	comparison_release(&comparison);
	results_release(&current);
	return ret;
}

int cmd_run(int argc, char **argv)
{
	struct run_config config;
	struct run_report report;
	struct result_file baseline;
	struct output out;
	int have_baseline = 0, have_report = 0, have_output = 0;
	int ret;

	cli_parse_run(argc, argv, &config);
	/* Every measurement execs /proc/self/exe: without /proc, say so once, up front. */
	if (access("/proc/self/exe", X_OK)) {
		error("cannot run the measuring processes: '/proc/self/exe': %s (is /proc "
		      "mounted?)", strerror(errno));
		ret = 2;
		goto cleanup;
	}
	ret = 2;
	if (!config.force && check_memory(&config))
		goto cleanup;
	/* Before -o's temporary file exists, so that an interrupt can remove it. */
	ret = 1;
	if (runner_signals_install())
		goto cleanup;
	/* An unusable baseline is refused before anything is measured. */
	ret = 2;
	if (config.baseline_path) {
		if (baseline_open(config.baseline_path, &config, &baseline))
			goto cleanup;
		have_baseline = 1;
	}
	if (output_open(&out, config.output_path)) {
		/* A signal while a FIFO waits for its reader is an interrupt, not bad usage. */
		if (runner_interrupted())
			ret = interrupted_status(runner_interrupted(), &config);
		goto cleanup;
	}
	have_output = 1;
	ret = run_measure_all(&config, &report);
	have_report = 1;
	if (ret) {
		ret = 1;
		goto cleanup;
	}
	if (report.interrupted) {
		ret = interrupted_status(report.interrupted, &config);
		goto cleanup;
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
	if (runner_interrupted()) {
		/* Too late to stop a child, in time to keep -o as it was. */
		ret = interrupted_status(runner_interrupted(), &config);
		goto cleanup;
	}
	if (ret) {
		error("cannot write the report to %s: %s", config.output_path ? config.output_path :
		      "standard output", strerror(errno ? errno : EIO));
		output_abort(&out);
	} else {
		ret = output_commit(&out);
	}
	have_output = 0;
	ret = ret ? 1 : report.failed ? 1 : 0;
	/*
	 * The comparison goes to standard error, so that standard output (or
	 * -o) holds the report alone, in its format.
	 */
	if (have_baseline) {
		int cmp = baseline_compare(&baseline, &report, stderr);

		ret = cmp < 0 ? 2 : cmp ? 1 : ret;
	}
cleanup:
	if (have_output)
		output_abort(&out);
	if (have_report)
		run_report_release(&report);
	if (have_baseline)
		results_release(&baseline);
	cli_config_release(&config);
	return ret;
}
