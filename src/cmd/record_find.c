/*
 * record_find.c - what record runs, found and checked before anything
 * starts (record_find.h).
 */
#include "cmd/record_find.h"
#include "platform/output.h"
#include "platform/util.h"
#include "trace/record.h"
#include "trace/trace_set.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef ALLOCBENCH_LIBDIR
#define ALLOCBENCH_LIBDIR "/usr/local/lib/allocbench"
#endif

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
	if (library_in(buf, size, ALLOCBENCH_LIBDIR, RECORD_LIBRARY_NAME))
		return 0;
	return error("cannot find the recording library " RECORD_LIBRARY_NAME " (looked beside the "
		     "binary, in ../lib/allocbench, and in " ALLOCBENCH_LIBDIR ")");
}

int command_find(const char *name, char *buf, size_t size)
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

int trace_file_for(const char *output, char *file, size_t size)
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
	if (strlen(strrchr(target, '/') + 1) > RECORD_NAME_MAX) {
		error("--output's name is too long: each process's trace adds up to %d bytes to it "
		      "(.PROGRAM.PID), and a name may have 255", RECORD_SUFFIX_MAX);
		goto out;
	}
	if (!lstat(target, &st) && !S_ISREG(st.st_mode)) {
		error("cannot write a trace to '%s': it is a %s, not a regular file (left as it was)",
		      output, file_kind(st.st_mode));
		goto out;
	}
	/* The earlier recording to FILE goes with it: its processes' traces too. */
	if (trace_set_remove(target) || (unlink(target) && errno != ENOENT)) {
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

int elf_foreign(const char *exe, char *why, size_t size)
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
