/* Unit tests for stats.c. */
#include "check.h"
#include "stats.h"

int main(void)
{
	const double odd[] = { 3, 1, 2 }, even[] = { 4, 1, 3, 2 }, one[] = { 7 };
	struct stat_summary s;

	CHECK("odd count summarises", !stats_summarize(odd, 3, &s));
	CHECK("odd median is the middle", s.median == 2 && s.min == 1 && s.max == 3);
	CHECK("input left unsorted", odd[0] == 3 && odd[1] == 1);
	CHECK("even count summarises", !stats_summarize(even, 4, &s));
	CHECK("even median is the mean of the middle two", s.median == 2.5 && s.min == 1 && s.max == 4);
	CHECK("single value", !stats_summarize(one, 1, &s) && s.median == 7 && s.min == 7);
	CHECK("no values refused", stats_summarize(one, 0, &s) == -1);
	CHECK("median index, odd", stats_median_index(odd, 3) == 2);
	CHECK("median index, even takes the lower", stats_median_index(even, 4) == 3);
	return check_exit();
}
