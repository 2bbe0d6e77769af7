#include "model/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int stats_summarize(const double *values, size_t n, struct stat_summary *out)
{
	double *sorted;

	if (!n)
		return -1;
	sorted = malloc(n * sizeof(*sorted));
	if (!sorted)
		return -1;
	memcpy(sorted, values, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), compare_doubles);
	out->min = sorted[0];
	out->max = sorted[n - 1];
	out->median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
	free(sorted);
	return 0;
}

size_t stats_median_index(const double *values, size_t n)
{
	struct stat_summary s;
	size_t best = 0;

	if (!n || stats_summarize(values, n, &s))
		return 0;
	for (size_t i = 1; i < n; i++) {
		double d = fabs(values[i] - s.median), best_d = fabs(values[best] - s.median);

		if (d < best_d || (d == best_d && values[i] < values[best]))
			best = i;
	}
	return best;
}

/* ---- Mann-Whitney U ---------------------------------------------------- */

struct ranked {
	double value;
	int from_y;   /* 1 for a value of Y, 0 for X */
	long rank2;   /* twice its mid-rank: an integer even with ties */
};

static int compare_ranked(const void *a, const void *b)
{
	return compare_doubles(&((const struct ranked *)a)->value,
			       &((const struct ranked *)b)->value);
}

/*
 * Sorts the pooled values and gives each twice its mid-rank (a tie over the
 * 1-based positions a..b gets a + b). Returns the tie term sum(t^3 - t) of
 * the variance correction.
 */
static double rank_pooled(struct ranked *v, size_t n)
{
	double ties = 0;

	qsort(v, n, sizeof(*v), compare_ranked);
	for (size_t a = 0; a < n;) {
		size_t b = a;

		while (b + 1 < n && v[b + 1].value == v[a].value)
			b++;
		for (size_t i = a; i <= b; i++)
			v[i].rank2 = (long)(a + 1 + b + 1);
		ties += (double)(b - a + 1) * (double)(b - a + 1) * (double)(b - a + 1) -
			(double)(b - a + 1);
		a = b + 1;
	}
	return ties;
}

/*
 * Exact tails of the rank sum of the M values flagged SUBSET among the N
 * ranked values: *P_GE = P(sum >= observed), *P_LE = P(sum <= observed)
 * over all C(N, M) equally likely choices of M of the N ranks. Counts the
 * subsets of each size and doubled rank sum, one value at a time, like a
 * knapsack. Returns 0, or -1 when out of memory.
 */
static int exact_tails(const struct ranked *v, size_t n, size_t m, int subset,
		       double *p_ge, double *p_le)
{
	long total2 = 0, observed = 0;
	double *count, all = 0, ge = 0, le = 0;
	size_t width;

	for (size_t i = 0; i < n; i++) {
		total2 += v[i].rank2;
		if (v[i].from_y == subset)
			observed += v[i].rank2;
	}
	width = (size_t)total2 + 1;
	count = calloc((m + 1) * width, sizeof(*count));
	if (!count)
		return -1;
	count[0] = 1;
	for (size_t i = 0; i < n; i++) {
		size_t r = (size_t)v[i].rank2;

		for (size_t k = (i + 1 < m ? i + 1 : m); k >= 1; k--)
			for (size_t s = width - 1; s >= r; s--)
				count[k * width + s] += count[(k - 1) * width + s - r];
	}
	for (size_t s = 0; s < width; s++) {
		double c = count[m * width + s];

		all += c;
		if ((long)s >= observed)
			ge += c;
		if ((long)s <= observed)
			le += c;
	}
	free(count);
	*p_ge = ge / all;
	*p_le = le / all;
	return 0;
}

/* P(Z >= z) for a standard normal Z. */
static double normal_upper(double z)
{
	return 0.5 * erfc(z / sqrt(2.0));
}

int stats_mann_whitney(const double *x, size_t nx, const double *y, size_t ny,
		       struct mann_whitney *out)
{
	size_t n = nx + ny;
	struct ranked *v;
	double ties, w2 = 0;

	if (!nx || !ny)
		return -1;
	v = malloc(n * sizeof(*v));
	if (!v)
		return -1;
	for (size_t i = 0; i < nx; i++)
		v[i] = (struct ranked){ .value = x[i], .from_y = 0 };
	for (size_t i = 0; i < ny; i++)
		v[nx + i] = (struct ranked){ .value = y[i], .from_y = 1 };
	ties = rank_pooled(v, n);
	for (size_t i = 0; i < n; i++)
		if (v[i].from_y)
			w2 += (double)v[i].rank2;
	/* With mid-ranks, U of Y is its rank sum less the smallest possible one. */
	out->u = w2 / 2 - (double)ny * (double)(ny + 1) / 2;

