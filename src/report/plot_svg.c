/* plot_svg.c - a chart of allocbench reports (plot.h) as SVG; see plot_svg.h. */
#include "report/plot.h"
#include "report/plot_svg.h"
#include "report/plot_svg_text.h"
#include "report/svg.h"
#include "platform/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- text --------------------------------------------------------------- */

/* A size tick: format_bytes()'s "40 B", "4 KiB" as "40", "4K". */
static void format_size_tick(char *buf, size_t size, uint64_t bytes)
{
	char full[32], *unit;

	format_bytes(full, sizeof(full), bytes);
	unit = strchr(full, ' ');
	snprintf(buf, size, "%.*s%.*s", (int)(unit - full), full, unit[1] != 'B', unit + 1);
}

/* Decimals that show multiples of STEP exactly (at most 6). */
static int decimals_for(double step)
{
	for (int d = 0; d < 6; d++) {
		double scaled = step * pow(10, d);

		if (fabs(scaled - round(scaled)) < 1e-6 * fmax(1, scaled))
			return d;
	}
	return 6;
}

/* A linear tick: V with the decimals of STEP, divided by SCALE (1, 1e3, 1e6). */
static void format_linear_tick(char *buf, size_t size, double v, double step, double scale)
{
	const char *suffix = scale >= 1e6 ? "M" : scale >= 1e3 ? "k" : "";

	if (fabs(v) < step * 1e-6) {
		snprintf(buf, size, "0");   /* not "-0" or "0.0k" */
		return;
	}
	snprintf(buf, size, "%.*f%s", decimals_for(step / scale), v / scale, suffix);
}

/* A log tick M * 10^E (M 1, 2 or 5): "0.05", "1", "200", "10k", "5M", "1e+09". */
static void format_log_tick(char *buf, size_t size, int m, int e)
{
	double v = m * pow(10, e);

	if (e >= 9 || e < -4)
		snprintf(buf, size, "%de%+d", m, e);
	else if (e >= 6)
		snprintf(buf, size, "%gM", v / 1e6);
	else if (e >= 3)
		snprintf(buf, size, "%gk", v / 1e3);
	else
		snprintf(buf, size, "%.*f", e < 0 ? -e : 0, v);
}

/* ---- layout ------------------------------------------------------------- */

#define SVG_FONTS "DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif"
#define PLOT_LEFT 84.0       /* x of the plot areas */
#define X_INSET 14.0         /* from the plot's edge to the smallest and largest size */
#define PANEL_HEADING 24.0   /* panel heading above the plot area */
#define PLOT_HEIGHT 250.0
#define FACET_HEIGHT 180.0   /* with --facet: a panel per backend, so lower */
#define PANEL_BELOW 46.0     /* size ticks and the size axis label */
#define PANEL_GAP 14.0
#define LEGEND_GAP 28.0      /* from the plot areas' right edge to the legend */
#define LEGEND_WIDTH 288.0   /* from the legend's left to the SVG's right edge */
#define LEGEND_ROW 20.0

#define NSTYLES SVG_COLOURS

/* One marker shape per colour, centred on 0,0, about 10 px across. */
static const char *const marker_paths[NSTYLES] = {
	"M4.5 0A4.5 4.5 0 1 1 -4.5 0A4.5 4.5 0 1 1 4.5 0Z",  /* circle */
	"M-4 -4H4V4H-4Z",                                      /* square */
	"M0 -5.3L4.9 3.4H-4.9Z",                               /* triangle up */
	"M0 -5.6L5.6 0L0 5.6L-5.6 0Z",                         /* diamond */
	"M0 5.3L4.9 -3.4H-4.9Z",                               /* triangle down */
	"M-1.7 -5H1.7V-1.7H5V1.7H1.7V5H-1.7V1.7H-5V-1.7H-1.7Z", /* plus */
	"M0 -5L4.3 -2.5V2.5L0 5L-4.3 2.5V-2.5Z",              /* hexagon */
};

/* Marker sizes: the first three backends nest when their values coincide
 * (pool and arena often have the same overhead), the larger drawn first. */
static const char *const marker_scales[NSTYLES] = {
	"1.35", "1.1", "0.95", "1", "1", "1", "1",
};

/* One line dash per input file (solid for the first). */
static const char *const dashes[] = { "", "7 4", "2 3", "10 3 2 3", "5 5" };
#define NDASHES (sizeof(dashes) / sizeof(dashes[0]))

