/* Unit tests for stats.c. */
#include "check.h"
#include "model/stats.h"

#include <math.h>

int main(void)
{
	const double odd[] = { 3, 1, 2 }, even[] = { 4, 1, 3, 2 }, one[] = { 7 };
	struct stat_summary s;
	/* 100 bytes a chunk after a one-time 4096 at the first: the fill's readings at the quarters. */
	const double qx[] = { 250, 500, 750, 1000 };
	const double qy[] = { 4096 + 25000, 4096 + 50000, 4096 + 75000, 4096 + 100000 };
	const double sx[] = { 1, 2, 3, 4 }, sy[] = { 0, 0, 4096, 4096 }, same[] = { 5, 5 };
	struct line_fit fit;

	CHECK("odd count summarises", !stats_summarize(odd, 3, &s));
	CHECK("odd median is the middle", s.median == 2 && s.min == 1 && s.max == 3);
	CHECK("input left unsorted", odd[0] == 3 && odd[1] == 1);
	CHECK("even count summarises", !stats_summarize(even, 4, &s));
	CHECK("even median is the mean of the middle two", s.median == 2.5 && s.min == 1 && s.max == 4);
	CHECK("single value", !stats_summarize(one, 1, &s) && s.median == 7 && s.min == 7);
	CHECK("no values refused", stats_summarize(one, 0, &s) == -1);
	CHECK("median index, odd", stats_median_index(odd, 3) == 2);
	CHECK("median index, even takes the lower", stats_median_index(even, 4) == 3);
	CHECK("fit: a straight line", !stats_fit_line(qx, qy, 4, &fit));
	CHECK("fit: its slope", fabs(fit.slope - 100) < 1e-9);
	CHECK("fit: its intercept is the one-time cost", fabs(fit.intercept - 4096) < 1e-6);
	CHECK("fit: every point on it", fit.worst < 1e-6);
	CHECK("fit: a step", !stats_fit_line(sx, sy, 4, &fit));
	CHECK("fit: the step's slope", fabs(fit.slope - 1638.4) < 1e-9);
	CHECK("fit: the step's largest distance", fabs(fit.worst - 1228.8) < 1e-9);
	CHECK("fit: one point refused", stats_fit_line(qx, qy, 1, &fit) == -1);
	CHECK("fit: one x refused", stats_fit_line(same, qy, 2, &fit) == -1);
	return check_exit();
}
