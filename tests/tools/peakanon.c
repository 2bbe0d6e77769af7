/*
 * peakanon - a program's peak anonymous memory, as the real program pays it.
 *
 *   peakanon [-p PRELOAD] COMMAND [ARGS...]
 *
 * Runs COMMAND (its standard output to /dev/null; LD_PRELOAD=PRELOAD when
 * given and not empty), polls every process of its tree (the children the
 * kernel lists in /proc/PID/task/PID/children) about every 0.5 ms, and
 * prints one line per process seen: "PID PEAK_KIB NAME", PEAK_KIB the
 * highest RssAnon read. Exits with COMMAND's status (127: not run).
 * The fidelity test (t1409) measures real programs with it, beside their
 * replays.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_PROCS 256
#define MAX_DEPTH 16

static struct proc {
	int pid;
	long peak_kib;
	char name[64];
} procs[MAX_PROCS];
static int nprocs;

static struct proc *proc_of(int pid)
{
	for (int i = 0; i < nprocs; i++)
		if (procs[i].pid == pid)
			return &procs[i];
	if (nprocs == MAX_PROCS)
		return NULL;
	procs[nprocs].pid = pid;
	return &procs[nprocs++];
}

/* Reads PATH into BUF (SIZE bytes, NUL-terminated); its length, or -1. */
static ssize_t read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n;
}

static void poll_tree(int pid, int depth)
{
	char path[64], buf[4096], *at;
	struct proc *p;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	if (read_small(path, buf, sizeof(buf)) <= 0 || !(p = proc_of(pid)))
		return;
	if ((at = strstr(buf, "\nRssAnon:")) && atol(at + 9) > p->peak_kib)
		p->peak_kib = atol(at + 9);
	if (!strncmp(buf, "Name:", 5))
		sscanf(buf + 5, "%63s", p->name);
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", pid, pid);
	if (depth >= MAX_DEPTH || read_small(path, buf, sizeof(buf)) <= 0)
		return;
	for (char *s = buf, *end; *s; s = end) {
		long child = strtol(s, &end, 10);

		if (end == s)
			break;
		if (child > 0)
			poll_tree((int)child, depth + 1);
	}
}

int main(int argc, char **argv)
{
	const struct timespec pause = { 0, 500000 };
	const char *preload = NULL;
	int first = 1, status = 0, pid;

	if (argc > 2 && !strcmp(argv[1], "-p")) {
		preload = argv[2];
		first = 3;
	}
	if (first >= argc) {
		fprintf(stderr, "usage: peakanon [-p PRELOAD] COMMAND [ARGS...]\n");
		return 2;
	}
	pid = fork();
	if (pid < 0) {
		perror("peakanon: fork");
		return 2;
	}
	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		if (preload && *preload)
			setenv("LD_PRELOAD", preload, 1);
		if (null >= 0)
			dup2(null, 1);
		execvp(argv[first], argv + first);
		_exit(127);
	}
	for (;;) {
		poll_tree(pid, 0);
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
		nanosleep(&pause, NULL);
	}
	for (int i = 0; i < nprocs; i++)
		printf("%d %ld %s\n", procs[i].pid, procs[i].peak_kib, procs[i].name);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
