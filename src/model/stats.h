/*
 * stats.h - summaries of the repetitions of one measurement, and the rank
 * test that tells whether two sets of repetitions differ.
 */
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

/* A straight line y = intercept + slope * x fitted to points. */
struct line_fit {
	double slope;
	double intercept;
	double worst;      /* the largest distance |y - line(x)| of a point */
};

/*
 * Fits a line to the N points (X[i], Y[i]) by least squares into *OUT.
 * Returns 0, or -1 when N < 2 or every X is the same.
 */
int stats_fit_line(const double *x, const double *y, size_t n, struct line_fit *out);

/*
 * Up to this many values in all (nx + ny) the Mann-Whitney p-values are
 * exact: counted over every way of splitting the pooled ranks, which stays
 * below 2^53 ways (C(50, 25) is 1.3e14), so the counts are exact in a double.
 * Above it the normal approximation is used, which is good to about 0.001
 * once each sample has 20 values.
 */
#define STATS_MW_EXACT_MAX 50

/* The result of a one-sided Mann-Whitney U test of Y against X. */
struct mann_whitney {
	double u;          /* pairs (x, y) with y > x, plus half the tied pairs: 0..nx*ny */
	double p_greater;  /* P(U >= u) when X and Y come from one distribution:
			      small when Y tends to be larger than X */
	double p_less;     /* P(U <= u): small when Y tends to be smaller than X */
	int exact;         /* 1: the exact permutation distribution; 0: the normal
			      approximation (with continuity and tie corrections) */
};

/*
 * The Mann-Whitney U test (Wilcoxon rank-sum test) of the NY values Y
 * against the NX values X, both one-sided p-values at once. Ties get the
 * mean of their ranks; when nx + ny <= STATS_MW_EXACT_MAX the p-values are
 * exact even with ties (the distribution of the rank sum over every split of
 * the pooled mid-ranks, as a permutation test), else they come from the
 * normal approximation with the tie-corrected variance. Values must not be
 * NaN. Returns 0, or -1 when NX or NY is 0 or memory runs out.
 */
int stats_mann_whitney(const double *x, size_t nx, const double *y, size_t ny,
		       struct mann_whitney *out);

/*
 * The smallest one-sided p-value the test can give with NX and NY values
 * (all distinct, every Y above every X): 1 / C(nx + ny, nx). With 3 and 3
 * it is 0.05, so no result can be significant at p < 0.05.
 */
double stats_mann_whitney_min_p(size_t nx, size_t ny);

#endif
