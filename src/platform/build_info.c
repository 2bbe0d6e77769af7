/*
 * build_info.c - how this binary was built (build_info.h). The Makefile
 * writes BUILD/build_flags.h from BUILD/build-flags and compiles this file
 * with -IBUILD; a build without it (make fuzz) says "unknown".
 */
#include "platform/build_info.h"

#if defined(__has_include)
#if __has_include("build_flags.h")
#include "build_flags.h"
#endif
#endif

const char *build_compiler(void)
{
#if defined(__clang__)
	return "clang " __clang_version__;
#elif defined(__GNUC__)
	return "gcc " __VERSION__;
#else
	return "unknown";
#endif
}

const char *build_flags(void)
{
#ifdef ALLOCBENCH_BUILD_FLAGS
	return ALLOCBENCH_BUILD_FLAGS;
#else
	return "unknown";
#endif
}

int build_papi(void)
{
	return ALLOCBENCH_PAPI;
}
