#include "model/runner.h"
#include "model/abi.h"
#include "platform/heap.h"
#include "platform/probe.h"
#include "measure/child.h"
#include "measure/sample_wire.h"
#include "platform/util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


/*
 * What the signal handler shares with the parent: the signal received, and
 * the child to kill. A pid is an int on Linux, as sig_atomic_t is.
 */
_Static_assert(sizeof(pid_t) <= sizeof(int), "a pid must fit an int");

/*
 * The children running now, one slot per measuring thread (--jobs): 0 for
 * a free slot, -1 for one taken before its fork, else the pid. Lock-free
 * atomics, which a signal handler may read.
 */
static atomic_int running[RUNNER_MAX_CHILDREN];
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the signal handler needs lock-free atomics");

static void on_interrupt(int sig)
{
	int saved = errno;

	if (!signal_caught)
		signal_caught = sig;
	for (size_t i = 0; i < RUNNER_MAX_CHILDREN; i++) {
		pid_t pid = atomic_load(&running[i]);

		if (pid > 0) {
			/* Its group: what it started too. Before its setpgid, the group is not there yet. */
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
		}
	}
	errno = saved;
}

/* Takes a free slot of running[]; its index, or -1 when every slot is taken. */
static int slot_take(void)
{
	for (int i = 0; i < RUNNER_MAX_CHILDREN; i++) {
		int free_slot = 0;

		if (atomic_compare_exchange_strong(&running[i], &free_slot, -1))
			return i;
	}
	return -1;
}

/*
 * The signals whose default action ends the process and that are not a
 * crash of this one (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP and
 * SIGSYS keep theirs), real-time signals apart. SIGPROF is PAPI's (its
 * timer; PAPI_shutdown() resets it), and SIGKILL cannot be caught: the
 * children's PR_SET_PDEATHSIG covers that.
 */
static const int terminating[] = {
	SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGALRM, SIGTERM, SIGUSR1, SIGUSR2,
	SIGVTALRM, SIGXCPU, SIGXFSZ, SIGIO, SIGPWR, SIGSTKFLT,
};

/* Installs on_interrupt for SIG, unless SIG is ignored on purpose. Returns 0 or -1. */
static int install_one(int sig, const struct sigaction *sa)
{
	struct sigaction old;

	if (sigaction(sig, NULL, &old))
		return error("cannot read the action of SIG%s: %s", sigabbrev_np(sig),
			     strerror(errno));
	/*
	 * An ignored signal stays ignored (nohup's SIGHUP), except SIGINT and
	 * SIGQUIT, which a shell ignores for every background command.
	 */
	if (old.sa_handler == SIG_IGN && sig != SIGINT && sig != SIGQUIT)
		return 0;
	if (sigaction(sig, sa, NULL))
		return error("cannot install a handler of SIG%s: %s", sigabbrev_np(sig),
			     strerror(errno));
	return 0;
}

int runner_signals_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_interrupt;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(terminating) / sizeof(terminating[0]); i++)
		sigaddset(&sa.sa_mask, terminating[i]);
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		sigaddset(&sa.sa_mask, sig);
	sa.sa_flags = 0;  /* no SA_RESTART: the wait for the child returns EINTR */
	for (size_t i = 0; i < sizeof(terminating) / sizeof(terminating[0]); i++)
		if (install_one(terminating[i], &sa))
			return -1;
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		if (install_one(sig, &sa))
			return -1;
	return 0;
}

int runner_track(pid_t pid)
{
	int slot = slot_take();

	if (slot >= 0)
		atomic_store(&running[slot], pid);
	return slot;
}

void runner_untrack(int slot)
{
	if (slot >= 0)
		atomic_store(&running[slot], 0);
}

int runner_interrupted(void)
{
	return signal_caught;
}

void runner_signal_exit(int sig)
{
	struct sigaction sa;
	sigset_t set;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
	/* Everything is cleaned up already: a core file would show nothing. */
	if (sig == SIGQUIT || sig == SIGXCPU || sig == SIGXFSZ) {
		struct rlimit none = { 0, 0 };

		setrlimit(RLIMIT_CORE, &none);
	}
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	_exit(128 + sig);
}

static int64_t monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- what the measuring process writes: its result, its stdout and stderr ---- */

/* Bytes of each output stream kept while reading: enough for the lines a sample keeps. */
#define TAIL_KEEP 4096