/* The right edge of the plot areas: 644 for a chart of few sizes (960 px of
 * SVG), further right for a sweep of many (plot.h's area_px). */
static double plot_right(const struct plot *plot)
{
	return PLOT_LEFT + 2 * X_INSET + plot->area_px;
}

static double legend_left(const struct plot *plot)
{
	return plot_right(plot) + LEGEND_GAP;
}

static double svg_width(const struct plot *plot)
{
	return legend_left(plot) + LEGEND_WIDTH;
}

/* The height of each plot area. */
static double area_height(const struct plot *plot)
{
	return plot->facet == PLOT_FACET_NONE ? PLOT_HEIGHT : FACET_HEIGHT;
}

static double x_of(const struct plot *plot, uint64_t size_bytes)
{
	return PLOT_LEFT + X_INSET + plot_x_fraction(plot, size_bytes) * plot->area_px;
}

/* The pixel row of V in PANEL whose plot area starts at TOP. The axis range
 * is padded by Y_PAD of its height, so that a value on the lowest or highest
 * tick (0 overhead, say) is not hidden in the frame. */
#define Y_PAD 0.04
static double y_of(const struct plot *plot, const struct plot_panel *panel, double top, double v)
{
	double lo = panel->y_lo, hi = panel->y_hi, t;

	if (panel->log_y) {
		lo = log10(lo);
		hi = log10(hi);
		v = log10(v);
	}
	t = (v - lo + Y_PAD * (hi - lo)) / ((1 + 2 * Y_PAD) * (hi - lo));
	return top + area_height(plot) - t * area_height(plot);
}

/* 1 when V lies on PANEL's y axis (with rounding slack). */
static int in_y_range(const struct plot_panel *panel, double v)
{
	return v >= panel->y_lo * (1 - 1e-9) && v <= panel->y_hi * (1 + 1e-9);
}

/* ---- writing ------------------------------------------------------------ */

/* The attributes that draw series S's markers: filled for the first file,
 * hollow for the others. */
static void put_marker_style(FILE *out, const struct plot_series *s)
{
	const char *colour = svg_colours[s->style % NSTYLES];

	if (s->input == 0)
		fprintf(out, "fill=\"%s\" stroke=\"#ffffff\" stroke-width=\"0.8\"", colour);
	else
		fprintf(out, "fill=\"#ffffff\" stroke=\"%s\" stroke-width=\"1.6\"", colour);
}

static void put_dash(FILE *out, size_t input)
{
	const char *dash = dashes[input % NDASHES];

	if (*dash)
		fprintf(out, " stroke-dasharray=\"%s\"", dash);
}

/* 1 when series S is drawn in PANEL: every series, or with --facet those of its backend. */
static int in_panel(const struct plot_panel *panel, const struct plot_series *s)
{
	return !panel->facet || !strcmp(panel->facet, s->backend);
}

/*
 * Writes the line of a dense series: straight from median to median, or
 * for a metric that is chunk - size (panel->steps) the steps that size
 * classes make. Within a class the chunk stays the same, so from one size to
 * the next the overhead falls by as many bytes as the size grew, and it
 * rises where the next size is in a larger class: each step holds the chunk
 * of the size before (the line falls with slope -1 in bytes), then goes
 * straight up or down to the next value. A hold that would leave the y axis
 * stops at its end.
 */
static void put_dense_line(FILE *out, const struct plot *plot, const struct plot_panel *panel,
			   const struct plot_point *pts, size_t n, double top)
{
	for (size_t i = 0; i < n; i++) {
		double x = x_of(plot, pts[i].size_bytes), held;

		if (!i || pts[i].break_before || !panel->steps) {
			fprintf(out, "%s%c%.1f %.1f", i ? " " : "",
				!i || pts[i].break_before ? 'M' : 'L', x,
				y_of(plot, panel, top, pts[i].median));
			continue;
		}
		held = pts[i - 1].median - (double)(pts[i].size_bytes - pts[i - 1].size_bytes);
		held = fmin(fmax(held, panel->y_lo), panel->y_hi);
		fprintf(out, " L%.1f %.1fV%.1f", x, y_of(plot, panel, top, held),
			y_of(plot, panel, top, pts[i].median));
	}
}

/*
 * Where series SI's bar stands in PANEL of a chart without a size axis
 * (plot.bars): the bars of the panel's series side by side, in order, each
 * in a slot of the plot area's width. Sets *X to the slot's middle and
 * *WIDTH to the bar's.
 */
