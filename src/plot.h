/*
 * plot.h - the chart of loaded allocbench reports, before any drawing: one
 * panel per metric against chunk size, and in each panel one series per
 * input file and backend, with the axes chosen (a logarithmic size axis; a
 * linear or logarithmic y axis per panel).
 *
 * Building and writing are separate steps so that every problem with the
 * input is found before the first byte is written: plot_build() checks and
 * lays out the chart here, a writer (plot_svg.h) only writes it.
 */
#ifndef ALLOCBENCH_PLOT_H
#define ALLOCBENCH_PLOT_H

#include "results.h"

#include <stddef.h>
#include <stdint.h>

/* Most panels one chart holds (--metric items). */
#define PLOT_MAX_METRICS 6

/* The panels when --metric is not given. */
#define PLOT_DEFAULT_METRICS "overhead,alloc_ns"

/* A value of ns-like metrics spanning more than this ratio gets a log y axis. */
#define PLOT_LOG_RATIO 100.0

/* One input: a loaded report and its name in the legend. */
struct plot_input {
	struct result_file *file;  /* not owned */
	const char *label;         /* --label, or the path as given; not owned */
};

/* One measured point of a series in one panel. */
struct plot_point {
	uint64_t size_bytes;   /* x: bytes per chunk */
	double median;         /* y, in the panel's unit */
	double min, max;       /* over the runs; equal to median for one run */
	int break_before;      /* a size of the series without a value lies
				  between this point and the one before: the
				  line is not drawn across the gap */
};

/* A row that failed: drawn as a cross on the size axis of every panel. */
struct plot_failure {
	uint64_t size_bytes;
	const char *error;     /* why, as the report says; may be NULL */
};

/* The rows of one input file with one backend (and workload, when the file
 * holds several). Each panel draws it. */
struct plot_series {
	size_t input;                   /* index into the inputs */
	const char *backend;            /* owned by the input's result_file */
	const char *workload;           /* shown only when workload_shown */
	int workload_shown;             /* the file holds several workloads */
	size_t style;                   /* colour and marker: the order in which
					   (backend, workload) first appears */
	uint64_t *sizes_bytes;          /* every size it has a row at; owned */
	size_t nsizes, sizes_alloc;
	struct plot_failure *failures;  /* owned */
	size_t nfailures, failures_alloc;
};

/* One panel: one metric against chunk size. */
struct plot_panel {
	const char *metric;        /* as given to --metric */
	const char *field;         /* the statistic in the report ("alloc_ns") */
	const char *what;          /* for the title: "time per allocation" */
	const char *heading;       /* above the panel */
	const char *unit;          /* y axis label without its scale */
	int log_y;                 /* 1: logarithmic y axis */
	double y_lo, y_hi;         /* the y axis range, in the metric's unit: on
				      ticks, 1, 2 or 5 times a power of ten
				      when log_y */
	double y_step;             /* between linear ticks; 10 (a decade) when log_y */
	struct plot_point **points;/* per series (same order as plot.series); owned */
	size_t *npoints;           /* per series; owned */
	size_t missing;            /* rows that succeeded but lack this statistic */
	int ranges;                /* some point has min < max (bars drawn) */
};

/* A chart ready to be written. */
struct plot {
	const struct plot_input *inputs;   /* not owned */
	size_t ninputs;
	struct plot_series *series;        /* owned */
	size_t nseries, series_alloc;
	struct plot_panel *panels;         /* owned */
	size_t npanels;
	uint64_t *sizes_bytes;             /* every size plotted, ascending, each
					      once (the size axis); owned */
	size_t nsizes, sizes_alloc;
	uint64_t x_lo_bytes, x_hi_bytes;   /* smallest and largest size plotted */
	size_t mixed_rows;                 /* rows of size 0 (a size mix): not
					      on a size axis, noted below it */
	size_t failed_rows;
};

/*
 * The statistic a --metric name stands for: "overhead" -> "overhead_bytes",
 * "alloc" -> "alloc_ns", "free" -> "free_ns", "faults" -> "page_faults".
 * Any other name (a field such as "x_floor" or a dotted path such as
 * "counters.PAPI_TOT_CYC.alloc") is returned as it is.
 */
const char *plot_metric_field(const char *name);

/*
 * Checks the NINPUTS reports and builds the chart of the NMETRICS metrics
 * (names as plot_metric_field() takes them; 1 to PLOT_MAX_METRICS) into
 * *PLOT, which keeps pointers into INPUTS and their files: they must outlive
 * it. Returns 0, or -1 after printing an error that names the file or the
 * metric: an empty results list, a file with nothing to plot (every row
 * failed or mixes sizes), a metric that no row holds (an unknown --metric).
 * *PLOT needs plot_release() either way.
 */
int plot_build(struct plot *plot, const struct plot_input *inputs, size_t ninputs,
	       const char *const *metrics, size_t nmetrics);

/* Frees what plot_build() allocated. */
void plot_release(struct plot *plot);

#endif
