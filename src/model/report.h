/*
 * report.h - what a run measured, as every report format reads it: the
 * cells (one backend at one size, one sample per repetition), the floor,
 * the metrics computed from a sample, and the writers of the formats.
 * run.h's driver fills a struct run_report; the metric functions are
 * defined beside it, in run.c.
 */
#ifndef ALLOCBENCH_REPORT_H
#define ALLOCBENCH_REPORT_H

#include "platform/counters.h"
#include "model/figure.h"
#include "measure/measure.h"
#include "platform/probe.h"
#include "model/stats.h"

#include <stddef.h>

struct backend;
struct run_config;
struct stat_summary;
struct line_fit;

struct cell_loaded;
struct rerun;

/* The measurement of one backend at one size over every repetition. */
struct cell {
	const struct backend *backend;
	size_t size;                 /* bytes per chunk; random: 0, the sizes mix */
	size_t count;                /* chunks per measurement (random: most alive at once) */
	unsigned rounds;             /* churn, threads: rounds run */
	size_t align;                /* alignment used, bytes */
	int ok;                      /* every repetition succeeded */
	char error[200];             /* the first failure's reason when !ok */
	struct sample *samples;      /* one per repetition, config.repeat of them */
	unsigned repeat;             /* runs asked for: config.repeat, or 1 (preloaded_once) */
	unsigned runs;               /* samples taken (stops at the first failure) */
	unsigned tasks_ended;        /* its runs ended or skipped, for the progress */
	const struct cell_loaded *loaded; /* read back from JSON (show), or NULL */
};

/* The floor at one size: touching count*size bytes of one fresh mapping. */
struct floor_cell {
	size_t size;
	size_t count;
	int ok;
	char error[200];
	struct sample *samples;
	unsigned runs;
};

/* Everything a report needs. */
struct run_report {
	const struct run_config *config;
	struct host_info host;
	struct cell *cells;          /* nsizes * nbackends, size-major */
	size_t ncells;
	struct floor_cell *floors;   /* fill: one per size; other workloads: none */
	size_t nfloors;
	int failed;                  /* some cell failed */
	unsigned jobs;               /* measuring processes that ran at once (--jobs) */
	int interrupted;             /* SIGINT or SIGTERM stopped the run: the signal */
	struct counters_check counters; /* whether each --counters event was counted, or why not */
	const char *tool_version;    /* the version that measured, NULL: this binary's */
	const char *sanitizers;      /* that build's -fsanitize= list, NULL: this binary's */
	const char *abi32_program;   /* the 32-bit measuring program of --abi 32, NULL: none ran */
	const char *abi32_emulator;  /* ... the emulator that ran it, NULL: the kernel did */
	int answer_first;            /* text: advise's answer comes before the tables, the
					 verdict not after them (report_text_write()) */
	const struct rerun *rerun;   /* advise's real runs of the program (rerun.h), or NULL */
};

/*
 * The figures of a cell read back from a JSON report (report_load.h), which
 * keeps each figure's summary but not every reading it was computed from:
 * cell_summary() and breakdown_summary() return these instead of computing.
 */
#define CELL_LOADED_BREAKDOWNS 4  /* BREAKDOWN_COUNT (breakdown.h) */
struct cell_loaded {
	struct stat_summary metric[METRIC_COUNT];
	unsigned char have_metric[METRIC_COUNT];      /* 1: metric[m] was in the report */
	struct stat_summary breakdown[CELL_LOADED_BREAKDOWNS];
	unsigned char have_breakdown[CELL_LOADED_BREAKDOWNS];
};

/*
 * The value of METRIC for SAMPLE of CELL; FLOOR_NS is the floor's median ns
 * per chunk at the cell's size (METRIC_X_FLOOR only). Returns 0, or -1 when
 * the value does not exist (no floor; fragmentation with nothing alive at
 * the end).
 */
int metric_value(const struct cell *cell, const struct sample *sample,
		 enum metric metric, double floor_ns, double *out);

/*
 * METRIC of each of the cell's runs into VALUES (room for RUN_MAX_REPEAT):
 * x floor pairs each run with the floor's run of the same repetition.
 * Returns 0, or -1 when there is none.
 */
int cell_runs(const struct run_report *report, const struct cell *cell, enum metric metric,
	      double *values);

/* Summary of METRIC over the cell's runs; -1 when there is none. */
int cell_summary(const struct run_report *report, const struct cell *cell,
		 enum metric metric, struct stat_summary *out);

/* Index of the run whose overhead is the median: its RSS readings are reported. */
size_t cell_median_run(const struct cell *cell);

/* The floor's median ns per chunk at SIZE; -1 when it failed or is zero. */
int report_floor_ns(const struct run_report *report, size_t size, double *out);

/*
 * Of a row's SAMPLES (RUNS successful, then the failed one when !OK; room
 * for REPEAT), the last whose measuring process wrote on its standard error
 * (ERR 1) or output (ERR 0): its child_stderr or child_stdout holds the last
 * lines. NULL when none wrote anything there.
 */
/*
 * What the reports' first line adds to "median of N runs": ", the
 * preloaded allocators' once beside their real runs (...)" where rows
 * measured fewer runs (advise's preloaded_once), ", times measured N at a
 * time (--jobs)" when REPORT's measuring processes ran N > 1 at once; else
 * "". A static string.
 */
const char *report_runs_note(const struct run_report *report);

const struct sample *run_output_sample(const struct sample *samples, unsigned runs, int ok,
				       unsigned repeat, int err);

/*
 * The header's line on the 32-bit rows into BUF (SIZE bytes): how they were
 * measured, under which emulator, what they lack; "" without such rows.
 */
void report_abi_note(char *buf, size_t size, const struct run_report *report);

/* Page granularity of the overhead: one page spread over COUNT chunks, bytes. */
double resolution_bytes(const struct run_report *report, size_t count);

/*
 * The backend as the text table names it: its name, and for malloc served
 * by a third-party allocator (LD_PRELOAD=libjemalloc.so.2 allocbench
 * --backend malloc) what served it, "malloc (jemalloc 5.3.0)", so that its
 * figures are never read as the C library's.
 */
void report_backend_label(char *buf, size_t size, const struct cell *cell);

#endif
