/*
 * malloc_cost - the side measurement of tests/gate-rates.sh: what one malloc
 * costs, warm, as the churn workload calls it, with nothing else timed.
 *
 *   malloc_cost SIZE COUNT ROUNDS
 *
 * Each round times COUNT calls of malloc(SIZE) alone, then frees the chunks
 * newest first, untimed; prints the median over rounds 2 and later of the
 * nanoseconds per call. Run with and without a preload to see what it adds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	size_t size, count, rounds;
	double *ns;
	void **ptrs;

	if (argc != 4)
		return 2;
	size = strtoull(argv[1], NULL, 10);
	count = strtoull(argv[2], NULL, 10);
	rounds = strtoull(argv[3], NULL, 10);
	ptrs = calloc(count, sizeof(*ptrs));
	ns = calloc(rounds, sizeof(*ns));
	if (!size || !count || rounds < 2 || !ptrs || !ns)
		return 2;
	for (size_t r = 0; r < rounds; r++) {
		struct timespec t0, t1;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (size_t i = 0; i < count; i++)
			ptrs[i] = malloc(size);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		for (size_t i = 0; i < count; i++)
			if (!ptrs[i])
				return 1;
		for (size_t i = count; i-- > 0;)
			free(ptrs[i]);
		ns[r] = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) /
			(double)count;
	}
	qsort(ns + 1, rounds - 1, sizeof(*ns), cmp);
	printf("%.3f\n", ns[1 + (rounds - 1) / 2]);
	return 0;
}
