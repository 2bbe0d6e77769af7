#include "runner.h"
#include "allocator.h"
#include "backend.h"
#include "workloads.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The child writes its sample to this descriptor. */
#define RESULT_FD 3

/*
 * What the signal handler shares with the parent: the signal received, and
 * the child to kill. A pid is an int on Linux, as sig_atomic_t is.
 */
_Static_assert(sizeof(pid_t) <= sizeof(sig_atomic_t), "a pid must fit a sig_atomic_t");
static volatile sig_atomic_t interrupted_by;
static volatile sig_atomic_t running_child;

static void on_interrupt(int sig)
{
	int saved = errno;

	interrupted_by = sig;
	if (running_child > 0)
		kill((pid_t)running_child, SIGKILL);
	errno = saved;
}

int runner_signals_install(void)
{
	static const int sigs[] = { SIGINT, SIGTERM };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_interrupt;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	sa.sa_flags = 0;  /* no SA_RESTART: the wait for the child returns EINTR */
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sigaction(sigs[i], &sa, NULL))
			return error("cannot install a handler of SIG%s: %s",
				     sigabbrev_np(sigs[i]), strerror(errno));
	return 0;
}

int runner_interrupted(void)
{
	return interrupted_by;
}

static int64_t monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Reads the child's sample from FD until the child closes it (it exits),
 * at most SIZE bytes into BUF, until DEADLINE_MS (monotonic_ms(); 0: none)
 * or an interrupt. Stores the bytes read in *GOT. Returns 0 at the end of
 * the stream, 1 on the deadline, 2 on an interrupt, -1 on an error (errno).
 */
static int read_result(int fd, void *buf, size_t size, int64_t deadline_ms, size_t *got)
{
	char extra[64];

	*got = 0;
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int64_t left = deadline_ms ? deadline_ms - monotonic_ms() : -1;
		ssize_t n;
		int r;

		if (interrupted_by)
			return 2;
		if (deadline_ms && left <= 0)
			return 1;
		r = poll(&pfd, 1, left < 0 ? -1 : left > INT_MAX ? INT_MAX : (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (!r)
			continue;
		/* Bytes past the sample are read and dropped: the wait is for the end. */
		if (*got < size)
			n = read(fd, (char *)buf + *got, size - *got);
		else
			n = read(fd, extra, sizeof(extra));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (!n)
			return 0;
		if (*got < size)
			*got += (size_t)n;
	}
}

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

static void describe_status(int status, struct sample *sample)
{
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		const char *abbrev = sigabbrev_np(sig);

		/* Nothing here sends SIGKILL unasked: the kernel's OOM killer does. */
		sample_fail(sample, "measuring process killed by signal SIG%s (%s)%s",
			    abbrev ? abbrev : "?", strsignal(sig),
			    sig == SIGKILL ? ": out of memory? (the OOM killer or a "
			    "cgroup memory limit)" : "");
	} else if (WIFEXITED(status)) {
		sample_fail(sample, "measuring process exited with status %d without a result",
			    WEXITSTATUS(status));
	} else {
		sample_fail(sample, "measuring process ended abnormally (wait status %d)", status);
	}
}

/*
 * A copy of ENVIRON with LD_PRELOAD set to exactly PATH: a NULL-terminated
 * array whose last string is owned (free it and the array with
 * free_environment()). NULL when out of memory.
 */
static char **preload_environment(const char *path)
{
	size_t n = 0, kept = 0;
	char **env, *preload;

	while (environ[n])
		n++;
	env = calloc(n + 2, sizeof(*env));
	preload = malloc(strlen("LD_PRELOAD=") + strlen(path) + 1);
	if (!env || !preload) {
		free(env);
		free(preload);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "LD_PRELOAD=", strlen("LD_PRELOAD=")))
			env[kept++] = environ[i];
	strcpy(preload, "LD_PRELOAD=");
	strcat(preload, path);
	env[kept++] = preload;
	env[kept] = NULL;
	return env;
}

static void free_environment(char **env)
{
	size_t n = 0;

	if (!env)
		return;
	while (env[n])
		n++;
	free(env[n - 1]);
	free(env);
}

int runner_measure(const char *backend_name, const struct measure_params *params,
		   unsigned timeout_s, struct sample *sample)
{
	return runner_measure_preloaded(backend_name, NULL, params, timeout_s, sample);
}