static void bar_place(const struct plot *plot, const struct plot_panel *panel, size_t si,
		      double *x, double *width)
{
	size_t n = 0, k = 0;
	double slot;

	for (size_t sj = 0; sj < plot->nseries; sj++) {
		if (!in_panel(panel, &plot->series[sj]))
			continue;
		if (sj < si)
			k++;
		n++;
	}
	slot = plot->area_px / (double)(n ? n : 1);
	*x = PLOT_LEFT + X_INSET + ((double)k + 0.5) * slot;
	*width = fmin(slot * 0.6, 48);
}

/* Series SI as a bar from 0 to its median, a whisker from min to max, crosses for failures. */
static void write_bar(FILE *out, const struct plot *plot, const struct plot_panel *panel,
		      size_t si, double top)
{
	const struct plot_series *s = &plot->series[si];
	const char *colour = svg_colours[s->style % NSTYLES];
	double x, width, y0 = y_of(plot, panel, top, 0);

	bar_place(plot, panel, si, &x, &width);
	for (size_t i = 0; i < panel->npoints[si]; i++) {
		const struct plot_point *p = &panel->points[si][i];
		double y = y_of(plot, panel, top, p->median);

		fprintf(out, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			"height=\"%.1f\" ", x - width / 2, fmin(y, y0), width, fabs(y0 - y));
		if (s->input == 0)
			fprintf(out, "fill=\"%s\" stroke=\"none\"", colour);
		else
			fprintf(out, "fill=\"#ffffff\" stroke=\"%s\" stroke-width=\"1.6\"", colour);
		fprintf(out, " data-value=\"%.6g\"/>\n", p->median);
		if (p->min < p->max)
			fprintf(out, "<path class=\"range\" stroke=\"#333333\" stroke-width=\"1.2\" "
				"d=\"M%.1f %.1fV%.1fM%.1f %.1fh8M%.1f %.1fh8\"/>\n", x,
				y_of(plot, panel, top, p->min), y_of(plot, panel, top, p->max),
				x - 4, y_of(plot, panel, top, p->min), x - 4,
				y_of(plot, panel, top, p->max));
	}
	for (size_t f = 0; f < s->nfailures; f++)
		fprintf(out, "<path class=\"gap\" data-size=\"0\" stroke-width=\"2.2\" "
			"d=\"M%.1f %.1fl10 10m0 -10l-10 10\"/>\n", x - 5,
			top + area_height(plot) - 11.0 * (double)f - 5);
}

/* Series SI's element opened in PANEL, with what it plots as data attributes, and its title. */
static void series_open(FILE *out, const struct plot *plot, const struct plot_panel *panel,
			size_t si)
{
	const struct plot_series *s = &plot->series[si];
	size_t n = panel->npoints[si];
	char name[256];

	plot_svg_series_name(name, sizeof(name), s);
	fputs("<g class=\"series\" data-file=\"", out);
	svg_put_text(out, plot->inputs[s->input].file->path, 0);
	fputs("\" data-label=\"", out);
	svg_put_text(out, plot->inputs[s->input].label, 0);
	fputs("\" data-backend=\"", out);
	svg_put_text(out, s->backend, 0);
	if (s->workload_shown) {
		fputs("\" data-workload=\"", out);
		svg_put_text(out, s->workload, 0);
	}
	/* A dense series says how its line is drawn (no markers). */
	if (s->dense)
		fprintf(out, "\" data-line=\"%s", panel->steps ? "steps" : "straight");
	fprintf(out, "\" data-points=\"%zu\" data-failed=\"%zu\" fill=\"none\" stroke=\"%s\">\n",
		n, s->nfailures, svg_colours[s->style % NSTYLES]);
	fputs("<title>", out);
	svg_put_textf(out, 0, "%s, %s: %zu point%s, %zu failed", name, plot->inputs[s->input].label,
		  n, n == 1 ? "" : "s", s->nfailures);
	fputs("</title>\n", out);
}

