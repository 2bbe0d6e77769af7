/*
 * compare.h - compares two allocbench reports row by row, for the CI gate:
 * matching rows, the overhead tolerance, the rank test on the times, and a
 * verdict for each row. The functions return errors and never exit: the
 * compare command and run --baseline decide what a failure means.
 *
 * Overhead: a row regressed when the current median exceeds the baseline's
 * by more than a tolerance. By default the tolerance is derived from the
 * measurement itself: COMPARE_TOLERANCE_PAGES pages over the count (the
 * larger resolution_bytes of the two rows: one page for where the chunks
 * start within a page, one for the allocator's one-time set-up), plus the
 * baseline's min-max spread. Two runs of one build cannot differ by more, and
 * 1 byte more per 40-byte chunk is 640 pages at 100 MiB.
 *
 * Time (alloc_ns, free_ns): a row regressed only when its median rose by
 * more than max_time_percent AND by more than the baseline's own min-max
 * spread AND the one-sided Mann-Whitney U test on the per-run values says
 * the current is slower at p < alpha after Holm's correction over every
 * time test of the comparison (the family-wise rate of false regressions is
 * then at most alpha); the decision is stats_differ()'s. A time enters the
 * family only where its runs can pass the correction at all: 1 / C(nb + nc,
 * nb) < alpha / m, m the times with runs on both sides. With fewer runs, the
 * time is reported but not tested, and gating is on the overhead alone.
 *
 * Each workload has its own gated metrics (compare_workload_metrics(), from
 * figure.h's workload and figure tables):
 *   fill     overhead_bytes and marginal_bytes (bytes per chunk, the same
 *            tolerance; marginal_bytes is not gated where a report older
 *            than it lacks the figure), alloc_ns, free_ns (times);
 *   churn    churn_ns, churn_cold_ns (times), page_faults (a count: two
 *            faults and 1% of the baseline's on top of its spread: the
 *            process's own pages move it by one now and then) and
 *            reserved_bytes (exact: gated where every run of both sides
 *            agrees, as it does for a deterministic backend);
 *   random   peak_rss_bytes (bytes per measurement: two pages plus the
 *            baseline's spread), fragmentation (RSS over live bytes: two
 *            pages over the live bytes plus the spread), op_ns (time); the
 *            sequence checksums must match or nothing is compared;
 *   threads  ops_per_s and speedup (rates: lower is worse, rank-tested).
 * A row only in the baseline ("missing") is a regression of the gate's
 * coverage unless allow_missing is set, and a current report with no row in
 * common with the baseline is one too.
 */
#ifndef ALLOCBENCH_COMPARE_H
#define ALLOCBENCH_COMPARE_H

#include "model/figure.h"
#include "model/stats.h"
#include "report/results.h"

#include <stddef.h>
#include <stdint.h>

/* Written as the help prints them (cmd_compare.c quotes each literal). */
#define COMPARE_DEFAULT_ALPHA 0.05
#define COMPARE_DEFAULT_MAX_TIME_PERCENT 10
#define COMPARE_TOLERANCE_PAGES 2

/* What the comparison of a row or of one of its metrics found. */
enum compare_verdict {
	COMPARE_UNCHANGED,
	COMPARE_IMPROVED,
	COMPARE_REGRESSED,
	COMPARE_MISSING,   /* the row is only in the baseline */
	COMPARE_NEW,       /* only in the current report, or failed in the baseline */
	COMPARE_FAILED,    /* failed in the current report: a regression unless it
			      failed in the baseline too */
	COMPARE_NVERDICTS
};


/* One gated metric of a workload, in the order shown (figure.h's, and the bytes reserved). */
struct compare_metric_def {
	const char *name;    /* the report's field */
	const char *label;   /* text and Markdown */
	int decimals;        /* of the medians and the change */
	enum figure_compare rule;
	int optional;        /* 1: absent from older reports (marginal_bytes, new after
				0.1.0): not gated where either side lacks it */
};

#define COMPARE_MAX_METRICS 4

