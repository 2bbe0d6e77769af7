#include "stats.h"

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
