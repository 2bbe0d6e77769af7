/*
 * recorder_exit.c - where a process's trace starts and ends (recorder.h):
 * the first call (or the library's constructor) resolves the next
 * allocator and opens it, a fork child starts its own, exec, _exit and exit
 * end it; a failed exec takes it up again.
 */
#include "trace/recorder.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdarg.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ------------------------------------------------------------ the start */

struct next_calls next;

int init_state;

int init_slow(void)
{
	int expected = INIT_NONE;

	if (__atomic_load_n(&init_state, __ATOMIC_ACQUIRE) == INIT_READY)
		return 1;
	if (!__atomic_compare_exchange_n(&init_state, &expected, INIT_RUNNING, 0,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return 0;  /* being resolved (by this thread, inside dlsym): the boot buffer */
	next.malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
	next.calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
	next.realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
	next.free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
	next.posix_memalign = (int (*)(void **, size_t, size_t))dlsym(RTLD_NEXT, "posix_memalign");
	next.aligned_alloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "aligned_alloc");
	next.memalign = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "memalign");
	next.valloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "valloc");
	next.pvalloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "pvalloc");
	next.usable_size = (size_t (*)(void *))dlsym(RTLD_NEXT, "malloc_usable_size");
	next.execve = (int (*)(const char *, char *const[], char *const[]))dlsym(RTLD_NEXT, "execve");
	next.execvpe = (int (*)(const char *, char *const[], char *const[]))dlsym(RTLD_NEXT, "execvpe");
	next.fexecve = (int (*)(int, char *const[], char *const[]))dlsym(RTLD_NEXT, "fexecve");
	next.pthread_create = (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *))
		dlsym(RTLD_NEXT, "pthread_create");
	if (!next.malloc || !next.calloc || !next.realloc || !next.free)
		abort();  /* nothing to forward to: no allocator at all */
	trace_open();
	pthread_atfork(fork_prepare, fork_parent, fork_child);
	__atomic_store_n(&init_state, INIT_READY, __ATOMIC_RELEASE);
	return 1;
}

__attribute__((constructor)) static void recorder_start(void)
{
	ready();
}

__attribute__((destructor)) static void recorder_stop(void)
{
	trace_end(TRACE_STATE_EXIT, -1);
}

/* ------------------------------------------------------------ fork */

void fork_prepare(void)
{
	lock_grow();
}

void fork_parent(void)
{
	unlock_grow();
}

/* The child's trace starts clean: its own file, its own order, its own threads. */
void fork_child(void)
{
	unlock_grow();
	if (!hdr)
		return;
	trace_close_inherited();
	memset(windows, 0, sizeof(windows));
	seq_counter = 0;
	threaded = 0;  /* the forking thread is the child's only one */
	fork_generation++;
	generation++;
	memset(ts.window, 0, sizeof(ts.window));
	ts.chunk = NULL;
	ts.has_index = 0;
	ts.busy = 0;
	ts.stash_head = ts.stash_tail = 0;
	trace_open();
}

/* ------------------------------------------------------------ how the process ends */

/*
 * exec replaces the image: the trace ends here, unless the exec fails. A
 * vfork child shares the parent's memory (and trace): it marks nothing.
 */
static int exec_begin(void)
{
	if (!hdr || getpid() != (pid_t)hdr->pid)
		return 0;
	trace_end(TRACE_STATE_EXEC, -1);
	return 1;
}

/* The exec failed: the trace goes on, unsealed (each thread unseals its chunk as it writes again). */
static void exec_failed(int marked)
{
	if (!marked)
		return;
	lock_grow();
	__atomic_store_n(&hdr->header_check, 0, __ATOMIC_RELEASE);
	/* Its figures are read again at its real end; a trace being written has none. */
	hdr->run_ns = 0;
	hdr->hwm_kib = 0;
	__atomic_store_n(&hdr->state, TRACE_STATE_WRITING, __ATOMIC_RELEASE);
	__atomic_store_n(&rec_mode, rec_mode_before_end, __ATOMIC_RELEASE);
	__atomic_add_fetch(&generation, 1, __ATOMIC_ACQ_REL);
	unlock_grow();
}

EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	int marked, ret, saved;

	ready();
	marked = exec_begin();
	ret = next.execve(path, argv, envp);
	saved = errno;
	exec_failed(marked);
	errno = saved;
	return ret;
}

EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	int marked, ret, saved;

	ready();
	marked = exec_begin();
	ret = next.execvpe(file, argv, envp);
	saved = errno;
	exec_failed(marked);
	errno = saved;
	return ret;
}

EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	int marked, ret, saved;

	ready();
	marked = exec_begin();
	ret = next.fexecve(fd, argv, envp);
	saved = errno;
	exec_failed(marked);
	errno = saved;
	return ret;
}


EXPORT int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

EXPORT int execvp(const char *file, char *const argv[])
{
	return execvpe(file, argv, environ);
}

/* execl, execlp, execle: the arguments gathered into an array on the stack. */
#define EXECL_MAX 4096

static int execl_common(int kind, const char *path, const char *arg0, va_list ap)
{
	char *argv[EXECL_MAX];
	char *const *envp = environ;
	int n = 0;

	argv[n++] = (char *)(uintptr_t)arg0;
	while (arg0 && (argv[n] = va_arg(ap, char *))) {
		if (++n == EXECL_MAX) {
			errno = E2BIG;
			return -1;
		}
	}
	if (!arg0)
		argv[0] = NULL;
	if (kind == 'e')
		envp = va_arg(ap, char *const *);
	return kind == 'p' ? execvpe(path, argv, envp) : execve(path, argv, envp);
}

EXPORT int execl(const char *path, const char *arg, ...)
{
	va_list ap;
	int ret;

	va_start(ap, arg);
	ret = execl_common('l', path, arg, ap);
	va_end(ap);
	return ret;
}

EXPORT int execlp(const char *file, const char *arg, ...)
{
	va_list ap;
	int ret;

	va_start(ap, arg);
	ret = execl_common('p', file, arg, ap);
	va_end(ap);
	return ret;
}

EXPORT int execle(const char *path, const char *arg, ...)
{
	va_list ap;
	int ret;

	va_start(ap, arg);
	ret = execl_common('e', path, arg, ap);
	va_end(ap);
	return ret;
}

EXPORT __attribute__((noreturn)) void _exit(int status)
{
	/* A vfork child shares the parent's trace: it leaves it alone. */
	if (hdr && getpid() == (pid_t)hdr->pid) {
		trace_end(TRACE_STATE__EXIT, status);
	}
	for (;;)
		syscall(SYS_exit_group, status);
}

EXPORT __attribute__((noreturn)) void _Exit(int status)
{
	_exit(status);
}
