/*
 * stats.h - summaries of the repetitions of one measurement, the rank test
 * on two sets of repetitions, the correction for testing many at once, and
 * the one decision of whether two figures differ beyond the noise
 * (stats_differ()), which the verdict and compare both ask.
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

/* ---- differs beyond the noise ----------------------------------------- */

/*
 * What the runs of a figure say about Y against X (the reference: the
 * baseline, or the best backend). Made by stats_difference_init() and
 * stats_difference_test(); read by stats_differ().
 */
struct stats_difference {
	struct stat_summary x, y;
	double change;          /* y.median - x.median, in the figure's unit */
	double change_percent;  /* 100 * change / |x.median|; 0 when x.median is 0 */
	int have_p;             /* the rank test ran (runs on both sides) */
	int exact;              /* its p-values are exact */
	double p_higher;        /* one-sided p that Y is higher (Mann-Whitney); 1 without runs */
	double p_lower;         /* one-sided p that Y is lower */
	double min_p;           /* the smallest p the counts of runs allow; 1 without runs */
	double q_higher;        /* p_higher corrected for the family it was tested in
				   (stats_holm()); p_higher until then */
	double q_lower;         /* p_lower, corrected likewise */
};

/*
 * How far apart two figures must be to differ beyond the noise: each
 * criterion that is set must hold, for the direction the medians moved.
 *   the verdict:  disjoint (the [min, max] ranges of the runs do not overlap);
 *   compare:      a time or a rate: beyond_spread, min_percent and alpha;
 *                 a memory figure: min_change (its tolerance, which has the
 *                 baseline's spread in it); an exact count: min_change 0.
 */
struct stats_rule {
	int disjoint;          /* 1: the ranges [min, max] of X and Y must not overlap */
	int beyond_spread;     /* 1: |change| must exceed X's own max - min */
	double min_change;     /* |change| must exceed this, in the figure's unit (>= 0) */
	double min_percent;    /* |change| must exceed this percentage of |x.median| (>= 0) */
	double alpha;          /* > 0: the rank test's corrected one-sided p of the
				  direction moved must be below it; 0: no test */
};

/* Which way Y differs from X beyond the noise, if at all. */
enum stats_direction {
	STATS_SAME,    /* within the noise */
	STATS_HIGHER,  /* Y is higher */
	STATS_LOWER,   /* Y is lower */
};

/*
 * The evidence about Y against X from their summaries into *OUT: the change
 * of the medians, and no rank test yet (p 1).
 */
void stats_difference_init(struct stats_difference *out, const struct stat_summary *x,
			   const struct stat_summary *y);

/*
 * Adds to *D both one-sided rank tests of the NY runs Y against the NX runs
 * X (stats_mann_whitney()) and the smallest p their counts allow. Returns 0,
 * or -1 when NX or NY is 0 or memory runs out (*D then has no test).
 */
int stats_difference_test(struct stats_difference *d, const double *x, size_t nx,
			  const double *y, size_t ny);

/*
 * Whether D differs beyond the noise under RULE: STATS_SAME, or the
 * direction Y moved when every criterion of RULE holds.
 */
enum stats_direction stats_differ(const struct stats_difference *d,
				  const struct stats_rule *rule);

/*
 * 1 when neither of X and Y is better beyond the noise under the verdicts'
 * rule: stats_differ() with ranges [min, max] of the runs that overlap.
 */
int stats_overlap(const struct stat_summary *x, const struct stat_summary *y);

/*
 * Holm's step-down correction of the N p-values P (a family of tests read
 * together) into ADJUSTED (may be P itself): a test is significant at
 * family-wise level alpha when its adjusted p < alpha, and then the chance
 * that any true null of the family is rejected is at most alpha, whatever
 * the dependence between the tests (Holm 1979). Adjusted p: the largest,
 * over the j-th smallest p up to this one, of min(1, (n - j + 1) p). Returns 0, or -1
 * when memory runs out.
 */
int stats_holm(const double *p, size_t n, double *adjusted);

#endif
