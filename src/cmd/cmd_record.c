/*
 * cmd_record.c - `allocbench record [-o FILE] [--] COMMAND [ARG...]`: runs
 * COMMAND with the recording library (recorder.c) preloaded, waits for it,
 * prints a summary of the traces it wrote on standard error and exits with
 * COMMAND's status (128 + N after signal N). Like the other cmd_*.c files,
 * it may exit.
 */
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "platform/output.h"
#include "cmd/parse_options.h"
#include "trace/record.h"
#include "trace/trace.h"
#include "platform/util.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#ifndef ALLOCBENCH_LIBDIR
#define ALLOCBENCH_LIBDIR "/usr/local/lib/allocbench"
#endif

static const struct cli_option record_options[] = {
	CLI_OPT_OUTPUT("write the trace to FILE (default " RECORD_DEFAULT_FILE ");\n"
		       "a process COMMAND starts writes FILE.PID"),
	CLI_OPT(257, "trace-version", "N", "3 (default): each trace that ended is converted to\n"
		"format version 3, compressed, once COMMAND has ended;\n"
		"2: left as the recording library wrote it"),
	CLI_OPT(256, "convert", "TRACE", "convert TRACE (format version 1 or 2) to version 3,\n"
		"compressed, into FILE (default: TRACE, replaced); no COMMAND"),
	CLI_OPT_HELP,
	CLI_OPTIONS_END,
};

static void record_help(FILE *out)
{
	fputs(
"usage: allocbench record [-o FILE] [--trace-version N] [--] COMMAND [ARG...]\n"
"       allocbench record --convert TRACE [-o FILE]\n"
"\n"
"Runs COMMAND with allocbench's recording library preloaded and writes every\n"
"call of malloc, calloc, realloc, free, posix_memalign, aligned_alloc,\n"
"memalign, valloc and pvalloc it makes (C++ new and delete reach malloc and\n"
"free) to a trace, with its thread and its place in the program's order.\n"
"A process COMMAND starts (fork, or exec in a child) is recorded into a trace\n"
"of its own, FILE.PID; the same process after an exec into FILE.PID too.\n"
"Read a trace with allocbench report TRACE; replay it on the backends with\n"
"allocbench --workload replay --trace TRACE. The format is in allocbench(1),\n"
"TRACE FORMAT.\n"
"\n"
"FILE is a regular file (replaced) or a new one; a symbolic link is written\n"
"through. COMMAND is never harmed by its trace: when the trace cannot be\n"
"written (a full disk), recording stops and the summary says how many calls\n"
"were not recorded. SIGINT, SIGTERM and SIGHUP are passed on to COMMAND.\n"
"\n"
"Exits with COMMAND's status, 128 + N after signal N; 127 when COMMAND is not\n"
"found, 2 when it cannot be recorded (a setuid or setgid program, or one\n"
"with file capabilities, ignores LD_PRELOAD; a 32-bit program) or FILE is\n"
"refused (a device, FIFO or directory, or a path too long).\n"
"\n"
"options:\n", out);
	cli_help_options(out, record_options, 25);
}

/* Whether PATH names a readable regular file. */
static int is_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

/*
 * 1 when DIR/NAME fits in BUF (SIZE bytes) and names a file; it is left in
 * BUF. A path cut short names nothing (and the check of snprintf()'s
 * result is what keeps -Wformat-truncation quiet).
 */
static int library_in(char *buf, size_t size, const char *dir, const char *name)
{
	int n = snprintf(buf, size, "%s/%s", dir, name);

	return n > 0 && (size_t)n < size && is_file(buf);
}

int record_library_find(char *buf, size_t size)
{
	char exe[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			if (library_in(buf, size, exe, RECORD_LIBRARY_NAME) ||
			    library_in(buf, size, exe, "../lib/allocbench/" RECORD_LIBRARY_NAME))
				return 0;
		}
	}
