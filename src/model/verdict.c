/*
 * verdict.c - the best backend per size for memory and for time, against
 * the C library's malloc, with spreads (verdict.h): for the text after the
 * tables and for the JSON's "summary".
 */
#include "model/verdict.h"
#include "measure/replay_series.h"
#include "model/abi.h"
#include "model/run.h"
#include "measure/backend.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The best of a kind (defined after aspect_compute(), its caller). */
static size_t choose(const struct verdict_aspect *a, const struct verdict_entry *all, size_t n,
		     int kind, struct verdict_entry *best);

int verdict_wanted(const struct run_report *report)
{
	return report->config->nbackends > 1 && !report->interrupted;
}

int verdict_needs_code_changes(const struct cell *cell)
{
	/* A 32-bit row is its base backend's ("arena/32": the arena). */
	const char *name = cell->backend->name;
	size_t len = strcspn(name, "/");

	return (len == 4 && !strncmp(name, "pool", len)) ||
	       (len == 11 && !strncmp(name, "pool-locked", len)) ||
	       (len == 5 && !strncmp(name, "arena", len));
}

/* The word size CELL was measured at, bits. */
static unsigned cell_abi(const struct cell *cell)
{
	return cell->backend->abi ? cell->backend->abi : abi_native();
}

/*
 * 1 when CELL is the C library's malloc of its own ABI ("malloc", or
 * "malloc/32" for a 32-bit row), not a preloaded allocator under that name.
 */
static int is_libc_malloc(const struct cell *cell)
{
	char label[128], abi_malloc[32];

	report_backend_label(label, sizeof(label), cell);
	snprintf(abi_malloc, sizeof(abi_malloc), "malloc/%u", cell_abi(cell));
	return !strcmp(label, "malloc") || (cell->backend->abi && !strcmp(label, abi_malloc));
}

/* The ABIs of REPORT's rows into ABIS (room for 2), in the order of the rows; their number. */
static size_t report_abis(const struct run_report *report, unsigned abis[2])
{
	size_t n = 0;

	for (size_t i = 0; i < report->ncells; i++) {
		unsigned abi = cell_abi(&report->cells[i]);

		if ((n < 1 || abis[0] != abi) && (n < 2 || abis[1] != abi) && n < 2)
			abis[n++] = abi;
	}
	return n;
}

/* 1 when the C library's malloc is among CHOICE's best. */
static int malloc_among(const struct verdict_choice *choice)
{
	for (size_t i = 0; i < choice->nbest; i++)
		if (is_libc_malloc(choice->best[i].cell))
			return 1;
	return 0;
}

/* The aspect NAME of a verdict on FIGURE (METRIC_COUNT: the workload has none). */
static void aspect_init(struct verdict_aspect *a, const char *name, enum metric figure)
{
	memset(a, 0, sizeof(*a));
	a->name = name;
	if (figure == METRIC_COUNT)
		return;
	a->valid = 1;
	a->metric = figure;
	a->unit = figure_get(figure)->unit;
	a->higher_is_better = figure_get(figure)->aspect == FIGURE_RATE;
}

/* 1 when A is better than B by its median. */
static int better(const struct verdict_aspect *a, const struct stat_summary *x,
		  const struct stat_summary *y)
{
	return a->higher_is_better ? x->median > y->median : x->median < y->median;
}

static void aspect_compute(const struct run_report *report, size_t column, unsigned abi,
			   struct verdict_aspect *a)
{
	struct verdict_entry all[VERDICT_MAX_BACKENDS];
	size_t n = 0;

	if (!a->valid)
		return;
	for (size_t b = 0; b < report->config->nbackends && n < VERDICT_MAX_BACKENDS; b++) {
		size_t at = column * report->config->nbackends + b;
		const struct cell *cell;
		struct stat_summary s;

		/* The grid is whole (report.h); a report that is not has no cell there. */
		if (at >= report->ncells)
			break;
		cell = &report->cells[at];
		if (cell_abi(cell) != abi || cell_summary(report, cell, a->metric, &s))
			continue;
		if (is_libc_malloc(cell)) {
			a->have_malloc = 1;
			a->malloc_s = s;
		}
		all[n++] = (struct verdict_entry){ .cell = cell, .s = s };
	}
	if (!n) {
		a->valid = 0;
		return;
	}
	a->nbest = choose(a, all, n, -1, a->best);
	a->drop_in.nbest = choose(a, all, n, 0, a->drop_in.best);
	a->code_changes.nbest = choose(a, all, n, 1, a->code_changes.best);
	a->drop_in.malloc_among = malloc_among(&a->drop_in);
	a->code_changes.malloc_among = malloc_among(&a->code_changes);
}

