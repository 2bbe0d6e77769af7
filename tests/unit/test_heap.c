/* test_heap.c - the private zone (src/platform/heap.h) and the measured allocator's functions. */
#include "check.h"
#include "platform/heap.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define THREAD_ROUNDS 20000

static void *churn(void *arg)
{
	uintptr_t seed = (uintptr_t)arg;
	void *kept[64] = { 0 };
	int bad = 0;

	for (unsigned i = 0; i < THREAD_ROUNDS; i++) {
		unsigned slot = (unsigned)((i * 2654435761u + seed) % 64);
		size_t size = 1 + (i * 40503u + seed) % 3000;

		if (kept[slot]) {
			bad |= *(unsigned char *)kept[slot] != (unsigned char)slot;
			zone_free(kept[slot]);
		}
		kept[slot] = zone_malloc(size);
		if (!kept[slot])
			return (void *)1;
		memset(kept[slot], (int)slot, size);
	}
	for (unsigned i = 0; i < 64; i++)
		zone_free(kept[i]);
	return (void *)(uintptr_t)bad;
}

int main(void)
{
	const struct heap_functions *heap = heap_measured();
	unsigned char *a, *b, *c;
	void *aligned, *big, *measured;
	pthread_t t[4];
	int bad = 0;

	CHECK("the measured allocator is found", heap && heap->malloc && heap->free &&
	      heap->calloc && heap->realloc);
	CHECK("without the interposer, private mode changes nothing", !heap_interposed);

	a = zone_malloc(10);
	CHECK("zone_malloc gives 16-byte aligned memory", a && (uintptr_t)a % 16 == 0);
	CHECK("the zone owns what it gives", zone_owns(a) && !zone_owns(NULL));
	CHECK("a usable size of at least the request", zone_usable_size(a) >= 10);
	memset(a, 'x', 10);
	b = zone_realloc(a, 5000);
	CHECK("realloc keeps the contents", b && !memcmp(b, "xxxxxxxxxx", 10) &&
	      zone_usable_size(b) >= 5000);
	zone_free(b);
	c = zone_malloc(5000);
	CHECK("a freed block is reused for the same class", c == b);
	zone_free(c);

	c = zone_calloc(100, 7);
	CHECK("calloc zeroes a reused block", c && !memchr(c, 'x', 700) && c[0] == 0 && c[699] == 0);
	zone_free(c);
	CHECK("calloc refuses an overflowing count", !zone_calloc(SIZE_MAX / 2, 3));

	aligned = zone_memalign(4096, 100);
	CHECK("memalign honours the alignment", aligned && (uintptr_t)aligned % 4096 == 0 &&
	      zone_owns(aligned) && zone_usable_size(aligned) >= 100);
	memset(aligned, 1, 100);
	zone_free(aligned);
	aligned = zone_memalign(64, 1);
	CHECK("memalign of 64", aligned && (uintptr_t)aligned % 64 == 0);
	zone_free(aligned);

	big = zone_malloc((size_t)64 << 20);
	CHECK("a block larger than the first region gets a region of its own",
	      big && zone_owns(big) && zone_mapped_bytes() >= ((size_t)64 << 20));
	memset(big, 2, (size_t)1 << 20);
	zone_free(big);
	CHECK("an impossible size is refused", !zone_malloc(SIZE_MAX - 8));

	measured = heap->malloc(100);
	CHECK("the measured allocator's memory is not the zone's", measured && !zone_owns(measured));
	heap->free(measured);

	for (uintptr_t i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, churn, (void *)i);
	for (int i = 0; i < 4; i++) {
		void *ret;

		pthread_join(t[i], &ret);
		bad |= ret != NULL;
	}
	CHECK("four threads share the zone without losing a block", !bad);
	return check_exit();
}
