/*
 * cmd_record.c - `allocbench record [-o FILE] [--] COMMAND [ARG...]`: runs
 * COMMAND with the recording library (recorder.c) preloaded, each process
 * image writing FILE.PROGRAM.PID, waits for it, makes FILE the trace of the
 * process with the most calls (trace_set.h), prints a summary of the
 * traces and what they may lack on standard error and exits with
 * COMMAND's status (128 + N after signal N). Like the other cmd_*.c files,
 * it may exit.
 */
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "platform/output.h"
#include "cmd/parse_options.h"
#include "cmd/record_find.h"
#include "trace/record.h"
#include "trace/trace.h"
#include "trace/trace_set.h"
#include "trace/trace_watch.h"
#include "platform/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

static const struct cli_option record_options[] = {
	CLI_OPT_OUTPUT("the trace's name (default " RECORD_DEFAULT_FILE ")"),
	CLI_OPT(256, "convert", "TRACE", "convert an older TRACE to version 3 (into FILE)"),
	CLI_OPT_HELP,
	CLI_OPTIONS_END,
};

static void record_help(FILE *out)
{
	fputs(
"usage: allocbench record [-o FILE] [--] COMMAND [ARG...]\n"
"       allocbench record --convert TRACE [-o FILE]\n"
"\n"
"Runs COMMAND with allocbench's recording library preloaded and writes every\n"
"allocation call it makes to a trace, one per process image, compressed (format\n"
"version 3) once its process is gone; FILE is then the trace of the one with\n"
"the most calls. allocbench report FILE reads them.\n"
"\n"
"Options:\n", out);
	cli_help_options(out, record_options, 25);
	fputs(
"\n"
"Exit status: COMMAND's (1 when it succeeded but no trace was written), 2\n"
"COMMAND cannot be recorded or FILE is refused, 127 COMMAND not found, 128+N\n"
"after signal N.\n"
"allocbench-record(1) says more: what is recorded, the trace format.\n", out);
}

/*
 * Whether the process PID still runs: not gone, and no zombie (a child
 * COMMAND left, ending as COMMAND did). A PID taken again by another
 * process reads as running, which only keeps a trace from being converted.
 */
static int still_runs(pid_t pid)
{
	char path[64], stat[512], *paren;
	ssize_t n;
	int fd;

	if (kill(pid, 0) && errno != EPERM)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1;
	n = read(fd, stat, sizeof(stat) - 1);
	close(fd);
	if (n <= 0)
		return 1;
	stat[n] = '\0';
	/* "PID (COMM) STATE ...": COMM may hold anything, ')' too; the last one ends it. */
	paren = strrchr(stat, ')');
	return !(paren && paren[1] == ' ' && (paren[2] == 'Z' || paren[2] == 'X'));
}

/* A signal that came once COMMAND had ended (forward_signal()): the conversion stops. */
static volatile sig_atomic_t stopped;

/*
 * Converts each trace of SET whose process is gone (ended, or killed: a
 * trace cut short converts to what it holds) to format version 3 in place;
 * one whose process still runs (a daemon the command left) is still being
 * written and stays as the recorder writes it, and one that cannot be
 * converted (a full disk) too, with a warning.
 */
static void convert_ended(struct trace_set *set)
{
	char why[PATH_MAX + 512];

	for (size_t i = 0; i < set->n; i++) {
		struct trace_proc *p = &set->procs[i];
		struct stat st;

		if (p->error || p->t.header.version >= TRACE_VERSION_V3)
			continue;
		if (p->t.header.state == TRACE_STATE_WRITING && still_runs((pid_t)p->t.header.pid)) {
			warning("%s: its process %" PRIu32 " was still running when the command ended: "
				"left in format version 2 (record --convert converts it once it ended)",
				p->path, p->t.header.pid);
			continue;
		}
		if (stopped)
			break;
		if (trace_v3_convert(p->path, p->path, TRACE_V3_LEVEL, &stopped, why, sizeof(why))) {
			if (!stopped)
				warning("%s (left in format version 2)", why);
			continue;
		}
		/* The summary gives the bytes the file takes now; the rest of what was read holds. */
		p->t.header.version = TRACE_VERSION_V3;
		if (!stat(p->path, &st))
			p->t.trace_bytes = p->t.file_bytes = (uint64_t)st.st_size;
	}
}

