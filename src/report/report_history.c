/*
 * report_history.c - a history as text and as JSON (report_history.h).
 */
#include "report/report_history.h"
#include "report/json_out.h"
#include "report/svg.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <string.h>

/* V in the figure's display unit, with three significant digits or more. */
static void put_value(FILE *out, enum metric metric, double v)
{
	double d = figure_display_value(metric, v), a = fabs(d);
	int decimals = a >= 100 ? 0 : a >= 10 ? 1 : 2;

	fprintf(out, "%.*f", decimals, a < 0.005 ? 0.0 : d);  /* never "-0.00" */
}

/* The first and the last value of S, "-" where no report has one. */
static void put_ends(FILE *out, const struct history *h, const struct history_series *s)
{
	size_t first = h->nreports, last = 0;

	for (size_t i = 0; i < h->nreports; i++)
		if (!isnan(s->values[i])) {
			if (first == h->nreports)
				first = i;
			last = i;
		}
	if (first == h->nreports) {
		fputs("-", out);
		return;
	}
	put_value(out, s->metric, s->values[first]);
	fputs(" -> ", out);
	put_value(out, s->metric, s->values[last]);
}

static void put_step(FILE *out, const struct history *h, const struct history_series *s,
		     const struct history_step *st)
{
	const struct figure *f = figure_get(s->metric);

	fprintf(out, "; stepped %s", st->after >= st->before ? "+" : "-");
	put_value(out, s->metric, fabs(st->after - st->before));
	fprintf(out, " %s", f->display_unit);
	/* A per cent of a value near zero says nothing: left out beyond 10 times. */
	if (fabs(st->after - st->before) < 10 * fabs(st->before))
		fprintf(out, " (%+.1f%%)", (st->after - st->before) / fabs(st->before) * 100);
	if (h->side_by_side)
		fprintf(out, " at #%zu (%s), Holm's p %.2g", st->at + 1, h->reports[st->at].name, st->p);
	else
		fprintf(out, " at #%zu (%s), p %.3f", st->at + 1, h->reports[st->at].name, st->p);
}

/* What a history's figures are and how its steps were told, after its series. */
static void put_method(FILE *out, const struct history *h)
{
	double least = ab_min_p(h->least_pairs);

	if (!h->side_by_side) {
		fprintf(out, "\nA step is a change point of E-divisive means (p < %g, %u shuffles) of "
			"more than %g%% and the measurement's resolution; see allocbench-history(1).\n",
			h->options.alpha, CHANGEPOINT_PERMUTATIONS, h->options.min_step);
		return;
	}
	fprintf(out, "\nEach report is an allocbench ab comparison of its variant (new) with the one "
		"before it (old), side by side. A value is the first report's old median times each "
		"report's median new/old since (a rate: over it). A step is a report whose pairs "
		"moved the figure by more than %g%%, one-sided sign test p < %g Holm-corrected over "
		"the %zu tests of the history; see allocbench-history(1).\n", h->options.min_step,
		h->options.alpha, h->tests);
	if (least * (double)h->tests >= h->options.alpha)
		fprintf(out, "With %zu pairs the least p is %.4g: Holm over %zu tests cannot reach %g; "
			"give ab more --pairs.\n", h->least_pairs, least, h->tests, h->options.alpha);
}

int history_text_write(FILE *out, const struct history *h)
{
	enum metric shown = METRIC_COUNT;

	fprintf(out, "history of %zu reports of the %s workload, oldest first:\n", h->nreports,
		h->workload);
	for (size_t i = 0; i < h->nreports; i++)
		fprintf(out, "  #%-3zu %-20s  %s\n", i + 1,
			*h->reports[i].created ? h->reports[i].created : "(no date)",
			h->reports[i].name);
	for (size_t i = 0; i < h->nseries; i++) {
		const struct history_series *s = &h->series[i];
		const struct figure *f = figure_get(s->metric);

		if (s->metric != shown) {
			fprintf(out, "\n%s%s%s (%s), %s, first -> last:\n",
				f->head1, *f->head2 && !f->head2_is_unit ? " " : "",
				f->head2_is_unit ? "" : f->head2, f->display_unit,
				h->side_by_side ? "chained through each report's pairs"
						: "each report's median");
			shown = s->metric;
		}
		fprintf(out, "  %-14s %7zu B  ", s->backend, s->size);
		put_ends(out, h, s);
		if (!s->nsteps)
			fputs(!h->side_by_side && s->nvalues < 2 * CHANGEPOINT_MIN_SEGMENT
			      ? "; too few reports to tell" : "; no step", out);
		for (size_t k = 0; k < s->nsteps; k++)
			put_step(out, h, s, &s->steps[k]);
		fputs(s->worse ? " (worse)\n" : "\n", out);
	}
	put_method(out, h);
	return ferror(out) ? -1 : 0;
}