/*
 * How long a measuring process that has sent its whole result may take to
 * exit (it may still print, e.g. an allocator's statistics at exit) before
 * its process group is killed and the result taken as it is.
 */
#define EXIT_GRACE_MS 2000

/* Without a pidfd (Linux before 5.3), how often the wait looks for the child's exit. */
#define EXIT_POLL_MS 20

/* The end of one of the child's output streams. */
struct stream_tail {
	int fd;                    /* the read end; -1 once it ended */
	char buf[TAIL_KEEP];       /* the last bytes read */
	size_t len;                /* bytes in buf */
	int cut;                   /* earlier bytes were dropped */
	uint64_t bytes;            /* bytes read in all */
	unsigned long newlines;    /* '\n' read in all */
	char last;                 /* the last byte read */
};

/* A measuring process being waited for. */
struct child_wait {
	pid_t pid;
	int pidfd;                 /* readable when the child exits; -1: look with waitid */
	int exited;                /* the child has exited (not reaped yet) */
	int result_fd;             /* -1 once the result pipe ended */
	void *result;              /* where the sample goes */
	size_t result_size;
	size_t result_got;         /* bytes of it read */
	struct stream_tail out, err;
};

static void tail_append(struct stream_tail *t, const char *data, size_t n)
{
	if (!n)
		return;
	t->bytes += n;
	for (size_t i = 0; i < n; i++)
		t->newlines += data[i] == '\n';
	t->last = data[n - 1];
	if (n >= TAIL_KEEP) {
		memcpy(t->buf, data + n - TAIL_KEEP, TAIL_KEEP);
		t->len = TAIL_KEEP;
		t->cut = 1;
		return;
	}
	if (t->len + n > TAIL_KEEP) {
		size_t drop = t->len + n - TAIL_KEEP;

		memmove(t->buf, t->buf + drop, t->len - drop);
		t->len -= drop;
		t->cut = 1;
	}
	memcpy(t->buf + t->len, data, n);
	t->len += n;
}

/* Length of the valid UTF-8 sequence at P, which ends before END, or 0. */
static size_t utf8_length(const unsigned char *p, const unsigned char *end)
{
	unsigned char lo = 0x80, hi = 0xBF;
	size_t n;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xC2 && p[0] <= 0xDF) {
		n = 2;
	} else if (p[0] >= 0xE0 && p[0] <= 0xEF) {
		n = 3;
		lo = p[0] == 0xE0 ? 0xA0 : 0x80;
		hi = p[0] == 0xED ? 0x9F : 0xBF;  /* no UTF-16 surrogates */
	} else if (p[0] >= 0xF0 && p[0] <= 0xF4) {
		n = 4;
		lo = p[0] == 0xF0 ? 0x90 : 0x80;
		hi = p[0] == 0xF4 ? 0x8F : 0xBF;
	} else {
		return 0;
	}
	if ((size_t)(end - p) < n || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xBF)
			return 0;
	return n;
}

/*
 * Appends the line [P, END) to OUT (at *USED of SAMPLE_OUTPUT_BYTES), cut to
 * SAMPLE_OUTPUT_LINE_BYTES with "...", a tab as a space, other control
 * characters and invalid UTF-8 as '?'.
 */
static void put_line(char *out, size_t *used, const unsigned char *p, const unsigned char *end)
{
	size_t start = *used;

	while (p < end) {
		size_t n = utf8_length(p, end);

		if (*used - start + (n ? n : 1) > SAMPLE_OUTPUT_LINE_BYTES) {
			memcpy(out + *used, "...", 3);
			*used += 3;
			break;
		}
		if (!n || *p == 0x7f || (*p < 0x20 && *p != '\t')) {
			out[(*used)++] = '?';
			n = n ? n : 1;
		} else if (*p == '\t') {
			out[(*used)++] = ' ';
		} else {
			memcpy(out + *used, p, n);
			*used += n;
		}
		p += n;
	}
	out[*used] = '\0';
}

/*
 * Stores in OUT (SAMPLE_OUTPUT_BYTES) the last SAMPLE_OUTPUT_LINES lines of
 * T that are not blank, oldest first, separated by newlines, and in *LINES
 * the lines T had in all. A carriage return ends a line too (progress bars).
 */