struct compare_options {
	double max_overhead;          /* --max-overhead; < 0 (default): derive it */
	int max_overhead_percent;     /* max_overhead is a percentage of the baseline's
					 bytes per chunk (size + overhead median) */
	double max_time_percent;      /* smallest rise of a time median that counts, percent */
	double alpha;                 /* family-wise level of the one-sided U tests */
	int allow_missing;            /* a row only in the baseline is not a regression */
	int gate_time;                /* gate times and rates (--gate-time): measured at
					 other moments they drift, so only when asked */
	int allow_host_change;        /* ... across hosts too (implies gate_time) */
	char **backends;              /* compare only these backends; NULL: all */
	size_t nbackends;
	size_t backends_alloc;        /* room in backends (ALLOC_GROW) */
};

/* Fills *OPTIONS with the defaults: derived tolerance, 10%, alpha 0.05, all backends. */
void compare_options_init(struct compare_options *options);

/* The settings two reports must share to be compared. */
struct compare_settings {
	const char *workload;     /* config.workload */
	uint64_t total_bytes;     /* config.total_bytes */
	const char *touch;        /* config.touch */
	char align[32];           /* config.align: "natural" or bytes; "" when absent */
	double pool_block_bytes;  /* config.pool_block_bytes; < 0 when absent */
	const char *sanitizers;   /* tool.sanitizers; NULL when absent */
	char rounds[32];          /* config.rounds: "auto" or a number; "" when absent */
	double threads;           /* config.threads; < 0 when absent */
	double seed;              /* config.seed; < 0 when absent */
	char sizes[256];          /* random: config.sizes, the mix; "" otherwise */
	char weights[256];        /* random: config.weights, "" when unweighted */
	unsigned jobs;            /* config.jobs: measuring processes at once; 1 when absent */
	const char *replay_threads; /* replay: config.replay.threads_mode, "global" or
				       "per-thread"; NULL when absent */
	char trace[160];          /* replay: what the trace holds (compare_settings_trace());
				     "" when absent */
};

/*
 * Fills OUT->trace with what identifies a replay's trace, whatever its
 * path: its calls, the steps replayed, its threads and its peak of live bytes.
 */
void compare_settings_trace(struct compare_settings *out, uint64_t calls, uint64_t steps,
			    uint64_t threads, uint64_t peak_live_bytes);

/*
 * Reads the settings of FILE into *OUT (pointing into FILE). Returns 0, or
 * -1 after an error naming the file when config.total_bytes or config.touch
 * is missing: without them nothing says what the figures mean.
 */
int compare_settings_of_file(const struct result_file *file, struct compare_settings *out);

/*
 * Checks that BASELINE and CURRENT (named BASELINE_NAME, CURRENT_NAME in the
 * message) were measured the same way: workload, total, touch policy,
 * alignment, pool block, sanitizers, rounds, threads, the random seed and
 * mix, a replay's thread mode and trace (all but the first three when both
 * record them). Returns 0, or -1 after an error that names the setting and both
 * values.
 */
int compare_settings_check(const struct compare_settings *baseline, const char *baseline_name,
			   const struct compare_settings *current, const char *current_name);

/* Told a setting two reports record differently: its name and both values, as text. */
typedef void compare_setting_fn(void *ctx, const char *setting, const char *baseline,
				const char *current);

/*
 * Calls FN(CTX, ...) for each setting compare_settings_check() checks that
 * BASELINE and CURRENT record differently, in its order: SETTING as its
 * message names it ("total (--total)"), and both values ("1048576
 * bytes"), valid during the call. For a series of reports (history).
 */
void compare_settings_differences(const struct compare_settings *baseline,
				  const struct compare_settings *current,
				  compare_setting_fn *fn, void *ctx);

/*
 * One thing the two reports record differently: the allocator of a backend
 * (name or version), the host (CPU, kernel, C library, page size,
 * transparent huge pages, ...) or the build (compiler, flags).
 */
struct compare_change {
	char what[64];            /* "kernel", "allocator of malloc", "build flags" */
	char baseline[256];       /* the baseline's value (build flags: those only it has) */
	char current[256];        /* the current's */
	int host;                 /* 1: another host: its times are another machine's */
};

#define COMPARE_MAX_CHANGES 16

