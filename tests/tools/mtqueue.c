/*
 * mtqueue - a multi-threaded program that frees in other threads: the
 * fidelity test's (t1409) third real program.
 *
 *   mtqueue
 *
 * Three producer threads each fill a table of 60,000 objects (16 to 415
 * bytes, written whole), replace one in five of them as they go, and hand
 * a message (32 to 2031 bytes) every third object to a consumer thread,
 * which frees it. The main thread frees the tables at the end. The queue
 * holds 64 messages, so the bytes alive at any moment hardly depend on how
 * the threads were scheduled (a deep queue would make the program's own
 * peak vary from run to run by as much as the queue holds).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PRODUCERS 3
#define KEEP 60000
#define QUEUE 64

static void *queue[QUEUE];
static unsigned head, tail;
static int done;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t filled = PTHREAD_COND_INITIALIZER, emptied = PTHREAD_COND_INITIALIZER;
static void **tables[PRODUCERS];

static unsigned next_random(unsigned *state)
{
	*state = *state * 1103515245u + 12345u;
	return *state >> 8;
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n);

	if (!p) {
		fprintf(stderr, "mtqueue: out of memory\n");
		exit(1);
	}
	return p;
}

static void *producer(void *arg)
{
	unsigned id = (unsigned)(uintptr_t)arg, state = id * 7919u + 1u;
	void **table = xmalloc(KEEP * sizeof(*table));

	for (unsigned i = 0; i < KEEP; i++) {
		size_t n = 16 + next_random(&state) % 400;

		table[i] = xmalloc(n);
		memset(table[i], 1, n);
		if (i % 3 == 0) {
			size_t m = 32 + next_random(&state) % 2000;
			char *message = xmalloc(m);

			memset(message, 2, m);
			pthread_mutex_lock(&lock);
			while (tail - head == QUEUE)
				pthread_cond_wait(&emptied, &lock);
			queue[tail++ % QUEUE] = message;
			pthread_cond_signal(&filled);
			pthread_mutex_unlock(&lock);
		}
		if (i % 5 == 4) {
			unsigned j = next_random(&state) % i;

			free(table[j]);
			table[j] = xmalloc(16 + next_random(&state) % 300);
		}
	}
	tables[id] = table;
	return NULL;
}

static void *consumer(void *arg)
{
	(void)arg;
	for (;;) {
		void *message;

		pthread_mutex_lock(&lock);
		while (tail == head && !done)
			pthread_cond_wait(&filled, &lock);
		if (tail == head) {
			pthread_mutex_unlock(&lock);
			return NULL;
		}
		message = queue[head++ % QUEUE];
		pthread_cond_signal(&emptied);
		pthread_mutex_unlock(&lock);
		free(message);
	}
}

int main(void)
{
	pthread_t producers[PRODUCERS], eater;

	if (pthread_create(&eater, NULL, consumer, NULL))
		return 1;
	for (unsigned i = 0; i < PRODUCERS; i++)
		if (pthread_create(&producers[i], NULL, producer, (void *)(uintptr_t)i))
			return 1;
	for (unsigned i = 0; i < PRODUCERS; i++)
		pthread_join(producers[i], NULL);
	pthread_mutex_lock(&lock);
	done = 1;
	pthread_cond_broadcast(&filled);
	pthread_mutex_unlock(&lock);
	pthread_join(eater, NULL);
	for (unsigned i = 0; i < PRODUCERS; i++) {
		for (unsigned j = 0; j < KEEP; j++)
			free(tables[i][j]);
		free(tables[i]);
	}
	return 0;
}