static void tail_lines(const struct stream_tail *t, char *out, unsigned long *lines)
{
	const unsigned char *begin = (const unsigned char *)t->buf, *end = begin + t->len;
	const unsigned char *from[SAMPLE_OUTPUT_LINES], *to[SAMPLE_OUTPUT_LINES];
	size_t n = 0, used = 0;

	*lines = t->newlines + (t->bytes && t->last != '\n');
	out[0] = '\0';
	/* A first line the buffer cut is not shown, unless it is all there is. */
	if (t->cut) {
		const unsigned char *nl = memchr(begin, '\n', t->len);

		if (nl && nl + 1 < end)
			begin = nl + 1;
	}
	while (end > begin && n < SAMPLE_OUTPUT_LINES) {
		const unsigned char *stop = end, *p = end, *q;

		while (p > begin && p[-1] != '\n' && p[-1] != '\r')
			p--;
		for (q = p; q < stop && (*q == ' ' || *q == '\t'); q++)
			;
		if (q < stop) {
			from[n] = p;
			to[n] = stop;
			n++;
		}
		end = p > begin ? p - 1 : begin;
	}
	while (n--) {
		put_line(out, &used, from[n], to[n]);
		if (n)
			out[used++] = '\n';
	}
	out[used] = '\0';
}

/*
 * Reads what is there of FD (at most 1 MiB: a writer that never stops does
 * not hold the wait) without blocking, into BUF up to SIZE (at *GOT), then
 * into TAIL (NULL: dropped); closes FD at its end. Returns -1 on an error.
 */
static int drain(int *fd, void *buf, size_t size, size_t *got, struct stream_tail *tail)
{
	char chunk[4096];

	for (int reads = 0; *fd >= 0 && reads < 256; reads++) {
		ssize_t n;

		if (buf && *got < size)
			n = read(*fd, (char *)buf + *got, size - *got);
		else
			n = read(*fd, chunk, sizeof(chunk));  /* past the sample: read and dropped */
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n <= 0) {
			int failed = n < 0;

			close(*fd);
			*fd = -1;
			return failed ? -1 : 0;
		}
		if (buf && *got < size)
			*got += (size_t)n;
		else if (tail)
			tail_append(tail, chunk, (size_t)n);
	}
	return 0;
}

/* Whether W's child has exited (it is not reaped: its pid and group stay reserved). */
static void check_exit(struct child_wait *w)
{
	siginfo_t info;

	memset(&info, 0, sizeof(info));
	if (!waitid(P_PID, (id_t)w->pid, &info, WEXITED | WNOHANG | WNOWAIT) && info.si_pid)
		w->exited = 1;
}

/*
 * Reads W's result, stdout and stderr until the child has exited, or has
 * sent its whole result and EXIT_GRACE_MS passed, until DEADLINE_MS
 * (monotonic_ms(); 0: none) or an interrupt. A helper the child started may
 * keep the pipes open: the wait is for the child, never for the pipes'
 * ends. What the pipes hold after that is read without blocking. Returns 0
 * when the child is done, 1 on the deadline, 2 on an interrupt, -1 on an
 * error (errno).
 */
static int read_result(struct child_wait *w, int64_t deadline_ms)
{
	int64_t grace_ms = 0;

	for (;;) {
		struct pollfd pfd[4];
		nfds_t n = 0;
		int64_t now = monotonic_ms(), wait_ms = -1;
		int r;

		if (signal_caught)
			return 2;
		if (w->pidfd < 0)
			check_exit(w);
		if (w->exited)
			break;
		if (deadline_ms && now >= deadline_ms)
			return 1;
		if (w->result_got == w->result_size && !grace_ms)
			grace_ms = now + EXIT_GRACE_MS;
		if (grace_ms && now >= grace_ms)
			break;
		if (deadline_ms)
			wait_ms = deadline_ms - now;
		if (grace_ms && (wait_ms < 0 || grace_ms - now < wait_ms))
			wait_ms = grace_ms - now;
		if (w->pidfd < 0 && (wait_ms < 0 || wait_ms > EXIT_POLL_MS))
			wait_ms = EXIT_POLL_MS;
		if (w->result_fd >= 0)
			pfd[n++] = (struct pollfd){ .fd = w->result_fd, .events = POLLIN };
		if (w->out.fd >= 0)
			pfd[n++] = (struct pollfd){ .fd = w->out.fd, .events = POLLIN };
		if (w->err.fd >= 0)
			pfd[n++] = (struct pollfd){ .fd = w->err.fd, .events = POLLIN };
		if (w->pidfd >= 0)
			pfd[n++] = (struct pollfd){ .fd = w->pidfd, .events = POLLIN };
		r = poll(pfd, n, wait_ms > INT_MAX ? INT_MAX : (int)wait_ms);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		for (nfds_t i = 0; i < n; i++) {
			if (!pfd[i].revents)
				continue;
			if (pfd[i].fd == w->pidfd) {
				w->exited = 1;
			} else if (pfd[i].fd == w->result_fd) {
				if (drain(&w->result_fd, w->result, w->result_size, &w->result_got, NULL))
					return -1;
			} else {
				struct stream_tail *t = pfd[i].fd == w->out.fd ? &w->out : &w->err;

				if (drain(&t->fd, NULL, 0, NULL, t))
					return -1;
			}
		}
	}
	if (drain(&w->result_fd, w->result, w->result_size, &w->result_got, NULL) ||
	    drain(&w->out.fd, NULL, 0, NULL, &w->out) || drain(&w->err.fd, NULL, 0, NULL, &w->err))
		return -1;
	return 0;
}

