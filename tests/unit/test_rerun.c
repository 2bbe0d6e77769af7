/*
 * Unit tests for rerun_best() on real runs made up by hand: the least
 * median first, then each candidate whose range overlaps it, or, for a
 * memory figure, whose median lies within RERUN_PEAK_AGREE of it (a
 * program's own peak moves that much between invocations: 68 KiB less in
 * 40 MiB, 0.2%, was once advise's "clear" answer with a setting to run);
 * malloc among them is no gain beyond the noise. What is kept after the
 * peak is judged so too; times keep the ranges' rule alone.
 */
#include "check.h"
#include "measure/backend.h"
#include "model/rerun.h"

#include <string.h>

static const struct backend malloc_be = { .name = "malloc" };
static const struct backend jemalloc_be = { .name = "jemalloc", .preload_path = "libjemalloc.so.2" };
static const struct backend tcmalloc_be = { .name = "tcmalloc", .preload_path = "libtcmalloc.so.4" };
static const char *const arena2_env[] = { "GLIBC_TUNABLES=glibc.malloc.arena_max=2", NULL };
static const struct backend arena2_be = { .name = "malloc:arena_max=2", .base = &malloc_be,
					  .env = arena2_env };

/* Row I of R: BE, three runs of FIGURE at V - D, V and V + D. */
static void row(struct rerun *r, size_t i, const struct backend *be, enum rerun_figure figure,
		double v, double d)
{
	struct rerun_row *w = &r->rows[i];

	w->backend = be;
	w->ok = 1;
	w->runs = 3;
	w->value[figure][0] = v - d;
	w->value[figure][1] = v;
	w->value[figure][2] = v + d;
	if (i >= r->nrows)
		r->nrows = i + 1;
}

int main(void)
{
	static struct rerun r;
	struct rerun_best b;

	/* Peaks 0.5% apart, each range tight: malloc is among the best. */
	r.rounds = 3;
	row(&r, 0, &malloc_be, RERUN_PEAK, 41180, 10);
	row(&r, 1, &jemalloc_be, RERUN_PEAK, 40980, 10);
	row(&r, 2, &tcmalloc_be, RERUN_PEAK, 44700, 10);
	rerun_best(&r, RERUN_PEAK, &b);
	CHECK("memory 0.5% apart: the least first, malloc among the best, no gain beyond the noise",
	      b.n == 2 && b.row[0] == 1 && b.row[1] == 0 && b.malloc_among && !b.clear);

	/* 3% apart: a saving to stand behind. */
	row(&r, 1, &jemalloc_be, RERUN_PEAK, 39900, 10);
	rerun_best(&r, RERUN_PEAK, &b);
	CHECK("memory 3% apart, ranges apart: one best, beyond the noise, saving malloc's median minus its",
	      b.n == 1 && b.row[0] == 1 && !b.malloc_among && b.clear && b.saves == 41180 - 39900);

	/* 3% apart, but ranges overlapping: no gain beyond the noise either. */
	row(&r, 1, &jemalloc_be, RERUN_PEAK, 39900, 1300);
	rerun_best(&r, RERUN_PEAK, &b);
	CHECK("memory 3% apart, ranges overlapping: malloc among the best", b.n == 2 && !b.clear);

	/* What is kept after the peak is memory too; so is glibc's own best. */
	memset(&r, 0, sizeof(r));
	r.rounds = 3;
	row(&r, 0, &malloc_be, RERUN_LOW, 41180, 10);
	row(&r, 1, &arena2_be, RERUN_LOW, 41112, 10);
	row(&r, 2, &jemalloc_be, RERUN_LOW, 30000, 10);
	rerun_best(&r, RERUN_LOW, &b);
	CHECK("kept after the peak 30% apart: one best, beyond the noise",
	      b.n == 1 && b.row[0] == 2 && b.clear);
	rerun_best_libc(&r, RERUN_LOW, &b);
	CHECK("glibc with settings 0.2% below malloc: malloc among the best, no setting to run",
	      b.n == 2 && b.row[0] == 1 && b.malloc_among && !b.clear);

	/* Times: 0.5% apart with ranges apart is beyond the noise. */
	memset(&r, 0, sizeof(r));
	r.rounds = 3;
	row(&r, 0, &malloc_be, RERUN_WALL, 100.0, 0.1);
	row(&r, 1, &jemalloc_be, RERUN_WALL, 99.5, 0.1);
	rerun_best(&r, RERUN_WALL, &b);
	CHECK("time 0.5% apart, ranges apart: one best, beyond the noise",
	      b.n == 1 && b.row[0] == 1 && b.clear);
	return check_exit();
}
