/*
 * child.c - the measuring process's entry (child.h): decode the request,
 * open the counters, run the backend's loop, send the sample.
 */
#include "trace/trace.h"
#include "measure/child.h"
#include "measure/backend.h"
#include "measure/request.h"
#include "measure/sample_wire.h"
#include "measure/workloads.h"
#include "platform/heap.h"
#include "platform/probe.h"
#include "platform/util.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* Writes SIZE bytes of BUF to FD, through short writes and EINTR. Returns 0 or -1. */
static int write_full(int fd, const void *buf, size_t size)
{
	size_t put = 0;

	while (put < size) {
		ssize_t n = write(fd, (const char *)buf + put, size - put);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		put += (size_t)n;
	}
	return 0;
}

/*
 * The "nomem" fault: limits this process's address space (RLIMIT_AS) to
 * what it maps now, plus the array of PARAMS->count chunk pointers and 64 KiB
 * for the stack, so that the backend's allocations fail as they do in a
 * child out of memory, whatever memory the machine has. Returns 0, or -1
 * when the limit cannot be set.
 */
static int test_fault_nomem(const struct measure_params *params)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned long long vm_pages;
	struct rlimit limit;
	FILE *f = fopen("/proc/self/statm", "r");
	int n;

	if (!f)
		return -1;
	n = fscanf(f, "%llu", &vm_pages);
	fclose(f);
	if (n != 1 || page <= 0)
		return -1;
	limit.rlim_cur = limit.rlim_max = (rlim_t)vm_pages * (rlim_t)page +
		(rlim_t)params->count * sizeof(void *) + (rlim_t)page + 65536;
	return setrlimit(RLIMIT_AS, &limit);
}

/*
 * The tests' fault hook (child.h): fails as CHILD_TEST_FAULT_ENV says when
 * it names this BACKEND or no backend. Compiled into every build, so that the
 * tests exercise the binary users run; it costs one getenv per child.
 */
static void test_fault(const char *backend, const struct measure_params *params)
{
	const char *fault = getenv(CHILD_TEST_FAULT_ENV), *colon;
	size_t len;

	if (!fault || !*fault)
		return;
	colon = strchr(fault, ':');
	if (colon && strcmp(colon + 1, backend))
		return;
	len = colon ? (size_t)(colon - fault) : strlen(fault);
	if (len == 5 && !strncmp(fault, "crash", len)) {
		signal(SIGSEGV, SIG_DFL);
		raise(SIGSEGV);
		_exit(1);  /* a sanitizer's handler may keep the signal */
	} else if (len == 5 && !strncmp(fault, "abort", len)) {
		abort();
	} else if (len == 4 && !strncmp(fault, "kill", len)) {
		raise(SIGKILL);
	} else if (len == 4 && !strncmp(fault, "hang", len)) {
		for (;;)
			pause();
	} else if (len == 5 && !strncmp(fault, "nomem", len)) {
		if (!test_fault_nomem(params))
			return;
		fprintf(stderr, "allocbench: error: %s '%s': cannot limit the address space: %s\n",
			CHILD_TEST_FAULT_ENV, fault, strerror(errno));
		_exit(2);
	}
	fprintf(stderr, "allocbench: error: invalid %s '%s' (expected crash, abort, kill, hang "
		"or nomem, optionally followed by :BACKEND)\n", CHILD_TEST_FAULT_ENV, fault);
	_exit(2);
}

/*
 * The tests' switch of the fill's intermediate RSS readings (measure.h):
 * MEASURE_READINGS_ENV "off" reads only before and after the loop, as the
 * tool did before it fitted a line, so that `make bench` can set the timing
 * of both side by side. An environment variable rather than a request field:
 * it is no part of what a user asks for, and the reports do not record it.
 */
static void test_readings(struct measure_params *params)
{
	const char *readings = getenv(MEASURE_READINGS_ENV);

	params->segments = MEASURE_SEGMENTS;
	if (!readings || !*readings)
		return;
	if (!strcmp(readings, "off")) {
		params->segments = 1;
		return;
	}
	fprintf(stderr, "allocbench: error: invalid %s '%s' (expected off)\n",
		MEASURE_READINGS_ENV, readings);
	_exit(2);
}

/*
 * The tests' pre-loop hook: CHILD_TEST_PRELOOP_ENV "malloc" mallocs 1 MiB
 * from the measured allocator, touches it and frees it before anything is
 * measured, as a library's set-up would. The marginal cost must not change;
 * the average may (the allocator's one-time cost is then paid before the
 * first reading). An environment variable, like the fault hook, rather than
 * a request field: only the tests set it, and every child of a run inherits
 * it, the floor's included (which does not use malloc).
 */
static void test_preloop(void)
{
	const char *hook = getenv(CHILD_TEST_PRELOOP_ENV);
	const struct heap_functions *heap = heap_measured();
	void *p;

	if (!hook || !*hook)
		return;
	if (strcmp(hook, "malloc")) {
		fprintf(stderr, "allocbench: error: invalid %s '%s' (expected malloc)\n",
			CHILD_TEST_PRELOOP_ENV, hook);
		_exit(2);
	}
	p = heap->malloc(1 << 20);
	if (p) {
		memset(p, 1, 1 << 20);
		__asm__ volatile("" : : "r"(p) : "memory");
	}
	heap->free(p);
}

/*
 * Makes the stack below the caller resident, CHILD_STACK_PREFAULT_BYTES of
 * it, before the first reading. A page of the stack first touched inside
 * the measured window is the measuring process's own, yet the reading after
 * counts it: the smaps buffer of the first reading (probe.c) is faulted in
 * only as the kernel copies a text it already generated, and how deep the
 * window's readings, clock and counters reach past what ran before depends
 * on where the stack starts, which changes from one exec to the next.
 */