/* Writes series SI of PANEL (its plot area's top at TOP): its line or bars, its points and failures. */
static void write_series(FILE *out, const struct plot *plot, const struct plot_panel *panel,
			 size_t si, double top)
{
	const struct plot_series *s = &plot->series[si];
	const struct plot_point *pts = panel->points[si];
	size_t n = panel->npoints[si];
	double axis_y = top + area_height(plot);

	if (!in_panel(panel, s))
		return;
	series_open(out, plot, panel, si);
	if (plot->bars) {
		write_bar(out, plot, panel, si, top);
		fputs("</g>\n", out);
		return;
	}

	if (panel->ranges) {
		int any = 0;

		for (size_t i = 0; i < n; i++) {
			if (pts[i].min >= pts[i].max)
				continue;
			if (!any)
				fprintf(out, "<path class=\"range\" stroke-width=\"%s\" d=\"",
					s->dense ? "1\" stroke-opacity=\"0.35" : "1.2");
			else
				fputs(" ", out);
			fprintf(out, "M%.1f %.1fV%.1f", x_of(plot, pts[i].size_bytes),
				y_of(plot, panel, top, pts[i].min), y_of(plot, panel, top, pts[i].max));
			any = 1;
		}
		if (any)
			fputs("\"/>\n", out);
	}
	if (n > 1 && s->dense) {
		/* Thinner, so that steps 2 px apart stay apart. */
		fputs("<path class=\"line\" stroke-width=\"1.2\" stroke-linejoin=\"miter\"", out);
		put_dash(out, s->input);
		fputs(" d=\"", out);
		put_dense_line(out, plot, panel, pts, n, top);
		fputs("\"/>\n", out);
	}
	/*
	 * A sparse series is its points alone: a line between 400 and 4000 B
	 * would show values nobody measured (sizes in between fall in other
	 * size classes). The first file's markers are filled, the others'
	 * hollow.
	 */
	for (size_t i = 0; i < n && !s->dense; i++) {
		fprintf(out, "<use class=\"point\" href=\"#marker%zu\" x=\"%.1f\" y=\"%.1f\" ",
			s->style % NSTYLES, x_of(plot, pts[i].size_bytes),
			y_of(plot, panel, top, pts[i].median));
		put_marker_style(out, s);
		fprintf(out, " data-size=\"%llu\" data-value=\"%.6g\"/>\n",
			(unsigned long long)pts[i].size_bytes, pts[i].median);
	}
	for (size_t f = 0; f < s->nfailures; f++) {
		uint64_t size = s->failures[f].size_bytes;
		size_t below = 0;
		double cx, cy;

		/* Crosses of several series at one size stack up from the axis. */
		for (size_t sj = 0; sj < si; sj++)
			for (size_t g = 0; in_panel(panel, &plot->series[sj]) && g < plot->series[sj].nfailures; g++)
				below += plot->series[sj].failures[g].size_bytes == size;
		cx = x_of(plot, size);
		cy = axis_y - 11.0 * (double)below;
		fprintf(out, "<path class=\"gap\" data-size=\"%llu\" stroke-width=\"2.2\" "
			"d=\"M%.1f %.1fl10 10m0 -10l-10 10\"/>\n",
			(unsigned long long)size, cx - 5, cy - 5);
	}
	fputs("</g>\n", out);
}

/* The panel's element opened, and its heading. */
static void panel_open(FILE *out, const struct plot *plot, const struct plot_panel *panel,
		       double top)
{
	fputs("<g class=\"panel\" data-metric=\"", out);
	svg_put_text(out, panel->metric, 0);
	fputs("\" data-field=\"", out);
	svg_put_text(out, panel->field, 0);
	if (panel->facet) {
		fputs("\" data-facet=\"", out);
		svg_put_text(out, panel->facet, 0);
	}
	fprintf(out, "\" data-x-scale=\"%s\" data-y-scale=\"%s\">\n",
		plot->bars ? "none" : plot->x_scale == PLOT_X_LINEAR ? "linear" : "log",
		panel->log_y ? "log" : "linear");
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\" font-weight=\"bold\">",
		PLOT_LEFT, top - 9);
	if (panel->facet)
		svg_put_textf(out, 80, "%s \xe2\x80\x94 %s", panel->facet, panel->heading);
	else
		svg_put_text(out, panel->heading, 80);
	fputs("</text>\n", out);
}

/* The decades around PANEL's log axis, *LO to *HI: those in range get a line and a label. */
static void log_decades(const struct plot_panel *panel, int *lo, int *hi)
{
	*lo = panel->log_y ? (int)floor(log10(panel->y_lo) + 1e-9) : 0;
	*hi = panel->log_y ? (int)ceil(log10(panel->y_hi) - 1e-9) : 0;
}

