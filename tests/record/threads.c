/*
 * threads.c - a deterministic multi-threaded program for the record tests:
 * THREADS producers allocate chunks of mixed sizes (malloc, calloc,
 * realloc, posix_memalign, aligned_alloc, memalign, valloc) and hand every
 * other one to a consumer thread, which frees it (a cross-thread free);
 * the rest they free themselves. A thread is started before and one after
 * the others have run. Modes (argv[1]): "run" (the default) exits 0;
 * "fork" also forks a child that allocates 100 chunks and exits; "abort"
 * aborts after the work; "segv" crashes; "_exit" ends with _exit(3);
 * "closefds" closes every descriptor, then allocates 200000 chunks;
 * "signal" allocates in a SIGALRM handler while the main thread calls free;
 * "exec" execs /bin/true at the end; "execfail" tries to exec a file that
 * does not exist, then allocates 1000 chunks more; "linger FILE" writes
 * its pid to FILE at the end, then waits 30 s (a process its command
 * leaves running).
 */
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#define THREADS 3
#define PER_THREAD 20000
#define QUEUE 1024

static void *queue[QUEUE];
static unsigned head, tail;
static int done_producers;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;

static void *consumer(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	for (;;) {
		while (head == tail && done_producers < THREADS)
			pthread_cond_wait(&cond, &lock);
		if (head == tail)
			break;
		free(queue[tail++ % QUEUE]);
		pthread_cond_broadcast(&cond);
	}
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void *producer(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;

	for (int i = 0; i < PER_THREAD; i++) {
		size_t size = 8 + (seed = seed * 1103515245u + 12345u) % 2000;
		void *p;

		switch (i % 8) {
		case 0: p = calloc(1, size); break;
		case 1: p = realloc(malloc(size), size * 2); break;
		case 2: if (posix_memalign(&p, 64, size)) p = NULL; break;
		case 3: p = aligned_alloc(32, 32 * (size / 32 + 1)); break;
		case 4: p = memalign(128, size); break;
		case 5: p = i % 1000 == 5 ? valloc(size) : malloc(size); break;
		default: p = malloc(size); break;
		}
		if (!p)
			abort();
		memset(p, 1, 8);
		if (i % 2) {
			free(p);
			continue;
		}
		pthread_mutex_lock(&lock);
		while (head - tail == QUEUE)
			pthread_cond_wait(&cond, &lock);
		queue[head++ % QUEUE] = p;
		pthread_cond_broadcast(&cond);
		pthread_mutex_unlock(&lock);
	}
	pthread_mutex_lock(&lock);
	done_producers++;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	return NULL;
}

/* Where a chunk goes between its malloc and its free: the compiler may not pair them away. */
static void *volatile sink;
/* NULL, read at run time: the compiler drops a literal free(NULL). */
static void *volatile nothing;

static void *late(void *arg)
{
	for (int i = 0; i < 1000; i++) {
		sink = malloc(100 + (size_t)i);
		free(sink);
	}
	return arg;
}

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	(void)sig;
	void *p = malloc(48);  /* not async-signal-safe, as real programs do anyway */

	sink = p;
	free(p);
	alarms++;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "run";
	pthread_t cons, prod[THREADS], after;

	if (!strcmp(mode, "signal")) {
		/*
		 * free(NULL) never enters the C library's heap, so the handler's
		 * malloc interrupts only the recorder (the case it must survive),
		 * never the heap itself, which is not reentrant.
		 */
		struct itimerval it = { { 0, 100 }, { 0, 100 } };

		signal(SIGALRM, on_alarm);
		setitimer(ITIMER_REAL, &it, NULL);
		for (long i = 0; i < 2000000 || alarms < 50; i++)
			free(nothing);
		it = (struct itimerval){ { 0, 0 }, { 0, 0 } };
		setitimer(ITIMER_REAL, &it, NULL);
		printf("%d\n", (int)alarms);
		return 0;
	}
	if (pthread_create(&cons, NULL, consumer, NULL))
		return 1;
	for (uintptr_t t = 0; t < THREADS; t++)
		if (pthread_create(&prod[t], NULL, producer, (void *)(t + 1)))
			return 1;
	for (int t = 0; t < THREADS; t++)
		pthread_join(prod[t], NULL);
	pthread_join(cons, NULL);
	if (pthread_create(&after, NULL, late, NULL) || pthread_join(after, NULL))
		return 1;
	if (!strcmp(mode, "fork")) {
		pid_t pid = fork();
		int status;

		if (pid == 0) {
			for (int i = 0; i < 100; i++) {
				sink = malloc(64);
				free(sink);
			}
			exit(0);
		}
		waitpid(pid, &status, 0);
	} else if (!strcmp(mode, "abort")) {
		abort();
	} else if (!strcmp(mode, "segv")) {
		volatile uintptr_t bad = 8;

		*(volatile int *)bad = 1;
	} else if (!strcmp(mode, "_exit")) {
		_exit(3);
	} else if (!strcmp(mode, "closefds")) {
		void **keep = malloc(200000 * sizeof(*keep));

		for (int fd = 0; fd < 65536; fd++)
			close(fd);
		for (int i = 0; i < 200000; i++)
			keep[i] = malloc(24);
		for (int i = 0; i < 200000; i++)
			free(keep[i]);
		free(keep);
		return 0;
	} else if (!strcmp(mode, "exec")) {
		execl("/bin/true", "true", (char *)NULL);
		return 1;
	} else if (!strcmp(mode, "linger") && argc > 2) {
		FILE *f = fopen(argv[2], "w");

		if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f))
			return 1;
		sleep(30);
	} else if (!strcmp(mode, "execfail")) {
		execl("/nonexistent/program", "program", (char *)NULL);
		for (int i = 0; i < 1000; i++) {
			sink = malloc(32);
			free(sink);
		}
	}
	return 0;
}
