/*
 * plot_series.c - a replay's memory over time in the chart (plot_series.h).
 */
#include "report/plot_series.h"
#include "measure/measure.h"
#include "measure/replay_series.h"
#include "report/svg.h"
#include <stdlib.h>

#include <math.h>
#include <string.h>

#define LEFT 70.0
#define PANEL_H 260.0
#define PANEL_GAP 110.0   /* the heading above the panel, the axis and legend below */
#define LEGEND_ROW 16.0

/* One row's line: per cent of its calls and the value, N points; 0 without a series. */
struct line {
	double pct[SAMPLE_SERIES_POINTS], v[SAMPLE_SERIES_POINTS];
	size_t n;
};

/* FIELD of ROW's series: "rss_bytes" or "live_bytes". */
static void line_get(const struct result_row *row, const char *field, struct line *l)
{
	double steps[SAMPLE_SERIES_POINTS];
	char path[64];
	size_t n = row->ok ? results_row_numbers(row, "series.steps", steps,
						    SAMPLE_SERIES_POINTS) : 0;

	l->n = 0;
	snprintf(path, sizeof(path), "series.%s", field);
	if (!n || results_row_numbers(row, path, l->v, SAMPLE_SERIES_POINTS) != n ||
	    !(steps[n - 1] > 0))
		return;
	for (size_t i = 0; i < n; i++)
		l->pct[i] = 100.0 * steps[i] / steps[n - 1];
	l->n = n;
}

/* The index of the first point at the line's highest value. */
static size_t line_peak(const struct line *l)
{
	size_t at = 0;

	for (size_t i = 1; i < l->n; i++)
		if (l->v[i] > l->v[at])
			at = i;
	return at;
}

/* The first row of FILE with a series (its live bytes are every row's), or NULL. */
static const struct result_row *first_with_series(const struct result_file *file)
{
	struct line l;

	for (size_t r = 0; r < file->nrows; r++) {
		line_get(&file->rows[r], "rss_bytes", &l);
		if (l.n)
			return &file->rows[r];
	}
	return NULL;
}

/* The legend's entries: a line per row with a series, one of live bytes per input. */
static size_t legend_entries(const struct plot_input *inputs, size_t n)
{
	size_t entries = 0;
	struct line l;

	for (size_t i = 0; i < n; i++) {
		if (!first_with_series(inputs[i].file))
			continue;
		entries++;
		for (size_t r = 0; r < inputs[i].file->nrows; r++) {
			line_get(&inputs[i].file->rows[r], "rss_bytes", &l);
			entries += l.n > 0;
		}
	}
	return entries;
}

double plot_series_height(const struct plot_input *inputs, size_t n)
{
	size_t entries = legend_entries(inputs, n);

	return entries ? PANEL_H + PANEL_GAP + (double)entries * LEGEND_ROW : 0;
}

/* The panel's top value (HI) and the unit its axis reads in; returns bytes to that unit. */
static double panel_scale(const struct plot_input *inputs, size_t n, const char **unit,
			  double *hi)
{
	static const char *const fields[] = { "rss_bytes", "live_bytes" };
	struct line l;
	double top = 0;

	for (size_t i = 0; i < n; i++)
		for (size_t r = 0; r < inputs[i].file->nrows; r++)
			for (size_t f = 0; f < 2; f++) {
				line_get(&inputs[i].file->rows[r], fields[f], &l);
				for (size_t k = 0; k < l.n; k++)
					top = fmax(top, l.v[k]);
			}
	*unit = top >= 1 << 20 ? "MiB" : "KiB";
	*hi = top > 0 ? top * 1.1 : 1024;
	return top >= 1 << 20 ? 1.0 / (1 << 20) : 1.0 / 1024;
}

static void panel_axes(FILE *out, double top, double right, double hi, double scale)
{
	fprintf(out, "<path class=\"axis\" d=\"M%.0f %.0fV%.0fH%.0f\" fill=\"none\" "
		"stroke=\"black\"/>\n", LEFT, top, top + PANEL_H, right);
	for (int t = 0; t <= 4; t++) {
		double y = top + PANEL_H - PANEL_H * t / 4, x = LEFT + (right - LEFT) * t / 4;

		fprintf(out, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">%.3g</text>\n",
			LEFT - 6, y + 4, hi * scale * t / 4);
		fprintf(out, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">%d%%</text>\n",
			x, top + PANEL_H + 16, t * 25);
		if (t)
			fprintf(out, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" "
				"stroke=\"#ddd\"/>\n", LEFT, y, right, y);
	}
	fprintf(out, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">the program's calls "
		"done</text>\n", (LEFT + right) / 2, top + PANEL_H + 32);
}

/* Where a line is drawn: the panel's top and right edge, its top value, the unit. */
struct frame {
	double top, right, hi, scale;
	const char *unit;
};

/*
 * Where a resident line L is lowest from the point FROM (the live bytes'
 * peak) on: its index, or L's length when the live bytes do not fall after
 * their peak (by a tenth) and there is nothing to mark.
 */
static size_t line_low_after(const struct line *l, const struct line *live)
{
	size_t from = line_peak(live), at = from;

	if (!live->n || live->n != l->n || !series_fell(live->v[live->n - 1], live->v[from]))
		return l->n;
	for (size_t i = from + 1; i < l->n; i++)
		if (l->v[i] < l->v[at])
			at = i;
	return at;
}

/* A hollow square at a line's lowest point after the live bytes' peak, drawn over every line. */
struct mark {
	double x, y, pct;
	const char *colour;
};

