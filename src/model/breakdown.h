/*
 * breakdown.h - where a malloc-family chunk's overhead comes from.
 *
 * The RSS overhead of a chunk (resident bytes per chunk beyond its size)
 * splits into
 *   slack    = usable - size: the rounding of the request up to the
 *              allocator's size class (malloc_usable_size, measured in the
 *              child over every chunk), and
 *   metadata = overhead - slack: headers, slab and span descriptors, bitmaps,
 *              page maps, partly used pages;
 * and the marginal cost (one more chunk, run.c's sample_fit()) splits the
 * same way: marginal metadata = marginal - slack, without the one-time cost.
 * For large size classes the untouched tail of a slot never becomes
 * resident, so slack can exceed the overhead and metadata goes negative;
 * and the overhead is measured in whole pages, so a metadata of 0 can read
 * as a fraction of the resolution below 0. Either is flagged, never printed
 * without a word.
 */
#ifndef ALLOCBENCH_BREAKDOWN_H
#define ALLOCBENCH_BREAKDOWN_H

#include "model/report.h"

#include <stddef.h>

enum breakdown {
	BREAKDOWN_USABLE,   /* mean malloc_usable_size, bytes per chunk */
	BREAKDOWN_SLACK,    /* usable - size, bytes per chunk */
	BREAKDOWN_METADATA, /* overhead - slack, bytes per chunk */
	BREAKDOWN_MARGINAL_METADATA, /* marginal - slack: what one more chunk adds beyond
					its size class, bytes per chunk */
	BREAKDOWN_COUNT
};

/* The JSON name of B: "usable_bytes", "slack_bytes", "metadata_bytes", "marginal_metadata_bytes". */
const char *breakdown_name(enum breakdown b);

/*
 * The value of B for SAMPLE of CELL. Returns 0, or -1 when the sample has no
 * usable size: pool and arena, or an allocator without malloc_usable_size.
 */
int breakdown_value(const struct cell *cell, const struct sample *sample,
		    enum breakdown b, double *out);

/*
 * Summarises B over CELL's runs into *OUT and, when RUNS is not NULL, stores
 * every run's value there (room for RUN_MAX_REPEAT). Returns 0, or -1 when
 * the cell failed or a run has no usable size.
 */
int breakdown_summary(const struct cell *cell, enum breakdown b,
		      struct stat_summary *out, double *runs);

/*
 * 1 when CELL's median slack exceeds its median overhead by more than the
 * page resolution (metadata "negative"), 0 when not, -1 when unknown.
 */
int breakdown_slack_exceeds_overhead(const struct run_report *report, const struct cell *cell);

/*
 * 1 when CELL's median metadata is below 0 (by any amount: within the page
 * resolution too), 0 when not, -1 when unknown.
 */
int breakdown_metadata_negative(const struct cell *cell);

/*
 * 1 when CELL's overhead differs between runs by more than both 1% of its
 * median and the page resolution, 0 when not, -1 when unknown (failed).
 */
int breakdown_overhead_varies(const struct run_report *report, const struct cell *cell);

/* Most notes breakdown_notes() writes for one cell. */
#define BREAKDOWN_MAX_NOTES 2
#define BREAKDOWN_NOTE_BYTES 240

/*
 * Writes into NOTES the sentences that explain CELL's flags (the ones above:
 * a negative metadata, beyond the resolution or within it, and a varying
 * overhead) and returns how many: 0 when there is nothing to say.
 */
size_t breakdown_notes(const struct run_report *report, const struct cell *cell,
		       char notes[BREAKDOWN_MAX_NOTES][BREAKDOWN_NOTE_BYTES]);

/*
 * The allocator that served malloc in CELL's median run, as the text's last
 * column gives it ("glibc 2.36", "jemalloc 5.3.0"), into BUF; "" when CELL
 * is not of the malloc family or failed.
 */
void breakdown_allocator(char *buf, size_t size, const struct cell *cell);

#endif
