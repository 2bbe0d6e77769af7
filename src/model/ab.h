/*
 * ab.h - two variants measured side by side (allocbench ab): the same
 * figure of the same row, measured once per run, in pairs of an OLD run and
 * a NEW run made one after the other on the same machine state. A time is
 * gated on the ratio within each pair, which cancels what the machine does
 * to both (a busy neighbour, a slower hour), where a baseline measured at
 * another time cannot (report/compare.h).
 *
 * Per series: the slowdown of each pair (NEW / OLD for a time, OLD / NEW for
 * a rate: above 1 is worse), its median, and the one-sided Wilcoxon
 * signed-rank test of the logs of the slowdowns (exact: every assignment of
 * signs to the ranks), or the sign test (ab_options.sign_test). The series of one comparison are one family: their
 * p-values are corrected together by Holm's method, so that a comparison
 * of an unchanged build fails with probability at most alpha however many
 * rows it has. A series is slower when its corrected p < alpha and its
 * median slowdown exceeds 1 + max_time / 100; faster likewise the other way.
 */
#ifndef ALLOCBENCH_AB_H
#define ALLOCBENCH_AB_H

#include "model/figure.h"

#include <stddef.h>

enum ab_verdict {
	AB_SAME,     /* within the noise, or below max_time */
	AB_SLOWER,   /* a regression */
	AB_FASTER,
};

/* One figure of one row, over the pairs. */
struct ab_series {
	const char *old_backend, *new_backend;  /* the row in each variant's reports */
	size_t size;                 /* bytes per chunk (0: the sizes mix) */
	enum metric metric;          /* a time or a rate */
	double *old, *new;           /* per pair, in the figure's unit; owned by the caller */
	size_t n;                    /* pairs */
	/* ab_judge() fills the rest */
	double slowdown, slowdown_min, slowdown_max;  /* median and range over the pairs */
	double p_slower, p_faster;   /* one-sided signed-rank p-values */
	double q_slower, q_faster;   /* the same, Holm-corrected over the family */
	enum ab_verdict verdict;
};

struct ab_options {
	double max_time;   /* the least change that counts, per cent (--max-time) */
	double alpha;      /* family-wise level (--alpha) */
	int sign_test;     /* the sign test instead of the signed-rank test: a pair
			      counts by its sign alone, so that a few pairs a busy
			      machine threw far off weigh no more than any other
			      (history, whose family is every comparison's) */
};

/*
 * Judges the N series S as one family under OPTIONS. Returns how many are
 * slower, or -1 when memory runs out.
 */
int ab_judge(struct ab_series *s, size_t n, const struct ab_options *options);

/* The least one-sided p the signed-rank test can give with N pairs: 1 / 2^N. */
double ab_min_p(size_t pairs);

#endif
