/*
 * plot.c - the chart of loaded reports, checked and laid out before anything
 * is written (see plot.h): the series, their points in each panel, the
 * facets, the axes.
 */
#include "report/plot.h"
#include "model/figure.h"
#include "platform/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- metrics: figure.h's plottable figures ---------------------------- */

static const struct figure *plot_figure_find(const char *name)
{
	int m = metric_find_plot(name);

	return m < 0 ? NULL : figure_get((enum metric)m);
}

const char *plot_metric_field(const char *name)
{
	const struct figure *f = plot_figure_find(name);

	return f ? f->name : name;
}

/* ---- building ----------------------------------------------------------- */

static int same_str(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

/* 1 when FILE's rows hold more than one workload. */
static int mixes_workloads(const struct result_file *file)
{
	for (size_t i = 1; i < file->nrows; i++)
		if (!same_str(file->rows[i].workload, file->rows[0].workload))
			return 1;
	return 0;
}

/* The series of INPUT, BACKEND, WORKLOAD; added when new. NULL when out of memory. */
static struct plot_series *series_get(struct plot *plot, size_t input, const char *backend,
				      const char *workload, int workload_shown)
{
	struct plot_series *s;

	for (size_t i = 0; i < plot->nseries; i++) {
		s = &plot->series[i];
		if (s->input == input && !strcmp(s->backend, backend) &&
		    (!workload_shown || same_str(s->workload, workload)))
			return s;
	}
	if (ALLOC_GROW(plot->series, plot->nseries, plot->series_alloc))
		return NULL;
	s = &plot->series[plot->nseries++];
	memset(s, 0, sizeof(*s));
	s->input = input;
	s->backend = backend;
	s->workload = workload;
	s->workload_shown = workload_shown;
	return s;
}

static int series_add_size(struct plot_series *s, uint64_t size)
{
	if (ALLOC_GROW(s->sizes_bytes, s->nsizes, s->sizes_alloc))
		return -1;
	s->sizes_bytes[s->nsizes++] = size;
	return 0;
}

static int series_add_failure(struct plot_series *s, uint64_t size, const char *why)
{
	if (ALLOC_GROW(s->failures, s->nfailures, s->failures_alloc))
		return -1;
	s->failures[s->nfailures].size_bytes = size;
	s->failures[s->nfailures].error = why;
	s->nfailures++;
	return 0;
}

/* Colour and marker: the same backend (and workload) looks the same in every file. */
static void assign_styles(struct plot *plot)
{
	size_t next = 0;

	for (size_t i = 0; i < plot->nseries; i++) {
		struct plot_series *s = &plot->series[i];
		size_t j;

		for (j = 0; j < i; j++) {
			const struct plot_series *t = &plot->series[j];

			if (!strcmp(t->backend, s->backend) &&
			    (same_str(t->workload_shown ? t->workload : NULL,
				      s->workload_shown ? s->workload : NULL)))
				break;
		}
		s->style = j < i ? plot->series[j].style : next++;
	}
}

/* Builds the series: one per input, backend (and workload when mixed). */
static int collect_series(struct plot *plot)
{
	for (size_t in = 0; in < plot->ninputs; in++) {
		struct result_file *file = plot->inputs[in].file;
		int mixed = mixes_workloads(file);

		for (size_t r = 0; r < file->nrows; r++) {
			const struct result_row *row = &file->rows[r];
			struct plot_series *s;

			if (!row->size && !plot->bars) {
				plot->mixed_rows++;
				continue;
			}
			s = series_get(plot, in, row->backend, row->workload, mixed);
			if (!s || series_add_size(s, row->size))
				return error("out of memory");
			if (!row->ok) {
				plot->failed_rows++;
				if (series_add_failure(s, row->size, row->error))
					return error("out of memory");
			}
		}
	}
	for (size_t si = 0; si < plot->nseries; si++)
		plot->series[si].dense = plot->series[si].nsizes > PLOT_DENSE_SIZES;
	assign_styles(plot);
	return 0;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t p = *(const uint64_t *)a, q = *(const uint64_t *)b;

	return (p > q) - (p < q);
}


static int point_cmp(const void *a, const void *b)
{
	const struct plot_point *p = a, *q = b;

	return (p->size_bytes > q->size_bytes) - (p->size_bytes < q->size_bytes);
}

/* Marks the points that follow a size of the series without a value. */
static void mark_breaks(const struct plot_series *s, struct plot_point *points, size_t n)
{
	for (size_t i = 1; i < n; i++)
		for (size_t k = 0; k < s->nsizes; k++)
			if (s->sizes_bytes[k] > points[i - 1].size_bytes &&
			    s->sizes_bytes[k] < points[i].size_bytes)
				points[i].break_before = 1;
}

/* Collects the points of series S for PANEL. */
static int collect_points(struct plot *plot, struct plot_panel *panel, size_t si)
{
	const struct plot_series *s = &plot->series[si];
	struct result_file *file = plot->inputs[s->input].file;
	struct plot_point *points = NULL;
	size_t n = 0, points_alloc = 0;

	for (size_t r = 0; r < file->nrows; r++) {
		const struct result_row *row = &file->rows[r];
		struct result_stat st;

		if ((!row->size && !plot->bars) || !row->ok || strcmp(row->backend, s->backend) ||
		    (s->workload_shown && !same_str(row->workload, s->workload)))
			continue;
		if (results_row_stat(file, row, panel->field, &st) || !isfinite(st.median)) {
			panel->missing++;
			continue;
		}
		if (!isfinite(st.min) || !isfinite(st.max) || st.min > st.median ||
		    st.max < st.median)
			st.min = st.max = st.median;
		if (ALLOC_GROW(points, n, points_alloc)) {
			free(points);
			return error("out of memory");
		}
		points[n].size_bytes = row->size;
		points[n].median = st.median;
		points[n].min = st.min;
		points[n].max = st.max;
		points[n].break_before = 0;
		if (st.min < st.max)
			panel->ranges = 1;
		n++;
	}
	if (n)
		qsort(points, n, sizeof(*points), point_cmp);
	mark_breaks(s, points, n);
	panel->points[si] = points;
	panel->npoints[si] = n;
	return 0;
}

/* A step of 1, 2, 2.5 or 5 times a power of ten, at least RAW. */
static double nice_step(double raw)
{
	static const double mantissas[] = { 1, 2, 2.5, 5, 10 };
	double p = pow(10, floor(log10(raw)));

	for (size_t i = 0; i < sizeof(mantissas) / sizeof(mantissas[0]); i++)
		if (mantissas[i] * p >= raw * (1 - 1e-9))
			return mantissas[i] * p;
	return 10 * p;
}

/* The largest 1, 2 or 5 times a power of ten that is at most V (> 0). */
static double round_down_125(double v)
{
	double p = pow(10, floor(log10(v) + 1e-9));

	return v >= 5 * p * (1 - 1e-9) ? 5 * p : v >= 2 * p * (1 - 1e-9) ? 2 * p : p;
}

/* The smallest 1, 2 or 5 times a power of ten that is at least V (> 0). */
static double round_up_125(double v)
{
	double p = pow(10, floor(log10(v) - 1e-9));

	return v <= p * (1 + 1e-9) ? p : v <= 2 * p * (1 + 1e-9) ? 2 * p :
	       v <= 5 * p * (1 + 1e-9) ? 5 * p : 10 * p;
}

/* Chooses the y axis: linear from a round number below to one above (0
 * included), or log from 1, 2 or 5 times a power of ten below to one above
 * when the metric allows it and its values, all positive, span more than
 * PLOT_LOG_RATIO (so at least one decade lies inside). */
static void choose_y_axis(const struct plot *plot, struct plot_panel *panel, int log_allowed)
{
	double lo = INFINITY, hi = -INFINITY, step;

	for (size_t si = 0; si < plot->nseries; si++)
		for (size_t i = 0; i < panel->npoints[si]; i++) {
			const struct plot_point *p = &panel->points[si][i];

			lo = fmin(lo, p->min);
			hi = fmax(hi, p->max);
		}
	if (log_allowed && lo > 0 && hi / lo > PLOT_LOG_RATIO) {
		panel->log_y = 1;
		panel->y_lo = round_down_125(lo);
		panel->y_hi = round_up_125(hi);
		panel->y_step = 10;
		return;
	}
	lo = fmin(lo, 0);
	hi = fmax(hi, 0);
	if (hi - lo <= 0)
		hi = 1;
	step = nice_step((hi - lo) / 5);
	panel->y_lo = floor(lo / step + 1e-9) * step;
	panel->y_hi = ceil(hi / step - 1e-9) * step;
	if (panel->y_hi <= panel->y_lo)
		panel->y_hi = panel->y_lo + step;
	panel->y_step = step;
}

static int build_panel(struct plot *plot, struct plot_panel *panel, const char *metric)
{
	const struct figure *info = plot_figure_find(metric);
	size_t total = 0;

	panel->metric = metric;
	panel->field = info ? info->name : metric;
	panel->what = info ? info->plot_label : metric;
	panel->heading = info ? info->plot_heading : metric;
	panel->unit = info ? info->plot_unit : metric;
	panel->steps = info ? info->plot_steps : 0;
	panel->points = calloc(plot->nseries ? plot->nseries : 1, sizeof(*panel->points));
	panel->npoints = calloc(plot->nseries ? plot->nseries : 1, sizeof(*panel->npoints));
	if (!panel->points || !panel->npoints)
		return error("out of memory");
	for (size_t si = 0; si < plot->nseries; si++) {
		if (collect_points(plot, panel, si))
			return -1;
		total += panel->npoints[si];
	}
	if (!total) {
		if (info)
			return error("no plottable points for metric '%s': no result with a "
				     "chunk size holds '%s'", metric, info->name);
		return error("unknown metric '%s' in --metric: no result holds it (expected "
			     "overhead, alloc_ns, free_ns, page_faults, free_page_faults, x_floor "
			     "or a statistic of the results such as counters.PAPI_TOT_CYC.alloc)",
			     metric);
	}
	/* A bar's length is its value: from 0, on a linear axis. */
	choose_y_axis(plot, panel, !plot->bars && (info ? info->plot_log : 1));
	return 0;
}

/*
 * A file whose every row failed or mixes sizes has nothing to plot; with
 * BARS (no file has a size axis), one whose every row failed.
 */
static int check_rows(const struct result_file *file, int bars)
{
	size_t usable = 0, failed = 0, mixed = 0;

	for (size_t r = 0; r < file->nrows; r++) {
		usable += file->rows[r].ok && (file->rows[r].size || bars);
		failed += !file->rows[r].ok;
		mixed += !file->rows[r].size;
	}
	if (usable)
		return 0;
	return error("'%s': no plottable points: of its %zu result%s, %zu failed and %zu "
		     "mix sizes (size 0)", file->path, file->nrows, file->nrows == 1 ? "" : "s",
		     failed, mixed);
}

/* Every input must give at least one point to some panel. */
static int check_points(const struct plot *plot)
{
	for (size_t in = 0; in < plot->ninputs; in++) {
		size_t points = 0;

		for (size_t p = 0; p < plot->npanels; p++)
			for (size_t si = 0; si < plot->nseries; si++)
				if (plot->series[si].input == in)
					points += plot->panels[p].npoints[si];
		if (!points)
			return error("'%s': no plottable points: none of its results holds %s%s",
				     plot->inputs[in].file->path, plot->panels[0].field,
				     plot->npanels > 1 ? " or the other metrics asked for" : "");
	}
	return 0;
}

/* The size axis: every size of every series, ascending, each once. */
static int collect_sizes(struct plot *plot)
{
	size_t n = 0, kept = 0;

	for (size_t si = 0; si < plot->nseries; si++) {
		const struct plot_series *s = &plot->series[si];

		for (size_t i = 0; i < s->nsizes; i++) {
			if (ALLOC_GROW(plot->sizes_bytes, n, plot->sizes_alloc))
				return error("out of memory");
			plot->sizes_bytes[n++] = s->sizes_bytes[i];
		}
	}
	if (n)
		qsort(plot->sizes_bytes, n, sizeof(*plot->sizes_bytes), u64_cmp);
	for (size_t i = 0; i < n; i++)
		if (!kept || plot->sizes_bytes[i] != plot->sizes_bytes[kept - 1])
			plot->sizes_bytes[kept++] = plot->sizes_bytes[i];
	plot->nsizes = kept;
	if (kept) {
		plot->x_lo_bytes = plot->sizes_bytes[0];
		plot->x_hi_bytes = plot->sizes_bytes[kept - 1];
	}
	return 0;
}

/* ---- the size axis ------------------------------------------------------ */

double plot_x_fraction(const struct plot *plot, uint64_t size_bytes)
{
	double v = plot->x_scale == PLOT_X_LOG ? log2((double)size_bytes) : (double)size_bytes;

	return (v - plot->x_lo) / (plot->x_hi - plot->x_lo);
}

/* The px between sizes A and B on the axis. */
static double x_gap_px(const struct plot *plot, uint64_t a, uint64_t b)
{
	return (plot_x_fraction(plot, b) - plot_x_fraction(plot, a)) * plot->area_px;
}

/* Log ticks: every size when they are few and far enough apart, else
 * powers of two, else as many sizes as fit. */
static void choose_log_ticks(struct plot *plot)
{
	const uint64_t *sizes = plot->sizes_bytes;
	size_t n = plot->nsizes, nt = 0, k;
	int spaced = 1;

	for (size_t i = 1; i < n; i++)
		if (x_gap_px(plot, sizes[i - 1], sizes[i]) < PLOT_TICK_GAP_PX)
			spaced = 0;
	if (spaced && n <= PLOT_MAX_X_TICKS) {
		memcpy(plot->x_ticks, sizes, n * sizeof(*sizes));
		plot->nx_ticks = n;
		return;
	}
	/* Powers of two whose exponent is a multiple of K: 1K, 1M stay on the axis. */
	for (k = 1; k <= 10; k++) {
		double gap = x_gap_px(plot, (uint64_t)1 << (40 - k), (uint64_t)1 << 40);

		if (gap >= PLOT_TICK_GAP_PX && (k == 1 || k == 2 || k == 5 || k == 10))
			break;
	}
	for (int e = 0; e < 63 && k <= 10; e++) {
		uint64_t v = (uint64_t)1 << e;

		if (e % (int)k || v < plot->x_lo_bytes || v > plot->x_hi_bytes)
			continue;
		if (nt < PLOT_MAX_X_TICKS)
			plot->x_ticks[nt++] = v;
	}
	if (nt < 2) {
		nt = 0;
		for (size_t i = 0; i < n && nt < PLOT_MAX_X_TICKS; i++)
			if (!nt || x_gap_px(plot, plot->x_ticks[nt - 1], sizes[i]) >= PLOT_TICK_GAP_PX)
				plot->x_ticks[nt++] = sizes[i];
	}
	plot->nx_ticks = nt;
}

/*
 * A linear axis from a multiple of a power-of-two step below the smallest
 * size to one above the largest (0 to 1024 for 1..1017), with as many ticks
 * as fit PLOT_TICK_GAP_PX apart: powers of two, because allocators' size
 * classes and pages are, so that 128, 256 and 4K fall on ticks.
 */
static void choose_linear_axis(struct plot *plot)
{
	double lo = (double)plot->x_lo_bytes, hi = (double)plot->x_hi_bytes, step = 1;
	double most = floor(plot->area_px / PLOT_TICK_GAP_PX);

	if (hi <= lo) {
		/* One size: the axis from 0 to twice it, the size in the middle. */
		lo = 0;
		hi *= 2;
	}
	while (ceil(hi / step - 1e-9) - floor(lo / step + 1e-9) > most)
		step *= 2;
	plot->x_step_bytes = step;
	plot->x_lo = floor(lo / step + 1e-9) * step;
	plot->x_hi = ceil(hi / step - 1e-9) * step;
	plot->nx_ticks = 0;
	for (double v = plot->x_lo; v <= plot->x_hi + step / 2 &&
	     plot->nx_ticks < PLOT_MAX_X_TICKS; v += step)
		plot->x_ticks[plot->nx_ticks++] = (uint64_t)v;
}

/* The size axis: its scale, ends, width and ticks. */
static void choose_x_axis(struct plot *plot)
{
	double area = (double)plot->nsizes * PLOT_POINT_PX;

	plot->area_px = fmin(fmax(area, PLOT_AREA_PX), PLOT_AREA_MAX_PX);
	if (plot->x_scale == PLOT_X_LINEAR) {
		choose_linear_axis(plot);
		return;
	}
	plot->x_lo = log2((double)plot->x_lo_bytes);
	plot->x_hi = log2((double)plot->x_hi_bytes);
	if (plot->x_hi - plot->x_lo < 1) {
		/* One size, or sizes close together: one octave around them. */
		double mid = (plot->x_lo + plot->x_hi) / 2;

		plot->x_lo = mid - 0.5;
		plot->x_hi = mid + 0.5;
	}
	choose_log_ticks(plot);
}

/* ---- facets ------------------------------------------------------------- */

/*
 * Splits each panel of plot->panels into one per backend (in the order the
 * series first name them), each keeping the metric's y axis and taking the
 * points of its backend's series. Nothing changes when memory runs out.
 */
static int split_by_backend(struct plot *plot)
{
	const char **backends = calloc(plot->nseries, sizeof(*backends));
	struct plot_panel *panels = NULL;
	size_t nb = 0, n = 0;

	if (!backends)
		return error("out of memory");
	for (size_t si = 0; si < plot->nseries; si++) {
		size_t b = 0;

		while (b < nb && strcmp(backends[b], plot->series[si].backend))
			b++;
		if (b == nb)
			backends[nb++] = plot->series[si].backend;
	}
	panels = calloc(plot->npanels * nb, sizeof(*panels));
	for (size_t p = 0; panels && p < plot->npanels * nb; p++, n++) {
		panels[p].points = calloc(plot->nseries, sizeof(*panels[p].points));
		panels[p].npoints = calloc(plot->nseries, sizeof(*panels[p].npoints));
		if (!panels[p].points || !panels[p].npoints)
			break;
	}
	if (!panels || n < plot->npanels * nb) {
		for (size_t p = 0; panels && p <= n && p < plot->npanels * nb; p++) {
			free(panels[p].points);
			free(panels[p].npoints);
		}
		free(panels);
		free(backends);
		return error("out of memory");
	}
	for (size_t m = 0; m < plot->npanels; m++) {
		struct plot_panel *whole = &plot->panels[m];

		for (size_t b = 0; b < nb; b++) {
			struct plot_panel *facet = &panels[m * nb + b];
			struct plot_point **points = facet->points;
			size_t *npoints = facet->npoints;

			*facet = *whole;
			facet->facet = backends[b];
			facet->points = points;
			facet->npoints = npoints;
			facet->missing = b ? 0 : whole->missing;
			facet->ranges = 0;
			for (size_t si = 0; si < plot->nseries; si++) {
				if (strcmp(plot->series[si].backend, backends[b]))
					continue;
				points[si] = whole->points[si];
				npoints[si] = whole->npoints[si];
				whole->points[si] = NULL;
				for (size_t i = 0; i < npoints[si]; i++)
					facet->ranges |= points[si][i].min < points[si][i].max;
			}
		}
		free(whole->points);
		free(whole->npoints);
	}
	free(plot->panels);
	plot->panels = panels;
	plot->npanels *= nb;
	free(backends);
	return 0;
}

/* ---- the chart ---------------------------------------------------------- */

int plot_build(struct plot *plot, const struct plot_input *inputs, size_t ninputs,
	       const char *const *metrics, size_t nmetrics, const struct plot_options *options)
{
	memset(plot, 0, sizeof(*plot));
	plot->inputs = inputs;
	plot->ninputs = ninputs;
	if (options) {
		plot->x_scale = options->x_scale;
		plot->facet = options->facet;
	}
	if (!ninputs)
		return error("no input to plot");
	if (!nmetrics || nmetrics > PLOT_MAX_METRICS)
		return error("%zu metrics asked for (expected 1 to %d)", nmetrics, PLOT_MAX_METRICS);
	/* Without a size in any row (random, replay): bars per backend. */
	plot->bars = 1;
	for (size_t in = 0; in < ninputs; in++)
		for (size_t r = 0; r < inputs[in].file->nrows; r++)
			plot->bars &= !inputs[in].file->rows[r].size;
	for (size_t in = 0; in < ninputs; in++) {
		if (!inputs[in].file->nrows)
			return error("'%s': the results list is empty, nothing to plot",
				     inputs[in].file->path);
		/* Before the metrics: an unknown metric is not the problem here. */
		if (check_rows(inputs[in].file, plot->bars))
			return -1;
	}
	if (collect_series(plot))
		return -1;
	plot->panels = calloc(nmetrics, sizeof(*plot->panels));
	if (!plot->panels)
		return error("out of memory");
	plot->npanels = nmetrics;
	for (size_t p = 0; p < nmetrics; p++)
		if (build_panel(plot, &plot->panels[p], metrics[p]))
			return -1;
	if (check_points(plot) || collect_sizes(plot))
		return -1;
	if (plot->bars) {
		/* No size axis: the bars side by side, PLOT_BAR_SLOT_PX each at least. */
		plot->area_px = fmin(fmax((double)plot->nseries * PLOT_BAR_SLOT_PX, PLOT_AREA_PX),
				     PLOT_AREA_MAX_PX);
		plot->x_lo = 0;
		plot->x_hi = 1;
	} else {
		choose_x_axis(plot);
	}
	/* After the y axes: the facets of a metric share the metric's. */
	if (plot->facet == PLOT_FACET_BACKEND)
		return split_by_backend(plot);
	return 0;
}

void plot_release(struct plot *plot)
{
	for (size_t p = 0; p < plot->npanels; p++) {
		struct plot_panel *panel = &plot->panels[p];

		for (size_t si = 0; panel->points && si < plot->nseries; si++)
			free(panel->points[si]);
		free(panel->points);
		free(panel->npoints);
	}
	free(plot->panels);
	for (size_t si = 0; si < plot->nseries; si++) {
		free(plot->series[si].sizes_bytes);
		free(plot->series[si].failures);
	}
	free(plot->series);
	free(plot->sizes_bytes);
	memset(plot, 0, sizeof(*plot));
}