#define CHILD_STACK_PREFAULT_BYTES (128 * 1024)
static __attribute__((noinline)) void stack_prefault(void)
{
	volatile unsigned char pad[CHILD_STACK_PREFAULT_BYTES];

	probe_populate((void *)pad, sizeof(pad));
	for (size_t i = 0; i < sizeof(pad); i += 512)
		pad[i] = 0;
}

/*
 * Makes the program's own writable data (.data and .bss, from the linker's
 * __data_start to _end) resident before the first reading, for the stack's
 * reason: a static first written inside the measured window (a reading's,
 * the clock's) would add its page to the figure, and which statics share a
 * page moves whenever one of them grows (struct sample's wire buffer did).
 * Each page is written through a volatile pointer, a byte with itself.
 */
extern char __data_start[], _end[];
/* Not instrumented: AddressSanitizer's redzones between globals are in that range too. */
static __attribute__((no_sanitize("address"))) void statics_prefault(void)
{
	uintptr_t page = (uintptr_t)probe_page_size();

	probe_populate(__data_start, (size_t)(_end - __data_start));
	for (uintptr_t a = (uintptr_t)__data_start & ~(page - 1); a < (uintptr_t)_end; a += page) {
		volatile char *p = (volatile char *)(a < (uintptr_t)__data_start ?
						     (uintptr_t)__data_start : a);

		*p = *p;
	}
}

/*
 * Maps the plan the parent made of REQ's trace (CHILD_PLAN_FD) into
 * *REPLAY. Returns 0, or -1 with SAMPLE failed (WHY, WHY_SIZE bytes, is
 * room for the message).
 */
static int replay_prepare(const struct child_request *req, struct replay_plan *replay,
			  struct sample *sample, char *why, size_t why_size)
{
	if (replay_plan_map(CHILD_PLAN_FD, replay, why, why_size))
		return sample_fail(sample, "trace '%s': %s", req->trace_path, why);
	return 0;
}

/*
 * Decodes the request that follows ARGV[0], the internal command's name,
 * into *REQ and checks that it is for this process's word size. Returns 0,
 * or -1 after saying why on standard error.
 */
static int read_request(int argc, char **argv, struct child_request *req)
{
	char why[1024];

	if (child_request_decode(argc - 1, argv + 1, req, why, sizeof(why))) {
		fprintf(stderr, "allocbench: error: '%s' is internal (%s); run 'allocbench --help'\n",
			argc ? argv[0] : "", why);
		return -1;
	}
	if (req->abi != CHILD_ABI) {
		fprintf(stderr, "allocbench: error: a request for a %u-bit measuring process reached "
			"a %d-bit one\n", req->abi, CHILD_ABI);
		return -1;
	}
	return 0;
}

int child_main(int argc, char **argv)
{
	struct child_request req;
	struct measure_params *params = &req.params;
	struct random_plan plan;
	struct replay_plan replay;
	struct sample sample;
	const struct backend *backend = NULL;
	struct counters counters;
	char why[1024];
	uint64_t hwm;
	static unsigned char wire[SAMPLE_WIRE_HEADER + sizeof(struct sample)];

	memset(&sample, 0, sizeof(sample));
	sample.entry_anon_bytes = probe_entry_anon_bytes();
	stack_prefault();
	statics_prefault();
	/*
	 * Everything this process allocates for itself goes to the private heap
	 * (heap.h); the measured allocator is found now, before any of it.
	 */
	if (!heap_measured()) {
		fprintf(stderr, "allocbench: error: cannot find the functions of malloc\n");
		return 1;
	}
	if (read_request(argc, argv, &req))
		return 2;
	/*
	 * The counters are opened before the backend exists: PAPI's set-up
	 * (about 2 ms) is done before the first RSS reading, and its heap is
	 * the private one (heap.h), so the measured allocator is left as a
	 * fresh program finds it. A counter that cannot be counted only gets
	 * its status.
	 */
	if (req.counters.n) {
		counters_open(&counters, &req.counters);
		params->counters = &counters;
	}
	test_fault(child_request_name(&req), params);
	test_readings(params);
	test_preloop();
	/* The random sequence is made before anything is measured, the same for every backend. */
	if (params->workload == WORKLOAD_RANDOM && !req.floor) {
		if (random_plan_make(params, &plan, &sample))
			goto send;
		params->plan = &plan;
	}
	/* The trace is read, and its steps made, before anything is measured, as random's plan. */
	if (params->workload == WORKLOAD_REPLAY && !req.floor) {
		if (replay_prepare(&req, &replay, &sample, why, sizeof(why)))
			goto send;
		params->replay = &replay;
	}
	if (req.floor)
		measure_floor(params, &sample);
	else if (req.preload_path)
		backend_malloc_run_preloaded(req.backend, req.preload_path, params, &sample);
	else if (!(backend = backend_find(req.backend)))
		sample_fail(&sample, "unknown backend '%s'", req.backend);
	else
		backend->run(params, &sample);
	if (params->plan)
		random_plan_release(&plan);
	if (params->replay)
		replay_plan_release(&replay);
send:
	if (req.counters.n)
		counters_close(&counters);
	/* What the memory guard's bound (run_bound_bytes()) must cover. */
	/* The random workload resets the kernel's peak for its loop and keeps the one before. */
	if (!probe_meminfo_read("/proc/self/status", "VmHWM", &hwm) &&
	    hwm > sample.peak_memory_bytes)
		sample.peak_memory_bytes = hwm;
	/* In bytes independent of this process's word size (sample_wire.h). */
	if (write_full(CHILD_RESULT_FD, wire, sample_wire_encode(&sample, wire))) {
		fprintf(stderr, "allocbench: error: cannot send the result: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}
