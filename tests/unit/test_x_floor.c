/*
 * Unit tests for the x floor of the fill: each run of a cell over the floor
 * run of the same repetition (measured next to it), and the text's '?' on a
 * ratio whose runs lie on both sides of 1, with the line that explains it.
 */
#include "measure/backend.h"
#include "check.h"
#include "render.h"
#include "model/report.h"
#include "model/run.h"
#include "model/stats.h"
#include "report/report_formats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
	size_t sizes[] = { 40 };
	const struct backend *backends[] = { &backend_pool };
	struct run_config config = {
		.sizes = sizes, .nsizes = 1, .backends = backends, .nbackends = 1,
		.total_bytes = 5120, .repeat = 3, .touch = TOUCH_PAGES, .pool_block_bytes = 4096,
	};
	/* The floor drifts from run to run; the pool follows it at 1.2 times. */
	struct sample floor_samples[3] = {
		{ .ok = 1, .alloc_ns = 10 }, { .ok = 1, .alloc_ns = 20 }, { .ok = 1, .alloc_ns = 30 },
	};
	struct sample pool_samples[3];
	struct cell cells[1] = {
		{ .backend = &backend_pool, .size = 40, .count = 128, .align = 8, .ok = 1,
		  .samples = pool_samples, .runs = 3 },
	};
	struct floor_cell floors[1] = {
		{ .size = 40, .count = 128, .ok = 1, .samples = floor_samples, .runs = 3 },
	};
	struct run_report report = {
		.config = &config, .cells = cells, .ncells = 1, .floors = floors, .nfloors = 1,
	};
	double runs[RUN_MAX_REPEAT];
	struct stat_summary s;
	char *text, *row;

	report.host.page_size = 4096;
	for (int r = 0; r < 3; r++)
		pool_samples[r] = (struct sample){
			.ok = 1, .rss_before_bytes = 8192, .rss_after_bytes = 16384,
			.alloc_ns = 1.2 * floor_samples[r].alloc_ns, .free_ns = 1,
		};
	CHECK("x floor runs: each run over its own floor run",
	      !cell_runs(&report, &cells[0], METRIC_X_FLOOR, runs) &&
	      runs[0] > 1.199 && runs[0] < 1.201 && runs[1] > 1.199 && runs[1] < 1.201 &&
	      runs[2] > 1.199 && runs[2] < 1.201);
	CHECK("x floor: no spread where the pool follows the floor",
	      !cell_summary(&report, &cells[0], METRIC_X_FLOOR, &s) && s.max - s.min < 1e-9);
	text = render_report(report_text_write, &report);
	row = text ? strstr(text, "\npool ") : NULL;
	CHECK("text: 1.20 without a mark", row && strstr(row, " 1.20 ") && !strchr(strtok(row + 1, "\n"), '?'));
	CHECK("text: no ? line", text && !strstr(text, "?: the runs' ratios"));
	free(text);

	/* Now the pool's runs straddle the floor: 0.9, 1.0, 1.3 of it. */
	pool_samples[0].alloc_ns = 9;
	pool_samples[1].alloc_ns = 20;
	pool_samples[2].alloc_ns = 39;
	CHECK("x floor crosses 1: min below, max above",
	      !cell_summary(&report, &cells[0], METRIC_X_FLOOR, &s) && s.min < 1 && s.max > 1);
	text = render_report(report_text_write, &report);
	row = text ? strstr(text, "\npool ") : NULL;
	CHECK("text: the ratio is marked ?", row && strstr(row, " 1.00? "));
	CHECK("text: and the mark explained", text && strstr(text, "?: the runs' ratios lie on both sides of"));
	free(text);

	/* A floor measured once (a report of an older run): its median for every run. */
	floors[0].runs = 1;
	CHECK("a floor with fewer runs: its median for the others",
	      !cell_runs(&report, &cells[0], METRIC_X_FLOOR, runs) &&
	      runs[0] > 0.899 && runs[0] < 0.901 && runs[2] > 3.899 && runs[2] < 3.901);
	return check_exit();
}
