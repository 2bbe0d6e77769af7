/*
 * Unit tests for the mark of a wide time spread in the text table: a time
 * whose runs' max/min exceeds REPORT_TIME_SPREAD reads "40.0~" and the
 * footer explains '~'; a steady time, or one of nothing, reads plain.
 */
#include "measure/backend.h"
#include "check.h"
#include "render.h"
#include "model/report.h"
#include "report/report_columns.h"
#include "model/run.h"
#include "model/stats.h"
#include "report/report_formats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
	size_t sizes[] = { 4 };
	const struct backend *backends[] = { &backend_malloc };
	struct run_config config = {
		.sizes = sizes, .nsizes = 1, .backends = backends, .nbackends = 1,
		.total_bytes = 4096, .repeat = 3, .touch = TOUCH_PAGES, .pool_block_bytes = 4096,
		.workload = WORKLOAD_FILL,
	};
	struct sample samples[3];
	struct cell cells[1] = {
		{ .backend = &backend_malloc, .size = 4, .count = 1024, .align = 16, .ok = 1,
		  .samples = samples, .runs = 3 },
	};
	struct run_report report = { .config = &config, .cells = cells, .ncells = 1 };
	/* Cold malloc at 4 B on a shared machine: 26 to 54 ns. */
	const double noisy[3] = { 26, 40, 54 }, steady[3] = { 10, 11, 12 };
	struct stat_summary s;
	char *text, *row;

	report.host.page_size = 4096;
	for (int r = 0; r < 3; r++)
		samples[r] = (struct sample){ .ok = 1, .rss_before_bytes = 8192,
					      .rss_after_bytes = 65536, .alloc_ns = noisy[r],
					      .free_ns = steady[r], .warm_alloc_ns = 0 };
	CHECK("26 to 54 is wide", !cell_summary(&report, &cells[0], METRIC_ALLOC_NS, &s) &&
	      report_time_spread_wide(&s));
	CHECK("10 to 12 is not", !cell_summary(&report, &cells[0], METRIC_FREE_NS, &s) &&
	      !report_time_spread_wide(&s));
	CHECK("a time of nothing is not", !cell_summary(&report, &cells[0], METRIC_WARM_ALLOC_NS, &s) &&
	      !report_time_spread_wide(&s));
	text = render_report(report_text_write, &report);
	row = text ? strstr(text, "\nmalloc ") : NULL;
	CHECK("text: the noisy alloc ns is marked", row && strstr(row, " 40.0~ "));
	CHECK("text: the steady free ns is not", row && strstr(row, " 11.0 "));
	CHECK("text: the footer explains ~", text && strstr(text, "~: a time whose runs spread by more than 1.5x"));
	free(text);
	for (int r = 0; r < 3; r++)
		samples[r].alloc_ns = steady[r];
	text = render_report(report_text_write, &report);
	CHECK("text: no mark, no footer line when every time is steady",
	      text && !strchr(strstr(text, "\nmalloc ") + 1, '~'));
	free(text);
	return check_exit();
}