/* One line of the summary for the process P's trace, on standard error. */
static void summarize(const struct trace_proc *p)
{
	const struct trace_stats *st = &p->stats;
	char why[512], line[512], path[4096], command[512];
	size_t used = 0;

	line[0] = '\0';
	for (unsigned k = 1; k < TRACE_KINDS && used < sizeof(line); k++)
		if (st->calls[k])
			used += (size_t)snprintf(line + used, sizeof(line) - used, "%s%s %" PRIu64,
						 used ? ", " : "", trace_kind_name(k), st->calls[k]);
	/* The program chose both (its path, FILE.PROGRAM.PID): cleaned, as report prints them. */
	text_clean(path, sizeof(path), p->path);
	text_clean(command, sizeof(command), p->t.header.command);
	fprintf(stderr, "allocbench: %s: pid %" PRIu32 " (%s), %" PRIu64 " calls (%s) in %" PRIu32
		" thread%s, %" PRIu64 " bytes (%.3g per call), %s",
		path, p->t.header.pid, command, st->calls[0], used ? line : "none",
		st->nthreads, st->nthreads == 1 ? "" : "s", p->t.trace_bytes,
		st->calls[0] ? (double)p->t.trace_bytes / (double)st->calls[0] : 0.0,
		trace_state_name(p->t.header.state));
	if (p->t.header.lost)
		fprintf(stderr, "; incomplete: %" PRIu64 " calls not recorded (%s)", p->t.header.lost,
			trace_lost_reason(&p->t.header, why, sizeof(why)));
	fputc('\n', stderr);
}

/* Copies the file FROM to the new file TO. Returns 0, or -1 with errno set. */
static int copy_file(const char *from, const char *to)
{
	char buf[1 << 16];
	int in = open(from, O_RDONLY | O_CLOEXEC), out = -1, err = 0;
	ssize_t n = 0;

	if (in < 0 || (out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)) < 0)
		err = errno;
	while (!err && (n = read(in, buf, sizeof(buf))) != 0) {
		for (ssize_t at = 0, w; !err && n > 0 && at < n; at += w)
			if ((w = write(out, buf + at, (size_t)(n - at))) < 0 && errno != EINTR)
				err = errno;
			else if (w < 0)
				w = 0;
		if (n < 0 && errno != EINTR)
			err = errno;
	}
	if (out >= 0 && close(out) && !err)
		err = errno;
	if (in >= 0)
		close(in);
	if (err && out >= 0)
		unlink(to);
	errno = err;
	return err ? -1 : 0;
}

/*
 * FILE, a second name of the trace at FROM (a hard link; a copy where the
 * file system has none). Returns 0, or -1 after printing why.
 */
static int name_trace(const char *from, const char *file)
{
	if (!link(from, file) || (errno == EEXIST && !unlink(file) && !link(from, file)) ||
	    !copy_file(from, file))
		return 0;
	return error("cannot write '%s' (the trace of the process with the most calls, %s): %s",
		     file, from, strerror(errno));
}

/* The signals record passes on to the recorded program (as timeout does), while it waits. */
static const int forward[] = { SIGINT, SIGTERM, SIGHUP };
#define FORWARDS (sizeof(forward) / sizeof(forward[0]))
static volatile pid_t forward_pid;
static volatile sig_atomic_t forwarded;

/*
 * SIGINT, SIGTERM or SIGHUP for record goes to COMMAND too, unless the
 * kernel sent it (a terminal's ^C or hangup reaches the whole foreground
 * process group, COMMAND included: passing it on would deliver it twice).
 * Once COMMAND has ended, it stops the conversion of the traces (STOPPED).
 */
static void forward_signal(int sig, siginfo_t *info, void *context)
{
	(void)context;
	if (forward_pid <= 0) {
		stopped = sig;
		return;
	}
	forwarded = sig;
	if (info->si_code != SI_KERNEL)
		kill(forward_pid, sig);
}

