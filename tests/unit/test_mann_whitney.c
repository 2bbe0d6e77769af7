/*
 * Unit tests for the Mann-Whitney U test in stats.c: exact p-values against
 * the published tables, against a brute-force count over every split of the
 * pooled values (with ties), and the normal approximation against values
 * computed independently (Python's math.erfc, formula in the comment).
 */
#include "check.h"
#include "model/stats.h"

#include <math.h>
#include <stdlib.h>

static int close_to(double a, double b, double tolerance)
{
	return fabs(a - b) <= tolerance;
}

/*
 * The exact tails by brute force: every way to choose which NY of the pooled
 * values are "Y", U counted pair by pair (ties as one half).
 */
static void brute_force(const double *x, size_t nx, const double *y, size_t ny,
			double *u_obs, double *p_ge, double *p_le)
{
	size_t n = nx + ny;
	double pooled[32], u_of, ge = 0, le = 0, all = 0;

	for (size_t i = 0; i < nx; i++)
		pooled[i] = x[i];
	for (size_t i = 0; i < ny; i++)
		pooled[nx + i] = y[i];
	*u_obs = 0;
	for (size_t i = 0; i < nx; i++)
		for (size_t j = 0; j < ny; j++)
			*u_obs += y[j] > x[i] ? 1 : y[j] == x[i] ? 0.5 : 0;
	for (unsigned long mask = 0; mask < (1ul << n); mask++) {
		if ((size_t)__builtin_popcountl(mask) != ny)
			continue;
		u_of = 0;
		for (size_t a = 0; a < n; a++) {
			if (mask & (1ul << a))
				continue;
			for (size_t b = 0; b < n; b++)
				if (mask & (1ul << b))
					u_of += pooled[b] > pooled[a] ? 1 : pooled[b] == pooled[a] ? 0.5 : 0;
		}
		all++;
		if (u_of >= *u_obs - 1e-9)
			ge++;
		if (u_of <= *u_obs + 1e-9)
			le++;
	}
	*p_ge = ge / all;
	*p_le = le / all;
}