#ifdef ALLOCBENCH_BUILDDIR
	if (library_in(buf, size, ALLOCBENCH_BUILDDIR, RECORD_LIBRARY_NAME))
		return 0;
#endif
	return library_in(buf, size, ALLOCBENCH_LIBDIR, RECORD_LIBRARY_NAME) ? 0 : -1;
}

/* The file execvp() would run for NAME, into BUF; -1 when there is none. */
static int command_find(const char *name, char *buf, size_t size)
{
	const char *path = getenv("PATH"), *p, *colon;

	if (strchr(name, '/')) {
		snprintf(buf, size, "%s", name);
		return access(buf, X_OK);
	}
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; ; p = colon + 1) {
		size_t len;

		colon = strchr(p, ':');
		len = colon ? (size_t)(colon - p) : strlen(p);
		snprintf(buf, size, "%.*s%s%s", (int)len, p, len ? "/" : "", name);
		if (is_file(buf) && !access(buf, X_OK))
			return 0;
		if (!colon)
			return -1;
	}
}

/* Why H's calls were lost, in BUF (SIZE bytes); returns BUF. */
static const char *lost_reason(const struct trace_header *h, char *buf, size_t size)
{
	switch (h->lost_why) {
	case TRACE_LOST_WRITE:
		snprintf(buf, size, "the trace could not be written: %s", strerror(h->lost_errno));
		break;
	case TRACE_LOST_FULL:
		snprintf(buf, size, "the trace reached its largest size");
		break;
	case TRACE_LOST_NESTED:
		snprintf(buf, size, "signal handlers nested too deep");
		break;
	default:
		snprintf(buf, size, "no reason recorded");
		break;
	}
	return buf;
}

/* The format version record leaves its traces in (--trace-version). */
static int trace_version = TRACE_VERSION_V3;

/*
 * One line of the summary for the trace at PATH (none when QUIET); returns
 * its call count, or -1.
 */
