/*
 * verdict.h - the answer after the tables of a run with more than one
 * backend: per size (random, replay: one), for memory and for time, the
 * best drop-in choice (malloc or a preloaded allocator) and the best with
 * code changes (pool, pool-locked, arena: a program calls them instead of
 * malloc), each with what it saves over the C library's malloc, with the
 * spreads of both; "no clear winner" when the best's min-max range
 * overlaps another backend's of its kind.
 *
 * What each workload is judged by is its definition's verdict_memory and
 * verdict_time (figure.h).
 */
#ifndef ALLOCBENCH_VERDICT_H
#define ALLOCBENCH_VERDICT_H

#include "model/report.h"
#include "model/stats.h"

#define VERDICT_MAX_BACKENDS 64

/* One backend's figure in a verdict. */
struct verdict_entry {
	const struct cell *cell;
	struct stat_summary s;        /* over its runs, in the metric's unit */
};

/* The best of one kind of backend (drop-in, or needing code changes). */
struct verdict_choice {
	/* The best first, then every backend of the kind whose range overlaps the best's. */
	struct verdict_entry best[VERDICT_MAX_BACKENDS];
	size_t nbest;                 /* 0: none of the kind measured; 1: a clear winner */
	int malloc_among;             /* the C library's malloc is among them */
};

/* The verdict on memory or on time at one size. */
struct verdict_aspect {
	int valid;                    /* the workload has this aspect and a backend measured it */
	enum metric metric;
	const char *name;             /* "memory" or "time" */
	const char *unit;             /* "B/chunk", "bytes", "ns", "ns/pair", "ops/s" */
	int higher_is_better;         /* threads' rates */
	/* The best first, then every backend whose range overlaps the best's. */
	struct verdict_entry best[VERDICT_MAX_BACKENDS];
	size_t nbest;                 /* 1: a clear winner */
	struct verdict_choice drop_in;       /* malloc and the preloaded allocators */
	struct verdict_choice code_changes;  /* pool, pool-locked, arena */
	int have_malloc;              /* the C library's malloc was measured here */
	struct stat_summary malloc_s; /* ... its figure */
};

struct verdict {
	size_t size;                  /* bytes per chunk; random, replay: 0 (the mix) */
	unsigned abi;                 /* the word size of the rows judged, bits: each ABI
					 is judged against its own malloc */
	struct verdict_aspect memory;
	struct verdict_aspect time;
	/*
	 * replay: the lowest resident after the live bytes' peak (what a
	 * backend keeps then); said where the replay answers for the drop-in
	 * choice and the memory fell after its peak under some backend.
	 */
	struct verdict_aspect kept;
	int kept_fell;                /* the replay's memory fell after the live bytes'
					 peak under a drop-in backend (its lowest since
					 under 90% of its peak: series_fell()) */
};

/* 1 when the text and JSON carry a verdict: more than one backend measured. */
int verdict_wanted(const struct run_report *report);

/* 1 when BACKEND needs code changes (pool, pool-locked, arena), 0 when drop-in. */
int verdict_needs_code_changes(const struct cell *cell);

/*
 * What the best of CHOICE saves over the C library's malloc in A's unit
 * (memory and times: malloc's median minus the best's; rates: the best's
 * minus malloc's), so that more is better, into *SAVES; its per cent of
 * malloc's median into *PERCENT (NAN when that is 0). Returns 1 when the
 * gain is beyond the noise (malloc is not among the best and its range does
 * not overlap the best's), 0 when it is not, -1 when malloc or the kind was
 * not measured (nothing set).
 */
int verdict_saves(const struct verdict_aspect *a, const struct verdict_choice *choice,
		  double *saves, double *percent);

/*
 * The verdicts REPORT gives: one per size (random, replay: one) and ABI, so
 * many; their ABIs in *NABIS (2 with --abi 32,64).
 */
size_t verdict_count(const struct run_report *report, size_t *nabis);

/*
 * The I-th of them (< verdict_count(), by size then ABI) into *OUT: 0, or
 * -1 when no backend of that ABI succeeded there.
 */
int verdict_at(const struct run_report *report, size_t i, struct verdict *out);

/*
 * The verdict at the COLUMN-th size of REPORT (random, replay: 0) on the
 * rows of this program's own word size into *OUT. Returns 0, or -1 when no
 * backend of it succeeded there.
 */
int verdict_compute(const struct run_report *report, size_t column, struct verdict *out);

#endif