int runner_measure_preloaded(const char *backend_name, const char *preload_path,
			     const struct measure_params *params, unsigned timeout_s,
			     struct sample *sample)
{
	static const struct counter_list no_counters;
	char size[32], count[32], align[32], block[32], rounds[32], seed[32], threads[32];
	char counters[COUNTERS_ARG_MAX], mix[MEASURE_MAX_MIX * 12 + 2];
	char *argv[16], **env = NULL;
	int fds[2], status, end, read_errno;
	struct sample got;
	int64_t deadline_ms;
	size_t n;
	pid_t pid;

	memset(sample, 0, sizeof(*sample));
	if (interrupted_by)
		return sample_fail(sample, "interrupted by SIG%s", sigabbrev_np(interrupted_by));
	snprintf(size, sizeof(size), "%zu", params->size);
	snprintf(count, sizeof(count), "%zu", params->count);
	snprintf(align, sizeof(align), "%zu", params->align);
	snprintf(block, sizeof(block), "%zu", params->pool_block_bytes);
	if (counters_list_format(params->counter_list ? params->counter_list : &no_counters,
				 counters, sizeof(counters)))
		return sample_fail(sample, "the --counters list is too long to pass on");
	argv[0] = (char *)"allocbench";
	argv[1] = (char *)RUNNER_CHILD_COMMAND;
	argv[2] = (char *)backend_name;
	argv[3] = size;
	argv[4] = count;
	argv[5] = align;
	argv[6] = (char *)touch_name(params->touch);
	argv[7] = block;
	snprintf(rounds, sizeof(rounds), "%u", params->rounds);
	snprintf(seed, sizeof(seed), "%llu", (unsigned long long)params->seed);
	snprintf(threads, sizeof(threads), "%u", params->threads);
	mix[0] = '\0';
	for (size_t i = 0, used = 0; i < params->nmix && used < sizeof(mix); i++)
		used += (size_t)snprintf(mix + used, sizeof(mix) - used, "%s%zu", i ? "," : "",
					 params->mix[i]);
	argv[8] = (char *)workload_name(params->workload);
	argv[9] = rounds;
	argv[10] = seed;
	argv[11] = threads;
	argv[12] = params->nmix ? mix : (char *)"-";
	argv[13] = counters;
	argv[14] = (char *)preload_path;  /* the child's check; NULL ends argv otherwise */
	argv[15] = NULL;

	if (preload_path && !(env = preload_environment(preload_path)))
		return sample_fail(sample, "out of memory");
	if (pipe2(fds, O_CLOEXEC)) {
		free_environment(env);
		return sample_fail(sample, "cannot create a pipe: %s", strerror(errno));
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		free_environment(env);
		return sample_fail(sample, "cannot fork: %s", strerror(errno));
	}
	if (!pid) {
		/* dup2 clears close-on-exec on the copy; if the pipe is already fd 3, clear it by hand. */
		if (fds[1] == RESULT_FD)
			fcntl(RESULT_FD, F_SETFD, 0);
		else if (dup2(fds[1], RESULT_FD) < 0)
			_exit(127);
		if (env)
			execve("/proc/self/exe", argv, env);
		else
			execv("/proc/self/exe", argv);
		fprintf(stderr, "allocbench: error: cannot execute /proc/self/exe: %s\n",
			strerror(errno));
		_exit(127);
	}
	/* The handler kills what it finds here; a signal before this line is seen below. */
	running_child = pid;
	close(fds[1]);
	free_environment(env);
	deadline_ms = timeout_s ? monotonic_ms() + (int64_t)timeout_s * 1000 : 0;
	end = read_result(fds[0], &got, sizeof(got), deadline_ms, &n);
	read_errno = errno;
	if (end)
		kill(pid, SIGKILL);
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			running_child = 0;
			return sample_fail(sample, "cannot wait for the measuring process: %s",
					   strerror(errno));
		}
	}
	running_child = 0;
	if (end == 2)
		return sample_fail(sample, "interrupted by SIG%s", sigabbrev_np(interrupted_by));
	if (end == 1)
		return sample_fail(sample, "timed out after %u s (the measuring process was "
				   "killed; see --timeout)", timeout_s);
	if (end < 0)
		return sample_fail(sample, "cannot read the measuring process's result: %s",
				   strerror(read_errno));
	if (n != sizeof(got)) {
		describe_status(status, sample);
		return -1;
	}
	*sample = got;
	sample->error[sizeof(sample->error) - 1] = '\0';
	if (!sample->ok && !sample->error[0])
		sample_fail(sample, "measurement failed without a reason");
	return sample->ok ? 0 : -1;
}

/* Strict unsigned parse for the child's arguments, which the parent wrote. */
static int parse_child_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-')
		return -1;
	*out = (uint64_t)v;
	return 0;
}

static int parse_child_number(const char *s, size_t *out)
{
	uint64_t v;

	if (parse_child_u64(s, &v))
		return -1;
	*out = (size_t)v;
	return 0;
}

