/*
 * run.h - the run command: what the user asked for, what was measured, and
 * the driver that measures every (backend, size, repetition) in a fresh child.
 */
#ifndef ALLOCBENCH_RUN_H
#define ALLOCBENCH_RUN_H

#include "backend.h"
#include "measure.h"
#include "probe.h"
#include "stats.h"

#include <stdint.h>
#include <stdio.h>

#define RUN_DEFAULT_SIZES "4,40,400,4000,40000"
#define RUN_DEFAULT_BACKENDS "malloc,pool,pool-locked,arena"
#define RUN_DEFAULT_SEED 20120528
#define RUN_DEFAULT_TOTAL ((uint64_t)100 << 20)
#define RUN_DEFAULT_REPEAT 3
#define RUN_DEFAULT_POOL_BLOCK ((size_t)1 << 20)
#define RUN_MAX_REPEAT 1000

struct preload;
struct backend_skip;
struct report_writer;

/* Every option of the run command, as in effect. */
struct run_config {
	size_t *sizes;                     /* chunk sizes in bytes, owned */
	size_t nsizes;
	const struct backend **backends;   /* owned array of table entries */
	size_t nbackends;
	uint64_t total_bytes;              /* bytes allocated per measurement */
	unsigned repeat;                   /* fresh-process repetitions per cell */
	enum touch_policy touch;
	size_t align;                      /* pool/arena alignment; 0 = natural */
	size_t pool_block_bytes;           /* bytes per pool block */
	const struct report_writer *writer;  /* --format: how the report is written */
	const char *output_path;           /* -o FILE, or NULL for stdout */
	const char *baseline_path;         /* --baseline FILE to compare with, or NULL */
	int quiet;                         /* -q: no progress on stderr */
	enum workload workload;            /* --workload */
	unsigned rounds;                   /* churn, threads: --rounds; 0 = by size */
	uint64_t seed;                     /* random: --seed */
	unsigned threads;                  /* threads: --threads */
	struct counter_list counters;      /* --counters: events counted around the loops */
	int counters_given;                /* --counters was given (not the default list) */
	struct preload **preloads;         /* owned: backends run under LD_PRELOAD (preload.h) */
	size_t npreloads;
	struct backend_skip *skipped;      /* owned: what --backend all left out, and why */
	size_t nskipped;
	unsigned timeout_s;                /* --timeout: seconds per measuring process */
	int force;                         /* --force: run even above MemAvailable */
};

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
	unsigned runs;               /* samples taken (stops at the first failure) */
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
	int interrupted;             /* SIGINT or SIGTERM stopped the run: the signal */
	struct counters_check counters; /* whether each --counters event was counted, or why not */
};

/* Quantities a cell reports as {median, min, max, runs}. */
enum metric {
	METRIC_OVERHEAD_BYTES,   /* fill: (rss after - rss before) / count - size */
	METRIC_ALLOC_NS,         /* fill: ns per allocation (with touching) */
	METRIC_FREE_NS,          /* fill: ns per free */
	METRIC_PAGE_FAULTS,      /* minor faults in the allocation loop (churn: all rounds) */
	METRIC_FREE_PAGE_FAULTS, /* fill: minor faults in the free loop */
	METRIC_X_FLOOR,          /* fill: alloc_ns / the floor's median ns per chunk */
	METRIC_WARM_ALLOC_NS,    /* fill: ns per allocation, filling again warm */
	METRIC_WARM_FREE_NS,     /* fill: ns per free, warm */
	METRIC_WARM_PAGE_FAULTS, /* fill: minor faults in the warm allocation loop */
	METRIC_CHURN_NS,         /* churn: ns per create+destroy pair, warm rounds */
	METRIC_CHURN_COLD_NS,    /* churn: ns per pair, first round */
	METRIC_OP_NS,            /* random: ns per operation */
	METRIC_PEAK_RSS_BYTES,   /* random: peak resident set growth */
	METRIC_FRAGMENTATION,    /* random: RSS growth / live bytes at the end */
	METRIC_OPS_PER_S,        /* threads: swaps per second, all threads */
	METRIC_OPS_PER_S_PER_THREAD, /* threads: ops_per_s / threads */
	METRIC_OPS_PER_S_1THREAD,    /* threads: swaps per second with one thread */
	METRIC_SPEEDUP,          /* threads: ops_per_s / ops_per_s_1thread */
	METRIC_COUNT
};

