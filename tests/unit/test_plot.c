/* Unit tests for plot.c and plot_svg.c: series, scales, gaps and refusals of
 * plot_build(), and what plot_svg_write() does with outside text. */
#include "check.h"
#include "report/plot.h"
#include "report/plot_svg.h"
#include "report/results.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char path[] = "/tmp/allocbench-test-plot-XXXXXX";

#define HEAD "{\"schema\":\"allocbench/1\",\"host\":{\"hostname\":\"h<&>\\u0001\"},\"results\":["
#define STAT(v) "{\"median\":" #v ",\"min\":" #v ",\"max\":" #v ",\"runs\":[" #v "]}"
#define ROW(b, size, over, ns) \
	"{\"backend\":\"" b "\",\"size\":" #size ",\"status\":\"ok\",\"overhead_bytes\":" \
	STAT(over) ",\"alloc_ns\":" STAT(ns) "}"
#define FAILED(b, size) \
	"{\"backend\":\"" b "\",\"size\":" #size ",\"status\":\"failed\",\"error\":\"no <mem>\"," \
	"\"overhead_bytes\":null,\"alloc_ns\":null}"

static int load_text(const char *text, struct result_file *file)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -2;
	fputs(text, f);
	fclose(f);
	return results_load(path, file);
}

/* Builds a plot of one report TEXT with METRICS; returns plot_build()'s result. */
static int build_one(const char *text, const char *const *metrics, size_t nmetrics,
		     struct result_file *file, struct plot_input *input, struct plot *plot)
{
	memset(plot, 0, sizeof(*plot));
	if (load_text(text, file))
		return -2;
	input->file = file;
	input->label = "one";
	return plot_build(plot, input, 1, metrics, nmetrics, NULL);
}

static const char *const both[] = { "overhead", "alloc_ns" };

/*
 * A report of a sweep: for each of the NB BACKENDS, N sizes from FIRST on,
 * STEP apart, with the overhead of 16-byte size classes (chunk - size) and
 * a time that grows with the size. Returns a malloc'd string.
 */
static char *sweep(const char *const *backends, size_t nb, const size_t *n, uint64_t first,
		   uint64_t step)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	fputs(HEAD, f);
	for (size_t b = 0; b < nb; b++)
		for (size_t i = 0; i < n[b]; i++) {
			uint64_t size = first + i * step, chunk = (size + 15) / 16 * 16;

			fprintf(f, "%s{\"backend\":\"%s\",\"size\":%llu,\"status\":\"ok\","
				"\"overhead_bytes\":{\"median\":%llu},\"alloc_ns\":{\"median\":%llu}}",
				b || i ? "," : "", backends[b], (unsigned long long)size,
				(unsigned long long)(chunk - size), (unsigned long long)(20 + size / 8));
		}
	fputs("]}", f);
	fclose(f);
	return text;
}