static cJSON *series_json(const struct history *h, const struct history_series *s)
{
	const struct figure *f = figure_get(s->metric);
	cJSON *o = cJSON_CreateObject(), *values = cJSON_AddArrayToObject(o, "values");
	cJSON *steps;

	cJSON_AddStringToObject(o, "figure", f->name);
	cJSON_AddStringToObject(o, "unit", f->unit);
	cJSON_AddStringToObject(o, "backend", s->backend);
	cJSON_AddNumberToObject(o, "size", (double)s->size);
	for (size_t i = 0; i < h->nreports; i++)
		cJSON_AddItemToArray(values, isnan(s->values[i]) ? cJSON_CreateNull()
								 : cJSON_CreateNumber(s->values[i]));
	steps = cJSON_AddArrayToObject(o, "steps");
	for (size_t k = 0; k < s->nsteps; k++) {
		const struct history_step *st = &s->steps[k];
		cJSON *j = cJSON_CreateObject();

		cJSON_AddNumberToObject(j, "report", (double)st->at);
		cJSON_AddNumberToObject(j, "before", st->before);
		cJSON_AddNumberToObject(j, "after", st->after);
		cJSON_AddNumberToObject(j, "change", st->after - st->before);
		if (st->before != 0)
			cJSON_AddNumberToObject(j, "percent",
						(st->after - st->before) / fabs(st->before) * 100);
		cJSON_AddNumberToObject(j, "p", st->p);
		cJSON_AddItemToArray(steps, j);
	}
	cJSON_AddBoolToObject(o, "worse", s->worse);
	return o;
}

int history_json_write(FILE *out, const struct history *h)
{
	cJSON *root = cJSON_CreateObject(), *reports, *series;

	cJSON_AddStringToObject(root, "schema", "allocbench-history/1");
	cJSON_AddStringToObject(root, "workload", h->workload);
	cJSON_AddNumberToObject(root, "alpha", h->options.alpha);
	cJSON_AddNumberToObject(root, "min_step_percent", h->options.min_step);
	cJSON_AddStringToObject(root, "method", h->side_by_side ? "side by side" : "e-divisive");
	if (h->side_by_side)
		cJSON_AddNumberToObject(root, "tests", (double)h->tests);
	reports = cJSON_AddArrayToObject(root, "reports");
	for (size_t i = 0; i < h->nreports; i++) {
		cJSON *r = cJSON_CreateObject();

		cJSON_AddStringToObject(r, "path", h->reports[i].path);
		cJSON_AddStringToObject(r, "name", h->reports[i].name);
		cJSON_AddStringToObject(r, "created", h->reports[i].created);
		cJSON_AddItemToArray(reports, r);
	}
	series = cJSON_AddArrayToObject(root, "series");
	for (size_t i = 0; i < h->nseries; i++)
		cJSON_AddItemToArray(series, series_json(h, &h->series[i]));
	return json_write_document(out, root);
}

/* ------------------------------------------------------------ the chart */

enum {
	CHART_LEFT = 70, CHART_WIDTH = 640, CHART_HEIGHT = 220, CHART_GAP = 90,
	LEGEND_WIDTH = 190, LEGEND_ROW = 16,
};

/* The x of report I of N. */
static double chart_x(size_t i, size_t n)
{
	return CHART_LEFT + (n > 1 ? (double)i * CHART_WIDTH / (double)(n - 1) : CHART_WIDTH / 2.0);
}

/* The smallest and largest value of the series of METRIC, in display units. */
static void chart_range(const struct history *h, enum metric metric, double *lo, double *hi)
{
	*lo = INFINITY;
	*hi = -INFINITY;
	for (size_t i = 0; i < h->nseries; i++)
		for (size_t r = 0; h->series[i].metric == metric && r < h->nreports; r++)
			if (!isnan(h->series[i].values[r])) {
				double v = figure_display_value(metric, h->series[i].values[r]);

				*lo = fmin(*lo, v);
				*hi = fmax(*hi, v);
			}
	if (*hi - *lo < 1e-9 * fmax(1, fabs(*hi))) {  /* flat: a band around it */
		*lo -= fmax(1, fabs(*lo) * 0.1);
		*hi += fmax(1, fabs(*hi) * 0.1);
	}
}