/* Closes what W still has open. */
static void child_wait_release(struct child_wait *w)
{
	int *fds[] = { &w->result_fd, &w->out.fd, &w->err.fd, &w->pidfd };

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (*fds[i] >= 0) {
			close(*fds[i]);
			*fds[i] = -1;
		}
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
 * A copy of ENVIRON with LD_PRELOAD set to exactly PATH (NULL: left as it
 * is) and each KEY=VALUE of SET (NULL: none) in place of KEY's: a
 * NULL-terminated array whose last string, LD_PRELOAD's when PATH is
 * given, is owned (free it and the array with free_environment()). NULL
 * when out of memory.
 */
static char **child_environment(const char *path, const char *const *set)
{
	size_t n = 0, nset = 0, kept = 0;
	char **env, *preload;

	while (environ[n])
		n++;
	while (set && set[nset])
		nset++;
	env = calloc(n + nset + 2, sizeof(*env));
	preload = path ? malloc(strlen("LD_PRELOAD=") + strlen(path) + 1) : NULL;
	if (!env || (path && !preload)) {
		free(env);
		free(preload);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		int replaced = path && !strncmp(environ[i], "LD_PRELOAD=", strlen("LD_PRELOAD="));

		for (size_t k = 0; k < nset && !replaced; k++)
			replaced = !strncmp(environ[i], set[k], strcspn(set[k], "=") + 1);
		if (!replaced)
			env[kept++] = environ[i];
	}
	for (size_t k = 0; k < nset; k++)
		env[kept++] = (char *)set[k];
	if (path) {
		strcpy(preload, "LD_PRELOAD=");
		strcat(preload, path);
		env[kept++] = preload;
	}
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
	if (n && !strncmp(env[n - 1], "LD_PRELOAD=", strlen("LD_PRELOAD=")))
		free(env[n - 1]);
	free(env);
}

/*
 * The pipes of a measuring process: [0] its result (CHILD_RESULT_FD), [1] its
 * stdout, [2] its stderr; every end close-on-exec, the parent's read ends
 * non-blocking. Returns 0, or -1 with errno set and nothing left open.
 */
static int child_pipes_open(int pipes[3][2])
{
	for (int i = 0; i < 3; i++) {
		if (pipe2(pipes[i], O_CLOEXEC) ||
		    fcntl(pipes[i][0], F_SETFL, fcntl(pipes[i][0], F_GETFL) | O_NONBLOCK)) {
			int err = errno;

			for (int j = 0; j <= i; j++) {
				close(pipes[j][0]);
				close(pipes[j][1]);
			}
			errno = err;
			return -1;
		}
	}
	return 0;
}

/* Closes the read (END 0) or write (END 1) ends of PIPES. */
static void child_pipes_close(int pipes[3][2], int end)
{
	for (int i = 0; i < 3; i++)
		close(pipes[i][end]);
}

/* A pidfd of PID (readable once it exits), or -1 where the kernel has none. */
int runner_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	return -1;
#endif
}

/*
 * The forked child, up to the exec: its own process group (so that the
 * parent can kill what it starts), standard input from /dev/null, standard
 * output and error and CHILD_RESULT_FD on the pipes, a replay's PLAN_FD (0:
 * none) as CHILD_PLAN_FD. Only async-signal-safe calls.
 */
