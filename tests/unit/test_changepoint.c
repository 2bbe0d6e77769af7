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
	struct changepoint cp[4], again[4];
	int n;

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
	return check_exit();
}
