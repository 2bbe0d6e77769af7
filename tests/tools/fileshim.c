/*
 * fileshim.c - a preload (libfileshim.so) that changes a file under the
 * program that reads it, at a chosen moment, for the tests of a trace that
 * changes while allocbench reads it. FILESHIM_PATH names the file; then
 *
 *   FILESHIM_SHRINK=N   the file is cut to N bytes just after the program
 *                       maps it, or before its second pread of it
 *   FILESHIM_SWAP=NEW   NEW is renamed over it just before it is opened for
 *                       the FILESHIM_NTH time (default 3) by any process
 *                       with the preload, counted in the file
 *                       FILESHIM_COUNT
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

static int shim_fd = -1;
static int preads;

static int is_target(const char *path)
{
	const char *target = getenv("FILESHIM_PATH");

	return target && path && !strcmp(path, target);
}

static void shrink(void)
{
	const char *n = getenv("FILESHIM_SHRINK");

	if (n && truncate(getenv("FILESHIM_PATH"), atol(n)))
		perror("fileshim: truncate");
}

static void before_open(const char *path)
{
	const char *swap = getenv("FILESHIM_SWAP"), *count = getenv("FILESHIM_COUNT");
	const char *nth = getenv("FILESHIM_NTH");
	struct stat st;
	int fd;

	if (!is_target(path) || !swap || !count)
		return;
	fd = ((int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open"))(count, O_WRONLY | O_APPEND | O_CREAT, 0600);
	if (fd < 0 || write(fd, "x", 1) != 1 || fstat(fd, &st))
		perror("fileshim: count");
	if (fd >= 0)
		close(fd);
	if (st.st_size == (nth ? atol(nth) : 3) && rename(swap, path))
		perror("fileshim: rename");
}

static int after_open(const char *path, int fd)
{
	if (fd >= 0 && is_target(path)) {
		shim_fd = fd;
		preads = 0;
	}
	return fd;
}

#define OPEN_LIKE(name)                                                        \
	int name(const char *path, int flags, ...)                             \
	{                                                                      \
		static int (*next)(const char *, int, ...);                    \
		mode_t mode = 0;                                               \
		va_list ap;                                                    \
									       \
		va_start(ap, flags);                                           \
		if (flags & (O_CREAT | O_TMPFILE))                             \
			mode = va_arg(ap, mode_t);                             \
		va_end(ap);                                                    \
		if (!next)                                                     \
			next = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, #name); \
		before_open(path);                                             \
		return after_open(path, next(path, flags, mode));              \
	}
OPEN_LIKE(open)
OPEN_LIKE(open64)

#define PREAD_LIKE(name)                                                       \
	ssize_t name(int fd, void *buf, size_t n, off_t at)                    \
	{                                                                      \
		static ssize_t (*next)(int, void *, size_t, off_t);            \
									       \
		if (!next)                                                     \
			next = (ssize_t (*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, #name); \
		if (fd == shim_fd && ++preads == 2)                            \
			shrink();                                              \
		return next(fd, buf, n, at);                                   \
	}
PREAD_LIKE(pread)
PREAD_LIKE(pread64)

#define MMAP_LIKE(name)                                                        \
	void *name(void *addr, size_t len, int prot, int flags, int fd, off_t at) \
	{                                                                      \
		static void *(*next)(void *, size_t, int, int, int, off_t);    \
		void *p;                                                       \
									       \
		if (!next)                                                     \
			next = (void *(*)(void *, size_t, int, int, int, off_t))dlsym(RTLD_NEXT, #name); \
		p = next(addr, len, prot, flags, fd, at);                      \
		if (fd >= 0 && fd == shim_fd && p != MAP_FAILED)               \
			shrink();                                              \
		return p;                                                      \
	}
MMAP_LIKE(mmap)
MMAP_LIKE(mmap64)
