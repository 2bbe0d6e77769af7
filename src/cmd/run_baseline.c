/*
 * run_baseline.c - run --baseline FILE (run_baseline.h): the baseline
 * checked before measuring, and the comparison after, as compare makes it.
 */
#include "cmd/run_baseline.h"
#include "report/report_formats.h"
#include "report/compare.h"
#include "model/report.h"
#include "report/report_compare.h"
#include "report/results.h"
#include "model/run.h"
#include "platform/util.h"
#include "measure/backend.h"
#include "measure/workloads.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	if (config->workload == WORKLOAD_REPLAY) {
		out->replay_threads = config->replay_per_thread ? "per-thread" : "global";
		compare_settings_trace(out, config->replay.calls, config->replay.steps,
				       config->replay.threads, config->replay.peak_live_bytes);
	}
	if (config->workload == WORKLOAD_RANDOM) {
		size_t used = 0;

		out->seed = (double)config->seed;
		for (size_t i = 0; i < config->nsizes && used < sizeof(out->sizes); i++)
			used += (size_t)snprintf(out->sizes + used, sizeof(out->sizes) - used,
						 "%s%zu", i ? "," : "", config->sizes[i]);
		used = 0;
		for (size_t i = 0; config->weights && i < config->nsizes &&
		     used < sizeof(out->weights); i++)
			used += (size_t)snprintf(out->weights + used, sizeof(out->weights) - used,
						 "%s%u", i ? "," : "", config->weights[i]);
	}
}

/* Whether a run with CONFIG measures ROW's backend and size. */
static int measures(const struct run_config *config, const struct result_row *row)
{
	int size_found = workload_one_column(config->workload) && row->size == 0;

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
int baseline_open(const char *path, const struct run_config *config,
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
 * (times with GATE_TIME, across hosts too with ALLOW_HOST_CHANGE, as compare
 * --gate-time and --allow-host-change) and writes the text comparison to OUT. Returns 0 (no regression), 1 (a
 * regression), or -1 after an error.
 */
int baseline_compare(struct result_file *baseline, const struct run_report *report,
		     int gate_time, int allow_host_change, FILE *out)
{
	struct compare_options options;
	struct result_file current;
	struct comparison comparison;
	int ret;

	/* The document its JSON report holds, so that it compares exactly as that would. */
	if (results_load_tree("this run", report_json_document(report), &current))
		return -1;
	compare_options_init(&options);
	options.gate_time = gate_time;
	options.allow_host_change = allow_host_change;
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