/*
 * Puts forward_signal() on SIGINT, SIGTERM and SIGHUP, each one's handler
 * before into OLD (FORWARDS of them); a signal ignored when record started
 * stays so.
 */
static void forward_install(struct sigaction *old)
{
	struct sigaction pass = { .sa_sigaction = forward_signal, .sa_flags = SA_SIGINFO };

	sigemptyset(&pass.sa_mask);
	for (size_t k = 0; k < FORWARDS; k++) {
		sigaction(forward[k], NULL, &old[k]);
		if (old[k].sa_handler != SIG_IGN)
			sigaction(forward[k], &pass, NULL);
	}
}

/* What record runs, found and checked before anything starts. */
struct record_run {
	const char *output;         /* as given to --output */
	int quiet;                  /* no summary of the traces on standard error */
	int convert;                /* to format version 3 once COMMAND ended */
	char *const *argv;          /* COMMAND and its arguments */
	char exe[PATH_MAX];         /* COMMAND's program */
	char lib[PATH_MAX];         /* the recording library */
	char file[PATH_MAX];        /* FILE: the traces' prefix, then the chosen one's second name */
	uint64_t session;           /* the recording's number, in the header of each of its traces */
	time_t started;             /* when COMMAND started (s since the epoch) */
	double cpu_s;               /* the CPU time of COMMAND and the children it waited for, s */
	struct trace_watch watch;   /* each process's peak anonymous memory, sampled */
	int watching;               /* watch started */
};

/*
 * Finds COMMAND (RUN->argv[0]) and the recording library, refuses a
 * program that would not load it, and names the trace. Returns 0, or the
 * exit status after an error: 127 COMMAND not found, 2 refused.
 */
