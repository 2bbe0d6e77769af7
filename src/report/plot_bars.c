/*
 * plot_bars.c - `allocbench plot` of replay reports (report/plot_bars.h):
 * no size axis, so one panel per metric with a bar per backend (and per
 * input file), its height the median, a whisker from min to max; under
 * them, memory over time where the rows have a series (plot_series.h).
 */
#include "report/plot_bars.h"
#include "report/plot_series.h"
#include "model/figure.h"
#include "report/svg.h"
#include "platform/util.h"

#include <math.h>
#include <string.h>

#define BAR_W 36.0
#define BAR_GAP 14.0
#define PANEL_H 220.0
#define PANEL_TOP 40.0
#define LEFT 70.0

/*
 * The figures a replay chart shows (figure.h), with the heading and unit of
 * each as a replay reads them.
 */
static const struct {
	enum metric metric;
	const char *heading, *unit;
	double scale;
} bar_metrics[] = {
	{ METRIC_PEAK_RSS_BYTES, "peak resident set during the replay", "MiB", 1.0 / (1 << 20) },
	{ METRIC_FRAGMENTATION, "peak RSS over peak live bytes", "ratio", 1.0 },
	{ METRIC_OP_NS, "time per call", "ns", 1.0 },
};

#define NMETRICS (sizeof(bar_metrics) / sizeof(bar_metrics[0]))

int plot_bars_applies(const struct plot_input *inputs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(inputs[i].file->workload, "replay"))
			return 0;
	return n > 0;
}

/*
 * The panel of bar_metrics[M], the M-th from the top, in a chart WIDTH
 * wide: its heading, its axes, a bar per row of the N INPUTS.
 */
static void write_panel(FILE *out, const struct plot_input *inputs, size_t n, size_t m,
			double width)
{
	double top = 20 + (double)m * (PANEL_H + PANEL_TOP + 60) + PANEL_TOP;
	double hi = 0, x = LEFT + BAR_GAP;
	size_t bar = 0;

	for (size_t i = 0; i < n; i++) {
		for (size_t r = 0; r < inputs[i].file->nrows; r++) {
			struct result_stat s;

			if (inputs[i].file->rows[r].ok &&
			    !results_row_stat(inputs[i].file, &inputs[i].file->rows[r],
					      metric_name(bar_metrics[m].metric), &s))
				hi = fmax(hi, s.max * bar_metrics[m].scale);
		}
	}
	if (!(hi > 0))
		hi = 1;
	hi *= 1.1;
	fprintf(out, "<text x=\"%.0f\" y=\"%.0f\" font-weight=\"bold\">%s (%s)</text>\n",
		LEFT, top - 14, bar_metrics[m].heading, bar_metrics[m].unit);
	fprintf(out, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"black\"/>\n",
		LEFT, top + PANEL_H, width - 20, top + PANEL_H);
	fprintf(out, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"black\"/>\n",
		LEFT, top, LEFT, top + PANEL_H);
	for (int t = 0; t <= 4; t++) {
		double v = hi * t / 4, y = top + PANEL_H - PANEL_H * t / 4;

		fprintf(out, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">%.3g</text>\n",
			LEFT - 6, y + 4, v);
	}
	for (size_t i = 0; i < n; i++) {
		for (size_t r = 0; r < inputs[i].file->nrows; r++, bar++, x += BAR_W + BAR_GAP) {
			const struct result_row *row = &inputs[i].file->rows[r];
			struct result_stat s;
			double h, y;

			fprintf(out, "<text transform=\"translate(%.1f,%.0f) rotate(30)\">",
				x + 4, top + PANEL_H + 14);
			svg_put_text(out, row->backend, 0);
			if (n > 1) {
				fputs(" (", out);
				svg_put_text(out, inputs[i].label, 0);
				fputc(')', out);
			}
			fputs("</text>\n", out);
			if (!row->ok || results_row_stat(inputs[i].file, row, metric_name(bar_metrics[m].metric), &s)) {
				fprintf(out, "<text x=\"%.1f\" y=\"%.0f\" fill=\"#c00\">failed</text>\n",
					x, top + PANEL_H - 4);
				continue;
			}
			h = PANEL_H * s.median * bar_metrics[m].scale / hi;
			y = top + PANEL_H - h;
			fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.0f\" height=\"%.1f\" "
				"fill=\"%s\"><title>", x, y, BAR_W, h,
				svg_colours[bar % SVG_COLOURS]);
			svg_put_text(out, row->backend, 0);
			fprintf(out, ": median %.4g %s</title></rect>\n",
				s.median * bar_metrics[m].scale, bar_metrics[m].unit);
			if (s.max > s.min)
				fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
					"stroke=\"black\"/>\n", x + BAR_W / 2,
					top + PANEL_H - PANEL_H * s.min * bar_metrics[m].scale / hi,
					x + BAR_W / 2,
					top + PANEL_H - PANEL_H * s.max * bar_metrics[m].scale / hi);
			fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
				"font-size=\"10\">%.3g</text>\n", x + BAR_W / 2, y - 3,
				s.median * bar_metrics[m].scale);
		}
	}
}

int plot_bars_write(FILE *out, const struct plot_input *inputs, size_t n)
{
	size_t nbars = 0;
	double width, height, series_top;

	for (size_t i = 0; i < n; i++)
		nbars += inputs[i].file->nrows;
	if (!nbars)
		return error("'%s': no plottable points: the replay report has no results",
			     inputs[0].file->path);
	width = LEFT + (double)nbars * (BAR_W + BAR_GAP) + 40;
	if (width < 420)
		width = 420;
	height = NMETRICS * (PANEL_H + PANEL_TOP + 60) + 20;
	series_top = height;
	height += plot_series_height(inputs, n);
	if (series_top < height && width < 640)
		width = 640;
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n",
		width, height, width, height);
	fprintf(out, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	for (size_t m = 0; m < NMETRICS; m++)
		write_panel(out, inputs, n, m, width);
	if (plot_series_write(out, inputs, n, series_top, width))
		return -1;
	fputs("</svg>\n", out);
	return ferror(out) ? -1 : 0;
}
