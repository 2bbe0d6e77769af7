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
 * Scratch for whole_split(), room for the longest series: the values by
 * rank, and two Fenwick trees over the ranks. The sums are long double so
 * that where the values have few significant bits (bytes, counts) they are
 * exact, like the double sums of the full search, which add one distance
 * at a time: Q is then the same to the bit in any order of summing.
 * Elsewhere it is off in its last bits (about 1e-12 of it), which can move
 * a split or a p-value only where two Qs tie to those bits.
 */
struct split_work {
	struct ranked {
		double v;
		size_t i;
	} *by_value;             /* the values, least first, each with its index */
	size_t *rank;            /* each value's place in BY_VALUE */
	size_t *count;           /* Fenwick tree over the ranks: values seen */
	long double *sum;        /* Fenwick tree over the ranks: their sum */
	long double *before;     /* sums of distances within x[0, t), by t */
	long double *after;      /* sums of distances within x[t, m), by t */
};

static int ranked_cmp(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->v != y->v)
		return x->v < y->v ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/*
 * The sums of distances of the M values X within each prefix, by length,
 * into WITHIN[0..M], the values taken in the order STEP (+1 or -1) gives
 * from FIRST: each value adds its distances to those before it, which the
 * Fenwick trees of W give from the count and sum of the lesser ones, in
 * O(log M).
 */
static void prefix_within(const double *x, size_t m, size_t first, int step,
			  struct split_work *w, long double *within)
{
	long double seen = 0;

	memset(w->count, 0, (m + 1) * sizeof(*w->count));
	memset(w->sum, 0, (m + 1) * sizeof(*w->sum));
	within[0] = 0;
	for (size_t t = 1, p = first; t <= m; t++, p += (size_t)step) {
		long double v = x[p], less = 0;
		size_t nless = 0;

		for (size_t r = w->rank[p]; r; r &= r - 1) {
			nless += w->count[r];
			less += w->sum[r];
		}
		within[t] = within[t - 1] + (v * (long double)nless - less) +
			    ((seen - less) - v * (long double)(t - 1 - nless));
		for (size_t r = w->rank[p] + 1; r <= m; r += r & -r) {
			w->count[r]++;
			w->sum[r] += v;
		}
		seen += v;
	}
}

/*
 * The split T of the M values X with the largest Q into *AT, the part
 * after it running to the last value; returns that Q. The sums within
 * each part come from prefix_within(), forward and backward, and the sum
 * between from the total: O(M log M), where summing the distances
 * themselves is O(M^2) per T.
 */
static double whole_split(const double *x, size_t m, size_t *at, struct split_work *w)
{
	double best = 0;

	for (size_t i = 0; i < m; i++)
		w->by_value[i] = (struct ranked){ x[i], i };
	qsort(w->by_value, m, sizeof(*w->by_value), ranked_cmp);
	for (size_t r = 0; r < m; r++)
		w->rank[w->by_value[r].i] = r;
	prefix_within(x, m, 0, 1, w, w->before);
	prefix_within(x, m, m - 1, -1, w, w->after);
	for (size_t t = CHANGEPOINT_MIN_SEGMENT; t + CHANGEPOINT_MIN_SEGMENT <= m; t++) {
		long double within_b = w->after[m - t];
		double q = energy((double)t, (double)(m - t), (double)w->before[t],
				  (double)within_b,
				  (double)(w->before[m] - w->before[t] - within_b));

		if (q > best) {
			best = q;
			*at = t;
		}
	}
	return best;
}

/*
 * The split of the M values X with the largest Q into *AT; returns that Q
 * (0 when M is too short to split). As the paper does, the part after a
 * split T may end before the last value, at any K (the values from K on
 * are left out), so that a step up followed by a step down is found as
 * well as one step: for each T, K moves right one value at a time and the
 * sums of distances are updated by that value's distances to the others,
 * O(M^3) in all. Beyond CHANGEPOINT_FULL_SEARCH values only K = M is
 * tried, by whole_split() in O(M log M) with scratch W.
 */
