/* Unit tests for plot.c and plot_svg.c: series, scales, gaps and refusals of
 * plot_build(), and what plot_svg_write() does with outside text. */
#include "check.h"
#include "plot.h"
#include "plot_svg.h"
#include "results.h"

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
	return plot_build(plot, input, 1, metrics, nmetrics);
}

static const char *const both[] = { "overhead", "alloc_ns" };

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
	CHECK("two files build", !plot_build(&plot, inputs, 2, both, 2));
	CHECK("three series", plot.nseries == 3 && plot.series[2].input == 1);
	CHECK("pool keeps its style across files", plot.series[1].style == plot.series[2].style);
	plot_release(&plot);
	results_release(&files[0]);
	results_release(&files[1]);

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
