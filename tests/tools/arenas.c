/*
 * arenas - a program that glibc's arenas bloat: THREADS threads, all alive
 * from the start, take turns; in its turn each allocates MIB MiB in chunks
 * of 4000 bytes, writes them, keeps one small chunk allocated after them
 * (so that its heap cannot shrink) and frees the rest. Its live set is one
 * thread's MiB at most and a few bytes at the end; glibc gives each thread
 * an arena of its own (up to 8 per CPU), and each arena keeps what its
 * thread freed: about THREADS * MIB MiB resident. With
 * GLIBC_TUNABLES=glibc.malloc.arena_max=2, the threads share two arenas,
 * each turn reuses what the turns before freed, and the program keeps
 * about 2 * MIB (t1415, allocbench-advise(1)).
 *
 *   arenas THREADS MIB
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK 4000

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int turn, nthreads;
static size_t chunks;

static void *work(void *arg)
{
	int me = (int)(size_t)arg;
	void **p = NULL, *pin = NULL;
	int failed = 0;

	pthread_mutex_lock(&lock);
	while (turn != me)
		pthread_cond_wait(&changed, &lock);
	pthread_mutex_unlock(&lock);
	/* The array of chunks comes first: it is freed with them, below the pin. */
	if (!(p = malloc(chunks * sizeof(*p))))
		failed = 1;
	for (size_t i = 0; !failed && i < chunks; i++)
		if (!(p[i] = malloc(CHUNK)))
			failed = 1;
		else
			memset(p[i], (int)i, CHUNK);
	if (!failed && (pin = malloc(64)))
		memset(pin, 1, 64);
	for (size_t i = 0; p && i < chunks; i++)
		free(p[i]);
	free(p);
	pthread_mutex_lock(&lock);
	turn++;
	pthread_cond_broadcast(&changed);
	while (turn < nthreads)
		pthread_cond_wait(&changed, &lock);
	pthread_mutex_unlock(&lock);
	free(pin);
	return failed || !pin ? arg : NULL;
}

int main(int argc, char **argv)
{
	int mib = argc == 3 ? atoi(argv[2]) : 0, status = 0;
	pthread_t *t;

	nthreads = argc == 3 ? atoi(argv[1]) : 0;
	if (nthreads < 1 || nthreads > 64 || mib < 1 || mib > 256) {
		fputs("arenas: usage: arenas THREADS MIB (THREADS 1 to 64, MIB 1 to 256)\n", stderr);
		return 2;
	}
	chunks = (size_t)mib * 1048576 / CHUNK;
	t = malloc((size_t)nthreads * sizeof(*t));
	if (!t)
		return 1;
	for (int i = 0; i < nthreads; i++)
		if (pthread_create(&t[i], NULL, work, (void *)(size_t)i))
			return 1;
	for (int i = 0; i < nthreads; i++) {
		void *ret;

		pthread_join(t[i], &ret);
		status |= ret != NULL;
	}
	free(t);
	return status;
}
