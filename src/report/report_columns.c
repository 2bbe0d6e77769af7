#include "report/report_columns.h"
#include "measure/backend.h"
#include "model/stats.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A column that shows figure M as the figure table defines it. */
#define FIG(m) { NULL, NULL, 0, COL_FIGURE, m }

static const struct report_column fill_columns[] = {
	{ "", "backend", 0, COL_BACKEND, 0 },
	{ "size", "B", 1, COL_SIZE, 0 },
	{ "", "count", 0, COL_COUNT, 0 },
	{ "total", "KiB", 1, COL_TOTAL_KIB, 0 },
	{ NULL, NULL, 0, COL_OVERHEAD, METRIC_OVERHEAD_BYTES },
	FIG(METRIC_ALLOC_NS),
	FIG(METRIC_FREE_NS),
	FIG(METRIC_PAGE_FAULTS),
	FIG(METRIC_X_FLOOR),
	FIG(METRIC_WARM_ALLOC_NS),
};

/* Markdown has no 80 columns to keep: the three figures of the fit in columns of their own. */
static const struct report_column fill_markdown_columns[] = {
	{ "", "backend", 0, COL_BACKEND, 0 },
	{ "size", "B", 1, COL_SIZE, 0 },
	{ "", "count", 0, COL_COUNT, 0 },
	{ "total", "KiB", 1, COL_TOTAL_KIB, 0 },
	FIG(METRIC_OVERHEAD_BYTES),
	FIG(METRIC_MARGINAL_BYTES),
	FIG(METRIC_ONE_TIME_BYTES),
	FIG(METRIC_LINEARITY_BYTES),
	FIG(METRIC_ALLOC_NS),
	FIG(METRIC_FREE_NS),
	FIG(METRIC_PAGE_FAULTS),
	FIG(METRIC_X_FLOOR),
	FIG(METRIC_WARM_ALLOC_NS),
};

static const struct report_column churn_columns[] = {
	{ "", "backend", 0, COL_BACKEND, 0 },
	{ "size", "B", 1, COL_SIZE, 0 },
	{ "", "count", 0, COL_COUNT, 0 },
	{ "", "rounds", 0, COL_ROUNDS, 0 },
	FIG(METRIC_CHURN_NS),
	FIG(METRIC_CHURN_COLD_NS),
	FIG(METRIC_PAGE_FAULTS),
	{ "x", "floor", 0, COL_X_ARENA, METRIC_CHURN_NS },
	{ "faster", "than malloc", 0, COL_VS_MALLOC, METRIC_CHURN_NS },
};

static const struct report_column random_columns[] = {
	{ "", "backend", 0, COL_BACKEND, 0 },
	{ "", "ops", 0, COL_OPS, 0 },
	FIG(METRIC_OP_NS),
	FIG(METRIC_PEAK_RSS_BYTES),
	{ "live", "KiB", 1, COL_LIVE_KIB, 0 },
	FIG(METRIC_FRAGMENTATION),
	FIG(METRIC_PAGE_FAULTS),
};

/*
 * The replay's figures are random's, named for what a trace has: a peak of
 * its own. The last REPLAY_MARKDOWN_ONLY, what each backend kept after the
 * live bytes' peak, have no room in 80 columns: Markdown's alone.
 */
#define REPLAY_MARKDOWN_ONLY 2
static const struct report_column replay_columns[] = {
	{ "", "backend", 0, COL_BACKEND, 0 },
	{ "", "steps", 0, COL_OPS, 0 },
	FIG(METRIC_OP_NS),
	{ "peak RSS", "KiB", 1, COL_FIGURE, METRIC_PEAK_RSS_BYTES },
	FIG(METRIC_SETUP_BYTES),
	{ "peak live", "KiB", 1, COL_LIVE_KIB, 0 },
	{ "RSS/live", "at peak", 1, COL_FIGURE, METRIC_FRAGMENTATION },
	FIG(METRIC_PAGE_FAULTS),
	FIG(METRIC_LOW_RSS_BYTES),
	FIG(METRIC_END_RSS_BYTES),
};

