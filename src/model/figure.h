/*
 * figure.h - one definition of each figure a run reports and of each
 * workload: the JSON name, the units, the column, the verdict aspect, the
 * plot label, the compare rule, how the runs combine. The report writers,
 * the table columns, the verdict and the reader (report_load.c) loop over
 * these tables; a figure's JSON name is spelt here and nowhere else.
 */
#ifndef ALLOCBENCH_FIGURE_H
#define ALLOCBENCH_FIGURE_H

#include "measure/measure.h"

#include <stddef.h>

/* Quantities a cell reports as {median, min, max, runs}, in the JSON's order. */
enum metric {
	METRIC_OVERHEAD_BYTES,   /* fill: (rss after - rss before) / count - size */
	METRIC_MARGINAL_BYTES,   /* fill: the growth's slope - size: one more chunk (sample_fit()) */
	METRIC_ONE_TIME_BYTES,   /* fill: the growth's intercept: paid once per measurement */
	METRIC_LINEARITY_BYTES,  /* fill: the largest distance of a reading from the line */
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
	METRIC_OP_NS,            /* random, replay: ns per operation */
	METRIC_PEAK_RSS_BYTES,   /* random, replay: peak resident set growth */
	METRIC_FRAGMENTATION,    /* random: RSS growth / live bytes at the end;
				    replay: peak RSS / peak live bytes */
	METRIC_SETUP_BYTES,      /* replay: the allocator's set-up, in peak RSS */
	METRIC_LOW_RSS_BYTES,    /* replay: the lowest resident after the live bytes' peak */
	METRIC_END_RSS_BYTES,    /* replay: the resident at the replay's end */
	METRIC_OPS_PER_S,        /* threads: swaps per second, all threads */
	METRIC_OPS_PER_S_PER_THREAD, /* threads: ops_per_s / threads */
	METRIC_OPS_PER_S_1THREAD,    /* threads: swaps per second with one thread */
	METRIC_SPEEDUP,          /* threads: ops_per_s / ops_per_s_1thread */
	METRIC_COUNT
};

/* What a verdict judges a figure as. */
enum figure_aspect {
	FIGURE_ASPECT_NONE,   /* not judged */
	FIGURE_MEMORY,        /* bytes: lower is better */
	FIGURE_TIME,          /* a time: lower is better */
	FIGURE_RATE,          /* a rate or a speed-up: higher is better */
};

/* How the tables show a figure's median. */
enum figure_display {
	FIGURE_SHOW_ADAPTIVE, /* three significant digits at least */
	FIGURE_SHOW_FIXED2,   /* two decimals */
	FIGURE_SHOW_WHOLE,    /* a whole number */
};

/* The rule compare applies to a figure (report/compare.h says each in full). */
enum figure_compare {
	FIGURE_COMPARE_NONE,  /* not gated */
	FIGURE_COMPARE_BYTES, /* bytes per chunk: pages over the count + spread */
	FIGURE_COMPARE_RSS,   /* bytes per measurement: pages + spread */
	FIGURE_COMPARE_RATIO, /* RSS over live bytes: pages over live + spread */
	FIGURE_COMPARE_TIME,  /* higher is worse: the U test and the percentage */
	FIGURE_COMPARE_RATE,  /* lower is worse: the U test and the percentage */
	FIGURE_COMPARE_COUNT, /* page faults: 2 + 1% + the baseline's spread */
	FIGURE_COMPARE_EXACT, /* a count every run repeats (bytes reserved): gated
				 where every run of both sides agrees */
};

/* How a figure of several runs is made. */
enum figure_combine {
	FIGURE_MEDIAN,          /* the median of the runs' values */
	FIGURE_MEDIAN_OF_RATIOS /* each run's ratio, then the median of those: not the
				   ratio of two columns' medians */
};

