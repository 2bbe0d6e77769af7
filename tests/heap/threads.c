/*
 * threads.c - the measured allocator's first calls from threads, in a
 * process built as the measuring one is (src/platform/heap.c and src/platform/heap_interpose.c:
 * the main thread's own calls go to the zone, never to glibc's malloc).
 *
 *   threads arena   the main thread resolves the measured functions, as a
 *                   measuring process does, then one thread makes the first
 *                   call of the measured malloc; prints "main" when the chunk
 *                   came from glibc's main arena, "thread" when from an arena
 *                   of the thread's own (glibc marks its chunks NON_MAIN_ARENA,
 *                   bit 2 of the size word before the chunk). The main
 *                   thread must have set glibc's malloc up and hold the main
 *                   arena, as in any program: "thread".
 *   threads burst N N processes (forks), each releasing 8 threads at once
 *                   whose first call is the measured malloc; prints how many
 *                   died (glibc 2.34-2.41 abort on "a->attached_threads > 0"
 *                   when two of them both set malloc up).
 *
 * glibc only: the chunk header is glibc's.
 */
#include "platform/heap.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define BURST_THREADS 8
#define NON_MAIN_ARENA ((size_t)4)

static pthread_barrier_t barrier;

static void *first_call(void *arg)
{
	const struct heap_functions *h = arg;
	void *p = h->malloc(64);
	size_t size_word = p ? ((size_t *)p)[-1] : 0;

	h->free(p);
	return (void *)(size_word & NON_MAIN_ARENA ? "thread" : "main");
}

static void *burst_thread(void *arg)
{
	const struct heap_functions *h = arg;

	pthread_barrier_wait(&barrier);
	h->free(h->malloc(64));
	return NULL;
}

static void burst_child(void)
{
	const struct heap_functions *h = heap_measured();
	pthread_t tids[BURST_THREADS];

	if (!h)
		_exit(1);
	pthread_barrier_init(&barrier, NULL, BURST_THREADS);
	for (int t = 0; t < BURST_THREADS; t++)
		if (pthread_create(&tids[t], NULL, burst_thread, (void *)h))
			_exit(1);
	for (int t = 0; t < BURST_THREADS; t++)
		pthread_join(tids[t], NULL);
	_exit(0);
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "arena")) {
		const struct heap_functions *h = heap_measured();
		pthread_t tid;
		void *where;

		if (!h || pthread_create(&tid, NULL, first_call, (void *)h) ||
		    pthread_join(tid, &where))
			return 1;
		printf("%s\n", (const char *)where);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "burst")) {
		int n = atoi(argv[2]), died = 0;

		for (int i = 0; i < n; i++) {
			pid_t pid = fork();
			int status;

			if (pid < 0)
				return 1;
			if (!pid)
				burst_child();
			if (waitpid(pid, &status, 0) != pid)
				return 1;
			died += !WIFEXITED(status) || WEXITSTATUS(status);
		}
		printf("%d\n", died);
		return 0;
	}
	fprintf(stderr, "usage: threads arena | threads burst N\n");
	return 2;
}