/* One panel: the axes, one line per series of METRIC, its steps; returns its height. */
static double chart_panel(FILE *out, const struct history *h, enum metric metric, double top)
{
	const struct figure *f = figure_get(metric);
	double lo, hi, bottom = top + CHART_HEIGHT;
	size_t style = 0, legend = 0;

	chart_range(h, metric, &lo, &hi);
#define Y(v) (bottom - ((v) - lo) / (hi - lo) * CHART_HEIGHT)
	fputs("<text x=\"10\" y=\"", out);
	fprintf(out, "%.1f\" font-weight=\"bold\">", top - 12);
	svg_put_textf(out, 0, "%s (%s), %s", f->plot_heading ? f->plot_heading : f->name,
		      f->display_unit, h->side_by_side ? "chained through each report's pairs"
						       : "each report's median");
	fprintf(out, "</text>\n<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%d\" fill=\"none\" "
		"stroke=\"#999\"/>\n", CHART_LEFT, top, CHART_WIDTH, CHART_HEIGHT);
	for (int t = 0; t <= 4; t++) {
		double v = lo + (hi - lo) * t / 4, step = (hi - lo) / 4;

		fprintf(out, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.*f</text>\n",
			CHART_LEFT - 6, Y(v) + 4, step >= 10 ? 0 : step >= 1 ? 1 : step >= 0.1 ? 2 : 3,
			fabs(v) < step / 1000 ? 0.0 : v);
	}
	for (size_t r = 0; r < h->nreports; r += h->nreports > 20 ? h->nreports / 10 : 1)
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">#%zu</text>\n",
			chart_x(r, h->nreports), bottom + 16, r + 1);
	for (size_t i = 0; i < h->nseries; i++) {
		const struct history_series *s = &h->series[i];
		const char *colour = svg_colours[style % SVG_COLOURS];
		int pen = 0;

		if (s->metric != metric)
			continue;
		style++;
		fprintf(out, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"2\" d=\"", colour);
		for (size_t r = 0; r < h->nreports; r++) {
			if (isnan(s->values[r])) {
				pen = 0;
				continue;
			}
			fprintf(out, "%c%.1f %.1f ", pen ? 'L' : 'M', chart_x(r, h->nreports),
				Y(figure_display_value(metric, s->values[r])));
			pen = 1;
		}
		fputs("\"/>\n", out);
		for (size_t r = 0; r < h->nreports; r++)  /* a dot per report that has a value */
			if (!isnan(s->values[r]))
				fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n",
					chart_x(r, h->nreports),
					Y(figure_display_value(metric, s->values[r])), colour);
		for (size_t k = 0; k < s->nsteps; k++) {
			double x = (chart_x(s->steps[k].at - 1, h->nreports) +
				    chart_x(s->steps[k].at, h->nreports)) / 2;

			fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
				"stroke=\"%s\" stroke-dasharray=\"5 4\"/>\n", x, top, x, bottom, colour);
			fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\">", x + 4,
				top + 14 + 14.0 * (double)legend, colour);
			svg_put_textf(out, 40, "step at %s", h->reports[s->steps[k].at].name);
			fputs("</text>\n", out);
		}
		fprintf(out, "<text x=\"%d\" y=\"%.1f\" fill=\"%s\">", CHART_LEFT + CHART_WIDTH + 14,
			top + 12 + LEGEND_ROW * (double)legend++, colour);
		svg_put_textf(out, 28, "%s %zu B%s", s->backend, s->size, s->nsteps ? " (step)" : "");
		fputs("</text>\n", out);
	}
#undef Y
	return CHART_HEIGHT + CHART_GAP;
}

int history_svg_write(FILE *out, const struct history *h)
{
	enum metric drawn[METRIC_COUNT];
	size_t ndrawn = 0;
	double top = 40;

	for (size_t i = 0; i < h->nseries; i++) {
		size_t d = 0;

		while (d < ndrawn && drawn[d] != h->series[i].metric)
			d++;
		if (d == ndrawn)
			drawn[ndrawn++] = h->series[i].metric;
	}
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%.0f\" "
		"font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%%\" "
		"height=\"100%%\" fill=\"white\"/>\n", CHART_LEFT + CHART_WIDTH + LEGEND_WIDTH,
		top + (double)ndrawn * (CHART_HEIGHT + CHART_GAP));
	fprintf(out, "<text x=\"10\" y=\"18\" font-size=\"14\">");
	svg_put_textf(out, 0, "allocbench history: %zu reports of the %s workload, %s to %s",
		      h->nreports, h->workload, h->reports[0].name, h->reports[h->nreports - 1].name);
	fputs("</text>\n", out);
	for (size_t d = 0; d < ndrawn; d++)
		top += chart_panel(out, h, drawn[d], top + 20);
	fputs("</svg>\n", out);
	return ferror(out) ? -1 : 0;
}
