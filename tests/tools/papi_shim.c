/*
 * papi_shim.c - an LD_PRELOAD library for tests/cli/t0006-counters.sh that
 * makes PAPI fail the way a broken installation or a busy PMU would, so the
 * tests can check that allocbench says why and still measures. PAPI itself
 * is called for everything else.
 *
 *   PAPI_SHIM=init         PAPI_library_init fails with PAPI_ESYS (-3)
 *   PAPI_SHIM=child-start  PAPI_start fails with PAPI_ECNFLCT (-8), only in
 *                          the measuring children (allocbench __measure ...)
 *
 * Built by the test with: cc -shared -fPIC -o papi_shim.so papi_shim.c
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int PAPI_library_init(int version);
int PAPI_start(int set);

static int mode_is(const char *mode)
{
	const char *m = getenv("PAPI_SHIM");

	return m && !strcmp(m, mode);
}

/* 1 in a measuring child: its second argument is "__measure". */
static int in_child(void)
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

int PAPI_library_init(int version)
{
	int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, "PAPI_library_init");

	if (mode_is("init") || !real)
		return -3;
	return real(version);
}

int PAPI_start(int set)
{
	int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, "PAPI_start");

	if ((mode_is("child-start") && in_child()) || !real)
		return -8;
	return real(set);
}