int main(void)
{
	struct result_file files[2];
	struct plot_input inputs[2];
	struct plot plot;
	char *svg = NULL;
	size_t len = 0;
	FILE *mem;
	int fd = mkstemp(path);

	if (fd < 0)
		return 2;
	close(fd);

	CHECK("short metric names map to fields",
	      !strcmp(plot_metric_field("overhead"), "overhead_bytes") &&
	      !strcmp(plot_metric_field("alloc"), "alloc_ns") &&
	      !strcmp(plot_metric_field("free_ns"), "free_ns") &&
	      !strcmp(plot_metric_field("faults"), "page_faults") &&
	      !strcmp(plot_metric_field("counters.X.alloc"), "counters.X.alloc"));

	/* Overhead from -3000 to 0, ns from 2 to 900: linear and log. */
	CHECK("a report with a failed row builds",
	      !build_one(HEAD ROW("pool", 8, 0, 2) "," FAILED("pool", 64) "," ROW("pool", 512, -3000, 900)
			 "," ROW("arena", 8, 0, 3) "," ROW("arena", 64, 0, 9) "," ROW("arena", 0, 1, 1) "]}",
			 both, 2, &files[0], &inputs[0], &plot));
	CHECK("two series", plot.nseries == 2 && !strcmp(plot.series[0].backend, "pool") &&
	      !strcmp(plot.series[1].backend, "arena"));
	CHECK("styles differ by backend", plot.series[0].style != plot.series[1].style);
	CHECK("the failed row is a failure of pool", plot.series[0].nfailures == 1 &&
	      plot.series[0].failures[0].size_bytes == 64 && plot.failed_rows == 1 &&
	      !strcmp(plot.series[0].failures[0].error, "no <mem>"));
	CHECK("the size-0 row is not plotted", plot.mixed_rows == 1 && plot.panels[0].npoints[1] == 2);
	CHECK("pool has its two points, sorted", plot.panels[0].npoints[0] == 2 &&
	      plot.panels[0].points[0][0].size_bytes == 8 &&
	      plot.panels[0].points[0][1].size_bytes == 512);
	CHECK("the line breaks over the failed size", plot.panels[0].points[0][1].break_before &&
	      !plot.panels[0].points[0][0].break_before && !plot.panels[0].points[1][1].break_before);
	CHECK("overhead: linear, negative to zero", !plot.panels[0].log_y &&
	      plot.panels[0].y_lo <= -3000 && plot.panels[0].y_hi >= 0 && plot.panels[0].y_step > 0);
	CHECK("ns over two decades: log, from 2 to 1000", plot.panels[1].log_y &&
	      plot.panels[1].y_lo == 2 && plot.panels[1].y_hi == 1000);
	CHECK("x range: smallest and largest size", plot.x_lo_bytes == 8 && plot.x_hi_bytes == 512);

	mem = open_memstream(&svg, &len);
	CHECK("the SVG is written", mem && !plot_svg_write(&plot, mem) && !fclose(mem));
	CHECK("one series group per series and panel", svg && strstr(svg, "data-backend=\"arena\"") &&
	      strstr(strstr(strstr(svg, "<g class=\"series\""), "</g>"), "<g class=\"series\""));
	CHECK("outside text escaped", svg && strstr(svg, "host h&lt;&amp;&gt;\xef\xbf\xbd") &&
	      strstr(svg, "no &lt;mem&gt;") && !strstr(svg, "<mem>"));
	CHECK("the document is closed", svg && len > 7 && !strcmp(svg + len - 7, "</svg>\n"));
	free(svg);
	plot_release(&plot);
	results_release(&files[0]);

	CHECK("ns within two decades: linear",
	      !build_one(HEAD ROW("pool", 8, 0, 10) "," ROW("pool", 64, 0, 900) "]}", both, 2,
			 &files[0], &inputs[0], &plot) && !plot.panels[1].log_y);
	plot_release(&plot);
	results_release(&files[0]);

	CHECK("overhead is never log",
	      !build_one(HEAD ROW("pool", 8, 1, 1) "," ROW("pool", 64, 50000, 1) "]}", both, 1,
			 &files[0], &inputs[0], &plot) && !plot.panels[0].log_y);
	plot_release(&plot);
	results_release(&files[0]);

	/* Two files: the same backend keeps its style. */
	load_text(HEAD ROW("malloc", 8, 24, 20) "," ROW("pool", 8, 0, 5) "]}", &files[0]);
	load_text(HEAD ROW("pool", 8, 0, 6) "," ROW("pool", 16, 0, 7) "]}", &files[1]);
	inputs[0] = (struct plot_input){ .file = &files[0], .label = "before" };
	inputs[1] = (struct plot_input){ .file = &files[1], .label = "after" };
	CHECK("two files build", !plot_build(&plot, inputs, 2, both, 2, NULL));
	CHECK("three series", plot.nseries == 3 && plot.series[2].input == 1);
	CHECK("pool keeps its style across files", plot.series[1].style == plot.series[2].style);
	plot_release(&plot);
	results_release(&files[0]);
	results_release(&files[1]);

	/* Dense series: more sizes than markers fit in the plot area. */
	{
		static const char *const two[] = { "malloc", "jemalloc" };
		const size_t n[] = { PLOT_DENSE_SIZES, PLOT_DENSE_SIZES + 1 };
		char *text = sweep(two, 2, n, 8, 8);

		CHECK("the dense threshold is 44 sizes", PLOT_DENSE_SIZES == 44);
		CHECK("a sweep of 44 and of 45 sizes builds",
		      text && !build_one(text, both, 2, &files[0], &inputs[0], &plot));
		CHECK("44 sizes keep their markers, 45 are dense",
		      plot.nseries == 2 && !plot.series[0].dense && plot.series[1].dense);
		CHECK("overhead is drawn in steps, times are not",
		      plot.panels[0].steps && !plot.panels[1].steps);
		CHECK("few sizes: the default width and a log axis",
		      plot.area_px == PLOT_AREA_PX && plot.x_scale == PLOT_X_LOG &&
		      plot.x_step_bytes == 0);
		plot_release(&plot);
		results_release(&files[0]);
		free(text);
	}
	/* A linear axis: power-of-two ticks from 0 past the largest size. */
	{
		static const char *const one[] = { "malloc" };
		const size_t n128[] = { 128 }, n1024[] = { 1024 }, n3[] = { 3 };
		const struct plot_options linear = { .x_scale = PLOT_X_LINEAR };
		const struct plot_options log_x = { .x_scale = PLOT_X_LOG };
		char *text = sweep(one, 1, n128, 1, 8);   /* 1..1017 */
		int ticks_ok;

		load_text(text, &files[0]);
		inputs[0] = (struct plot_input){ .file = &files[0], .label = "one" };
		CHECK("1..1024:+8 on a linear axis builds",
		      !plot_build(&plot, inputs, 1, both, 2, &linear));
		ticks_ok = plot.nx_ticks == 9;
		for (size_t i = 0; ticks_ok && i < 9; i++)
			ticks_ok = plot.x_ticks[i] == 128 * i;
		CHECK("linear: 0 to 1024, a tick every 128 bytes", plot.x_scale == PLOT_X_LINEAR &&
		      plot.x_lo == 0 && plot.x_hi == 1024 && plot.x_step_bytes == 128 && ticks_ok);
		CHECK("linear: a size's place is proportional to it",
		      plot_x_fraction(&plot, 512) == 0.5 && plot_x_fraction(&plot, 1024) == 1);
		CHECK("128 sizes fit the default width", plot.area_px == PLOT_AREA_PX);
		plot_release(&plot);
		results_release(&files[0]);
		free(text);

		text = sweep(one, 1, n1024, 1, 1);   /* 1..1024:+1 */
		load_text(text, &files[0]);
		CHECK("1024 sizes on a linear axis build",
		      !plot_build(&plot, inputs, 1, both, 2, &linear));
		CHECK("1024 sizes widen the area to its maximum", plot.area_px == PLOT_AREA_MAX_PX);
		ticks_ok = plot.nx_ticks >= 2;
		for (size_t i = 1; ticks_ok && i < plot.nx_ticks; i++)
			ticks_ok = (plot_x_fraction(&plot, plot.x_ticks[i]) -
				    plot_x_fraction(&plot, plot.x_ticks[i - 1])) * plot.area_px >=
				   PLOT_TICK_GAP_PX && plot.x_ticks[i] - plot.x_ticks[i - 1] == 32;
		CHECK("the wider axis has more ticks, each 44 px apart or more (every 32 B)",
		      ticks_ok && plot.x_ticks[plot.nx_ticks - 1] == 1024);
		plot_release(&plot);
		CHECK("1024 sizes on a log axis build", !plot_build(&plot, inputs, 1, both, 2, &log_x));
		ticks_ok = plot.nx_ticks == 11;
		for (size_t i = 0; ticks_ok && i < 11; i++)
			ticks_ok = plot.x_ticks[i] == (uint64_t)1 << i;
		CHECK("log: a tick at each power of two from 1 to 1024", ticks_ok);
		plot_release(&plot);
		results_release(&files[0]);
		free(text);

		text = sweep(one, 1, n3, 64, 0);   /* one size, three rows */
		load_text(text, &files[0]);
		CHECK("one size on a linear axis: in the middle of 0 to twice it",
		      !plot_build(&plot, inputs, 1, both, 2, &linear) && plot.x_lo == 0 &&
		      plot.x_hi == 128 && plot_x_fraction(&plot, 64) == 0.5);
		plot_release(&plot);
		results_release(&files[0]);
		free(text);
	}
	/* --facet backend: a panel per metric and backend, on the metric's axes. */
	{
		static const char *const three[] = { "malloc", "jemalloc", "mimalloc" };
		const size_t n[] = { 4, 60, 3 };
		const struct plot_options facet = { .facet = PLOT_FACET_BACKEND };
		char *text = sweep(three, 3, n, 8, 8);
		int only_own = 1;

		load_text(text, &files[0]);
		load_text(HEAD ROW("jemalloc", 8, 900, 5) "]}", &files[1]);
		inputs[0] = (struct plot_input){ .file = &files[0], .label = "before" };
		inputs[1] = (struct plot_input){ .file = &files[1], .label = "after" };
		CHECK("two files faceted by backend build", !plot_build(&plot, inputs, 2, both, 2, &facet));
		CHECK("2 metrics x 3 backends: 6 panels", plot.npanels == 6);
		CHECK("metric by metric, backends in order of appearance",
		      !strcmp(plot.panels[0].facet, "malloc") && !strcmp(plot.panels[1].facet, "jemalloc") &&
		      !strcmp(plot.panels[2].facet, "mimalloc") && !strcmp(plot.panels[3].facet, "malloc") &&
		      !strcmp(plot.panels[0].field, "overhead_bytes") &&
		      !strcmp(plot.panels[3].field, "alloc_ns"));
		for (size_t p = 0; p < plot.npanels; p++)
			for (size_t si = 0; si < plot.nseries; si++)
				if (plot.panels[p].npoints[si] &&
				    strcmp(plot.series[si].backend, plot.panels[p].facet))
					only_own = 0;
		CHECK("a panel holds only its backend's series", only_own);
		CHECK("the second file's jemalloc is in jemalloc's panel",
		      plot.nseries == 4 && plot.series[3].input == 1 && plot.panels[1].npoints[3] == 1 &&
		      plot.panels[1].npoints[1] == 60);
		CHECK("the panels of a metric share the y axis (900 B from the second file)",
		      plot.panels[0].y_hi >= 900 && plot.panels[0].y_hi == plot.panels[2].y_hi &&
		      plot.panels[0].y_lo == plot.panels[1].y_lo);
		mem = open_memstream(&svg, &len);
		CHECK("a faceted chart is written", mem && !plot_svg_write(&plot, mem) && !fclose(mem));
		{
			const char *g = svg ? strstr(svg, "data-backend=\"jemalloc\" data-line=\"steps\" "
						     "data-points=\"60\"") : NULL;
			const char *end = g ? strstr(g, "</g>") : NULL;
			const char *use = g ? strstr(g, "<use ") : NULL;
			const char *line = g ? strstr(g, "<path class=\"line\"") : NULL;

			CHECK("the dense series is a line without markers, in steps",
			      end && line && line < end && (!use || use > end) &&
			      memchr(line, 'V', (size_t)(end - line)));
		}
		CHECK("the panel names its backend", svg && strstr(svg, "data-facet=\"mimalloc\""));
		free(svg);
		plot_release(&plot);
		results_release(&files[0]);
		results_release(&files[1]);
		free(text);
	}

	fprintf(stderr, "(the errors below are expected)\n");
	CHECK("an empty results list refused",
	      build_one(HEAD "]}", both, 2, &files[0], &inputs[0], &plot) == -1);
	plot_release(&plot);
	results_release(&files[0]);
	CHECK("all rows failed refused",
	      build_one(HEAD FAILED("pool", 8) "]}", both, 2, &files[0], &inputs[0], &plot) == -1);
	plot_release(&plot);
	results_release(&files[0]);
	{
		static const char *const unknown[] = { "counters.nope.alloc" };

		CHECK("a metric no row holds refused",
		      build_one(HEAD ROW("pool", 8, 0, 5) "]}", unknown, 1, &files[0], &inputs[0],
				&plot) == -1);
		mem = open_memstream(&svg, &len);
		CHECK("a plot whose build failed is not written",
		      mem && plot_svg_write(&plot, mem) == -1 && !fclose(mem) && len == 0);
		free(svg);
		plot_release(&plot);
		results_release(&files[0]);
	}
	unlink(path);
	return check_exit();
}