static int parse_child_unsigned(const char *s, unsigned *out)
{
	uint64_t v;

	if (parse_child_u64(s, &v) || v > UINT32_MAX)
		return -1;
	*out = (unsigned)v;
	return 0;
}

/* Parses the "-" or comma-separated size mix into PARAMS. */
static int parse_child_mix(const char *s, struct measure_params *params)
{
	char buf[MEASURE_MAX_MIX * 12 + 2], *item, *next;

	params->nmix = 0;
	if (!strcmp(s, "-"))
		return 0;
	copy_string(buf, sizeof(buf), s);
	for (item = buf; item; item = next) {
		next = strchr(item, ',');
		if (next)
			*next++ = '\0';
		if (params->nmix == MEASURE_MAX_MIX ||
		    parse_child_number(item, &params->mix[params->nmix]) ||
		    !params->mix[params->nmix])
			return -1;
		params->nmix++;
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
 * The tests' fault hook (runner.h): fails as RUNNER_TEST_FAULT_ENV says when
 * it names this BACKEND or no backend. Compiled into every build, so that the
 * tests exercise the binary users run; it costs one getenv per child.
 */
static void test_fault(const char *backend, const struct measure_params *params)
{
	const char *fault = getenv(RUNNER_TEST_FAULT_ENV), *colon;
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
			RUNNER_TEST_FAULT_ENV, fault, strerror(errno));
		_exit(2);
	}
	fprintf(stderr, "allocbench: error: invalid %s '%s' (expected crash, abort, kill, hang "
		"or nomem, optionally followed by :BACKEND)\n", RUNNER_TEST_FAULT_ENV, fault);
	_exit(2);
}

int runner_child_main(int argc, char **argv)
{
	struct measure_params params = { 0 };
	struct random_plan plan;
	struct sample sample;
	const struct backend *backend = NULL;
	struct counter_list list;
	struct counters counters;
	char bad[COUNTERS_NAME_MAX];
	const char *why;
	int is_floor;

	memset(&sample, 0, sizeof(sample));
	/*
	 * ARGV[0] is RUNNER_CHILD_COMMAND; the rest is what runner_measure()
	 * wrote, and for a preloaded backend the library's path.
	 */
	if ((argc != 13 && argc != 14) || parse_child_number(argv[2], &params.size) ||
	    parse_child_number(argv[3], &params.count) ||
	    parse_child_number(argv[4], &params.align) ||
	    touch_parse(argv[5], &params.touch) ||
	    parse_child_number(argv[6], &params.pool_block_bytes) ||
	    workload_parse(argv[7], &params.workload) ||
	    parse_child_unsigned(argv[8], &params.rounds) ||
	    parse_child_u64(argv[9], &params.seed) ||
	    parse_child_unsigned(argv[10], &params.threads) ||
	    parse_child_mix(argv[11], &params) ||
	    counters_parse_list(argv[12], &list, bad, sizeof(bad), &why) ||
	    !params.size || !params.count ||
	    (!params.align && params.workload != WORKLOAD_RANDOM)) {
		fprintf(stderr, "allocbench: error: '%s' is internal; run 'allocbench --help'\n",
			RUNNER_CHILD_COMMAND);
		return 2;
	}
	/*
	 * The counters are opened before the backend exists: PAPI's set-up
	 * (about 2 ms, some heap) is done before the first RSS reading. A
	 * counter that cannot be counted only gets its status.
	 */
	if (list.n) {
		counters_open(&counters, &list);
		params.counters = &counters;
		/* What PAPI's set-up freed must not serve the first chunks unseen. */
		allocator_release_free();
	}
	test_fault(argv[1], &params);
	is_floor = !strcmp(argv[1], RUNNER_FLOOR);
	/* The random sequence is made before anything is measured, the same for every backend. */
	if (params.workload == WORKLOAD_RANDOM && !is_floor) {
		if (random_plan_make(&params, &plan, &sample))
			goto send;
		params.plan = &plan;
	}
	if (argc == 14)
		allocator_run_preloaded(argv[1], argv[13], &params, &sample);
	else if (is_floor)
		measure_floor(&params, &sample);
	else if (!(backend = backend_find(argv[1])))
		sample_fail(&sample, "unknown backend '%s'", argv[1]);
	else
		backend->run(&params, &sample);
	if (params.plan)
		random_plan_release(&plan);
send:
	if (list.n)
		counters_close(&counters);
	if (write_full(RESULT_FD, &sample, sizeof(sample))) {
		fprintf(stderr, "allocbench: error: cannot send the result: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}