int main(void)
{
	const double low3[] = { 10, 11, 12 }, high3[] = { 20, 21, 22 };
	const double low4[] = { 1, 2, 3, 4 }, high4[] = { 5, 6, 7, 8 };
	struct mann_whitney r;
	int all_match = 1;

	/* n = 3 and 3: U takes 0..9 with frequencies 1 1 2 3 3 3 3 2 1 1 of 20. */
	CHECK("3 vs 3 computes", !stats_mann_whitney(low3, 3, high3, 3, &r));
	CHECK("3 vs 3 separated: U = 9", r.u == 9);
	CHECK("3 vs 3 separated: p(greater) = 1/20 = 0.05", close_to(r.p_greater, 0.05, 1e-12));
	CHECK("3 vs 3 separated: p(less) = 1", close_to(r.p_less, 1, 1e-12));
	CHECK("3 vs 3 is exact", r.exact);
	CHECK("reversed: p(less) = 0.05", !stats_mann_whitney(high3, 3, low3, 3, &r) &&
	      r.u == 0 && close_to(r.p_less, 0.05, 1e-12) && close_to(r.p_greater, 1, 1e-12));
	{
		const double x[] = { 1, 3, 5 }, y[] = { 2, 4, 6 };

		/* U = 1 + 2 + 3 = 6: P(U >= 6) = (3 + 2 + 1 + 1) / 20 = 0.35. */
		CHECK("3 vs 3 interleaved: U = 6, p(greater) = 0.35",
		      !stats_mann_whitney(x, 3, y, 3, &r) && r.u == 6 &&
		      close_to(r.p_greater, 0.35, 1e-12) && close_to(r.p_less, 0.8, 1e-12));
	}
	CHECK("4 vs 4 separated: p = 1/70", !stats_mann_whitney(low4, 4, high4, 4, &r) &&
	      r.u == 16 && close_to(r.p_greater, 1.0 / 70, 1e-12));
	{
		/* n = 5 and 5, U = 4: the table's 0.048 (12 of the 252 splits). */
		const double x[] = { 1, 2, 3, 6, 7 }, y[] = { 4, 5, 8, 9, 10 };

		CHECK("5 vs 5, U(x) = 4: p = 12/252 (table: 0.048)",
		      !stats_mann_whitney(y, 5, x, 5, &r) && r.u == 4 &&
		      close_to(r.p_less, 12.0 / 252, 1e-12));
	}
	{
		/*
		 * n = 10 and 10: the one-sided 5% critical value of U is 27, with
		 * P(U <= 27) = 0.0446 in the tables (0.04460477602892463 counted
		 * exactly), and P(U <= 15) = 0.003420727878932213.
		 */
		const double x[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
		double y[10];

		for (int i = 0; i < 10; i++)
			y[i] = x[i] + 4.5;   /* x above y in 5 + 4 + 3 + 2 + 1 = 15 pairs */
		CHECK("10 vs 10, U = 15: p = 0.0034207", !stats_mann_whitney(y, 10, x, 10, &r) &&
		      r.u == 15 && close_to(r.p_less, 0.003420727878932213, 1e-12));
		for (int i = 0; i < 10; i++)
			y[i] = x[i] + 2.5;   /* 28 pairs ... */
		y[0] = 4.6;             /* ... less the one of x = 4 over y = 3.5: 27 */
		CHECK("10 vs 10, U = 27: p = 0.0446 (the table's critical value)",
		      !stats_mann_whitney(y, 10, x, 10, &r) && r.u == 27 &&
		      close_to(r.p_less, 0.04460477602892463, 1e-12));
	}

	/* Ties: exact tails against brute force over every split. */
	srand(6);
	for (int t = 0; t < 200; t++) {
		size_t nx = 1 + (size_t)rand() % 7, ny = 1 + (size_t)rand() % 7;
		double x[8], y[8], u, ge, le;

		for (size_t i = 0; i < nx; i++)
			x[i] = rand() % 5;
		for (size_t i = 0; i < ny; i++)
			y[i] = rand() % 5;
		brute_force(x, nx, y, ny, &u, &ge, &le);
		if (stats_mann_whitney(x, nx, y, ny, &r) || r.u != u ||
		    !close_to(r.p_greater, ge, 1e-12) || !close_to(r.p_less, le, 1e-12)) {
			all_match = 0;
			printf("# mismatch: nx %zu ny %zu u %g/%g p> %g/%g p< %g/%g\n", nx, ny,
			       r.u, u, r.p_greater, ge, r.p_less, le);
			break;
		}
	}
	CHECK("exact tails with ties equal brute force (200 random samples)", all_match);
	{
		const double same[] = { 5, 5, 5 };

		CHECK("all tied: both p = 1", !stats_mann_whitney(same, 3, same, 3, &r) &&
		      r.u == 4.5 && close_to(r.p_greater, 1, 1e-12) && close_to(r.p_less, 1, 1e-12));
	}

	/*
	 * The normal approximation (n = 30 and 30, above STATS_MW_EXACT_MAX).
	 * Reference: mean = nx ny / 2, var = nx ny / 12 ((n + 1) - sum(t^3 - t) /
	 * (n (n - 1))), p = 0.5 erfc((U - mean - 0.5) / sd / sqrt 2), computed
	 * in Python: 1.9940509692330566e-04 without ties and
	 * 5.853040477042727e-05 / 0.99994505331361 with the tied samples.
	 */
	{
		double x[30], y[30];

		for (int i = 0; i < 30; i++) {
			x[i] = i + 0.25;
			y[i] = i + 10;
		}
		CHECK("30 vs 30 uses the normal approximation", !stats_mann_whitney(x, 30, y, 30, &r) &&
		      !r.exact && r.u == 690);
		CHECK("30 vs 30 p = 1.99405e-4", close_to(r.p_greater, 1.9940509692330566e-04, 1e-12));
		for (int i = 0; i < 30; i++) {
			x[i] = 1 + i / 10;
			y[i] = 2 + i / 10;
		}
		CHECK("30 vs 30 with ties: tie-corrected p", !stats_mann_whitney(x, 30, y, 30, &r) &&
		      r.u == 700 && close_to(r.p_greater, 5.853040477042727e-05, 1e-12) &&
		      close_to(r.p_less, 0.99994505331361, 1e-12));
	}
	{
		/*
		 * At the edge (25 and 25, still exact): x = 0, 2, ..., 48 and y = x + 7.
		 * U = 394; the exact tail, counted in Python with integers, is
		 * 0.0583194056321632, and the normal approximation 0.0580181: close.
		 */
		double x[25], y[25];

		for (int i = 0; i < 25; i++) {
			x[i] = 2 * i;
			y[i] = 2 * i + 7;
		}
		CHECK("25 vs 25 is exact", !stats_mann_whitney(x, 25, y, 25, &r) && r.exact && r.u == 394);
		CHECK("25 vs 25 exact p = 0.0583194056321632", close_to(r.p_greater, 0.0583194056321632, 1e-13));
	}

	CHECK("min p 3 vs 3 = 0.05", close_to(stats_mann_whitney_min_p(3, 3), 0.05, 1e-15));
	CHECK("min p 3 vs 4 = 1/35", close_to(stats_mann_whitney_min_p(3, 4), 1.0 / 35, 1e-15));
	CHECK("min p 4 vs 4 = 1/70", close_to(stats_mann_whitney_min_p(4, 4), 1.0 / 70, 1e-15));
	CHECK("min p 1 vs 10 = 1/11", close_to(stats_mann_whitney_min_p(1, 10), 1.0 / 11, 1e-15));
	CHECK("empty sample refused", stats_mann_whitney(low3, 0, high3, 3, &r) == -1);
	return check_exit();
}