/* The grid and the frame of PANEL's plot area, from TOP. */
static void panel_grid(FILE *out, const struct plot *plot, const struct plot_panel *panel,
		       double top)
{
	double bottom = top + area_height(plot), right = plot_right(plot);
	const uint64_t *ticks = plot->x_ticks;
	size_t nticks = plot->nx_ticks;
	int e_lo, e_hi;

	log_decades(panel, &e_lo, &e_hi);
	fputs("<path class=\"grid\" stroke=\"#e2e2e2\" fill=\"none\" d=\"", out);
	for (size_t i = 0; i < nticks; i++)
		fprintf(out, "M%.1f %.1fV%.1f", x_of(plot, ticks[i]), top, bottom);
	if (panel->log_y) {
		for (int e = e_lo; e <= e_hi; e++)
			if (in_y_range(panel, pow(10, e)))
				fprintf(out, "M%.1f %.1fH%.1f", PLOT_LEFT,
					y_of(plot, panel, top, pow(10, e)), right);
		fputs("\"/>\n<path class=\"grid minor\" stroke=\"#f0f0f0\" fill=\"none\" d=\"", out);
		for (int e = e_lo; e <= e_hi; e++)
			for (int m = 2; m <= 9; m++)
				if (in_y_range(panel, m * pow(10, e)))
					fprintf(out, "M%.1f %.1fH%.1f", PLOT_LEFT,
						y_of(plot, panel, top, m * pow(10, e)), right);
	} else {
		double step = panel->y_step;
		size_t n = (size_t)llround((panel->y_hi - panel->y_lo) / step);

		for (size_t i = 0; i <= n; i++)
			fprintf(out, "M%.1f %.1fH%.1f", PLOT_LEFT,
				y_of(plot, panel, top, panel->y_lo + (double)i * step), right);
	}
	fputs("\"/>\n", out);
	fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
		"stroke=\"#999999\"/>\n", PLOT_LEFT, top, right - PLOT_LEFT, area_height(plot));
	if (!panel->log_y && panel->y_lo < 0)
		fprintf(out, "<path class=\"zero\" stroke=\"#666666\" d=\"M%.1f %.1fH%.1f\"/>\n",
			PLOT_LEFT, y_of(plot, panel, top, 0), right);
}

/* The tick labels of both axes; returns 1 when a size tick is in K (1024). */
static int panel_ticks(FILE *out, const struct plot *plot, const struct plot_panel *panel,
		       double top)
{
	double bottom = top + area_height(plot);
	const uint64_t *ticks = plot->x_ticks;
	size_t nticks = plot->nx_ticks;
	int kib = 0, e_lo, e_hi;

	log_decades(panel, &e_lo, &e_hi);
	fputs("<g class=\"ticks\" font-size=\"11\" fill=\"#333333\">\n", out);
	for (size_t i = 0; i < nticks; i++) {
		char label[32];

		format_size_tick(label, sizeof(label), ticks[i]);
		kib |= ticks[i] >= 1024 && !(ticks[i] % 1024);
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
			x_of(plot, ticks[i]), bottom + 15, label);
	}
	if (panel->log_y) {
		/* Decades; with few of them, also 2 and 5 times each, so that
		 * the axis has more than two numbers to read. */
		int every = e_hi - e_lo > 8 ? 2 : 1, dense = e_hi - e_lo <= 3;

		for (int e = e_lo; e <= e_hi; e++) {
			for (int m = 1; m <= 5; m++) {
				char label[32];

				if ((m != 1 && (!dense || (m != 2 && m != 5))) ||
				    (e - e_lo) % every || !in_y_range(panel, m * pow(10, e)))
					continue;
				format_log_tick(label, sizeof(label), m, e);
				fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s"
					"</text>\n", PLOT_LEFT - 6,
					y_of(plot, panel, top, m * pow(10, e)) + 4, label);
			}
		}
	} else {
		double step = panel->y_step;
		double big = fmax(fabs(panel->y_lo), fabs(panel->y_hi));
		double scale = big >= 1e7 && step >= 1e5 ? 1e6 : big >= 1e4 && step >= 100 ? 1e3 : 1;
		size_t n = (size_t)llround((panel->y_hi - panel->y_lo) / step);

		for (size_t i = 0; i <= n; i++) {
			double v = panel->y_lo + (double)i * step;
			char label[32];

			format_linear_tick(label, sizeof(label), v, step, scale);
			fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
				PLOT_LEFT - 6, y_of(plot, panel, top, v) + 4, label);
		}
	}
	fputs("</g>\n", out);

	return kib;
}

