/* Unit tests for ab.c: pairwise slowdowns, the signed-rank test, Holm. */
#include "check.h"
#include "model/ab.h"

#include <math.h>

int main(void)
{
	double old[10] = { 10, 11, 9, 10, 12, 10, 11, 9, 10, 10 }, twice[10], same[10], mixed[10];
	struct ab_options o = { 10, 0.05, 0 };
	struct ab_series s[3];

	for (int i = 0; i < 10; i++) {
		twice[i] = 2 * old[i] + 0.01 * i;   /* every pair slower, by different ratios */
		same[i] = old[i];
		mixed[i] = old[i] * (i % 2 ? 1.3 : 0.8);
	}
	s[0] = (struct ab_series){ .old_backend = "malloc", .new_backend = "malloc", .size = 40, .metric = METRIC_ALLOC_NS,
				  .old = old, .new = twice, .n = 10 };
	s[1] = (struct ab_series){ .old_backend = "malloc", .new_backend = "malloc", .size = 40, .metric = METRIC_FREE_NS,
				  .old = old, .new = same, .n = 10 };
	s[2] = (struct ab_series){ .old_backend = "malloc", .new_backend = "malloc", .size = 400, .metric = METRIC_ALLOC_NS,
				  .old = old, .new = mixed, .n = 10 };
	CHECK("one of three is slower", ab_judge(s, 3, &o) == 1);
	CHECK("every pair slower: p is 1/2^10", fabs(s[0].p_slower - 1.0 / 1024) < 1e-12);
	CHECK("... Holm over three tests: 3/1024", fabs(s[0].q_slower - 3.0 / 1024) < 1e-12);
	CHECK("... its median slowdown is about 2", s[0].slowdown > 1.99 && s[0].slowdown < 2.01);
	CHECK("... and it is slower", s[0].verdict == AB_SLOWER);
	CHECK("identical pairs: no evidence (p 1), the same", s[1].p_slower == 1 &&
	      s[1].verdict == AB_SAME && s[1].slowdown == 1);
	CHECK("half slower, half faster: the same", s[2].verdict == AB_SAME && s[2].q_slower > 0.05);
	o.max_time = 150;
	CHECK("a change below --max-time is not a regression", ab_judge(s, 3, &o) == 0 &&
	      s[0].verdict == AB_SAME);
	o.max_time = 10;
	s[0] = (struct ab_series){ .old_backend = "malloc", .new_backend = "malloc", .size = 40, .metric = METRIC_ALLOC_NS,
				  .old = twice, .new = old, .n = 10 };
	CHECK("the other way round: faster", ab_judge(s, 1, &o) == 0 && s[0].verdict == AB_FASTER);
	s[0] = (struct ab_series){ .old_backend = "pool", .new_backend = "pool", .size = 0, .metric = METRIC_OPS_PER_S,
				  .old = old, .new = twice, .n = 10 };
	CHECK("a rate that doubles is faster, not slower", ab_judge(s, 1, &o) == 0 &&
	      s[0].verdict == AB_FASTER && s[0].slowdown < 0.51);
	CHECK("the least p: 1/2^n", ab_min_p(10) == 1.0 / 1024);

	/* Two pairs thrown far off (a busy machine) among ten 20% slower. */
	for (int i = 0; i < 10; i++)
		mixed[i] = old[i] * (i < 2 ? 0.5 : 1.2);
	s[0] = (struct ab_series){ .old_backend = "malloc", .new_backend = "malloc", .size = 40, .metric = METRIC_ALLOC_NS,
				  .old = old, .new = mixed, .n = 10 };
	ab_judge(s, 1, &o);
	CHECK("signed-rank: the two far-off pairs take the top ranks (p above 0.1)",
	      s[0].p_slower > 0.1);
	o.sign_test = 1;
	ab_judge(s, 1, &o);
	CHECK("sign test: 8 of 10 slower, p (1 + 10 + 45)/1024",
	      fabs(s[0].p_slower - 56.0 / 1024) < 1e-12 && fabs(s[0].p_faster - 1013.0 / 1024) < 1e-12);
	for (int i = 0; i < 10; i++)
		mixed[i] = old[i] * (i < 1 ? 0.5 : 1.2);
	ab_judge(s, 1, &o);
	CHECK("sign test: 9 of 10 slower, p 11/1024 however far off the tenth",
	      fabs(s[0].p_slower - 11.0 / 1024) < 1e-12);
	CHECK("sign test: identical pairs count for neither side (p 1)",
	      ab_judge(&s[1], 1, &o) == 0 && s[1].p_slower == 1 && s[1].p_faster == 1);
	return check_exit();
}