static int record_prepare(struct record_run *run)
{
	char why[256];
	struct stat st;
	struct timespec now;

	if (command_find(run->argv[0], run->exe, sizeof(run->exe))) {
		error("cannot run '%s': command not found", run->argv[0]);
		return 127;
	}
	/* The dynamic loader ignores LD_PRELOAD in secure-execution mode. */
	if (!stat(run->exe, &st) && (st.st_mode & (S_ISUID | S_ISGID))) {
		error("cannot record '%s': it is set%sid, and the dynamic loader ignores LD_PRELOAD "
		      "for such a program, so nothing would be recorded", run->exe,
		      st.st_mode & S_ISUID ? "u" : "g");
		return 2;
	}
	if (getxattr(run->exe, "security.capability", NULL, 0) >= 0) {
		error("cannot record '%s': it has file capabilities, and the dynamic loader ignores "
		      "LD_PRELOAD for such a program, so nothing would be recorded", run->exe);
		return 2;
	}
	if (elf_foreign(run->exe, why, sizeof(why))) {
		error("cannot record '%s': %s, so nothing would be recorded", run->exe, why);
		return 2;
	}
	if (record_library_find(run->lib, sizeof(run->lib)))
		return 2;
	if (trace_file_for(run->output, run->file, sizeof(run->file)))
		return 2;
	/* The kernel stamps files by its coarse clock, which can be a tick behind. */
	clock_gettime(CLOCK_REALTIME_COARSE, &now);
	run->started = now.tv_sec;
	clock_gettime(CLOCK_REALTIME, &now);
	run->session = ((uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec) ^
		       ((uint64_t)getpid() << 40);
	return 0;
}

/*
 * Starts COMMAND with the recording library preloaded, the signals record
 * passes on blocked in record (their old mask in *OLD_MASK) until its
 * handlers know COMMAND's pid. Returns the pid, or -1 after an error.
 */
static pid_t record_start(const struct record_run *run, sigset_t *old_mask)
{
	char session_text[32], *preload = NULL;
	const char *old_preload = getenv("LD_PRELOAD");
	sigset_t block;
	pid_t pid;

	snprintf(session_text, sizeof(session_text), "%" PRIu64, run->session);
	if (asprintf(&preload, "%s%s%s", run->lib, old_preload && *old_preload ? " " : "",
		     old_preload ? old_preload : "") < 0)
		die_out_of_memory();

	fflush(stdout);
	fflush(stderr);
	/* Held until the handlers know COMMAND's pid: none may end record before. */
	sigemptyset(&block);
	for (size_t k = 0; k < FORWARDS; k++)
		sigaddset(&block, forward[k]);
	sigprocmask(SIG_BLOCK, &block, old_mask);
	pid = fork();
	if (pid < 0) {
		error("cannot start '%s': %s", run->argv[0], strerror(errno));
		free(preload);
		return -1;
	}
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, old_mask, NULL);
		if (setenv("LD_PRELOAD", preload, 1) || setenv(RECORD_FILE_ENV, run->file, 1) ||
		    setenv(RECORD_SESSION_ENV, session_text, 1))
			_exit(126);
		execv(run->exe, run->argv);
		fprintf(stderr, "allocbench: error: cannot run '%s': %s\n", run->exe, strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	free(preload);
	return pid;
}

/*
 * Waits for COMMAND (PID), passing SIGINT, SIGTERM and SIGHUP on (the
 * handlers they had in OLD_FORWARD, for the caller to put back) and
 * unblocking them (OLD_MASK). Sets *STATUS. Returns 0, or -1 after an
 * error.
 */
static int record_wait(struct record_run *run, pid_t pid, const sigset_t *old_mask,
		       struct sigaction *old_forward, int *status)
{
	struct rusage ru;
	struct sigaction ignore = { .sa_handler = SIG_IGN }, old_quit;

	/*
	 * SIGQUIT as the shell's `time`: the keyboard's is for COMMAND, which
	 * decides. SIGINT, SIGTERM and SIGHUP are passed on, and record waits
	 * for COMMAND to end (a signal ignored when record started stays so).
	 */
	forward_pid = pid;
	sigemptyset(&ignore.sa_mask);
	sigaction(SIGQUIT, &ignore, &old_quit);
	forward_install(old_forward);
	sigprocmask(SIG_SETMASK, old_mask, NULL);
	/* While COMMAND runs, each process's anonymous memory is sampled (trace_watch.h). */
	for (;;) {
		pid_t got = wait4(pid, status, run->watching ? WNOHANG : 0, &ru);
		struct timespec pause;
		uint64_t ns;

		if (got == pid)
			break;
		if (got < 0 && errno != EINTR) {
			error("cannot wait for '%s': %s", run->argv[0], strerror(errno));
			return -1;
		}
		if (got || !run->watching)
			continue;
		ns = trace_watch_poll(&run->watch);
		pause.tv_sec = (time_t)(ns / 1000000000u);
		pause.tv_nsec = (long)(ns % 1000000000u);
		nanosleep(&pause, NULL);
	}
	forward_pid = 0;
	sigaction(SIGQUIT, &old_quit, NULL);
	run->cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
		     ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) / 1e6;
	return 0;
}

/*
 * A trace of this recording left empty (no room for even its header):
 * FILE.SOMETHING, of 0 bytes, changed since COMMAND started; its path into
 * BUF. Returns 1 when there is one.
 */
static int empty_trace(const struct record_run *run, char *buf, size_t size)
{
	char dir[PATH_MAX], *slash;
	const char *base;
	struct dirent *d;
	struct stat st;
	DIR *dp;
	int found = 0;

	copy_string(dir, sizeof(dir), run->file);
	slash = strrchr(dir, '/');
	*slash = '\0';
	base = slash + 1;
	if (!(dp = opendir(dir[0] ? dir : "/")))
		return 0;
	while (!found && (d = readdir(dp)))
		found = !strncmp(d->d_name, base, strlen(base)) && d->d_name[strlen(base)] == '.' &&
			(size_t)snprintf(buf, size, "%s/%s", dir, d->d_name) < size &&
			!stat(buf, &st) && S_ISREG(st.st_mode) && st.st_size == 0 &&
			st.st_mtime >= run->started;
	closedir(dp);
	return found;
}

/* Calls a second of CPU time below which record says the program may allocate past malloc. */
#define FEW_CALLS_PER_CPU_S 10000
#define FEW_CALLS_CPU_S 0.25
/* ... when its peak anonymous memory is this much above malloc's peak live bytes, or unknown. */
#define FEW_CALLS_UNEXPLAINED_BYTES ((uint64_t)8 << 20)

