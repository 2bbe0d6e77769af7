/* Unit tests for stats.c. */
#include "check.h"
#include "model/stats.h"

#include <math.h>

/* stats_differ(): the one decision of "beyond the noise", each criterion alone. */
static void check_differ(void)
{
	const struct stat_summary a = { 10, 9, 11 }, b = { 12, 11, 13 }, c = { 12, 11.5, 13 };
	const struct stats_rule ranges = { .disjoint = 1 }, spread = { .beyond_spread = 1 };
	const struct stats_rule tol = { .min_change = 2 }, pct = { .min_percent = 15 };
	const struct stats_rule test = { .alpha = 0.05 };
	const double x[] = { 10, 9.8, 10.2, 9.6, 10.4 }, y[] = { 15, 14.7, 15.3, 14.4, 15.6 };
	struct stats_difference d;

	stats_difference_init(&d, &a, &b);
	CHECK("differ: the change of the medians", d.change == 2 && d.change_percent == 20);
	CHECK("differ: no test yet", !d.have_p && d.p_higher == 1 && d.q_lower == 1);
	CHECK("differ: ranges that touch overlap", stats_differ(&d, &ranges) == STATS_SAME);
	CHECK("differ: 2 is not beyond a spread of 2", stats_differ(&d, &spread) == STATS_SAME);
	CHECK("differ: 2 is not beyond a tolerance of 2", stats_differ(&d, &tol) == STATS_SAME);
	CHECK("differ: 20% is beyond 15%", stats_differ(&d, &pct) == STATS_HIGHER);
	CHECK("differ: no test, no significance", stats_differ(&d, &test) == STATS_SAME);
	stats_difference_init(&d, &a, &c);
	CHECK("differ: disjoint ranges, higher", stats_differ(&d, &ranges) == STATS_HIGHER);
	stats_difference_init(&d, &c, &a);
	CHECK("differ: disjoint ranges, lower", stats_differ(&d, &ranges) == STATS_LOWER);
	stats_difference_init(&d, &a, &a);
	CHECK("differ: the same figure is the same", stats_differ(&d, &pct) == STATS_SAME &&
	      stats_differ(&d, &tol) == STATS_SAME);

	stats_difference_init(&d, &(struct stat_summary){ 10, 9.6, 10.4 },
			      &(struct stat_summary){ 15, 14.4, 15.6 });
	CHECK("differ: the rank test runs", !stats_difference_test(&d, x, 5, y, 5) && d.have_p);
	CHECK("differ: every run higher, p = 1/252", fabs(d.p_higher - 1.0 / 252) < 1e-12 &&
	      d.min_p == d.p_higher && d.q_higher == d.p_higher);
	CHECK("differ: significant at 0.05", stats_differ(&d, &test) == STATS_HIGHER);
	d.q_higher = 0.06;  /* as if corrected for a family */
	CHECK("differ: the corrected p decides", stats_differ(&d, &test) == STATS_SAME);
	CHECK("differ: no runs, no test", stats_difference_test(&d, x, 0, y, 5) == -1);
}

/* stats_holm(): Holm's adjusted p-values, by hand. */
static void check_holm(void)
{
	const double p[] = { 0.01, 0.04, 0.03, 0.005 }, one[] = { 0.02 };
	const double big[] = { 0.6, 0.7 };
	double q[4];

	CHECK("holm: four tests", !stats_holm(p, 4, q));
	/* Sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1: 0.02, 0.03, 0.06, 0.04 -> 0.06. */
	CHECK("holm: the smallest times 4", fabs(q[3] - 0.02) < 1e-12);
	CHECK("holm: the second times 3", fabs(q[0] - 0.03) < 1e-12);
	CHECK("holm: the third times 2", fabs(q[2] - 0.06) < 1e-12);
	CHECK("holm: never below an earlier one", fabs(q[1] - 0.06) < 1e-12);
	CHECK("holm: at 0.05 the two smallest are significant",
	      q[3] < 0.05 && q[0] < 0.05 && !(q[2] < 0.05) && !(q[1] < 0.05));
	CHECK("holm: one test is itself", !stats_holm(one, 1, q) && q[0] == 0.02);
	CHECK("holm: capped at 1", !stats_holm(big, 2, q) && q[0] == 1 && q[1] == 1);
	CHECK("holm: in place", !stats_holm(q, 2, q) && q[0] == 1 && q[1] == 1);
	CHECK("holm: no tests", !stats_holm(p, 0, q));
}

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
	check_differ();
	check_holm();
	return check_exit();
}