static _Noreturn void child_exec(int pipes[3][2], pid_t parent, const char *path, char **argv,
				  char **env, int plan_fd)
{
	static const int targets[4] = { CHILD_RESULT_FD, STDOUT_FILENO, STDERR_FILENO, CHILD_PLAN_FD };
	int moved[4], null, n = plan_fd > STDERR_FILENO ? 4 : 3;

	setpgid(0, 0);
	/*
	 * Killed when the parent dies, even by SIGKILL. A parent that died
	 * before this line is not there to kill it: its pid is another's now.
	 */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(127);
	/* Out of the way of the targets first: a pipe may be one of them. */
	for (int i = 0; i < n; i++)
		if ((moved[i] = fcntl(i < 3 ? pipes[i][1] : plan_fd, F_DUPFD_CLOEXEC, 10)) < 0)
			_exit(127);
	null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (null < 0 || dup2(null, STDIN_FILENO) < 0)
		_exit(127);
	/* dup2 clears close-on-exec on the copies, and only there. */
	for (int i = 0; i < n; i++)
		if (dup2(moved[i], targets[i]) < 0)
			_exit(127);
	if (env)
		execve(path, argv, env);
	else
		execv(path, argv);
	/* Standard error is the pipe now: the row shows the reason. */
	error("cannot execute %s: %s", path, strerror(errno));
	_exit(127);
}

static int measure_in_child(const struct child_request *req, const char *path, char **argv,
			    int emulated, unsigned timeout_s, struct sample *sample, int slot);

/*
 * A replay's memory is what the program would pay (README: Your program's
 * allocations): the allocator's set-up counts. What the measuring process
 * had at its start beyond what its program has without a preload
 * (abi_program()'s entry_anon_bytes) is the preloaded allocator's
 * constructors and the libraries it brings (tcmalloc's page heap: about
 * 3.8 MiB), which the replay's peak, read over the process as the loop
 * found it, leaves out.
 */
static void replay_count_setup(const struct abi_program *program, struct sample *sample)
{
	uint64_t child = sample->entry_anon_bytes, self = program->entry_anon_bytes;

	/*
	 * 0: unread (the 32-bit program's own is not read).
	 * The fragmentation figure follows: run.c derives it from the peaks.
	 */
	sample->setup_bytes = child && self && child > self ? child - self : 0;
	sample->peak_rss_bytes += sample->setup_bytes;
}

int runner_measure(const struct child_request *req, unsigned timeout_s, struct sample *sample)
{
	const struct abi_program *program = abi_program(req->abi);
	struct child_args args;
	/* The emulator, its -E LD_PRELOAD=PATH, the program, the command, the request. */
	char *argv[CHILD_REQUEST_ARGS + 6], preload[PATH_MAX + 16];
	int ret, slot;
	size_t n = 0;

	memset(sample, 0, sizeof(*sample));
	if (signal_caught)
		return sample_fail(sample, "interrupted by SIG%s", sigabbrev_np(signal_caught));
	if (!program)
		return sample_fail(sample, "no measuring program for %u-bit rows", req->abi);
	if (child_request_encode(req, &args))
		return sample_fail(sample, "the --counters list is too long to pass on");
	if (program->emulator[0]) {
		/*
		 * The library is the emulated process's LD_PRELOAD, not the
		 * emulator's (a 64-bit program, which cannot load it).
		 */
		argv[n++] = (char *)ABI_EMULATOR;
		if (req->preload_path) {
			snprintf(preload, sizeof(preload), "LD_PRELOAD=%s", req->preload_path);
			argv[n++] = (char *)"-E";
			argv[n++] = preload;
		}
		argv[n++] = (char *)program->path;
	} else {
		argv[n++] = (char *)(program->abi == 32 ? ABI_CHILD32 : program->version[0] ?
				     ABI_CHILD64 : "allocbench");
	}
	argv[n++] = (char *)CHILD_COMMAND;
	for (size_t a = 0; args.argv[a]; a++)
		argv[n++] = args.argv[a];
	argv[n] = NULL;

	if ((slot = slot_take()) < 0)
		return sample_fail(sample, "more than %d measuring processes at once",
				   RUNNER_MAX_CHILDREN);
	ret = measure_in_child(req, program->emulator[0] ? program->emulator : program->path,
			       argv, program->emulator[0] != 0, timeout_s, sample, slot);
	atomic_store(&running[slot], 0);
	if (!ret && req->params.workload == WORKLOAD_REPLAY)
		replay_count_setup(program, sample);
	return ret;
}