	if (n <= STATS_MW_EXACT_MAX) {
		double p_ge, p_le;
		/* Count subsets of the smaller sample: fewer sizes to track. */
		int subset = ny <= nx;
		size_t m = subset ? ny : nx;

		out->exact = 1;
		if (exact_tails(v, n, m, subset, &p_ge, &p_le)) {
			free(v);
			return -1;
		}
		/* X's rank sum is large exactly when Y's is small. */
		out->p_greater = subset ? p_ge : p_le;
		out->p_less = subset ? p_le : p_ge;
	} else {
		double mean = (double)nx * (double)ny / 2;
		double var = (double)nx * (double)ny / 12 *
			     ((double)(n + 1) - ties / ((double)n * (double)(n - 1)));
		double sd = var > 0 ? sqrt(var) : 0;

		out->exact = 0;
		if (sd > 0) {
			out->p_greater = normal_upper((out->u - mean - 0.5) / sd);
			out->p_less = normal_upper((mean - out->u - 0.5) / sd);
		} else {
			out->p_greater = out->p_less = 1;
		}
		if (out->p_greater > 1)
			out->p_greater = 1;
		if (out->p_less > 1)
			out->p_less = 1;
	}
	free(v);
	return 0;
}

double stats_mann_whitney_min_p(size_t nx, size_t ny)
{
	double ways = 1;

	/* C(nx + ny, nx), built up so that every step is a whole number. */
	for (size_t i = 1; i <= nx; i++)
		ways = ways * (double)(ny + i) / (double)i;
	return ways > 0 ? 1 / ways : 1;
}

int stats_fit_line(const double *x, const double *y, size_t n, struct line_fit *out)
{
	double mx = 0, my = 0, sxx = 0, sxy = 0;

	if (n < 2)
		return -1;
	for (size_t i = 0; i < n; i++) {
		mx += x[i];
		my += y[i];
	}
	mx /= (double)n;
	my /= (double)n;
	/* Centred sums: RSS in bytes and counts of chunks stay exact enough. */
	for (size_t i = 0; i < n; i++) {
		sxx += (x[i] - mx) * (x[i] - mx);
		sxy += (x[i] - mx) * (y[i] - my);
	}
	if (sxx <= 0)
		return -1;
	out->slope = sxy / sxx;
	out->intercept = my - out->slope * mx;
	out->worst = 0;
	for (size_t i = 0; i < n; i++) {
		double d = fabs(y[i] - (out->intercept + out->slope * x[i]));

		if (d > out->worst)
			out->worst = d;
	}
	return 0;
}

/* ---- differs beyond the noise ----------------------------------------- */

void stats_difference_init(struct stats_difference *out, const struct stat_summary *x,
			   const struct stat_summary *y)
{
	memset(out, 0, sizeof(*out));
	out->x = *x;
	out->y = *y;
	out->change = y->median - x->median;
	out->change_percent = x->median != 0 ? 100 * out->change / fabs(x->median) : 0;
	out->p_higher = out->p_lower = out->q_higher = out->q_lower = out->min_p = 1;
}

int stats_difference_test(struct stats_difference *d, const double *x, size_t nx,
			  const double *y, size_t ny)
{
	struct mann_whitney mw;

	if (!nx || !ny || stats_mann_whitney(x, nx, y, ny, &mw))
		return -1;
	d->have_p = 1;
	d->exact = mw.exact;
	d->p_higher = d->q_higher = mw.p_greater;
	d->p_lower = d->q_lower = mw.p_less;
	d->min_p = stats_mann_whitney_min_p(nx, ny);
	return 0;
}

enum stats_direction stats_differ(const struct stats_difference *d,
				  const struct stats_rule *rule)
{
	enum stats_direction dir = d->change > 0 ? STATS_HIGHER :
				   d->change < 0 ? STATS_LOWER : STATS_SAME;
	double size = fabs(d->change);

	/* The ranges overlap: neither lies beyond the other's runs. */
	if (rule->disjoint && d->x.min <= d->y.max && d->y.min <= d->x.max)
		return STATS_SAME;
	if (rule->beyond_spread && !(size > d->x.max - d->x.min))
		return STATS_SAME;
	if (!(size > rule->min_change))
		return STATS_SAME;
	if (rule->min_percent > 0 && !(fabs(d->change_percent) > rule->min_percent))
		return STATS_SAME;
	if (rule->alpha > 0 &&
	    !((dir == STATS_HIGHER ? d->q_higher : d->q_lower) < rule->alpha))
		return STATS_SAME;
	return dir;
}

int stats_overlap(const struct stat_summary *x, const struct stat_summary *y)
{
	static const struct stats_rule ranges = { .disjoint = 1 };
	struct stats_difference d;

	stats_difference_init(&d, x, y);
	return stats_differ(&d, &ranges) == STATS_SAME;
}

struct ranked_p {
	double p;
	size_t at;   /* its index in the caller's array */
};

static int compare_ranked_p(const void *a, const void *b)
{
	const struct ranked_p *x = a, *y = b;

	return x->p < y->p ? -1 : x->p > y->p ? 1 : (x->at > y->at) - (x->at < y->at);
}

int stats_holm(const double *p, size_t n, double *adjusted)
{
	struct ranked_p *order;
	double running = 0;

	if (!n)
		return 0;
	order = malloc(n * sizeof(*order));
	if (!order)
		return -1;
	for (size_t i = 0; i < n; i++)
		order[i] = (struct ranked_p){ .p = p[i], .at = i };
	qsort(order, n, sizeof(*order), compare_ranked_p);
	/* The j-th smallest is tested at alpha / (n - j + 1), and only after all before it. */
	for (size_t j = 0; j < n; j++) {
		double q = (double)(n - j) * order[j].p;

		if (q > running)
			running = q;
		adjusted[order[j].at] = running < 1 ? running : 1;
	}
	free(order);
	return 0;
}
