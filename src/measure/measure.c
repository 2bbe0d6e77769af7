#include "measure/measure.h"
#include "measure/workloads.h"
#include "platform/util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

static const char *const touch_names[] = {
	[TOUCH_NONE] = "none",
	[TOUCH_FIRST] = "first",
	[TOUCH_PAGES] = "pages",
	[TOUCH_FULL] = "full",
};

const char *touch_name(enum touch_policy touch)
{
	if ((unsigned)touch >= sizeof(touch_names) / sizeof(touch_names[0]))
		return NULL;
	return touch_names[touch];
}

int touch_parse(const char *name, enum touch_policy *touch)
{
	for (size_t i = 0; i < sizeof(touch_names) / sizeof(touch_names[0]); i++) {
		if (!strcmp(name, touch_names[i])) {
			*touch = (enum touch_policy)i;
			return 0;
		}
	}
	return -1;
}

static const char *const workload_names[] = {
	[WORKLOAD_FILL] = "fill",
	[WORKLOAD_CHURN] = "churn",
	[WORKLOAD_RANDOM] = "random",
	[WORKLOAD_THREADS] = "threads",
	[WORKLOAD_REPLAY] = "replay",
};

const char *workload_name(enum workload workload)
{
	if ((unsigned)workload >= WORKLOAD_COUNT)
		return NULL;
	return workload_names[workload];
}

int workload_parse(const char *name, enum workload *workload)
{
	for (size_t i = 0; i < WORKLOAD_COUNT; i++) {
		if (!strcmp(name, workload_names[i])) {
			*workload = (enum workload)i;
			return 0;
		}
	}
	return -1;
}

unsigned workload_default_rounds(enum workload workload, size_t count)
{
	/* Operations per round: churn creates and destroys count objects, threads swaps half. */
	size_t per_round = workload == WORKLOAD_THREADS ? count / 2 : count;
	size_t rounds;

	if (!per_round)
		per_round = 1;
	rounds = ((size_t)1 << 24) / per_round;
	if (rounds < 2)
		rounds = 2;
	if (rounds > 1000)
		rounds = 1000;
	return (unsigned)rounds;
}

int sample_fail(struct sample *sample, const char *fmt, ...)
{
	va_list ap;

	sample->ok = 0;
	va_start(ap, fmt);
	vsnprintf(sample->error, sizeof(sample->error), fmt, ap);
	va_end(ap);
	return -1;
}

int loop_peak_start(struct loop_peak *lp, struct sample *sample)
{
	lp->total_before = 0;
	lp->fd = probe_rss_open();
	if (lp->fd < 0 || probe_rss_read(lp->fd, &sample->rss_before_bytes) ||
	    probe_rss_total_read(lp->fd, &lp->total_before)) {
		if (lp->fd >= 0)
			close(lp->fd);
		return sample_fail(sample, "cannot read the resident set size from /proc/self/smaps_rollup");
	}
	if (probe_meminfo_read("/proc/self/status", "VmHWM", &sample->peak_memory_bytes))
		sample->peak_memory_bytes = 0;
	if (probe_meminfo_read("/proc/self/status", "RssFile", &lp->file_before))
		lp->file_before = 0;
	lp->reset = probe_peak_reset();
	return 0;
}

uint64_t loop_peak_stop(struct loop_peak *lp, struct sample *sample)
{
	uint64_t peak, file_after;
	struct rusage ru;

	probe_rss_read(lp->fd, &sample->rss_after_bytes);
	close(lp->fd);
	if (lp->reset || probe_meminfo_read("/proc/self/status", "VmHWM", &peak)) {
		/* An older kernel: ru_maxrss, an upper bound (probe.h). */
		getrusage(RUSAGE_SELF, &ru);
		peak = (uint64_t)ru.ru_maxrss * 1024;
	}
	if (!probe_meminfo_read("/proc/self/status", "RssFile", &file_after) &&
	    file_after > lp->file_before && peak - lp->total_before > file_after - lp->file_before)
		peak -= file_after - lp->file_before;
	return peak > lp->total_before ? peak - lp->total_before : 0;
}

void **measure_map_pointers(size_t count, struct sample *sample)
{
	size_t bytes;
	void **ptrs;

	if (__builtin_mul_overflow(count, sizeof(void *), &bytes)) {
		sample_fail(sample, "%zu chunk pointers cannot be addressed", count);
		return NULL;
	}
	ptrs = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ptrs == MAP_FAILED) {
		sample_fail(sample, "cannot map the array of %zu chunk pointers: %s",
			    count, strerror(errno));
		return NULL;
	}
	memset(ptrs, 0, bytes);
	return ptrs;
}

void measure_unmap_pointers(void **ptrs, size_t count)
{
	munmap(ptrs, count * sizeof(void *));
}

