#include "runner.h"
#include "allocator.h"
#include "backend.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The child writes its sample to this descriptor. */
#define RESULT_FD 3

/* Reads exactly SIZE bytes unless the writer closes first; returns bytes read. */
static size_t read_full(int fd, void *buf, size_t size)
{
	size_t got = 0;

	while (got < size) {
		ssize_t n = read(fd, (char *)buf + got, size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	return got;
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

		sample_fail(sample, "measuring process killed by signal SIG%s (%s)%s",
			    abbrev ? abbrev : "?", strsignal(sig),
			    sig == SIGKILL ? ": out of memory?" : "");
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
		   struct sample *sample)
{
	return runner_measure_preloaded(backend_name, NULL, params, sample);
}

int runner_measure_preloaded(const char *backend_name, const char *preload_path,
			     const struct measure_params *params, struct sample *sample)
{
	char size[32], count[32], align[32], block[32];
	char *argv[10], **env = NULL;
	int fds[2], status;
	struct sample got;
	size_t n;
	pid_t pid;

	memset(sample, 0, sizeof(*sample));
	snprintf(size, sizeof(size), "%zu", params->size);
	snprintf(count, sizeof(count), "%zu", params->count);
	snprintf(align, sizeof(align), "%zu", params->align);
	snprintf(block, sizeof(block), "%zu", params->pool_block_bytes);
	argv[0] = (char *)"allocbench";
	argv[1] = (char *)RUNNER_CHILD_COMMAND;
	argv[2] = (char *)backend_name;
	argv[3] = size;
	argv[4] = count;
	argv[5] = align;
	argv[6] = (char *)touch_name(params->touch);
	argv[7] = block;
	argv[8] = (char *)preload_path;  /* the child's check; NULL ends argv otherwise */
	argv[9] = NULL;

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
	close(fds[1]);
	free_environment(env);
	n = read_full(fds[0], &got, sizeof(got));
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return sample_fail(sample, "cannot wait for the measuring process: %s",
					   strerror(errno));
	}
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
static int parse_child_number(const char *s, size_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-')
		return -1;
	*out = (size_t)v;
	return 0;
}

int runner_child_main(int argc, char **argv)
{
	struct measure_params params = { 0 };
	struct sample sample;
	const struct backend *backend = NULL;
	int is_floor;

	memset(&sample, 0, sizeof(sample));
	/*
	 * ARGV[0] is RUNNER_CHILD_COMMAND; the rest is what runner_measure()
	 * wrote, and for a preloaded backend the library's path.
	 */
	if ((argc != 7 && argc != 8) || parse_child_number(argv[2], &params.size) ||
	    parse_child_number(argv[3], &params.count) ||
	    parse_child_number(argv[4], &params.align) ||
	    touch_parse(argv[5], &params.touch) ||
	    parse_child_number(argv[6], &params.pool_block_bytes) ||
	    !params.size || !params.count || !params.align) {
		fprintf(stderr, "allocbench: error: '%s' is internal; run 'allocbench --help'\n",
			RUNNER_CHILD_COMMAND);
		return 2;
	}
	is_floor = !strcmp(argv[1], RUNNER_FLOOR);
	if (argc == 8) {
		allocator_run_preloaded(argv[1], argv[7], &params, &sample);
	} else if (!is_floor && !(backend = backend_find(argv[1]))) {
		sample_fail(&sample, "unknown backend '%s'", argv[1]);
	} else if (is_floor) {
		measure_floor(&params, &sample);
	} else {
		backend->run(&params, &sample);
	}
	if (write_full(RESULT_FD, &sample, sizeof(sample))) {
		fprintf(stderr, "allocbench: error: cannot send the result: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}