/* The axis labels, with their units and scales (KIB: a size tick is in K). */
static void panel_axis_labels(FILE *out, const struct plot *plot, const struct plot_panel *panel,
			      double top, int kib)
{
	double bottom = top + area_height(plot), mid = top + area_height(plot) / 2;
	double right = plot_right(plot);

	if (plot->bars) {
		/* No size axis: each bar named under it. */
		fputs("<g class=\"bar-labels\" font-size=\"11\" fill=\"#333333\">\n", out);
		for (size_t si = 0; si < plot->nseries; si++) {
			double x, width;

			if (!in_panel(panel, &plot->series[si]))
				continue;
			bar_place(plot, panel, si, &x, &width);
			fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", x,
				bottom + 15);
			svg_put_text(out, plot->series[si].backend, 14);
			fputs("</text>\n", out);
		}
		fprintf(out, "</g>\n<text class=\"x-label\" x=\"%.1f\" y=\"%.1f\" "
			"text-anchor=\"middle\">backend%s (no size axis: each row mixes sizes)"
			"</text>\n", (PLOT_LEFT + right) / 2, bottom + 34,
			plot->ninputs > 1 ? ", a bar per file" : "");
	} else {
		fprintf(out, "<text class=\"x-label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">"
			"chunk size, bytes (%s%s)</text>\n", (PLOT_LEFT + right) / 2, bottom + 34,
			plot->x_scale == PLOT_X_LINEAR ? "linear" : "log scale", kib ? "; K = 1024" : "");
	}
	fprintf(out, "<text class=\"y-label\" transform=\"translate(%.1f %.1f) rotate(-90)\" "
		"text-anchor=\"middle\">", PLOT_LEFT - 62, mid);
	svg_put_text(out, panel->unit, 34);
	fprintf(out, " (%s)</text>\n", panel->log_y ? "log scale" : "linear");
}

/* Writes PANEL with its plot area's top at TOP. */
static void write_panel(FILE *out, const struct plot *plot, const struct plot_panel *panel,
			double top)
{
	int kib;

	panel_open(out, plot, panel, top);
	/* Grid first, so that the data lies on top of it. */
	panel_grid(out, plot, panel, top);
	kib = panel_ticks(out, plot, panel, top);
	panel_axis_labels(out, plot, panel, top, kib);
	for (size_t si = 0; si < plot->nseries; si++)
		write_series(out, plot, panel, si, top);
	fputs("</g>\n", out);
}

/* Writes the legend from TOP; returns the y below it. */
static double write_legend(FILE *out, const struct plot *plot, double top)
{
	double y = top;
	int ranges = 0;

	for (size_t p = 0; p < plot->npanels; p++)
		ranges |= plot->panels[p].ranges;
	fputs("<g class=\"legend\">\n", out);
	for (size_t in = 0; in < plot->ninputs; in++) {
		if (plot->ninputs > 1) {
			fprintf(out, "<text class=\"legend-file\" x=\"%.1f\" y=\"%.1f\" "
				"font-weight=\"bold\">", legend_left(plot), y + 4);
			svg_put_text(out, plot->inputs[in].label, 34);
			fputs("</text>\n", out);
			y += LEGEND_ROW;
		}
		for (size_t si = 0; si < plot->nseries; si++) {
			const struct plot_series *s = &plot->series[si];
			const char *colour = svg_colours[s->style % NSTYLES];
			char name[256];

			if (s->input != in)
				continue;
			plot_svg_series_name(name, sizeof(name), s);
			fprintf(out, "<g class=\"legend-entry\" data-backend=\"");
			svg_put_text(out, s->backend, 0);
			fputs("\">\n", out);
			/* A dense series is a line; a sparse one its markers alone; a bar a swatch. */
			if (plot->bars) {
				fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" ",
					legend_left(plot) + 12, y - 6);
				if (s->input == 0)
					fprintf(out, "fill=\"%s\"/>\n", colour);
				else
					fprintf(out, "fill=\"#ffffff\" stroke=\"%s\" stroke-width=\"1.6\"/>\n",
						colour);
			} else if (s->dense) {
				fprintf(out, "<path stroke=\"%s\" stroke-width=\"1.8\"", colour);
				put_dash(out, s->input);
				fprintf(out, " d=\"M%.1f %.1fh36\"/>\n", legend_left(plot), y);
			} else {
				fprintf(out, "<use href=\"#marker%zu\" x=\"%.1f\" y=\"%.1f\" ",
					s->style % NSTYLES, legend_left(plot) + 18, y);
				put_marker_style(out, s);
				fputs("/>\n", out);
			}
			fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">", legend_left(plot) + 44, y + 4);
			if (s->nfailures)
				svg_put_textf(out, 38, "%s (%zu failed: \xc3\x97)", name, s->nfailures);
			else
				svg_put_text(out, name, 38);
			fputs("</text>\n</g>\n", out);
			y += LEGEND_ROW;
		}
		if (plot->ninputs > 1)
			y += 6;
	}
	if (ranges || plot->failed_rows)
		y += 4;
	if (ranges) {
		fprintf(out, "<path stroke=\"#555555\" stroke-width=\"1.2\" d=\"M%.1f %.1fv14\"/>\n",
			legend_left(plot) + 18, y - 7);
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">%s</text>\n",
			legend_left(plot) + 44, y + 4, plot->bars ? "whisker: min to max of the runs" :
			"bar: min to max of the runs");
		y += LEGEND_ROW;
	}
	if (plot->failed_rows) {
		fprintf(out, "<path stroke=\"#555555\" stroke-width=\"2.2\" "
			"d=\"M%.1f %.1fl10 10m0 -10l-10 10\"/>\n", legend_left(plot) + 13, y - 5);
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">"
			"on the size axis: failed there</text>\n", legend_left(plot) + 44, y + 4);
		y += LEGEND_ROW;
	}
	fputs("</g>\n", out);
	return y;
}

