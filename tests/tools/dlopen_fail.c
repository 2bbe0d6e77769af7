/*
 * dlopen_fail.c - an LD_PRELOAD library for tests/cli/t0020-papi-dlopen.sh:
 * dlopen() of a library whose name contains $DLOPEN_FAIL fails as a missing
 * library does, with the dynamic loader's own kind of message, so the test
 * can check what allocbench says when PAPI is not installed. With
 * DLOPEN_FAIL_MEASURING=1 it fails only in the measuring processes
 * (allocbench __measure ...). Every other dlopen() is the C library's.
 *
 * Built by the test with: cc -shared -fPIC -o dlopen_fail.so dlopen_fail.c
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char message[512];
static int pending;

/* 1 in a measuring process: its second argument is "__measure". */
static int in_measuring(void)
{
	char buf[256];
	size_t n;
	FILE *f = fopen("/proc/self/cmdline", "rb");

	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return strlen(buf) + 1 < n && !strcmp(buf + strlen(buf) + 1, "__measure");
}

void *dlopen(const char *name, int flags)
{
	void *(*real)(const char *, int) = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
	const char *fail = getenv("DLOPEN_FAIL"), *measuring = getenv("DLOPEN_FAIL_MEASURING");

	if (name && fail && *fail && strstr(name, fail) &&
	    !(measuring && !strcmp(measuring, "1") && !in_measuring())) {
		snprintf(message, sizeof(message), "%s: cannot open shared object file: "
			 "No such file or directory", name);
		pending = 1;
		return NULL;
	}
	return real ? real(name, flags) : NULL;
}

char *dlerror(void)
{
	char *(*real)(void) = (char *(*)(void))dlsym(RTLD_NEXT, "dlerror");

	if (pending) {
		pending = 0;
		return message;
	}
	return real ? real() : NULL;
}
