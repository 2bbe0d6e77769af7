/*
 * ab.c - pairwise ratios, the signed-rank test and Holm's correction for
 * allocbench ab (ab.h).
 */
#include "model/ab.h"
#include "model/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double ab_min_p(size_t pairs)
{
	return ldexp(1.0, -(int)(pairs < 1000 ? pairs : 1000));
}

static int abs_cmp(const void *a, const void *b)
{
	double x = fabs(*(const double *)a), y = fabs(*(const double *)b);

	return (x > y) - (x < y);
}

/*
 * The one-sided p-values of the Wilcoxon signed-rank test of the N
 * differences D (zeros left out, ties given their mean rank): P(W+ >= w)
 * into *GREATER and P(W+ <= w) into *LESS, where W+ is the sum of the ranks
 * of the positive differences, exactly: the count of sign assignments for
 * each sum of (doubled, so whole) ranks. Returns 0 or -1 (no memory).
 */
static int signed_rank(const double *d, size_t n, double *greater, double *less)
{
	double *v = malloc(n * sizeof(*v)), *ways = NULL, total;
	unsigned *rank2 = malloc(n * sizeof(*rank2));
	size_t m = 0, sum2 = 0, w2 = 0;

	*greater = *less = 1;
	if (!v || !rank2)
		goto fail;
	for (size_t i = 0; i < n; i++)
		if (d[i] != 0)
			v[m++] = d[i];
	qsort(v, m, sizeof(*v), abs_cmp);
	for (size_t i = 0; i < m;) {   /* doubled mean ranks of each run of ties */
		size_t j = i;

		while (j < m && fabs(v[j]) == fabs(v[i]))
			j++;
		for (size_t k = i; k < j; k++)
			rank2[k] = (unsigned)(i + j + 1);  /* 2 * mean of i+1 .. j */
		i = j;
	}
	for (size_t i = 0; i < m; i++) {
		sum2 += rank2[i];
		if (v[i] > 0)
			w2 += rank2[i];
	}
	ways = calloc(sum2 + 1, sizeof(*ways));
	if (!ways)
		goto fail;
	ways[0] = 1;
	for (size_t i = 0; i < m; i++)
		for (size_t s = sum2; s >= rank2[i]; s--)
			ways[s] += ways[s - rank2[i]];
	total = ldexp(1.0, (int)m);
	*greater = *less = 0;
	for (size_t s = 0; s <= sum2; s++) {
		if (s >= w2)
			*greater += ways[s] / total;
		if (s <= w2)
			*less += ways[s] / total;
	}
	free(v);
	free(rank2);
	free(ways);
	return 0;
fail:
	free(v);
	free(rank2);
	return -1;
}

/*
 * The one-sided p-values of the sign test of the N differences D (zeros
 * left out): P(K >= k) into *GREATER and P(K <= k) into *LESS, where k of
 * the m differences are positive and K is binomial (m, 1/2). A difference
 * counts by its sign alone, however large.
 */
static void sign_test(const double *d, size_t n, double *greater, double *less)
{
	size_t m = 0, k = 0;
	double ways = 1, total, g = 0, l = 0;

	for (size_t i = 0; i < n; i++)
		if (d[i] != 0) {
			m++;
			k += d[i] > 0;
		}
	total = ldexp(1.0, (int)m);
	for (size_t j = 0; j <= m; j++) {   /* WAYS = C(m, j), exact below 2^53 */
		if (j >= k)
			g += ways;
		if (j <= k)
			l += ways;
		ways = ways * (double)(m - j) / (double)(j + 1);
	}
	*greater = g / total;
	*less = l / total;
}

/* The slowdowns of S (above 1 is worse), their summary and both tests (the sign test's when SIGN). */
static int judge_one(struct ab_series *s, int sign)
{
	double *slow = malloc(2 * s->n * sizeof(*slow)), *logs = slow + s->n;
	int rate = figure_get(s->metric)->aspect == FIGURE_RATE;
	struct stat_summary sum;
	size_t m = 0;
	int ret = -1;

	if (!slow)
		return -1;
	for (size_t i = 0; i < s->n; i++)
		if (s->old[i] > 0 && s->new[i] > 0) {
			slow[m] = rate ? s->old[i] / s->new[i] : s->new[i] / s->old[i];
			logs[m] = log(slow[m]);
			m++;
		}
	s->slowdown = s->slowdown_min = s->slowdown_max = NAN;
	s->p_slower = s->p_faster = 1;
	if (m && !stats_summarize(slow, m, &sum)) {
		s->slowdown = sum.median;
		s->slowdown_min = sum.min;
		s->slowdown_max = sum.max;
	}
	if (sign && m)
		sign_test(logs, m, &s->p_slower, &s->p_faster);
	if (!m || sign || !signed_rank(logs, m, &s->p_slower, &s->p_faster))
		ret = 0;
	free(slow);
	return ret;
}

int ab_judge(struct ab_series *s, size_t n, const struct ab_options *options)
{
	double *p = malloc(2 * n * sizeof(*p) + 1);
	double limit = 1 + options->max_time / 100;
	int slower = 0;

	if (!p)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (judge_one(&s[i], options->sign_test))
			goto fail;
		p[i] = s[i].p_slower;
		p[n + i] = s[i].p_faster;
	}
	/* Each direction is a family of its own: a regression is gated on the first. */
	if (stats_holm(p, n, p) || stats_holm(p + n, n, p + n))
		goto fail;
	for (size_t i = 0; i < n; i++) {
		s[i].q_slower = p[i];
		s[i].q_faster = p[n + i];
		s[i].verdict = AB_SAME;
		if (s[i].q_slower < options->alpha && s[i].slowdown > limit)
			s[i].verdict = AB_SLOWER;
		else if (s[i].q_faster < options->alpha && s[i].slowdown < 1 / limit)
			s[i].verdict = AB_FASTER;
		slower += s[i].verdict == AB_SLOWER;
	}
	free(p);
	return slower;
fail:
	free(p);
	return -1;
}