/* Writes everything below the <svg> element into OUT; returns the height. */
static double write_body(FILE *out, const struct plot *plot)
{
	double y, legend_bottom;

	fputs("<defs>\n", out);
	for (size_t i = 0; i < NSTYLES; i++)
		fprintf(out, "<path id=\"marker%zu\" transform=\"scale(%s)\" d=\"%s\"/>\n", i,
			marker_scales[i], marker_paths[i]);
	fputs("</defs>\n", out);
	fprintf(out, "<rect width=\"%.0f\" height=\"100%%\" fill=\"#ffffff\"/>\n", svg_width(plot));
	fputs("<text class=\"title\" x=\"20\" y=\"30\" font-size=\"18\" font-weight=\"bold\">", out);
	plot_svg_title(out, plot);
	fputs("</text>\n", out);
	y = plot_svg_subtitle(out, plot, 52) + PANEL_HEADING + 4;

	legend_bottom = write_legend(out, plot, y + 8);
	for (size_t p = 0; p < plot->npanels; p++) {
		write_panel(out, plot, &plot->panels[p], y);
		y += area_height(plot) + PANEL_BELOW + PANEL_GAP + PANEL_HEADING;
	}
	y -= PANEL_HEADING + PANEL_GAP;
	if (legend_bottom > y)
		y = legend_bottom;
	return plot_svg_notes(out, plot, y + 10) + 4;
}

/* 1 when every panel has an axis: plot_build() succeeded. A failed build
 * leaves panels whose tick loops would never end. */
static int plot_is_built(const struct plot *plot)
{
	if (!plot->npanels || !plot->ninputs || !plot->nseries)
		return 0;
	for (size_t p = 0; p < plot->npanels; p++)
		if (!(plot->panels[p].y_hi > plot->panels[p].y_lo && plot->panels[p].y_step > 0))
			return 0;
	return 1;
}

int plot_svg_write(const struct plot *plot, FILE *out)
{
	char *body = NULL;
	size_t len = 0;
	FILE *mem;
	double height;
	int failed;

	if (!plot_is_built(plot))
		return -1;
	mem = open_memstream(&body, &len);
	if (!mem)
		return -1;
	/* The height is known only after the body is laid out. */
	height = ceil(write_body(mem, plot));
	failed = ferror(mem);
	if (fclose(mem) || failed) {
		free(body);
		return -1;
	}
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" "
		"height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"%s\" font-size=\"12\" "
		"fill=\"#222222\">\n", svg_width(plot), height, svg_width(plot), height, SVG_FONTS);
	fputs("<title>", out);
	plot_svg_title(out, plot);
	fputs("</title>\n", out);
	fwrite(body, 1, len, out);
	fputs("</svg>\n", out);
	free(body);
	return ferror(out) ? -1 : 0;
}
