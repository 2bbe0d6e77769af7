/* Unit tests for changepoint.c: E-divisive means with a permutation test. */
#include "check.h"
#include "model/changepoint.h"

#include <math.h>

int main(void)
{
	/* A step of 8 after the fifth of ten values, with noise of about 1. */
	const double step[] = { 10.2, 9.7, 10.1, 9.9, 10.4, 18.1, 17.8, 18.3, 17.9, 18.0 };
	/* The same level with one outlier: no step. */
	const double outlier[] = { 10.2, 9.7, 10.1, 9.9, 30.0, 10.1, 9.8, 10.3, 9.9, 10.0 };
	/* Two steps: up, then back down. */
	const double two[] = { 5, 5.1, 4.9, 5, 9, 9.1, 8.9, 9, 5, 5.1, 4.9, 5.0 };
	const double flat[] = { 3, 3, 3, 3, 3, 3, 3, 3 };
	const double few[] = { 1, 1, 9 };
	/* Beyond CHANGEPOINT_FULL_SEARCH values (the part after a split runs to the end). */
	enum { LONG = 3 * CHANGEPOINT_FULL_SEARCH };
	double up[LONG], up_down[LONG], level[LONG];
	struct changepoint cp[4], again[4];
	int n;

	for (int i = 0; i < LONG; i++) {
		double noise = (i * 37 % 11) / 10.0;

		up[i] = 10 + noise + (i >= 2 * LONG / 3 ? 8 : 0);
		up_down[i] = 10 + noise + (i >= LONG / 3 && i < 2 * LONG / 3 ? 8 : 0);
		level[i] = 10 + noise;
	}

	n = changepoints_find(step, 10, 0.05, cp, 4);
	CHECK("a step is found", n == 1);
	CHECK("... at the first value after it", n >= 1 && cp[0].at == 5);
	CHECK("... with p below alpha", n >= 1 && cp[0].p <= 0.05 && cp[0].p > 0);
	CHECK("one series, one answer (the shuffles are seeded by the values)",
	      changepoints_find(step, 10, 0.05, again, 4) == n && again[0].at == cp[0].at &&
	      again[0].p == cp[0].p);
	CHECK("one outlier is not a step", changepoints_find(outlier, 10, 0.05, cp, 4) == 0);
	n = changepoints_find(two, 12, 0.05, cp, 4);
	CHECK("two steps are found, in order", n == 2 && cp[0].at == 4 && cp[1].at == 8);
	CHECK("a flat series has none", changepoints_find(flat, 8, 0.05, cp, 4) == 0);
	CHECK("three values are too few to split", changepoints_find(few, 3, 0.05, cp, 4) == 0);
	CHECK("room for none finds none", changepoints_find(step, 10, 0.05, cp, 0) == 0);
	CHECK("room for one keeps one", changepoints_find(two, 12, 0.05, cp, 1) == 1);
	n = changepoints_find(up, LONG, 0.05, cp, 4);
	CHECK("a long series: its step is found, where it is, with the least p",
	      n == 1 && cp[0].at == 2 * LONG / 3 && cp[0].p == 1 / (CHANGEPOINT_PERMUTATIONS + 1.0));
	n = changepoints_find(up_down, LONG, 0.05, cp, 4);
	CHECK("a long series: a step up and back down is two steps",
	      n == 2 && cp[0].at == LONG / 3 && cp[1].at == 2 * LONG / 3);
	CHECK("a long series at one level, its noise periodic, has none",
	      changepoints_find(level, LONG, 0.05, cp, 4) == 0);
	return check_exit();
}