static const struct report_column threads_columns[] = {
	{ "", "backend", 0, COL_BACKEND, 0 },
	{ "size", "B", 1, COL_SIZE, 0 },
	{ "", "rounds", 0, COL_ROUNDS, 0 },
	FIG(METRIC_OPS_PER_S),
	FIG(METRIC_OPS_PER_S_PER_THREAD),
	FIG(METRIC_OPS_PER_S_1THREAD),
	FIG(METRIC_SPEEDUP),
};

void report_column_heads(const struct report_column *column, const char **head1,
			 const char **head2, int *head2_is_unit)
{
	const struct figure *f = figure_get(column->metric);

	*head1 = column->head1 ? column->head1 : f->head1;
	*head2 = column->head1 ? column->head2 : f->head2;
	*head2_is_unit = column->head1 ? column->head2_is_unit : f->head2_is_unit;
}

int report_column_is_time(const struct report_column *column)
{
	return column->kind == COL_FIGURE &&
	       figure_get(column->metric)->display == FIGURE_SHOW_ADAPTIVE;
}

const struct report_column *report_columns(enum workload workload, size_t *n)
{
#define COLUMNS(array) (*n = sizeof(array) / sizeof(array[0]), array)
	switch (workload) {
	case WORKLOAD_CHURN:
		return COLUMNS(churn_columns);
	case WORKLOAD_RANDOM:
		return COLUMNS(random_columns);
	case WORKLOAD_THREADS:
		return COLUMNS(threads_columns);
	case WORKLOAD_REPLAY:
		*n = sizeof(replay_columns) / sizeof(replay_columns[0]) - REPLAY_MARKDOWN_ONLY;
		return replay_columns;
	default:
		return COLUMNS(fill_columns);
	}
#undef COLUMNS
}

const struct report_column *report_columns_markdown(enum workload workload, size_t *n)
{
	if (workload == WORKLOAD_REPLAY) {
		*n = sizeof(replay_columns) / sizeof(replay_columns[0]);
		return replay_columns;
	}
	if (workload != WORKLOAD_FILL)
		return report_columns(workload, n);
	*n = sizeof(fill_markdown_columns) / sizeof(fill_markdown_columns[0]);
	return fill_markdown_columns;
}

/*
 * 1 when CELL's marginal figure (median) differs from its average overhead
 * by more than REPORT_MARGINAL_PAGES pages over the count, both medians in
 * *AVERAGE and *MARGINAL; 0 otherwise (or when either does not exist).
 */
static int report_marginal_differs(const struct run_report *report, const struct cell *cell,
				   double *average, double *marginal)
{
	struct stat_summary a, m;

	if (cell_summary(report, cell, METRIC_OVERHEAD_BYTES, &a) ||
	    cell_summary(report, cell, METRIC_MARGINAL_BYTES, &m))
		return 0;
	*average = a.median;
	*marginal = m.median;
	return fabs(a.median - m.median) > REPORT_MARGINAL_PAGES * resolution_bytes(report, cell->count);
}

/* A figure of the overhead cell: one decimal below 100, none above (the cell stays narrow). */
static int format_short(char *buf, size_t size, double v)
{
	return snprintf(buf, size, fabs(v) < 100 ? "%.1f" : "%.0f", v);
}

size_t report_identity_columns(enum workload workload)
{
	return workload_one_column(workload) ? 1 : 3;
}

/* Three significant digits at least, no more decimals than that needs. */
static void format_adaptive(char *buf, size_t size, double v)
{
	double a = fabs(v);

	snprintf(buf, size, a < 10 ? "%.2f" : a < 100 ? "%.1f" : "%.0f", v);
}

/* The cell of backend NAME at CELL's size, or NULL when it was not measured. */
static const struct cell *cell_of(const struct run_report *report, const struct cell *cell,
				  const char *name)
{
	for (size_t i = 0; i < report->ncells; i++)
		if (report->cells[i].size == cell->size &&
		    !strcmp(report->cells[i].backend->name, name))
			return &report->cells[i];
	return NULL;
}

