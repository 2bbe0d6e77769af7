/*
 * changepoint.h - where a series of measurements stepped: E-divisive
 * means (Matteson and James, "A Nonparametric Approach for Multiple Change
 * Point Analysis of Multivariate Data", JASA 2014), the method MongoDB
 * uses on its performance history (Daly et al., ICPE 2020).
 *
 * The series is split where the energy statistic
 *
 *     Q(k) = k (n - k) / n * (2 E|a - b| - E|a - a'| - E|b - b'|)
 *
 * is largest (a: the values before k, b: from k on, up to a later end that
 * is searched too, so that a step up and back down is found; E the mean
 * over the pairs), and the split is kept when a permutation test finds it
 * significant: the largest Q of a shuffled series reaches the observed one
 * in at most ALPHA of the shuffles. Each kept segment is split again
 * (binary segmentation) until no split is significant. It assumes no
 * distribution and is not moved by one outlier as a mean would be.
 */
#ifndef ALLOCBENCH_CHANGEPOINT_H
#define ALLOCBENCH_CHANGEPOINT_H

#include <stddef.h>

/* Shuffles per permutation test: the least p-value is 1 / (this + 1). */
#define CHANGEPOINT_PERMUTATIONS 199

/* Up to this many values, the part after a split may end early (changepoint.c). */
#define CHANGEPOINT_FULL_SEARCH 128

/* The fewest values on each side of a change point. */
#define CHANGEPOINT_MIN_SEGMENT 2

struct changepoint {
	size_t at;       /* the first value after the step: 1 <= at < n */
	double p;        /* the permutation test's p-value */
};

/*
 * Finds the change points of the N values X at significance ALPHA, in
 * order of position, into OUT (room for MAX). The shuffles are seeded by
 * the values, so that one series always gives one answer. Returns how
 * many were found (at most MAX), or -1 when scratch memory cannot be had.
 */
int changepoints_find(const double *x, size_t n, double alpha, struct changepoint *out,
		      size_t max);

#endif