/*
 * A process whose peak anonymous memory malloc's live bytes leave largely
 * unexplained, or none whose peak is known (1); else 0: a program that
 * simply allocates little, whose memory malloc accounts for.
 */
static int memory_past_malloc(const struct trace_set *set)
{
	int known = 0;

	for (size_t i = 0; i < set->n; i++) {
		uint64_t anon = (uint64_t)set->procs[i].t.header.anon_peak_kib << 10;

		if (!anon || set->procs[i].error)
			continue;
		known = 1;
		if (anon > set->procs[i].stats.peak_live_bytes + FEW_CALLS_UNEXPLAINED_BYTES)
			return 1;
	}
	return !known;
}

void record_notes(const struct trace_set *set, double cpu_s)
{
	uint64_t calls = trace_set_calls(set);
	char text[1024];
	int hinted = 0;

	for (size_t i = 0; i < set->n; i++)
		if (set->procs[i].hint) {
			fprintf(stderr, "allocbench: note: %s\n",
				trace_proc_hint_text(&set->procs[i], text, sizeof(text)));
			hinted = 1;
		}
	if (!hinted && cpu_s >= FEW_CALLS_CPU_S && calls < cpu_s * FEW_CALLS_PER_CPU_S &&
	    memory_past_malloc(set))
		fprintf(stderr, "allocbench: note: %" PRIu64 " calls in %.1f s of CPU time (%.0f a "
			"second) are few for a program that allocates much: what it allocates past malloc "
			"(with an allocator of its own, or a runtime's such as Go's or the JVM's) is not "
			"recorded, and no replay has it\n", calls, cpu_s, (double)calls / cpu_s);
}

/*
 * Summarizes the traces COMMAND wrote (STATUS, from waitpid()) on standard
 * error, and makes FILE a second name of the one advise replays
 * (trace_set_choose()). Returns record's exit status: COMMAND's (128 + N
 * after signal N), or 1 when COMMAND succeeded and no trace could be read.
 */
static int record_finish(const struct record_run *run, int status)
{
	struct trace_set set;
	char why[PATH_MAX + 512], text[1024];
	int ret = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);

	if (trace_set_find(run->file, run->session, &set, why, sizeof(why))) {
		if (empty_trace(run, text, sizeof(text)))
			error("the trace '%s' is empty: there was no room for it (is the file system "
			      "full?)", text);
		else
			error("no trace was written to '%s': '%s' did not load the recording library "
			      "(a statically linked program ignores LD_PRELOAD)", run->output, run->exe);
	}
	if (run->convert)
		convert_ended(&set);
	if (stopped)
		warning("stopped by SIG%s: the traces not yet converted left in format version 2",
			sigabbrev_np(stopped));
	for (size_t i = 0; i < set.n; i++)
		if (set.procs[i].error)
			error("%s", set.procs[i].error);
		else if (!run->quiet)
			summarize(&set.procs[i]);
	if (set.chosen < set.n && !name_trace(set.procs[set.chosen].path, run->file)) {
		if (!run->quiet)
			fprintf(stderr, "allocbench: %s: the trace advise replays, %s%s\n", run->file,
				trace_set_choice_text(&set, text, sizeof(text)),
				set.n > 1 ? " (allocbench report lists them)" : "");
		record_notes(&set, run->cpu_s);
	} else if (!ret) {
		ret = 1;
	}
	trace_set_release(&set);
	if (WIFSIGNALED(status))
		fprintf(stderr, "allocbench: '%s' was killed by signal %d (%s): exit status %d\n",
			run->argv[0], WTERMSIG(status), strsignal(WTERMSIG(status)), ret);
	return ret;
}

