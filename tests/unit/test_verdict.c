/*
 * Unit tests for verdict.c on reports built by hand: a clear winner when the
 * best's range overlaps no other backend's, "no clear winner" with every
 * overlapping backend when it does, the C library's malloc as the reference
 * (and a preloaded allocator under the name malloc not taken for it), and
 * the best drop-in choice apart from the best with code changes (pool,
 * pool-locked and arena), each with what it saves over malloc.
 */
#include "measure/backend.h"
#include "check.h"
#include "model/report.h"
#include "model/run.h"
#include "model/verdict.h"
#include "report/report_verdict.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The figure table (figure.h) is whole: every figure named, found by its
 * name, shown in a unit; every workload's verdict figures reported for it
 * and judged in the direction their aspect says.
 */
static void check_figure_table(void)
{
	int whole = 1, verdicts = 1;

	for (int m = 0; m < METRIC_COUNT; m++) {
		const struct figure *f = figure_get((enum metric)m);

		whole &= f->name && f->unit && f->display_unit && f->display_scale > 0 &&
			 f->head1 && f->head2 && f->workloads &&
			 metric_find(f->name) == m && !strcmp(metric_name((enum metric)m), f->name);
	}
	CHECK("every figure has a name, units, headings and a workload", whole);
	for (int w = 0; w < WORKLOAD_COUNT; w++) {
		const struct workload_def *d = workload_def((enum workload)w);

		verdicts &= d->workload == (enum workload)w && d->notes &&
			    d->verdict_time != METRIC_COUNT &&
			    metric_applies(d->verdict_time, (enum workload)w) &&
			    figure_get(d->verdict_time)->aspect != FIGURE_MEMORY &&
			    (d->verdict_memory == METRIC_COUNT ||
			     (metric_applies(d->verdict_memory, (enum workload)w) &&
			      figure_get(d->verdict_memory)->aspect == FIGURE_MEMORY));
	}
	CHECK("every workload has a time verdict; a memory one judges memory", verdicts);
	CHECK("replay is judged like random",
	      workload_def(WORKLOAD_REPLAY)->verdict_memory == METRIC_PEAK_RSS_BYTES &&
	      workload_def(WORKLOAD_REPLAY)->verdict_time == METRIC_OP_NS);
	CHECK("KiB and Mops/s: the display units of the tables",
	      figure_display_value(METRIC_PEAK_RSS_BYTES, 2048) == 2 &&
	      figure_display_value(METRIC_OPS_PER_S, 3e6) == 3);
	CHECK("no such figure", metric_find("no_such_figure") == -1);
}

static char *render(const struct run_report *report)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	verdict_write_text(f, report);
	fclose(f);
	/* The wrapped lines joined: a continuation's newline and indent become one space. */
	for (char *p = text, *q = text; p && *q; ) {
		if (q[0] == '\n' && q[1] == ' ' && q[2] == ' ' && q[3] == ' ') {
			*p++ = ' ';
			for (q++; *q == ' '; q++)
				;
		} else {
			*p++ = *q++;
		}
		if (!*q)
			*p = '\0';
	}
	return text;
}

/* Three runs of alloc ns A, B, C and an overhead of OVERHEAD B/chunk (count 1024, size 16). */
static void fill(struct sample *s, double a, double b, double c, double overhead)
{
	const double ns[3] = { a, b, c };

	for (int r = 0; r < 3; r++)
		s[r] = (struct sample){ .ok = 1, .rss_before_bytes = 1 << 20,
					.rss_after_bytes = (1 << 20) + (uint64_t)((16 + overhead) * 1024),
					.alloc_ns = ns[r], .free_ns = 1 };
}