int report_time_spread_wide(const struct stat_summary *s)
{
	/* A time of nothing (the arena's free, 0.00 shown) has no spread to speak of. */
	if (s->min <= 0 || s->median < 0.005)
		return 0;
	return s->max / s->min > REPORT_TIME_SPREAD;
}

int report_x_floor_crosses(const struct stat_summary *s)
{
	return s->min < 1 && s->max > 1;
}

/* "AVERAGE(MARGINAL)", no space: one field for awk and cut. */
static void format_overhead_pair(char *buf, size_t size, double average, double marginal)
{
	int n = format_short(buf, size, average);

	if (n > 0 && (size_t)n < size) {
		snprintf(buf + n, size - (size_t)n, "(");
		n++;
		if ((size_t)n < size)
			n += format_short(buf + n, size - (size_t)n, marginal);
		if (n > 0 && (size_t)n < size)
			snprintf(buf + n, size - (size_t)n, ")");
	}
}

/* MEDIAN, a value of METRIC, as its figure is shown (figure.h: display). */
static void format_figure(char *buf, size_t size, enum metric metric, double median)
{
	double v = figure_display_value(metric, median);

	switch (figure_get(metric)->display) {
	case FIGURE_SHOW_FIXED2:
		snprintf(buf, size, "%.2f", v);
		break;
	case FIGURE_SHOW_WHOLE:
		snprintf(buf, size, "%.0f", v);
		break;
	default:
		format_adaptive(buf, size, v);
		break;
	}
}

void report_column_format(char *buf, size_t size, const struct report_column *c,
			  const struct run_report *report, const struct cell *cell)
{
	const struct cell *base;
	struct stat_summary s, b;
	const struct sample *median;

	switch (c->kind) {
	case COL_BACKEND:
		snprintf(buf, size, "%s", cell->backend->name);
		return;
	case COL_SIZE:
		snprintf(buf, size, "%zu", cell->size);
		return;
	case COL_COUNT:
		snprintf(buf, size, "%zu", cell->count);
		return;
	case COL_ROUNDS:
		snprintf(buf, size, "%u", cell->rounds);
		return;
	case COL_TOTAL_KIB:
		median = &cell->samples[cell_median_run(cell)];
		snprintf(buf, size, "%.0f", ((double)median->rss_after_bytes -
					     (double)median->rss_before_bytes) / 1024.0);
		return;
	case COL_OPS:
		snprintf(buf, size, "%llu", (unsigned long long)cell->samples[0].ops);
		return;
	case COL_LIVE_KIB:
		/* replay: the peak of the live set (a property of the trace); random: at the end */
		snprintf(buf, size, "%.0f", (double)(cell->samples[0].peak_live_bytes ?
						     cell->samples[0].peak_live_bytes :
						     cell->samples[0].live_bytes) / 1024.0);
		return;
	case COL_VS_MALLOC:
		base = cell_of(report, cell, "malloc");
		if (base && !cell_summary(report, base, c->metric, &b) &&
		    !cell_summary(report, cell, c->metric, &s) && s.median > 0)
			snprintf(buf, size, "%.2fx", b.median / s.median);
		else
			snprintf(buf, size, "n/a");
		return;
	case COL_OVERHEAD: {
		double average, marginal;

		if (!report_marginal_differs(report, cell, &average, &marginal))
			break;
		format_overhead_pair(buf, size, average, marginal);
		return;
	}
	case COL_X_ARENA:
		base = cell_of(report, cell, "arena");
		if (base && !cell_summary(report, base, c->metric, &b) &&
		    !cell_summary(report, cell, c->metric, &s) && b.median > 0)
			snprintf(buf, size, "%.2f", s.median / b.median);
		else
			snprintf(buf, size, "n/a");
		return;
	default:
		break;
	}
	if (cell_summary(report, cell, c->metric, &s)) {
		snprintf(buf, size, "n/a");
		return;
	}
	if (c->kind == COL_OVERHEAD) {
		snprintf(buf, size, "%.2f", s.median);
		return;
	}
	format_figure(buf, size, c->metric, s.median);
}
