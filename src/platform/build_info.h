/*
 * build_info.h - how this binary was built, for the reports: the compiler,
 * the command line the Makefile compiled and linked with, and whether PAPI
 * is in.
 */
#ifndef ALLOCBENCH_BUILD_INFO_H
#define ALLOCBENCH_BUILD_INFO_H

/* "gcc 12.2.0", "clang 14.0.6", or "unknown": the compiler of this file. */
const char *build_compiler(void);

/*
 * The compiler and every flag of the build ("cc -std=c11 ... -O2 -g ...
 * -pthread"), as the Makefile recorded them in BUILD/build-flags, or
 * "unknown" for a build that did not record them (the fuzzers').
 */
const char *build_flags(void);

/* 1 when built with PAPI (make PAPI=1, the default), 0 with PAPI=0. */
int build_papi(void);

#endif
