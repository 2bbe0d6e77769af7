/*
 * cmd_record.c - `allocbench record [-o FILE] [--] COMMAND [ARG...]`: runs
 * COMMAND with the recording library (recorder.c) preloaded, waits for it,
 * prints a summary of the traces it wrote on standard error and exits with
 * COMMAND's status (128 + N after signal N). Like the other cmd_*.c files,
 * it may exit.
 */
#include "cli.h"
#include "commands.h"
#include "record/record.h"
#include "record/trace.h"
#include "util.h"

#include <dirent.h>
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
	CLI_OPT_HELP,
	CLI_OPTIONS_END,
};

static void record_help(FILE *out)
{
	fputs(
"usage: allocbench record [-o FILE] [--] COMMAND [ARG...]\n"
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
"Exits with COMMAND's status, 128 + N after signal N; 127 when COMMAND is not\n"
"found, 2 when it cannot be recorded (a setuid or setgid program, or one\n"
"with file capabilities, ignores LD_PRELOAD).\n"
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

int record_library_find(char *buf, size_t size)
{
	char exe[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			snprintf(buf, size, "%s/" RECORD_LIBRARY_NAME, exe);
			if (is_file(buf))
				return 0;
			snprintf(buf, size, "%s/../lib/allocbench/" RECORD_LIBRARY_NAME, exe);
			if (is_file(buf))
				return 0;
		}
	}
#ifdef ALLOCBENCH_BUILDDIR
	snprintf(buf, size, "%s/" RECORD_LIBRARY_NAME, ALLOCBENCH_BUILDDIR);
	if (is_file(buf))
		return 0;
#endif
	snprintf(buf, size, "%s/" RECORD_LIBRARY_NAME, ALLOCBENCH_LIBDIR);
	return is_file(buf) ? 0 : -1;
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

/* One line of the summary for the trace at PATH; returns its call count, or -1. */
static int64_t summarize(const char *path, uint64_t session, int root)
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
	for (size_t i = 0; i < t.nevents; i++) {
		calls[t.events[i].kind]++;
		if (t.events[i].thread >= threads)
			threads = t.events[i].thread + 1;
	}
	line[0] = '\0';
	for (unsigned k = 1; k < TRACE_KINDS && used < sizeof(line); k++)
		if (calls[k])
			used += (size_t)snprintf(line + used, sizeof(line) - used, "%s%s %" PRIu64,
						 used ? ", " : "", trace_kind_name(k), calls[k]);
	fprintf(stderr, "allocbench: %s: pid %" PRIu32 " (%s), %zu calls (%s) in %" PRIu32
		" thread%s, %" PRIu64 " bytes (%.2f per call), %s%s\n",
		path, t.header.pid, t.header.command, t.nevents, used ? line : "none", threads,
		threads == 1 ? "" : "s", t.trace_bytes,
		t.nevents ? (double)t.trace_bytes / (double)t.nevents : 0.0,
		trace_state_name(t.header.state),
		t.header.lost ? " (some calls lost: see allocbench report)" : "");
	trace_release(&t);
	return (int64_t)t.nevents;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The traces of the other processes: FILE.PID[.N] with this session. */
static void summarize_others(const char *file, uint64_t session)
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
		summarize(names[i], session, 0);
		free(names[i]);
	}
	free(names);
}