/* 1 when E is of KIND: -1 any, 0 drop-in, 1 needing code changes. */
static int of_kind(const struct verdict_entry *e, int kind)
{
	return kind < 0 || verdict_needs_code_changes(e->cell) == kind;
}

/*
 * The best of the N entries ALL of KIND (of_kind()) into BEST, then every
 * one of that kind whose range overlaps it; returns how many (0: none of
 * the kind).
 */
static size_t choose(const struct verdict_aspect *a, const struct verdict_entry *all, size_t n,
		     int kind, struct verdict_entry *best)
{
	size_t at = n, nbest = 0;

	for (size_t i = 0; i < n; i++)
		if (of_kind(&all[i], kind) && (at == n || better(a, &all[i].s, &all[at].s)))
			at = i;
	if (at == n)
		return 0;
	best[nbest++] = all[at];
	for (size_t i = 0; i < n; i++)
		if (i != at && of_kind(&all[i], kind) && stats_overlap(&all[i].s, &all[at].s))
			best[nbest++] = all[i];
	return nbest;
}

int verdict_saves(const struct verdict_aspect *a, const struct verdict_choice *choice,
		  double *saves, double *percent)
{
	const struct stat_summary *b = &choice->best[0].s, *m = &a->malloc_s;

	if (!a->have_malloc || !choice->nbest)
		return -1;
	*saves = a->higher_is_better ? b->median - m->median : m->median - b->median;
	*percent = m->median != 0 ? *saves / fabs(m->median) * 100 : NAN;
	/* malloc among the best overlaps the best too. */
	return !stats_overlap(b, m);
}

/*
 * 1 when V's replay memory falls after the live bytes' peak under one of
 * its drop-in backends (its lowest since, median, under 90% of its peak:
 * series_fell()).
 */
static int kept_fell(const struct run_report *report, const struct verdict *v)
{
	for (size_t i = 0; v->kept.valid && v->kept.drop_in.nbest && i < report->ncells; i++) {
		const struct cell *cell = &report->cells[i];
		struct stat_summary peak, low;

		if (cell_abi(cell) == v->abi && !verdict_needs_code_changes(cell) &&
		    !cell_summary(report, cell, METRIC_PEAK_RSS_BYTES, &peak) &&
		    !cell_summary(report, cell, METRIC_LOW_RSS_BYTES, &low) &&
		    series_fell(low.median, peak.median))
			return 1;
	}
	return 0;
}

/*
 * The verdict at the COLUMN-th size of REPORT (random, replay: 0) on the
 * rows of ABI (bits) into *OUT. Returns 0, or -1 when no backend of that
 * ABI succeeded there.
 */
static int verdict_compute_abi(const struct run_report *report, size_t column, unsigned abi,
			       struct verdict *out)
{
	enum workload workload = report->config->workload;

	memset(out, 0, sizeof(*out));
	out->abi = abi;
	out->size = workload_one_column(workload) ? 0 : report->config->sizes[column];
	aspect_init(&out->memory, "memory", workload_def(workload)->verdict_memory);
	aspect_init(&out->time, "time", workload_def(workload)->verdict_time);
	aspect_init(&out->kept, "kept after the peak",
		    workload == WORKLOAD_REPLAY ? METRIC_LOW_RSS_BYTES : METRIC_COUNT);
	aspect_compute(report, column, abi, &out->memory);
	aspect_compute(report, column, abi, &out->time);
	aspect_compute(report, column, abi, &out->kept);
	out->kept_fell = kept_fell(report, out);
	return out->memory.valid || out->time.valid ? 0 : -1;
}

int verdict_compute(const struct run_report *report, size_t column, struct verdict *out)
{
	return verdict_compute_abi(report, column, abi_native(), out);
}

/* The columns a verdict is given for: one per size, random's one. */
static size_t ncolumns(const struct run_report *report)
{
	return workload_one_column(report->config->workload) ? 1 : report->config->nsizes;
}

size_t verdict_count(const struct run_report *report, size_t *nabis)
{
	unsigned abis[2];

	*nabis = report_abis(report, abis);
	return ncolumns(report) * *nabis;
}

int verdict_at(const struct run_report *report, size_t i, struct verdict *out)
{
	unsigned abis[2];
	size_t nabis = report_abis(report, abis);

	return nabis ? verdict_compute_abi(report, i / nabis, abis[i % nabis], out) : -1;
}