/* 1 when METRIC is reported for WORKLOAD. */
int metric_applies(enum metric metric, enum workload workload);

/* The JSON name of METRIC. */
const char *metric_name(enum metric metric);

/*
 * The value of METRIC for SAMPLE of CELL; FLOOR_NS is the floor's median ns
 * per chunk at the cell's size (METRIC_X_FLOOR only). Returns 0, or -1 when
 * the value does not exist (no floor; fragmentation with nothing alive at
 * the end).
 */
int metric_value(const struct cell *cell, const struct sample *sample,
		 enum metric metric, double floor_ns, double *out);

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
const struct sample *run_output_sample(const struct sample *samples, unsigned runs, int ok,
				       unsigned repeat, int err);

/* Page granularity of the overhead: one page spread over COUNT chunks, bytes. */
double resolution_bytes(const struct run_report *report, size_t count);

/*
 * Runs every measurement CONFIG asks for and fills *REPORT. A failed
 * measurement is recorded in its cell (REPORT->failed set) and the others
 * still run. After SIGINT or SIGTERM (runner_signals_install()) it stops at
 * once, sets REPORT->interrupted to the signal and returns 0: the report is
 * incomplete and must not be written. The counters are checked first (counters_check()); one that
 * cannot be counted only gets its reason in REPORT->counters. Returns 0, or
 * -1 when nothing could be measured (no memory).
 */
int run_measure_all(const struct run_config *config, struct run_report *report);

/* The mean of the random workload's sizes, rounded up: the budget per live chunk. */
size_t run_mix_mean_size(const struct run_config *config);

/*
 * What the measuring process itself may hold besides the measurement: the
 * program and its libraries, PAPI's set-up, the private heap (heap.h). Its
 * peak resident set at --total 4K reads 5 to 7 MiB here.
 */
#define RUN_PROCESS_BYTES ((uint64_t)32 << 20)

/*
 * An upper bound of the memory one measuring process of CONFIG with BACKEND
 * at SIZE (random: any; the whole mix is used) holds at its peak, in bytes,
 * itself included (run.c says how); UINT64_MAX when it cannot be represented
 * in 64 bits. Reported per row as memory_bound_bytes beside the process's
 * real peak, and tested against it for every backend and workload.
 */
uint64_t run_bound_bytes(const struct run_config *config, const struct backend *backend,
			 size_t size);

/* The largest bound a measurement may have: x86-64's 47-bit user address space. */
#define RUN_MAX_BOUND_BYTES ((uint64_t)1 << 47)

/*
 * The largest run_bound_bytes() of CONFIG. run_measure_all() does not check
 * it; the run command compares it with MemAvailable before measuring.
 * Stores the size that needs it in *SIZE (0 for the random workload's mix).
 */
uint64_t run_estimate_bytes(const struct run_config *config, size_t *size);

/* Frees what run_measure_all() allocated. */
void run_report_release(struct run_report *report);

/* The report writers: return 0, or -1 when writing fails. */
int report_text_write(FILE *out, const struct run_report *report);
int report_json_write(FILE *out, const struct run_report *report);
int report_csv_write(FILE *out, const struct run_report *report);
int report_markdown_write(FILE *out, const struct run_report *report);

/* A format of the report, as --format names it. */
struct report_writer {
	const char *name;
	int (*write)(FILE *out, const struct run_report *report);
};

#endif
