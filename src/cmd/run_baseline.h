/*
 * run_baseline.h - run --baseline FILE: a saved JSON report checked before
 * anything is measured, then compared with this run's report as
 * allocbench compare does under its default limits. Returns errors; the
 * command decides the exit status.
 */
#ifndef ALLOCBENCH_RUN_BASELINE_H
#define ALLOCBENCH_RUN_BASELINE_H

#include <stdio.h>

struct result_file;
struct run_config;
struct run_report;

/*
 * Before measuring: loads the report at PATH into *BASELINE and checks it
 * as compare would (its rows, that a run with CONFIG measures the same way,
 * and that it measures every row of the baseline). Returns 0 (release
 * *BASELINE with results_release()), or -1 after an error naming the file
 * and the problem, with nothing to release.
 */
int baseline_open(const char *path, const struct run_config *config,
		  struct result_file *baseline);

/*
 * After measuring: compares REPORT with BASELINE under the default options
 * (times with GATE_TIME, across hosts too with ALLOW_HOST_CHANGE, as compare
 * --gate-time and --allow-host-change) and writes the text comparison to OUT. Returns 0 (no regression), 1 (a
 * regression), or -1 after an error.
 */
int baseline_compare(struct result_file *baseline, const struct run_report *report,
		     int gate_time, int allow_host_change, FILE *out);

#endif