int cmd_record(int argc, char **argv)
{
	const char *output = RECORD_DEFAULT_FILE;
	char file[PATH_MAX], lib[PATH_MAX], exe[PATH_MAX], cwd[PATH_MAX], session_text[32];
	char root_text[32], *preload = NULL;
	const char *old_preload;
	struct sigaction ignore = { .sa_handler = SIG_IGN }, old_int, old_quit;
	struct stat st;
	struct timespec now;
	uint64_t session;
	int i, status, ret, fd;
	pid_t pid;

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
			output = cli_file_name(argv[i], "--output");
		} else if (!strncmp(a, "--output=", 9)) {
			output = cli_file_name(a + 9, "--output");
		} else if (!strncmp(a, "-o", 2)) {
			output = cli_file_name(a + 2, "--output");
		} else {
			usage_die("unknown option '%s' (see allocbench record --help; put COMMAND after "
				  "'--' if it starts with '-')", a);
		}
	}
	if (i >= argc)
		usage_die("record needs a COMMAND to run (see allocbench record --help)");
	if (!strcmp(output, "-"))
		usage_die("a trace is a file: --output '-' is not one (name a file)");
	if (command_find(argv[i], exe, sizeof(exe))) {
		error("cannot run '%s': command not found", argv[i]);
		return 127;
	}
	/* The dynamic loader ignores LD_PRELOAD in secure-execution mode. */
	if (!stat(exe, &st) && (st.st_mode & (S_ISUID | S_ISGID))) {
		error("cannot record '%s': it is set%sid, and the dynamic loader ignores LD_PRELOAD "
		      "for such a program, so nothing would be recorded", exe,
		      st.st_mode & S_ISUID ? "u" : "g");
		return 2;
	}
	if (getxattr(exe, "security.capability", NULL, 0) >= 0) {
		error("cannot record '%s': it has file capabilities, and the dynamic loader ignores "
		      "LD_PRELOAD for such a program, so nothing would be recorded", exe);
		return 2;
	}
	if (record_library_find(lib, sizeof(lib))) {
		error("cannot find the recording library " RECORD_LIBRARY_NAME " (looked beside the "
		      "binary, in ../lib/allocbench, and in " ALLOCBENCH_LIBDIR ")");
		return 2;
	}
	if (output[0] == '/') {
		snprintf(file, sizeof(file), "%s", output);
	} else {
		if (!getcwd(cwd, sizeof(cwd))) {
			error("cannot find the current directory: %s", strerror(errno));
			return 2;
		}
		if ((size_t)snprintf(file, sizeof(file), "%s/%s", cwd, output) >= sizeof(file))
			usage_die("--output '%s' is too long", output);
	}
	/* The process writes FILE itself (O_EXCL): an old trace goes now, and a bad path is said now. */
	if (unlink(file) && errno != ENOENT) {
		error("cannot replace '%s': %s", output, strerror(errno));
		return 2;
	}
	fd = open(file, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0) {
		error("cannot write '%s': %s", output, strerror(errno));
		return 2;
	}
	close(fd);
	unlink(file);
	clock_gettime(CLOCK_REALTIME, &now);
	session = ((uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec) ^ ((uint64_t)getpid() << 40);
	snprintf(session_text, sizeof(session_text), "%" PRIu64, session);
	old_preload = getenv("LD_PRELOAD");
	if (asprintf(&preload, "%s%s%s", lib, old_preload && *old_preload ? " " : "",
		     old_preload ? old_preload : "") < 0)
		die_out_of_memory();

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		error("cannot start '%s': %s", argv[i], strerror(errno));
		free(preload);
		return 2;
	}
	if (pid == 0) {
		snprintf(root_text, sizeof(root_text), "%ld", (long)getpid());
		if (setenv("LD_PRELOAD", preload, 1) || setenv(RECORD_FILE_ENV, file, 1) ||
		    setenv(RECORD_ROOT_ENV, root_text, 1) || setenv(RECORD_SESSION_ENV, session_text, 1))
			_exit(126);
		execv(exe, argv + i);
		fprintf(stderr, "allocbench: error: cannot run '%s': %s\n", exe, strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	free(preload);
	/* As the shell's `time`: the keyboard's signals are for COMMAND, which decides. */
	sigemptyset(&ignore.sa_mask);
	sigaction(SIGINT, &ignore, &old_int);
	sigaction(SIGQUIT, &ignore, &old_quit);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			error("cannot wait for '%s': %s", argv[i], strerror(errno));
			return 1;
		}
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	ret = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	if (summarize(file, session, 1) < 0) {
		if (access(file, F_OK))
			error("no trace was written to '%s': '%s' did not load the recording library "
			      "(a statically linked program ignores LD_PRELOAD)", output, exe);
		if (!ret)
			ret = 1;
	}
	summarize_others(file, session);
	if (WIFSIGNALED(status))
		fprintf(stderr, "allocbench: '%s' was killed by signal %d (%s): exit status %d\n",
			argv[i], WTERMSIG(status), strsignal(WTERMSIG(status)), ret);
	return ret;
}