/*
 * One line (class CLASS, colour COLOUR, DASH "" or a dash array, STROKE px wide), its peak
 * marked, and its legend entry at LEGEND_Y: NAME, and the input's label when
 * MANY inputs are drawn. LOW < the line's length: the lowest point after
 * the live bytes' peak, in the legend with the end, and its square into
 * *MARK (drawn after every line, which would otherwise cover it).
 */
static void draw_line(FILE *out, const struct frame *f, const struct line *l, const char *cls,
		      const char *colour, const char *dash, const char *name, const char *label,
		      double legend_y, double stroke, size_t low, struct mark *mark)
{
	double w = f->right - LEFT;
	size_t at = line_peak(l);

	fprintf(out, "<g class=\"%s\" data-name=\"", cls);
	svg_put_text(out, name, 0);
	fprintf(out, "\" data-points=\"%zu\" data-peak-pct=\"%.0f\">\n", l->n, l->pct[at]);
	fprintf(out, "<path class=\"line\" fill=\"none\" stroke=\"%s\" stroke-width=\"%.0f\"%s%s%s "
		"d=\"M%.1f %.1f", colour, stroke, *dash ? " stroke-dasharray=\"" : "", dash,
		*dash ? "\"" : "", LEFT, f->top + PANEL_H);
	for (size_t k = 0; k < l->n; k++)
		fprintf(out, "L%.1f %.1f", LEFT + w * l->pct[k] / 100,
			f->top + PANEL_H - PANEL_H * l->v[k] / f->hi);
	fputs("\"/>\n", out);
	fprintf(out, "<circle class=\"peak\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>\n",
		LEFT + w * l->pct[at] / 100, f->top + PANEL_H - PANEL_H * l->v[at] / f->hi, colour);
	if (low < l->n)
		*mark = (struct mark){ LEFT + w * l->pct[low] / 100 - 4,
				       f->top + PANEL_H - PANEL_H * l->v[low] / f->hi - 4,
				       l->pct[low], colour };
	fprintf(out, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"%s\" "
		"stroke-width=\"3\"%s%s%s/>\n", LEFT, legend_y - 4, LEFT + 18, legend_y - 4, colour,
		*dash ? " stroke-dasharray=\"" : "", dash, *dash ? "\"" : "");
	fprintf(out, "<text x=\"%.0f\" y=\"%.0f\">", LEFT + 24, legend_y);
	svg_put_text(out, name, 0);
	if (label) {
		fputs(" (", out);
		svg_put_text(out, label, 0);
		fputc(')', out);
	}
	fprintf(out, ": peak %.4g %s at %.0f%% of calls", l->v[at] * f->scale, f->unit, l->pct[at]);
	if (low < l->n)
		fprintf(out, "; after the live peak, lowest %.4g %s (the square), at the end %.4g %s",
			l->v[low] * f->scale, f->unit, l->v[l->n - 1] * f->scale, f->unit);
	fputs("</text>\n</g>\n", out);
}

int plot_series_write(FILE *out, const struct plot_input *inputs, size_t n, double top,
		      double width)
{
	struct frame f = { .top = top + 30, .right = width - 30 };
	double legend_y = f.top + PANEL_H + 54;
	size_t colour = 0, entries = legend_entries(inputs, n), drawn = 0, lines, nmarks = 0;
	struct line l, live;
	struct mark *marks;

	if (!entries)
		return 0;
	if (!(marks = calloc(entries, sizeof(*marks))))
		return -1;
	lines = entries;
	for (size_t i = 0; i < n; i++)
		lines -= first_with_series(inputs[i].file) != NULL;
	f.scale = panel_scale(inputs, n, &f.unit, &f.hi);
	fprintf(out, "<g class=\"panel\" data-series=\"memory over time\">\n");
	fprintf(out, "<text x=\"%.0f\" y=\"%.0f\" font-weight=\"bold\">memory over the program's "
		"calls (%s): resident, a line per backend; live bytes dashed</text>\n", LEFT,
		f.top - 12, f.unit);
	panel_axes(out, f.top, f.right, f.hi, f.scale);
	for (size_t i = 0; i < n; i++) {
		const struct result_row *first = first_with_series(inputs[i].file);
		const char *label = n > 1 ? inputs[i].label : NULL;

		live.n = 0;
		if (first)
			line_get(first, "live_bytes", &live);
		for (size_t r = 0; r < inputs[i].file->nrows; r++, colour++) {
			line_get(&inputs[i].file->rows[r], "rss_bytes", &l);
			if (!l.n)
				continue;
			/* Each line narrower than the one before: equal lines all show. */
			marks[nmarks].colour = NULL;
			draw_line(out, &f, &l, "timeline", svg_colours[colour % SVG_COLOURS], "",
				  inputs[i].file->rows[r].backend, label, legend_y,
				  fmin(10, 2 + 2.0 * (double)(lines - 1 - drawn++)),
				  line_low_after(&l, &live), &marks[nmarks]);
			nmarks += marks[nmarks].colour != NULL;  /* lines <= entries */
			legend_y += LEGEND_ROW;
		}
		if (!first)
			continue;
		draw_line(out, &f, &live, "live", "#333", "6 4", "live bytes, every backend", label,
			  legend_y, 2, live.n, NULL);
		legend_y += LEGEND_ROW;
	}
	for (size_t k = 0; k < nmarks; k++)
		fprintf(out, "<rect class=\"low\" x=\"%.1f\" y=\"%.1f\" width=\"8\" height=\"8\" "
			"fill=\"white\" stroke=\"%s\" stroke-width=\"2\" data-pct=\"%.0f\"/>\n",
			marks[k].x, marks[k].y, marks[k].colour, marks[k].pct);
	free(marks);
	fputs("</g>\n", out);
	return ferror(out) ? -1 : 0;
}
