/*
 * waves - a program that makes its threads in waves, as servers and
 * build tools do: WAVES waves of WIDTH threads, each wave started, then
 * joined, before the next. Each thread allocates 200 chunks of 16 to 4000
 * bytes, writes them whole, and frees them.
 *
 *   waves WAVES WIDTH
 *
 * Recorded, it has WAVES * WIDTH + 1 threads, at most WIDTH + 1 alive at
 * once (the main thread waits in pthread_join); a replay that starts them
 * all at once pays every allocator's per-thread memory for all of them
 * (t1404).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNKS 200

static void *work(void *arg)
{
	unsigned seed = (unsigned)(size_t)arg;
	void *p[CHUNKS];

	for (int i = 0; i < CHUNKS; i++) {
		size_t n = 16 + (seed = seed * 1103515245u + 12345u) % 3985;

		p[i] = malloc(n);
		if (!p[i])
			return arg;
		memset(p[i], i, n);
	}
	for (int i = 0; i < CHUNKS; i++)
		free(p[i]);
	return NULL;
}

int main(int argc, char **argv)
{
	int waves = argc == 3 ? atoi(argv[1]) : 0, width = argc == 3 ? atoi(argv[2]) : 0;
	pthread_t *t;

	if (waves < 1 || width < 1 || width > 1024) {
		fputs("waves: usage: waves WAVES WIDTH (WIDTH at most 1024)\n", stderr);
		return 2;
	}
	t = malloc((size_t)width * sizeof(*t));
	if (!t)
		return 1;
	for (int w = 0; w < waves; w++) {
		for (int i = 0; i < width; i++)
			if (pthread_create(&t[i], NULL, work, (void *)(size_t)(w * width + i + 1)))
				return 1;
		for (int i = 0; i < width; i++)
			pthread_join(t[i], NULL);
	}
	free(t);
	return 0;
}