int record_command(const char *output, char *const *argv, int quiet, int convert, int *ended_by)
{
	struct record_run run = { .output = output, .quiet = quiet, .convert = convert, .argv = argv };
	struct sigaction old_forward[FORWARDS];
	sigset_t old_mask;
	int status, ret;
	pid_t pid;

	*ended_by = 0;
	ret = record_prepare(&run);
	if (ret)
		return ret;
	run.watching = !trace_watch_start(&run.watch, run.file, run.session);
	pid = record_start(&run, &old_mask);
	if (pid < 0) {
		trace_watch_release(&run.watch);
		return 2;
	}
	if (record_wait(&run, pid, &old_mask, old_forward, &status)) {
		trace_watch_release(&run.watch);
		return 1;
	}
	/* Before the traces are read: the peaks go into their headers. */
	if (run.watching)
		trace_watch_store(&run.watch);
	trace_watch_release(&run.watch);
	ret = record_finish(&run, status);
	for (size_t k = 0; k < FORWARDS; k++)
		sigaction(forward[k], &old_forward[k], NULL);
	if (WIFSIGNALED(status) && WTERMSIG(status) == forwarded)
		*ended_by = forwarded;
	else if (stopped)
		*ended_by = stopped;
	return ret;
}

/*
 * record --convert FROM into TO. SIGINT, SIGTERM or SIGHUP stops it with
 * nothing of the conversion left (*ENDED_BY: the signal, which record
 * ends by). Returns record's exit status.
 */
static int convert_one(const char *from, const char *to, int *ended_by)
{
	struct sigaction old[FORWARDS];
	char why[1024];

	/* No COMMAND: forward_signal() only stops the conversion. */
	forward_install(old);
	*ended_by = 0;
	if (!trace_v3_convert(from, to, TRACE_V3_LEVEL, &stopped, why, sizeof(why)))
		return 0;
	*ended_by = stopped;
	if (!stopped)
		error("%s", why);
	return 1;
}

/*
 * ALLOCBENCH_TEST_RECORD_V2=1 (allocbench(1)): the tests read and damage
 * the recording library's own format, which record then leaves as it is.
 */
static int record_v2(void)
{
	const char *v = getenv("ALLOCBENCH_TEST_RECORD_V2");

	if (v && *v && strcmp(v, "1"))
		usage_die("ALLOCBENCH_TEST_RECORD_V2 takes 1 (a testing aid: see allocbench(1))");
	return v && *v;
}

int cmd_record(int argc, char **argv)
{
	const char *output = RECORD_DEFAULT_FILE, *convert = NULL, *given = NULL;
	int i, ret, sig;

	if (argc == 2 && !strcmp(argv[1], "--dump-options")) {
		/* The table, for the tests that check the help, completion and man page. */
		parse_options_dump(stdout, record_options);
		cli_exit_printed();
	}
	/* The options end at the first word that is not one: COMMAND's own follow. */
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (a[0] != '-' || !a[1])
			break;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			record_help(stdout);
			cli_exit_printed();
		} else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
			if (++i == argc)
				usage_die("option '%s' requires a value (see allocbench record --help)", a);
			output = given = cli_file_name(argv[i], "--output");
		} else if (!strncmp(a, "--output=", 9)) {
			output = given = cli_file_name(a + 9, "--output");
		} else if (!strncmp(a, "-o", 2)) {
			output = given = cli_file_name(a + 2, "--output");
		} else if (!strcmp(a, "--convert") || !strncmp(a, "--convert=", 10)) {
			if (!a[9] && ++i == argc)
				usage_die("option '%s' requires a value (see allocbench record --help)", a);
			convert = cli_file_name(a[9] ? a + 10 : argv[i], "--convert");
		} else {
			usage_die("unknown option '%s' (see allocbench record --help; put COMMAND after "
				  "'--' if it starts with '-')", a);
		}
	}
	if (convert && i < argc)
		usage_die("record --convert takes no COMMAND (see allocbench record --help)");
	if (convert) {
		ret = convert_one(convert, given ? given : convert, &sig);
	} else {
		if (i >= argc)
			usage_die("record needs a COMMAND to run (see allocbench record --help)");
		if (!strcmp(output, "-"))
			usage_die("a trace is a file: --output '-' is not one (name a file)");
		ret = record_command(output, argv + i, 0, !record_v2(), &sig);
	}
	/* Ended by a signal (passed on to COMMAND, or one that stopped the conversion): so is record. */
	if (sig) {
		fflush(NULL);
		signal(sig, SIG_DFL);
		raise(sig);
	}
	return ret;
}
