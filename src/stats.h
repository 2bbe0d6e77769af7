/* stats.h - summaries of the repetitions of one measurement. */
#ifndef ALLOCBENCH_STATS_H
#define ALLOCBENCH_STATS_H

#include <stddef.h>

struct stat_summary {
	double median; /* middle value; mean of the two middle values for an even count */
	double min;
	double max;
};

/*
 * Summarises the N (> 0) VALUES into *OUT without changing VALUES.
 * Returns 0, or -1 when N is 0 or the scratch copy cannot be allocated.
 */
int stats_summarize(const double *values, size_t n, struct stat_summary *out);

/* Index of the value closest to the median (the lower one on a tie), or 0 when N is 0. */
size_t stats_median_index(const double *values, size_t n);

#endif
