/*
 * trace_median.h - the median lifetime of a trace's chunks (in calls, from
 * allocation to free) in memory that does not grow with the calls: each
 * pass of trace_analyze.c counts lifetimes in windows of buckets, and the
 * next pass narrows the window to the bucket the median fell in, until
 * the buckets are single lifetimes. Private to src/trace/.
 */
#ifndef ALLOCBENCH_TRACE_MEDIAN_H
#define ALLOCBENCH_TRACE_MEDIAN_H

#include <stdint.h>

/*
 * Lifetimes counted in a window of buckets: [lo, lo + (MEDIAN_BUCKETS << shift)),
 * and in the first pass a second window right after it, [lo2, lo2 +
 * (MEDIAN_BUCKETS << shift2)), wide enough for every lifetime the trace's
 * calls allow: a median past the first window is then in one of its
 * buckets, at most 2^16 calls wide for a trace of up to 2^32 calls, and the
 * second pass counts that bucket's lifetimes one by one.
 */
#define MEDIAN_BUCKETS (1u << 16)

struct median {
	uint64_t lo, lo2;
	unsigned shift, shift2;
	uint64_t below, above, max;  /* lifetimes before and past the windows; the longest */
	uint64_t *counts;      /* MEDIAN_BUCKETS */
	uint64_t *counts2;     /* MEDIAN_BUCKETS, or NULL: no second window */
};

static inline void median_note(struct median *md, uint64_t life)
{
	uint64_t b;

	if (life > md->max)
		md->max = life;
	if (life < md->lo) {
		md->below++;
		return;
	}
	b = (life - md->lo) >> md->shift;
	if (b < MEDIAN_BUCKETS) {
		md->counts[b]++;
		return;
	}
	if (md->counts2 && (b = (life - md->lo2) >> md->shift2) < MEDIAN_BUCKETS)
		md->counts2[b]++;
	else
		md->above++;
}

/*
 * The lifetime of rank N / 2 among N (the upper median, as a sorted list's
 * [n / 2]): 1 with *OUT set
 * when the window's buckets are single lifetimes, else 0 with the window
 * narrowed to where it is (for another pass).
 */
static inline int median_resolve(struct median *md, uint64_t n, uint64_t *out)
{
	uint64_t rank = n / 2, seen = md->below;

	for (uint64_t b = 0; b < MEDIAN_BUCKETS; b++) {
		if (seen + md->counts[b] > rank) {
			if (!md->shift) {
				*out = md->lo + b;
				return 1;
			}
			md->lo += b << md->shift;
			md->shift = md->shift > 16 ? md->shift - 16 : 0;
			return 0;
		}
		seen += md->counts[b];
	}
	if (md->counts2) {
		for (uint64_t b = 0; b < MEDIAN_BUCKETS; b++) {
			if (seen + md->counts2[b] > rank) {
				md->lo = md->lo2 + (b << md->shift2);
				md->shift = md->shift2 > 16 ? md->shift2 - 16 : 0;
				return 0;
			}
			seen += md->counts2[b];
		}
		md->lo = md->lo2;
		md->shift = md->shift2;
	}
	/* Past the window: the next one covers up to the longest. */
	md->lo += (uint64_t)MEDIAN_BUCKETS << md->shift;
	md->shift = 0;
	while (md->max - md->lo >= (uint64_t)MEDIAN_BUCKETS << md->shift)
		md->shift++;
	return 0;
}

#endif