static int64_t summarize(const char *path, uint64_t session, int root, int quiet)
{
	struct trace t;
	uint64_t calls[TRACE_KINDS] = { 0 };
	uint32_t threads = 0;
	char why[512], line[512];
	size_t used = 0;

	if (trace_load(path, &t, why, sizeof(why))) {
		if (root)
			error("%s", why);
		return -1;
	}
	if (t.header.session != session) {
		trace_release(&t);
		return -1;
	}
	/* Converted once it ended: its process no longer writes it. Kept as it is when it cannot be. */
	if (trace_version == TRACE_VERSION_V3 && t.header.version < TRACE_VERSION_V3 &&
	    t.header.state != TRACE_STATE_WRITING) {
		trace_release(&t);
		if (trace_v3_convert(path, path, TRACE_V3_LEVEL, why, sizeof(why)))
			warning("%s (left in format version 2)", why);
		if (trace_load(path, &t, why, sizeof(why))) {
			if (root)
				error("%s", why);
			return -1;
		}
	}
	for (size_t i = 0; i < t.nevents; i++) {
		calls[t.events[i].kind]++;
		if (t.events[i].thread >= threads)
			threads = t.events[i].thread + 1;
	}
	if (quiet) {
		trace_release(&t);
		return (int64_t)t.nevents;
	}
	line[0] = '\0';
	for (unsigned k = 1; k < TRACE_KINDS && used < sizeof(line); k++)
		if (calls[k])
			used += (size_t)snprintf(line + used, sizeof(line) - used, "%s%s %" PRIu64,
						 used ? ", " : "", trace_kind_name(k), calls[k]);
	fprintf(stderr, "allocbench: %s: pid %" PRIu32 " (%s), %zu calls (%s) in %" PRIu32
		" thread%s, %" PRIu64 " bytes (%.2f per call), %s",
		path, t.header.pid, t.header.command, t.nevents, used ? line : "none", threads,
		threads == 1 ? "" : "s", t.trace_bytes,
		t.nevents ? (double)t.trace_bytes / (double)t.nevents : 0.0,
		trace_state_name(t.header.state));
	if (t.header.lost)
		fprintf(stderr, "; incomplete: %" PRIu64 " calls not recorded (%s)", t.header.lost,
			lost_reason(&t.header, why, sizeof(why)));
	fputc('\n', stderr);
	trace_release(&t);
	return (int64_t)t.nevents;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The traces of the other processes: FILE.PID[.N] with this session. */
static void summarize_others(const char *file, uint64_t session, int quiet)
{
	char dir[PATH_MAX], *slash, **names = NULL;
	const char *base;
	size_t n = 0, alloc = 0, baselen;
	struct dirent *d;
	DIR *dp;

	snprintf(dir, sizeof(dir), "%s", file);
	slash = strrchr(dir, '/');
	*slash = '\0';
	base = file + (slash - dir) + 1;
	baselen = strlen(base);
	dp = opendir(dir[0] ? dir : "/");
	if (!dp)
		return;
	while ((d = readdir(dp))) {
		const char *rest = d->d_name + baselen;

		if (strncmp(d->d_name, base, baselen) || rest[0] != '.' ||
		    strspn(rest + 1, "0123456789.") != strlen(rest + 1) || !rest[1])
			continue;
		if (ALLOC_GROW(names, n, alloc))
			die_out_of_memory();
		if (asprintf(&names[n++], "%s/%s", dir, d->d_name) < 0)
			die_out_of_memory();
	}
	closedir(dp);
	qsort(names, n, sizeof(*names), name_cmp);
	for (size_t i = 0; i < n; i++) {
		summarize(names[i], session, 0, quiet);
		free(names[i]);
	}
	free(names);
}

/* What a file of mode MODE is, for a message. */
static const char *file_kind(mode_t mode)
{
	if (S_ISDIR(mode))
		return "directory";
	if (S_ISCHR(mode))
		return "character device";
	if (S_ISBLK(mode))
		return "block device";
	if (S_ISFIFO(mode))
		return "FIFO";
	if (S_ISSOCK(mode))
		return "socket";
	return "special file";
}

/*
 * The trace's absolute path for -o OUTPUT into FILE (SIZE bytes), its
 * symbolic links followed: the target is written, the link kept. A
 * regular file there is removed (the library creates FILE itself, with
 * O_EXCL); a new one must be creatable. Anything else (a device, a FIFO, a
 * directory, a path too long for the library) is refused untouched.
 * Returns 0, or -1 after printing why.
 */
static int trace_file_for(const char *output, char *file, size_t size)
{
	char cwd[PATH_MAX], *path = NULL, *target = NULL;
	struct stat st;
	int magic, fd, ret = -1;

	if (output[0] != '/' && !getcwd(cwd, sizeof(cwd)))
		return error("cannot find the current directory: %s", strerror(errno));
	if (asprintf(&path, "%s%s%s", output[0] == '/' ? "" : cwd, output[0] == '/' ? "" : "/",
		     output) < 0)
		die_out_of_memory();
	if (output_resolve_links(path, &target, &magic)) {
		if (errno == ENAMETOOLONG)
			error("--output is too long: a trace's path may have %d bytes at most",
			      RECORD_FILE_MAX);
		else
			error("cannot write '%s': %s", output, strerror(errno));
		goto out;
	}
	if (magic) {
		error("cannot write a trace to '%s': it names an open file (/proc), not a path",
		      output);
		goto out;
	}
	if (strlen(target) > RECORD_FILE_MAX) {
		error("--output is too long: a trace's path may have %d bytes at most, '%.40s...' "
		      "has %zu", RECORD_FILE_MAX, target, strlen(target));
		goto out;
	}
	if (!lstat(target, &st) && !S_ISREG(st.st_mode)) {
		error("cannot write a trace to '%s': it is a %s, not a regular file (left as it was)",
		      output, file_kind(st.st_mode));
		goto out;
	}
	if (unlink(target) && errno != ENOENT) {
		error("cannot replace '%s': %s", output, strerror(errno));
		goto out;
	}
	fd = open(target, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0) {
		error("cannot write '%s': %s", output, strerror(errno));
		goto out;
	}
	close(fd);
	unlink(target);
	snprintf(file, size, "%s", target);
	ret = 0;
out:
	free(path);
	free(target);
	return ret;
}

/*
 * Whether the dynamic loader would skip the library for the program EXE:
 * an ELF file of another class or machine than this binary's (a 32-bit
 * program). Writes why into WHY. A file that is not ELF (a script) passes.
 */
static int elf_foreign(const char *exe, char *why, size_t size)
{
	unsigned char mine[EI_NIDENT + 4], theirs[EI_NIDENT + 4];
	int fd;
	ssize_t n;

	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, mine, sizeof(mine));
	close(fd);
	if (n != (ssize_t)sizeof(mine))
		return 0;
	fd = open(exe, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, theirs, sizeof(theirs));
	close(fd);
	if (n != (ssize_t)sizeof(theirs) || memcmp(theirs, ELFMAG, SELFMAG))
		return 0;
	if (theirs[EI_CLASS] != mine[EI_CLASS]) {
		snprintf(why, size, "it is a %d-bit program, and the recording library is %d-bit",
			 theirs[EI_CLASS] == ELFCLASS32 ? 32 : 64, mine[EI_CLASS] == ELFCLASS32 ? 32 : 64);
		return 1;
	}
	/* e_machine, after e_ident and e_type, in the file's byte order (the same class as ours). */
	if (memcmp(theirs + EI_NIDENT + 2, mine + EI_NIDENT + 2, 2) || theirs[EI_DATA] != mine[EI_DATA]) {
		snprintf(why, size, "it is built for another machine than the recording library");
		return 1;
	}
	return 0;
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
 */
static void forward_signal(int sig, siginfo_t *info, void *context)
{
	(void)context;
	forwarded = sig;
	if (info->si_code != SI_KERNEL && forward_pid > 0)
		kill(forward_pid, sig);
}

/* What record runs, found and checked before anything starts. */
struct record_run {
	const char *output;         /* as given to --output */
	int quiet;                  /* no summary of the traces on standard error */
	char *const *argv;          /* COMMAND and its arguments */
	char exe[PATH_MAX];         /* COMMAND's program */
	char lib[PATH_MAX];         /* the recording library */
	char file[PATH_MAX];        /* the trace of COMMAND's process */
	uint64_t session;           /* the recording's number, in the header of each of its traces */
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
	if (record_library_find(run->lib, sizeof(run->lib))) {
		error("cannot find the recording library " RECORD_LIBRARY_NAME " (looked beside the "
		      "binary, in ../lib/allocbench, and in " ALLOCBENCH_LIBDIR ")");
		return 2;
	}
	if (trace_file_for(run->output, run->file, sizeof(run->file)))
		return 2;
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
	char session_text[32], root_text[32], *preload = NULL;
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
		snprintf(root_text, sizeof(root_text), "%ld", (long)getpid());
		if (setenv("LD_PRELOAD", preload, 1) || setenv(RECORD_FILE_ENV, run->file, 1) ||
		    setenv(RECORD_ROOT_ENV, root_text, 1) || setenv(RECORD_SESSION_ENV, session_text, 1))
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
static int record_wait(const struct record_run *run, pid_t pid, const sigset_t *old_mask,
		       struct sigaction *old_forward, int *status)
{
	struct sigaction ignore = { .sa_handler = SIG_IGN }, pass = { .sa_sigaction = forward_signal,
								      .sa_flags = SA_SIGINFO };
	struct sigaction old_quit;

	/*
	 * SIGQUIT as the shell's `time`: the keyboard's is for COMMAND, which
	 * decides. SIGINT, SIGTERM and SIGHUP are passed on, and record waits
	 * for COMMAND to end (a signal ignored when record started stays so).
	 */
	forward_pid = pid;
	sigemptyset(&ignore.sa_mask);
	sigemptyset(&pass.sa_mask);
	sigaction(SIGQUIT, &ignore, &old_quit);
	for (size_t k = 0; k < FORWARDS; k++) {
		sigaction(forward[k], NULL, &old_forward[k]);
		if (old_forward[k].sa_handler != SIG_IGN)
			sigaction(forward[k], &pass, NULL);
	}
	sigprocmask(SIG_SETMASK, old_mask, NULL);
	while (waitpid(pid, status, 0) < 0) {
		if (errno != EINTR) {
			error("cannot wait for '%s': %s", run->argv[0], strerror(errno));
			return -1;
		}
	}
	forward_pid = 0;
	sigaction(SIGQUIT, &old_quit, NULL);
	return 0;
}

/*
 * Summarizes the traces COMMAND wrote (STATUS, from waitpid()) on standard
 * error. Returns record's exit status: COMMAND's (128 + N after signal N),
 * or 1 when COMMAND succeeded and its trace is missing or unreadable.
 */
static int record_finish(const struct record_run *run, int status)
{
	struct stat st;
	int ret = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);

	if (!stat(run->file, &st) && st.st_size == 0) {
		error("the trace '%s' is empty: there was no room for it (is the file system full?)",
		      run->file);
		if (!ret)
			ret = 1;
	} else if (summarize(run->file, run->session, 1, run->quiet) < 0) {
		if (access(run->file, F_OK))
			error("no trace was written to '%s': '%s' did not load the recording library "
			      "(a statically linked program ignores LD_PRELOAD)", run->output, run->exe);
		if (!ret)
			ret = 1;
	}
	summarize_others(run->file, run->session, run->quiet);
	if (WIFSIGNALED(status))
		fprintf(stderr, "allocbench: '%s' was killed by signal %d (%s): exit status %d\n",
			run->argv[0], WTERMSIG(status), strsignal(WTERMSIG(status)), ret);
	return ret;
}

int record_command(const char *output, char *const *argv, int quiet, int *ended_by)
{
	struct record_run run = { .output = output, .quiet = quiet, .argv = argv };
	struct sigaction old_forward[FORWARDS];
	sigset_t old_mask;
	int status, ret;
	pid_t pid;

	*ended_by = 0;
	ret = record_prepare(&run);
	if (ret)
		return ret;
	pid = record_start(&run, &old_mask);
	if (pid < 0)
		return 2;
	if (record_wait(&run, pid, &old_mask, old_forward, &status))
		return 1;
	ret = record_finish(&run, status);
	for (size_t k = 0; k < FORWARDS; k++)
		sigaction(forward[k], &old_forward[k], NULL);
	if (WIFSIGNALED(status) && WTERMSIG(status) == forwarded)
		*ended_by = forwarded;
	return ret;
}

int cmd_record(int argc, char **argv)
{
	const char *output = RECORD_DEFAULT_FILE, *convert = NULL, *given = NULL;
	char why[1024];
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
		} else if (!strcmp(a, "--trace-version") || !strncmp(a, "--trace-version=", 16)) {
			const char *v = a[15] ? a + 16 : ++i < argc ? argv[i] : NULL;

			if (!v || (strcmp(v, "2") && strcmp(v, "3")))
				usage_die("--trace-version takes 2 or 3 (see allocbench record --help)");
			trace_version = v[0] - '0';
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
		if (trace_v3_convert(convert, given ? given : convert, TRACE_V3_LEVEL, why, sizeof(why)))
			die(1, "%s", why);
		return 0;
	}
	if (i >= argc)
		usage_die("record needs a COMMAND to run (see allocbench record --help)");
	if (!strcmp(output, "-"))
		usage_die("a trace is a file: --output '-' is not one (name a file)");
	ret = record_command(output, argv + i, 0, &sig);
	/* Ended by the signal record passed on: record ends by it too, as a shell expects. */
	if (sig) {
		fflush(NULL);
		signal(sig, SIG_DFL);
		raise(sig);
	}
	return ret;
}