/* One metric of a matched row. */
struct compare_metric {
	double baseline;          /* median, in the metric's unit */
	double current;           /* median */
	double change;            /* current - baseline */
	double change_percent;    /* 100 * change / |baseline|; 0 when the baseline is 0
				     (null in the JSON) */
	enum compare_verdict verdict;
	/* overhead_bytes */
	double tolerance_bytes;   /* the tolerance in force, bytes per chunk */
	double derived_bytes;     /* the derived tolerance (pages + spread), always computed */
	int from_option;          /* 1: --max-overhead set the tolerance */
	/* times and rates */
	size_t baseline_runs;     /* per-run values available */
	size_t current_runs;
	int have_p;               /* the U test ran (both sides have runs) */
	int tested;               /* ... and can reach p < alpha with these runs;
				     exact counts: every run of both sides agrees */
	int exact;                /* its p-values are exact */
	int not_asked;            /* not tested: times are gated with gate_time only */
	int other_jobs;           /* not tested: the reports ran different --jobs */
	int other_host;           /* not tested: the reports come from different hosts
				     (without allow_host_change) */
	int absent;               /* an optional metric one side lacks: not compared */
	double p_slower;          /* one-sided p that the current is slower */
	double p_faster;          /* one-sided p that the current is faster */
	double q_slower;          /* p_slower after Holm's correction over the comparison's
				     time tests (p_slower where not tested) */
	double q_faster;          /* p_faster, corrected likewise */
	int candidate;            /* a time or rate with runs on both sides, same --jobs:
				     tested when its runs can pass the correction */
	struct stats_difference diff; /* times and rates: the evidence decided on */
};

/* One row: a (workload, backend, size) of either report. */
struct compare_row {
	const char *workload;
	const char *backend;
	uint64_t size;                       /* bytes per chunk */
	const struct result_row *baseline;   /* NULL when only in the current report */
	const struct result_row *current;    /* NULL when only in the baseline */
	enum compare_verdict verdict;        /* the worst of its metrics, or missing/new/failed */
	const struct compare_metric_def *defs; /* its workload's metrics */
	size_t nmetrics;
	struct compare_metric metrics[COMPARE_MAX_METRICS];  /* valid when both rows are ok */
};

struct comparison {
	struct result_file *baseline;
	struct result_file *current;
	struct compare_options options;
	struct compare_settings settings;     /* the shared settings (the baseline's) */
	unsigned current_jobs;                /* the current report's config.jobs */
	struct compare_row *rows;             /* baseline order, then rows new in the current */
	size_t nrows;
	size_t verdicts[COMPARE_NVERDICTS];   /* rows with each verdict */
	size_t time_tested;                   /* time metrics the U test gated: the family
						 Holm's correction ran over */
	size_t time_untested;                 /* time metrics it could not (too few runs
						 to pass the correction) */
	size_t absent;                        /* optional metrics one side lacks, not gated */
	size_t time_not_asked;                /* time metrics not gated: no gate_time */
	size_t time_other_jobs;               /* time metrics not gated: the reports ran
						 different --jobs */
	size_t time_other_host;               /* ... measured on different hosts */
	struct compare_change changes[COMPARE_MAX_CHANGES]; /* what the reports record
						 differently, host first */
	size_t nchanges;
	int host_changed;                     /* a change of the host among them */
	size_t min_runs;                      /* runs on each side a test needs to pass
						 the correction at alpha */
	int regression;                       /* a row regressed, failed where the
						 baseline's did not, or is missing
						 (without allow_missing) */
	size_t in_common;                     /* rows in both reports */
};

/*
 * Compares CURRENT against BASELINE (both loaded with results_load) under
 * OPTIONS into *OUT, which points into both files: release the comparison
 * before them. Checks the settings first. Returns 0, or -1 after an error
 * that names the file and the problem: different settings, a row repeated
 * in one file, an ok row without one of its workload's metrics (or, for
 * fill, resolution_bytes; for random, live_bytes and checksum), different
 * random sequences, a --backend that matches no row.
 */
int compare_reports(struct result_file *baseline, struct result_file *current,
		    const struct compare_options *options, struct comparison *out);

/*
 * For compare_reports() (compare_settings.c): adds to C's changes what its
 * reports record differently of the host and the build (before the rows
 * are matched: a change of host decides whether times are tested), and of
 * each backend's allocator (after: it is read from the matched rows).
 * The first needs only C->baseline and C->current: history calls it too.
 */
void compare_find_host_changes(struct comparison *c);
void compare_find_allocator_changes(struct comparison *c);

/* Frees what compare_reports() allocated. */
void comparison_release(struct comparison *comparison);

/* "regressed", "improved", "unchanged", "missing", "new", "failed". */
const char *compare_verdict_name(enum compare_verdict verdict);

#endif