/*
 * The floor's "allocator": the next SIZE bytes of one fresh mapping, with no
 * alignment, no bound check and no bookkeeping. It runs in the very loop the
 * backends run (pointer array, touching, clock reads), so a backend's ratio
 * to it is the cost of the allocator alone.
 */
struct floor_region {
	unsigned char *base;
	unsigned char *next;
	size_t bytes;
};

static inline void *floor_alloc(void *ctx, size_t size)
{
	struct floor_region *r = ctx;
	unsigned char *chunk = r->next;

	r->next += size;
	return chunk;
}

static inline void floor_release(void *ctx, void *chunk)
{
	(void)ctx;
	(void)chunk;
}

static void floor_reset(void *ctx)
{
	struct floor_region *r = ctx;

	r->next = r->base;
}

int measure_floor(const struct measure_params *params, struct sample *sample)
{
	struct floor_region r = { 0 };
	int ret;

	if (__builtin_mul_overflow(params->count, params->size, &r.bytes))
		return sample_fail(sample, "%zu chunks of %zu bytes cannot be addressed",
				   params->count, params->size);
	r.base = mmap(NULL, r.bytes, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (r.base == MAP_FAILED)
		return sample_fail(sample, "cannot map %zu bytes for the floor: %s",
				   r.bytes, strerror(errno));
	r.next = r.base;
	sample->reserved_bytes = r.bytes;
	ret = measure_fill(params, sample, &r, floor_alloc, floor_release, floor_reset);
	munmap(r.base, r.bytes);
	return ret;
}

/* ---------------------------------------------------------------- random */

/* splitmix64: small, fast, and the same sequence everywhere for one seed. */
static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t fnv1a(uint64_t hash, const void *data, size_t len)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < len; i++) {
		hash ^= p[i];
		hash *= 0x100000001b3ULL;
	}
	return hash;
}

int random_plan_make(const struct measure_params *params, struct random_plan *plan,
		     struct sample *sample)
{
	uint64_t state = params->seed, hash = 0xcbf29ce484222325ULL, total_weight = 0;
	size_t nlive = 0, steps;
	uint8_t *live_size;