/*
 * SAMPLE from the measuring process W waited for: END and READ_ERRNO as
 * read_result() left them, STATUS as waitpid() gave it. Returns 0, or -1
 * with SAMPLE failed and why (interrupted, timed out, died, a bad result).
 */
static int child_outcome(const struct child_wait *w, int end, int read_errno, int status,
			 unsigned timeout_s, struct sample *sample)
{
	char why[160];

	if (end == 2)
		return sample_fail(sample, "interrupted by SIG%s", sigabbrev_np(signal_caught));
	if (end == 1)
		return sample_fail(sample, "timed out after %u s (the measuring process was "
				   "killed; see --timeout)", timeout_s);
	if (end < 0)
		return sample_fail(sample, "cannot read the measuring process's result: %s",
				   strerror(read_errno));
	if (w->result_got != w->result_size &&
	    (!w->result_got || !WIFEXITED(status) || WEXITSTATUS(status))) {
		/* It died before its whole result: why. */
		describe_status(status, sample);
		return -1;
	}
	if (sample_wire_decode(w->result, w->result_got, sample, why, sizeof(why))) {
		/* Nothing of it is kept: the whole result, or none. */
		sample_fail(sample, "the measuring process sent %s", why);
		return -1;
	}
	if (!sample->ok && !sample->error[0])
		sample_fail(sample, "measurement failed without a reason");
	return sample->ok ? 0 : -1;
}

/*
 * runner_measure() once ARGV is written and SLOT of running[] is taken: runs
 * the program at PATH (EMULATED: an emulator, which sets the preload itself).
 */
static int measure_in_child(const struct child_request *req, const char *path, char **argv,
			    int emulated, unsigned timeout_s, struct sample *sample, int slot)
{
	char **env = NULL;
	int pipes[3][2], status, end, read_errno, ret;
	struct child_wait w;
	/* The encoded sample (sample_wire.h), a little larger than any struct sample's. */
	static _Thread_local unsigned char got[SAMPLE_WIRE_HEADER + sizeof(struct sample)];
	int64_t deadline_ms;
	pid_t pid, parent;

	if ((req->preload_path || req->env) &&
	    !(env = child_environment(req->preload_path ? emulated ? "" : req->preload_path : NULL,
				      req->env)))
		return sample_fail(sample, "out of memory");
	if (child_pipes_open(pipes)) {
		int err = errno;

		free_environment(env);
		return sample_fail(sample, "cannot create a pipe: %s", strerror(err));
	}
	fflush(NULL);
	parent = getpid();
	pid = fork();
	if (pid < 0) {
		int err = errno;

		child_pipes_close(pipes, 0);
		child_pipes_close(pipes, 1);
		free_environment(env);
		return sample_fail(sample, "cannot fork: %s", strerror(err));
	}
	if (!pid)
		child_exec(pipes, parent, path, argv, env, req->plan_fd);
	/* The child does it too: the group exists whichever runs first. */
	setpgid(pid, pid);
	/* The handler kills what it finds here; a signal before this line is seen below. */
	atomic_store(&running[slot], pid);
	child_pipes_close(pipes, 1);
	free_environment(env);
	memset(&w, 0, sizeof(w));
	w.pid = pid;
	w.pidfd = runner_pidfd(pid);
	w.result_fd = pipes[0][0];
	w.out.fd = pipes[1][0];
	w.err.fd = pipes[2][0];
	w.result = got;
	w.result_size = sample_wire_size();
	deadline_ms = timeout_s ? monotonic_ms() + (int64_t)timeout_s * 1000 : 0;
	end = read_result(&w, deadline_ms);
	read_errno = errno;
	/* Done or not, its whole group goes: what it started (a preload's helper) too. */
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	child_wait_release(&w);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return sample_fail(sample, "cannot wait for the measuring process: %s",
					   strerror(errno));
	}
	ret = child_outcome(&w, end, read_errno, status, timeout_s, sample);
	tail_lines(&w.out, sample->child_stdout, &sample->child_stdout_lines);
	tail_lines(&w.err, sample->child_stderr, &sample->child_stderr_lines);
	return ret;
}