static double best_split(const double *x, size_t m, size_t *at, struct split_work *w)
{
	double within_a = 0, best = 0;

	*at = 0;
	if (m < 2 * CHANGEPOINT_MIN_SEGMENT)
		return 0;
	if (m > CHANGEPOINT_FULL_SEARCH)
		return whole_split(x, m, at, w);
	for (size_t t = 1; t + CHANGEPOINT_MIN_SEGMENT <= m; t++) {
		double within_b = 0, between = 0;

		for (size_t i = 0; i + 1 < t; i++)  /* x[t - 1] joins the part before */
			within_a += fabs(x[t - 1] - x[i]);
		if (t < CHANGEPOINT_MIN_SEGMENT)
			continue;
		for (size_t k = t + 1; k <= m; k++) {  /* x[k - 1] joins the part after */
			for (size_t j = t; j + 1 < k; j++)
				within_b += fabs(x[k - 1] - x[j]);
			for (size_t i = 0; i < t; i++)
				between += fabs(x[k - 1] - x[i]);
			if (k >= t + CHANGEPOINT_MIN_SEGMENT) {
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
static double split_p(const double *x, size_t m, double q, double *scratch, uint64_t *seed,
		      struct split_work *w)
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
		if (best_split(scratch, m, &at, w) >= q)
			reached++;
	}
	return (reached + 1.0) / (CHANGEPOINT_PERMUTATIONS + 1.0);
}

struct search {
	const double *x;
	double alpha;
	double *scratch;
	struct split_work work;
	uint64_t seed;
	struct changepoint *out;
	size_t max, found;
};

/* Splits x[LO, HI) where significant, then each part: found in order of position. */
static void segment(struct search *s, size_t lo, size_t hi)
{
	size_t at;
	double q = best_split(s->x + lo, hi - lo, &at, &s->work), p;

	if (q <= 0 || s->found == s->max)
		return;
	p = split_p(s->x + lo, hi - lo, q, s->scratch, &s->seed, &s->work);
	if (p > s->alpha)
		return;
	segment(s, lo, lo + at);
	if (s->found < s->max)
		s->out[s->found++] = (struct changepoint){ lo + at, p };
	segment(s, lo + at, hi);
}

/* Frees what work_alloc() allocated. */
static void work_free(struct split_work *w)
{
	free(w->by_value);
	free(w->rank);
	free(w->count);
	free(w->sum);
	free(w->before);
	free(w->after);
}

/* Scratch for whole_split() on up to N values, none where N never needs it. Returns 0 or -1. */
static int work_alloc(struct split_work *w, size_t n)
{
	*w = (struct split_work){ 0 };
	if (n <= CHANGEPOINT_FULL_SEARCH)
		return 0;
	w->by_value = malloc(n * sizeof(*w->by_value));
	w->rank = malloc(n * sizeof(*w->rank));
	w->count = malloc((n + 1) * sizeof(*w->count));
	w->sum = malloc((n + 1) * sizeof(*w->sum));
	w->before = malloc((n + 1) * sizeof(*w->before));
	w->after = malloc((n + 1) * sizeof(*w->after));
	if (w->by_value && w->rank && w->count && w->sum && w->before && w->after)
		return 0;
	work_free(w);
	return -1;
}

int changepoints_find(const double *x, size_t n, double alpha, struct changepoint *out,
		      size_t max)
{
	struct search s = { x, alpha, NULL, { 0 }, 0x9E3779B97F4A7C15ULL, out, max, 0 };

	if (n < 2 * CHANGEPOINT_MIN_SEGMENT || !max)
		return 0;
	s.scratch = malloc(n * sizeof(*x));
	if (!s.scratch || work_alloc(&s.work, n)) {
		free(s.scratch);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t bits;

		memcpy(&bits, &x[i], sizeof(bits));
		s.seed = (s.seed ^ bits) * 0x100000001B3ULL;
	}
	if (!s.seed)
		s.seed = 1;
	segment(&s, 0, n);
	work_free(&s.work);
	free(s.scratch);
	return (int)s.found;
}
