/*
 * abi.c - the program each ABI's rows are measured in (abi.h).
 */
#include "model/abi.h"
#include "platform/probe.h"
#include "platform/util.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* [0] 64-bit, [1] 32-bit. */
static struct abi_program programs[2];
static int prepared[2];
_Static_assert(sizeof(void *) == 8, "the tool is a 64-bit program; 32-bit rows are a child's");

unsigned abi_native(void)
{
	return (unsigned)sizeof(void *) * 8;
}

/* The directory of this program's executable into DIR (PATH_MAX); 0 or -1. */
static int self_dir(char *dir)
{
	ssize_t n = readlink("/proc/self/exe", dir, PATH_MAX - 1);
	char *slash;

	if (n <= 0)
		return -1;
	dir[n] = '\0';
	if (!(slash = strrchr(dir, '/')))
		return -1;
	*slash = '\0';
	return 0;
}

/*
 * Finds NAME (ABI_CHILD32 or ABI_CHILD64), the measuring program WHAT, into
 * PATH (PATH_MAX): beside this program, then in ABI_LIBEXEC. 0; 1 when it is
 * in neither, WHY saying where it looked; -1 when this program's directory
 * is unknown, WHY saying why.
 */
static int find_child(const char *name, const char *what, char *path, char *why,
		      size_t why_size)
{
	char dir[PATH_MAX];

	if (self_dir(dir)) {
		snprintf(why, why_size, "cannot find this program's directory (/proc/self/exe: %s)",
			 strerror(errno));
		return -1;
	}
	if (snprintf(path, PATH_MAX, "%s/%s", dir, name) < PATH_MAX && !access(path, X_OK))
		return 0;
	if (snprintf(path, PATH_MAX, "%s/%s/%s", dir, ABI_LIBEXEC, name) < PATH_MAX &&
	    !access(path, X_OK))
		return 0;
	snprintf(why, why_size, "this build has no %s (%s, looked for in %s and %s/%s)", what,
		 name, dir, dir, ABI_LIBEXEC);
	return 1;
}

/* Finds allocbench-child32 into PATH (PATH_MAX); 0, or -1 with WHY saying where it looked. */
static int find_child32(char *path, char *why, size_t why_size)
{
	const char *env = getenv(ABI_CHILD32_ENV);
	size_t len;
	int ret;

	if (env && *env) {
		if (access(env, X_OK)) {
			snprintf(why, why_size, "$%s names '%s': %s", ABI_CHILD32_ENV, env,
				 strerror(errno));
			return -1;
		}
		copy_string(path, PATH_MAX, env);
		return 0;
	}
	ret = find_child(ABI_CHILD32, "32-bit measuring program", path, why, why_size);
	if (ret <= 0)
		return ret;
	/* Not built: what it takes. */
	len = strlen(why);
	snprintf(why + len, why_size - len, ": make builds it only where the compiler can "
		 "build 32-bit programs; install the Debian packages %s, then run make again",
		 ABI_PACKAGES);
	return -1;
}

/* Finds NAME in $PATH into OUT (PATH_MAX); 0 or -1. */
static int find_in_path(const char *name, char *out)
{
	const char *p = getenv("PATH");

	if (!p || !*p)
		p = "/usr/local/bin:/usr/bin:/bin";
	while (*p) {
		size_t len = strcspn(p, ":");

		if (len && snprintf(out, PATH_MAX, "%.*s/%s", (int)len, p, name) < PATH_MAX &&
		    !access(out, X_OK))
			return 0;
		p += len;
		p += *p == ':';
	}
	return -1;
}

/*
 * Runs ARGV[0] (no $PATH search) with standard output into OUT (SIZE bytes,
 * its first line) and standard error dropped. Returns its exit status, 128 +
 * a signal, or -1 with errno when it could not be executed (ENOEXEC: the
 * kernel does not run that kind of program).
 */
