/*
 * plot.h - the chart of loaded allocbench reports, before any drawing: one
 * panel per metric against chunk size (or, with --facet backend, one per
 * metric and backend), and in each panel one series per input file and
 * backend, with the axes chosen (a logarithmic or linear size axis, its
 * ticks and its width; a linear or logarithmic y axis per panel) and how
 * each series is drawn (markers, or a bare line when it is dense).
 *
 * Building and writing are separate steps so that every problem with the
 * input is found before the first byte is written: plot_build() checks and
 * lays out the chart here, a writer (plot_svg.h) only writes it.
 */
#ifndef ALLOCBENCH_PLOT_H
#define ALLOCBENCH_PLOT_H

#include "report/results.h"

#include <stddef.h>
#include <stdint.h>

/* Most panels one chart holds (--metric items). */
#define PLOT_MAX_METRICS 6

/* The panels when --metric is not given. */
#define PLOT_DEFAULT_METRICS "overhead,alloc_ns"

/* A value of ns-like metrics spanning more than this ratio gets a log y axis. */
#define PLOT_LOG_RATIO 100.0

/*
 * The width of the plot area, between the smallest and the largest size,
 * in px of the SVG. A chart of few sizes gets PLOT_AREA_PX (960 px of SVG);
 * a sweep of many sizes gets PLOT_POINT_PX per size, up to
 * PLOT_AREA_MAX_PX, so that 1024 sizes still have 2 px each: enough to see
 * a step of every size class, where 532 px would give half a pixel.
 */
#define PLOT_AREA_PX 532.0
#define PLOT_AREA_MAX_PX 2048.0
#define PLOT_POINT_PX 3.0

/*
 * A series is dense, and drawn as a line without markers, when it has more
 * sizes than markers fit side by side in PLOT_AREA_PX: PLOT_MARKER_PX is the
 * widest marker (the circle, 9 px at a scale of 1.35). Past that, markers
 * overlap into a band that hides the line. That is 44 sizes, fixed: the
 * area grows only past PLOT_AREA_PX / PLOT_POINT_PX sizes, long after.
 */
#define PLOT_MARKER_PX 12.0
#define PLOT_DENSE_SIZES ((size_t)(PLOT_AREA_PX / PLOT_MARKER_PX))

/* Least room per bar of a chart without a size axis (plot.bars), in px. */
#define PLOT_BAR_SLOT_PX 72.0

/* Least room between two size ticks, in px: a label such as "1016" or "16K". */
#define PLOT_TICK_GAP_PX 44.0

/* Most size ticks. */
#define PLOT_MAX_X_TICKS 64

/* The size axis (--x). */
enum plot_x_scale {
	PLOT_X_LOG,        /* log2 of the size: the default, for 8..16K sweeps */
	PLOT_X_LINEAR,     /* bytes: for even sweeps such as 1..1024:+8 */
};

/* The panels (--facet). */
enum plot_facet {
	PLOT_FACET_NONE,     /* one panel per metric, every series in it */
	PLOT_FACET_BACKEND,  /* one panel per metric and backend, each with the
				series of that backend (one per file and
				workload), all of a metric on the same axes */
};

/* What the command line asks of the chart; zeroed, the defaults. */
struct plot_options {
	enum plot_x_scale x_scale;
	enum plot_facet facet;
};

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
	int dense;                      /* more than PLOT_DENSE_SIZES sizes: a
					   line without markers */
	struct plot_failure *failures;  /* owned */
	size_t nfailures, failures_alloc;
};

/* One panel: one metric against chunk size (of one backend, with --facet). */
struct plot_panel {
	const char *metric;        /* as given to --metric */
	const char *facet;         /* the backend of a --facet backend panel,
				      owned by its result_file; NULL without */
	const char *field;         /* the statistic in the report (alloc_ns) */
	const char *what;          /* for the title: "time per allocation" */
	const char *heading;       /* above the panel */
	const char *unit;          /* y axis label without its scale */
	int log_y;                 /* 1: logarithmic y axis */
	int steps;                 /* 1: the metric is chunk - size, chunks come in
				      size classes (overhead): a dense series'
				      line holds the chunk from one size to the
				      next, then steps (see plot_svg.c) */
	double y_lo, y_hi;         /* the y axis range, in the metric's unit: on
				      ticks, 1, 2 or 5 times a power of ten
				      when log_y */
	double y_step;             /* between linear ticks; 10 (a decade) when log_y */
	struct plot_point **points;/* per series (same order as plot.series); owned;
				      with --facet, series of other backends
				      have none */
	size_t *npoints;           /* per series; owned */
	size_t missing;            /* rows that succeeded but lack this statistic
				      (with --facet, counted in the metric's
				      first panel only) */
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
	enum plot_x_scale x_scale;
	enum plot_facet facet;
	double x_lo, x_hi;                 /* the size axis' ends: log2(bytes) on a
					      log axis, bytes on a linear one (on
					      ticks, from 0 for 1..1024) */
	double x_step_bytes;               /* between linear ticks, a power of two;
					      0 on a log axis */
	double area_px;                    /* the plot area's width from x_lo to
					      x_hi (PLOT_AREA_PX and up) */
	uint64_t x_ticks[PLOT_MAX_X_TICKS];/* sizes with a tick, ascending */
	size_t nx_ticks;
	size_t mixed_rows;                 /* rows of size 0 (a size mix): not
					      on a size axis, noted below it */
	int bars;                          /* no report has a size axis (every
					      row mixes sizes: random): a bar
					      per series at its median, on a
					      linear y axis from 0, and no size
					      axis */
	size_t failed_rows;
};

/*
 * The statistic a --metric name stands for: a figure's short plot name
 * (figure.h: overhead, alloc, free, faults, marginal, peak_rss) gives its
 * JSON name. Any other name (a figure's JSON name, or a dotted path such as
 * "counters.PAPI_TOT_CYC.alloc") is returned as it is.
 */
const char *plot_metric_field(const char *name);

/*
 * Checks the NINPUTS reports and builds the chart of the NMETRICS metrics
 * (names as plot_metric_field() takes them; 1 to PLOT_MAX_METRICS) into
 * *PLOT, as OPTIONS asks (NULL: the defaults), which keeps pointers into
 * INPUTS and their files: they must outlive it. With PLOT_FACET_BACKEND the
 * panels are metric by metric, a panel per backend in the order backends
 * first appear, NMETRICS times the backends in all. Returns 0, or -1 after printing an error that names the file or the
 * metric: an empty results list, a file with nothing to plot (every row
 * failed or mixes sizes), a metric that no row holds (an unknown --metric).
 * *PLOT needs plot_release() either way.
 */
int plot_build(struct plot *plot, const struct plot_input *inputs, size_t ninputs,
	       const char *const *metrics, size_t nmetrics, const struct plot_options *options);

/*
 * Where SIZE_BYTES lies on PLOT's size axis: 0 at x_lo, 1 at x_hi (times
 * area_px for the px from the area's left end).
 */
double plot_x_fraction(const struct plot *plot, uint64_t size_bytes);

/* Frees what plot_build() allocated. */
void plot_release(struct plot *plot);

#endif