struct figure {
	const char *name;          /* the JSON member and CSV column prefix */
	const char *unit;          /* as measured and written in JSON and CSV */
	const char *display_unit;  /* as the tables and the verdict show it */
	double display_scale;      /* units per display unit (bytes per KiB: 1024) */
	enum figure_display display;
	const char *head1;         /* the column's upper heading ("" for none) */
	const char *head2;         /* the lower: the rest of its name, or its unit */
	int head2_is_unit;         /* Markdown writes "head1 (head2)" */
	enum figure_aspect aspect;
	/* allocbench plot: a figure with a plot_label can be drawn */
	const char *plot_label;    /* what the chart shows, for its title */
	const char *plot_name;     /* the short --metric name ("alloc"), or NULL: the JSON name */
	const char *plot_heading;  /* above its panel */
	const char *plot_unit;     /* its y axis, before "(linear)" or "(log scale)" */
	int plot_log;              /* a log axis suits it (never for overhead: it can be
				      negative, and bytes compare linearly) */
	int plot_steps;            /* it is chunk - size, and chunks come in size classes:
				      between two sizes of a dense series it steps (plot.h) */
	enum figure_compare compare;
	int compare_decimals;      /* compare's medians and change, in the unit */
	const char *compare_label; /* compare's row label */
	int compare_optional;      /* absent from reports older than the figure: not
				      gated where either side lacks it */
	enum figure_combine combine;
	const char *combine_note;  /* for FIGURE_MEDIAN_OF_RATIOS: the ratio, in words */
	unsigned workloads;        /* bit per enum workload the figure is reported for */
};

/* The definition of FIGURE (< METRIC_COUNT). */
const struct figure *figure_get(enum metric figure);

/* Sections of a workload's report, besides its table. */
enum workload_section {
	SECTION_FLOOR = 1,      /* the floor: the loop without an allocator (fill) */
	SECTION_CHECKSUM = 2,   /* the sequence's checksum, the same for every backend */
	SECTION_BREAKDOWN = 4,  /* where malloc's overhead goes (breakdown.h) */
};

/*
 * The options only some workloads take (bits of workload_def.options): one
 * the chosen workload would ignore is refused (cmd_run_check.c).
 */
enum workload_option {
	WORKLOAD_OPT_ROUNDS = 1,          /* --rounds */
	WORKLOAD_OPT_SEED = 2,            /* --seed */
	WORKLOAD_OPT_THREADS = 4,         /* --threads */
	WORKLOAD_OPT_COUNTERS = 8,        /* --counters */
	WORKLOAD_OPT_TRACE = 16,          /* --trace */
	WORKLOAD_OPT_REPLAY_THREADS = 32, /* --replay-threads */
	WORKLOAD_OPT_WEIGHTS = 64,        /* weights in --sizes (SIZE:WEIGHT) */
};

struct run_config;
struct backend;

struct workload_def {
	enum workload workload;
	unsigned options;             /* enum workload_option bits it takes */
	/*
	 * Why the built-in backend B cannot do this workload under CONFIG (a
	 * short reason), or NULL when it can; a NULL cannot: every backend can.
	 */
	const char *(*cannot)(const struct run_config *config, const struct backend *b);
	enum metric verdict_memory;   /* the memory verdict's figure, or METRIC_COUNT */
	enum metric verdict_time;     /* the time (or rate) verdict's, or METRIC_COUNT */
	unsigned sections;            /* enum workload_section bits */
	const char *notes;            /* the text's notes under the table (the
					 workload's own; shared ones are added) */
	const enum metric *gated;     /* the figures compare gates, in its order */
	size_t ngated;
	int gates_reserved;           /* compare gates the bytes reserved too (exact) */
};

/* The definition of WORKLOAD. */
const struct workload_def *workload_def(enum workload workload);

/*
 * The workloads that take OPTION, as a message says it, into BUF (SIZE
 * bytes): "the random workload", "the churn and threads workloads".
 */
void workload_option_takers(enum workload_option option, char *buf, size_t size);

/* 1 when METRIC is reported for WORKLOAD. */
int metric_applies(enum metric metric, enum workload workload);

/* The JSON name of METRIC. */
const char *metric_name(enum metric metric);

/* The metric whose JSON name is NAME; -1 when none is. */
int metric_find(const char *name);

/* The plottable metric whose --metric name or JSON name is NAME; -1 when none is. */
int metric_find_plot(const char *name);

/* VALUE (in the figure's unit) in its display unit. */
double figure_display_value(enum metric metric, double value);

#endif