static int run_capture(char *const argv[], char *out, size_t size)
{
	posix_spawn_file_actions_t actions;
	int pipefd[2], status, err;
	size_t got = 0;
	pid_t pid;

	out[0] = '\0';
	if (pipe2(pipefd, O_CLOEXEC))
		return -1;
	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&actions, pipefd[1], STDOUT_FILENO);
	posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	err = posix_spawn(&pid, argv[0], &actions, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&actions);
	close(pipefd[1]);
	if (err) {
		close(pipefd[0]);
		errno = err;
		return -1;
	}
	for (;;) {
		ssize_t n = read(pipefd[0], out + got, size - 1 - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
		if (got == size - 1)
			break;
	}
	close(pipefd[0]);
	out[got] = '\0';
	out[strcspn(out, "\n")] = '\0';
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/*
 * Whether P answered `--version` (RET: run_capture()'s) as NAME of this
 * version; -1 with WHY otherwise (HINT: what may be missing).
 */
static int version_check(const struct abi_program *p, const char *name, int ret,
			 const char *hint, char *why, size_t why_size)
{
	size_t len = strlen(name);

	if (ret < 0) {
		snprintf(why, why_size, "%s%s%s --version could not be run: %s%s", p->emulator,
			 p->emulator[0] ? " " : "", p->path, strerror(errno), hint);
		return -1;
	}
	if (ret != 0 || strncmp(p->version, name, len) || p->version[len] != ' ') {
		snprintf(why, why_size, "%s%s%s --version failed (status %d%s%s)%s",
			 p->emulator, p->emulator[0] ? " " : "", p->path, ret,
			 p->version[0] ? ", printed: " : "", p->version, hint);
		return -1;
	}
	if (strcmp(p->version + len + 1, ALLOCBENCH_VERSION)) {
		snprintf(why, why_size, "%s is version %s, not this program's %s: build both again "
			 "(make)", p->path, p->version + len + 1, ALLOCBENCH_VERSION);
		return -1;
	}
	return 0;
}

static int prepare32(struct abi_program *p, char *why, size_t why_size)
{
	char *argv[4];
	const char *emulate = getenv(ABI_EMULATE_ENV);
	int ret = -1, exec_errno = 0;

	if (find_child32(p->path, why, why_size))
		return -1;
	argv[0] = p->path;
	argv[1] = (char *)"--version";
	argv[2] = NULL;
	if (!emulate || strcmp(emulate, "emulate")) {
		ret = run_capture(argv, p->version, sizeof(p->version));
		exec_errno = ret < 0 ? errno : 0;
	}
	if (ret < 0 && exec_errno == ENOENT) {
		/* The file is there: what is missing is its interpreter, /lib/ld-linux.so.2. */
		snprintf(why, why_size, "cannot execute %s: its 32-bit C library is missing (Debian "
			 "package libc6-i386)", p->path);
		return -1;
	}
	if (ret < 0) {
		if (find_in_path(ABI_EMULATOR, p->emulator)) {
			if (!exec_errno)
				snprintf(why, why_size, "$%s asks for %s, which is not installed "
					 "(Debian package %s)", ABI_EMULATE_ENV, ABI_EMULATOR,
					 ABI_EMULATOR_PACKAGE);
			else
				snprintf(why, why_size, "this kernel does not run 32-bit programs "
					 "(%s: %s), and %s, which would run it on this machine, is "
					 "not installed (Debian package %s)", p->path,
					 strerror(exec_errno), ABI_EMULATOR, ABI_EMULATOR_PACKAGE);
			return -1;
		}
		argv[0] = p->emulator;
		argv[1] = p->path;
		argv[2] = (char *)"--version";
		argv[3] = NULL;
		ret = run_capture(argv, p->version, sizeof(p->version));
		if (ret < 0) {
			snprintf(why, why_size, "cannot execute %s: %s", p->emulator, strerror(errno));
			return -1;
		}
	}
	return version_check(p, ABI_CHILD32, ret, ": its 32-bit C library may be missing "
			     "(Debian package libc6-i386)", why, why_size);
}

static int prepare64(struct abi_program *p, char *why, size_t why_size)
{
	char *argv[3], entry[32], *end;
	int ret;

	if (find_child(ABI_CHILD64, "64-bit measuring program", p->path, why, why_size)) {
		/* A binary copied alone measures its 64-bit rows itself (abi.h). */
		copy_string(p->path, sizeof(p->path), "/proc/self/exe");
		p->entry_anon_bytes = probe_entry_anon_bytes();
		return 0;
	}
	argv[0] = p->path;
	argv[1] = (char *)"--version";
	argv[2] = NULL;
	ret = run_capture(argv, p->version, sizeof(p->version));
	if (version_check(p, ABI_CHILD64, ret, "", why, why_size))
		return -1;
	argv[1] = (char *)"__entry";
	ret = run_capture(argv, entry, sizeof(entry));
	errno = 0;
	p->entry_anon_bytes = strtoull(entry, &end, 10);
	if (ret != 0 || end == entry || *end || errno) {
		snprintf(why, why_size, "%s __entry failed (status %d, printed '%s')", p->path, ret,
			 entry);
		return -1;
	}
	return 0;
}

int abi_prepare(unsigned abi, char *why, size_t why_size)
{
	struct abi_program *p = &programs[abi == 32];

	if (abi != 32 && abi != 64) {
		snprintf(why, why_size, "no ABI %u (expected 32 or 64)", abi);
		return -1;
	}
	if (prepared[abi == 32])
		return 0;
	memset(p, 0, sizeof(*p));
	p->abi = abi;
	if (abi == 32 ? prepare32(p, why, why_size) : prepare64(p, why, why_size))
		return -1;
	prepared[abi == 32] = 1;
	return 0;
}

const struct abi_program *abi_program(unsigned abi)
{
	if ((abi != 32 && abi != 64) || !prepared[abi == 32])
		return NULL;
	return &programs[abi == 32];
}
