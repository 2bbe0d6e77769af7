/*
 * churn_floor - what `make bench` sets beside the pool's churn: the least a
 * destroy can cost when it must read the object's address.
 *
 *   churn_floor SIZE TOTAL_BYTES
 *
 * The churn workload's round, written out by hand on one mapping: create
 * TOTAL/SIZE objects (bump the top, write the first and last byte, keep the
 * address in an array), then destroy them newest first. It prints the ns
 * per pair in the fastest of rounds 2 and later (the workload's ns/pair)
 * twice: with a destroy that does nothing (the arena's, allocbench's floor
 * of churn), and with the cheapest destroy
 * that uses its object: read the address back from the array and move the
 * top down over it (what the pool does for a newest-first destroy). Their
 * ratio is how close to the arena any allocator with a real free can come
 * on this machine: at small sizes, reading the array back is not free.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* ns per pair in the fastest of rounds 2..ROUNDS; READ_BACK: the destroy reads each address. */
static double churn(unsigned char *base, void **ptrs, size_t count, size_t size, size_t stride,
		    unsigned rounds, int read_back)
{
	double best = 0;

	for (unsigned r = 0; r < rounds; r++) {
		double t0 = now_ns();
		unsigned char *top = base;

		for (size_t i = 0; i < count; i++) {
			unsigned char *p = top;

			top += stride;
			p[0] = 1;
			p[size - 1] = 1;
			ptrs[i] = p;
		}
		if (read_back) {
			for (size_t i = count; i-- > 0;) {
				unsigned char *p = ptrs[i];

				if (p + stride == top)
					top = p;
			}
			if (top != base)
				abort();
		}
		__asm__ volatile("" ::: "memory");
		t0 = now_ns() - t0;
		if (r == 1 || (r > 1 && t0 < best))
			best = t0;
	}
	return best / (double)count;
}

int main(int argc, char **argv)
{
	size_t size, total, count, stride;
	unsigned rounds;
	unsigned char *base;
	void **ptrs;
	double arena, read_back;

	if (argc != 3 || !(size = strtoul(argv[1], NULL, 10)) || !(total = strtoul(argv[2], NULL, 10)) ||
	    total < size) {
		fprintf(stderr, "usage: churn_floor SIZE TOTAL_BYTES\n");
		return 2;
	}
	count = total / size;
	/* The workload's default: about 16 million pairs, 2 to 1000 rounds. */
	rounds = (unsigned)(16777216 / count);
	rounds = rounds < 2 ? 2 : rounds > 1000 ? 1000 : rounds;
	/*
	 * The arena aligns to the size's natural alignment (its largest
	 * power-of-two divisor, up to 16), of which the size is a multiple:
	 * objects lie end to end.
	 */
	stride = size;
	base = mmap(NULL, count * stride, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ptrs = mmap(NULL, count * sizeof(void *), PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED || ptrs == MAP_FAILED) {
		perror("churn_floor: mmap");
		return 1;
	}
	memset(ptrs, 0, count * sizeof(void *));
	/* Interleaved, twice each: a slow moment falls on both. */
	arena = churn(base, ptrs, count, size, stride, rounds, 0);
	read_back = churn(base, ptrs, count, size, stride, rounds, 1);
	arena = (arena + churn(base, ptrs, count, size, stride, rounds, 0)) / 2;
	read_back = (read_back + churn(base, ptrs, count, size, stride, rounds, 1)) / 2;
	printf("%.3f %.3f\n", arena, read_back);
	return 0;
}