int main(void)
{
	size_t sizes[] = { 16 };
	const struct backend *backends[] = { &backend_malloc, &backend_pool, &backend_arena };
	struct run_config config = {
		.sizes = sizes, .nsizes = 1, .backends = backends, .nbackends = 3,
		.total_bytes = 16384, .repeat = 3, .touch = TOUCH_PAGES, .pool_block_bytes = 4096,
		.workload = WORKLOAD_FILL,
	};
	struct sample sm[3], sp[3], sa[3];
	struct cell cells[3] = {
		{ .backend = &backend_malloc, .size = 16, .count = 1024, .align = 16, .ok = 1, .samples = sm, .runs = 3 },
		{ .backend = &backend_pool, .size = 16, .count = 1024, .align = 16, .ok = 1, .samples = sp, .runs = 3 },
		{ .backend = &backend_arena, .size = 16, .count = 1024, .align = 16, .ok = 1, .samples = sa, .runs = 3 },
	};
	struct run_report report = { .config = &config, .cells = cells, .ncells = 3 };
	struct verdict v;
	char *text;

	report.host.page_size = 4096;
	for (int r = 0; r < 3; r++)
		strcpy(sm[r].allocator.name, "glibc");
	fill(sm, 40, 42, 44, 16);
	fill(sp, 10, 11, 12, 0);
	fill(sa, 20, 21, 22, 4);
	CHECK("computed", !verdict_compute(&report, 0, &v));
	CHECK("time: pool, a clear winner", v.time.nbest == 1 && v.time.best[0].cell == &cells[1]);
	CHECK("time: malloc is the reference", v.time.have_malloc && v.time.malloc_s.median == 42);
	CHECK("memory: pool, a clear winner", v.memory.nbest == 1 && v.memory.best[0].cell == &cells[1]);
	CHECK("pool needs code changes, malloc does not",
	      verdict_needs_code_changes(&cells[1]) && verdict_needs_code_changes(&cells[2]) &&
	      !verdict_needs_code_changes(&cells[0]));
	text = render(&report);
	CHECK("drop-in: malloc, the only one; with code changes: pool",
	      v.time.drop_in.nbest == 1 && v.time.drop_in.best[0].cell == &cells[0] &&
	      v.time.code_changes.nbest == 1 && v.time.code_changes.best[0].cell == &cells[1]);
	{
		double saves, percent;

		CHECK("pool saves 31 ns, 73.8%, beyond the noise",
		      verdict_saves(&v.time, &v.time.code_changes, &saves, &percent) == 1 &&
		      saves == 31 && percent > 73.80 && percent < 73.81);
		CHECK("malloc saves nothing over itself",
		      verdict_saves(&v.time, &v.time.drop_in, &saves, &percent) == 0 && saves == 0);
	}
	CHECK("text: the best drop-in choice, malloc itself",
	      text && strstr(text, "  16 B time, drop-in: malloc 42.0 [40.0-44.0] ns; malloc is the best\n"));
	CHECK("text: the best with code changes, pool, what it saves in ns and per cent",
	      text && strstr(text, "  16 B time, with code changes: pool 11.0 [10.0-12.0] ns; 31.0 ns (74%) less than malloc 42.0 [40.0-44.0]\n"));
	CHECK("text: memory, 16.0 B/chunk (100%) less than malloc",
	      text && strstr(text, "16 B memory, with code changes: pool 0.00 [0.00-0.00] B/chunk; 16.0 B/chunk (100%) less than malloc 16.0 [16.0-16.0]"));
	free(text);

	/* The arena's runs reach into the pool's: no clear winner between them. */
	fill(sa, 11.5, 30, 31, 4);
	CHECK("overlap: no clear winner", !verdict_compute(&report, 0, &v) && v.time.nbest == 2 &&
	      v.time.best[0].cell == &cells[1] && v.time.best[1].cell == &cells[2]);
	text = render(&report);
	CHECK("text: no clear winner, both with their ranges",
	      text && strstr(text, "time, with code changes: no clear winner: pool 11.0 [10.0-12.0], arena 30.0 [11.5-31.0] ns"));
	free(text);

	/* malloc's runs reach the best's: no gain over it beyond the noise. */
	fill(sm, 11, 42, 44, 16);
	text = render(&report);
	CHECK("text: malloc, the best drop-in choice, is said",
	      text && strstr(text, "time, drop-in: malloc 42.0 [11.0-44.0] ns; malloc is the best"));
	CHECK("text: no gain with code changes beyond the noise",
	      text && strstr(text, "pool 11.0 [10.0-12.0], arena 30.0 [11.5-31.0] ns; no gain over malloc 42.0 [11.0-44.0] beyond the noise"));
	free(text);

	/* A preloaded jemalloc under the name malloc is not the C library's. */
	for (int r = 0; r < 3; r++)
		strcpy(sm[r].allocator.name, "jemalloc");
	CHECK("preloaded malloc: no reference", !verdict_compute(&report, 0, &v) && !v.time.have_malloc);

	config.nbackends = 1;
	report.ncells = 1;
	text = render(&report);
	CHECK("one backend: no verdict", text && !*text);
	free(text);
	check_figure_table();
	return check_exit();
}
