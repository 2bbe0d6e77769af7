/*
 * changepoint.c - E-divisive means with a permutation test, by binary
 * segmentation (changepoint.h).
 */
#include "model/changepoint.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Q of parts of NA and NB values with these sums of distances within and between. */
static double energy(double na, double nb, double within_a, double within_b, double between)
{
	return na * nb / (na + nb) *
	       (2 * between / (na * nb) - within_a / (na * (na - 1) / 2) -
		within_b / (nb * (nb - 1) / 2));
}

/*
 * The split of the M values X with the largest Q into *AT; returns that Q
 * (0 when M is too short to split). As the paper does, the part after a
 * split T may end before the last value, at any K (the values from K on
 * are left out), so that a step up followed by a step down is found as
 * well as one step: for each T, K moves right one value at a time and the
 * sums of distances are updated by that value's distances to the others,
 * O(M^3) in all. Beyond CHANGEPOINT_FULL_SEARCH values only K = M is
 * tried, O(M^2).
 */
static double best_split(const double *x, size_t m, size_t *at)
{
	double within_a = 0, best = 0;

	*at = 0;
	if (m < 2 * CHANGEPOINT_MIN_SEGMENT)
		return 0;
	for (size_t t = 1; t + CHANGEPOINT_MIN_SEGMENT <= m; t++) {
		double within_b = 0, between = 0;
		size_t k_first = m <= CHANGEPOINT_FULL_SEARCH ? t + CHANGEPOINT_MIN_SEGMENT : m;

		for (size_t i = 0; i + 1 < t; i++)  /* x[t - 1] joins the part before */
			within_a += fabs(x[t - 1] - x[i]);
		if (t < CHANGEPOINT_MIN_SEGMENT)
			continue;
		for (size_t k = t + 1; k <= m; k++) {  /* x[k - 1] joins the part after */
			for (size_t j = t; j + 1 < k; j++)
				within_b += fabs(x[k - 1] - x[j]);
			for (size_t i = 0; i < t; i++)
				between += fabs(x[k - 1] - x[i]);
			if (k >= k_first) {
				double q = energy((double)t, (double)(k - t), within_a, within_b,
						  between);

				if (q > best) {
					best = q;
					*at = t;
				}
			}
		}
	}
	return best;
}

/* xorshift64*: the shuffles' generator, seeded by the series. */
static uint64_t next_random(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

/* The permutation test's p-value of a best split of Q over the M values X. */
static double split_p(const double *x, size_t m, double q, double *scratch, uint64_t *seed)
{
	unsigned reached = 0;
	size_t at;

	memcpy(scratch, x, m * sizeof(*x));
	for (unsigned r = 0; r < CHANGEPOINT_PERMUTATIONS; r++) {
		for (size_t i = m - 1; i > 0; i--) {
			size_t j = (size_t)(next_random(seed) % (i + 1));
			double t = scratch[i];

			scratch[i] = scratch[j];
			scratch[j] = t;
		}
		if (best_split(scratch, m, &at) >= q)
			reached++;
	}
	return (reached + 1.0) / (CHANGEPOINT_PERMUTATIONS + 1.0);
}

struct search {
	const double *x;
	double alpha;
	double *scratch;
	uint64_t seed;
	struct changepoint *out;
	size_t max, found;
};

/* Splits x[LO, HI) where significant, then each part: found in order of position. */
static void segment(struct search *s, size_t lo, size_t hi)
{
	size_t at;
	double q = best_split(s->x + lo, hi - lo, &at), p;

	if (q <= 0 || s->found == s->max)
		return;
	p = split_p(s->x + lo, hi - lo, q, s->scratch, &s->seed);
	if (p > s->alpha)
		return;
	segment(s, lo, lo + at);
	if (s->found < s->max)
		s->out[s->found++] = (struct changepoint){ lo + at, p };
	segment(s, lo + at, hi);
}

int changepoints_find(const double *x, size_t n, double alpha, struct changepoint *out,
		      size_t max)
{
	struct search s = { x, alpha, NULL, 0x9E3779B97F4A7C15ULL, out, max, 0 };

	if (n < 2 * CHANGEPOINT_MIN_SEGMENT || !max)
		return 0;
	s.scratch = malloc(n * sizeof(*x));
	if (!s.scratch)
		return -1;
	for (size_t i = 0; i < n; i++) {
		uint64_t bits;

		memcpy(&bits, &x[i], sizeof(bits));
		s.seed = (s.seed ^ bits) * 0x100000001B3ULL;
	}
	if (!s.seed)
		s.seed = 1;
	segment(&s, 0, n);
	free(s.scratch);
	return (int)s.found;
}