	memset(plan, 0, sizeof(*plan));
	if (!params->nmix || params->nmix > MEASURE_MAX_MIX || !params->count ||
	    params->count > RANDOM_OP_ARG)
		return sample_fail(sample, "random: invalid size mix or count");
	plan->max_live = params->count;
	steps = 4 * plan->max_live;
	plan->ops = mmap(NULL, steps * sizeof(*plan->ops), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	live_size = mmap(NULL, plan->max_live, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (plan->ops == MAP_FAILED || live_size == MAP_FAILED) {
		if (plan->ops != MAP_FAILED)
			munmap(plan->ops, steps * sizeof(*plan->ops));
		if (live_size != MAP_FAILED)
			munmap(live_size, plan->max_live);
		plan->ops = NULL;
		return sample_fail(sample, "random: cannot map the sequence of %zu steps", steps);
	}
	hash = fnv1a(hash, &params->seed, sizeof(params->seed));
	for (size_t i = 0; i < params->nmix; i++) {
		uint64_t size = params->mix[i];

		hash = fnv1a(hash, &size, sizeof(size));
	}
	/* A weighted mix hashes its weights too; an unweighted one keeps its old checksum. */
	for (size_t i = 0; params->mix_weight[0] && i < params->nmix; i++) {
		uint64_t w = params->mix_weight[i];

		if (!w)
			return sample_fail(sample, "random: a weight of 0 in the mix");
		hash = fnv1a(hash, &w, sizeof(w));
		total_weight += w;
	}
	for (size_t k = 0; k < steps; k++) {
		uint64_t r = splitmix64(&state);
		/* Allocate with probability 1 - live/max: grows, then churns around half. */
		int do_alloc = nlive == 0 ||
			(nlive < plan->max_live &&
			 (double)(r >> 11) * 0x1.0p-53 >= (double)nlive / (double)plan->max_live);
		uint32_t op;

		if (do_alloc) {
			uint32_t which;

			if (!total_weight) {
				which = (uint32_t)(splitmix64(&state) % params->nmix);
			} else {
				/* Each size as often as its weight says: 24:70,48:30. */
				uint64_t pick = splitmix64(&state) % total_weight;

				for (which = 0; pick >= params->mix_weight[which]; which++)
					pick -= params->mix_weight[which];
			}

			op = which;
			live_size[nlive++] = (uint8_t)which;
			plan->alloc_bytes += params->mix[which];
		} else {
			uint32_t slot = (uint32_t)(splitmix64(&state) % nlive);

			op = RANDOM_OP_FREE | slot;
			live_size[slot] = live_size[--nlive];
		}
		plan->ops[k] = op;
		hash = fnv1a(hash, &op, sizeof(op));
	}
	for (size_t i = 0; i < nlive; i++)
		plan->live_bytes += params->mix[live_size[i]];
	munmap(live_size, plan->max_live);
	plan->nops = steps;
	plan->checksum = hash;
	return 0;
}

void random_plan_release(struct random_plan *plan)
{
	if (plan->ops)
		munmap(plan->ops, plan->nops * sizeof(*plan->ops));
	memset(plan, 0, sizeof(*plan));
}

/* --------------------------------------------------------------- threads */

int threads_gate_wait(struct threads_gate *gate)
{
	int go;

	pthread_mutex_lock(&gate->lock);
	while (!gate->go && !gate->abort)
		pthread_cond_wait(&gate->opened, &gate->lock);
	go = gate->go;
	pthread_mutex_unlock(&gate->lock);
	return go;
}

/* Opens GATE for everyone: GO to run, else to return. */
static void threads_gate_open(struct threads_gate *gate, int go)
{
	pthread_mutex_lock(&gate->lock);
	if (go)
		gate->go = 1;
	else
		gate->abort = 1;
	pthread_cond_broadcast(&gate->opened);
	pthread_mutex_unlock(&gate->lock);
}

/* Runs NTHREADS jobs over the shared array; returns the elapsed ns, or -1. */
static double run_threads(const struct measure_params *params, struct sample *sample,
			  unsigned char *array, unsigned nthreads, void *shared,
			  int (*attach)(void *shared, unsigned index, void **ctx),
			  void *(*entry)(void *job))
{
	static struct threads_job jobs[MEASURE_MAX_THREADS];
	static pthread_t tids[MEASURE_MAX_THREADS];
	struct threads_gate gate = {
		.lock = PTHREAD_MUTEX_INITIALIZER, .opened = PTHREAD_COND_INITIALIZER,
	};
	size_t half = params->count / 2;
	struct probe_time t0, t1;
	unsigned started;
	void *ctx;

	for (started = 0; started < nthreads; started++) {
		if (attach(shared, started, &ctx))
			break;
		jobs[started] = (struct threads_job){
			.params = params, .array = array, .gate = &gate, .ctx = ctx,
			.lo = half * started / nthreads, .hi = half * (started + 1) / nthreads,
		};
		if (pthread_create(&tids[started], NULL, entry, &jobs[started]))
			break;
	}
	if (started < nthreads) {
		threads_gate_open(&gate, 0);
		for (unsigned t = 0; t < started; t++)
			pthread_join(tids[t], NULL);
		return sample_fail(sample, "cannot start thread %u of %u", started + 1, nthreads);
	}
	t0 = probe_now();
	threads_gate_open(&gate, 1);
	for (unsigned t = 0; t < nthreads; t++)
		pthread_join(tids[t], NULL);
	t1 = probe_now();
	for (unsigned t = 0; t < nthreads; t++)
		if (jobs[t].failed)
			return sample_fail(sample, "thread %u: allocation of %zu bytes failed",
					   t + 1, params->size);
	return probe_elapsed_ns(t0, t1);
}

int measure_threads(const struct measure_params *params, struct sample *sample,
		    void *shared, int (*attach)(void *shared, unsigned index, void **ctx),
		    void *(*entry)(void *job))
{
	size_t bytes;
	double one_ns, all_ns, ops;
	unsigned char *array;

	if (__builtin_mul_overflow(params->count, params->size, &bytes))
		return sample_fail(sample, "%zu chunks of %zu bytes cannot be addressed",
				   params->count, params->size);
	if (!params->threads || params->threads > MEASURE_MAX_THREADS || params->count < 2)
		return sample_fail(sample, "threads: need 1 to %d threads and 2 elements",
				   MEASURE_MAX_THREADS);
	array = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (array == MAP_FAILED)
		return sample_fail(sample, "cannot map the shared array of %zu bytes", bytes);
	for (size_t i = 0; i < bytes; i++)
		array[i] = (unsigned char)i;
	one_ns = run_threads(params, sample, array, 1, shared, attach, entry);
	all_ns = one_ns < 0 ? -1 :
		 run_threads(params, sample, array, params->threads, shared, attach, entry);
	munmap(array, bytes);
	if (one_ns <= 0 || all_ns <= 0)
		return -1;
	ops = (double)(params->count / 2) * params->rounds;
	sample->rounds = params->rounds;
	sample->threads = params->threads;
	sample->ops = (uint64_t)ops;
	sample->ops_per_s_1thread = ops / one_ns * 1e9;
	sample->ops_per_s = ops / all_ns * 1e9;
	sample->ok = 1;
	return 0;
}
