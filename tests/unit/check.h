/*
 * check.h - the unit tests' whole framework: CHECK(name, expr) prints one
 * "ok - NAME" or "not ok - NAME" line, which tests/run.sh counts;
 * check_exit() returns the status (1 when any check failed).
 */
#ifndef ALLOCBENCH_CHECK_H
#define ALLOCBENCH_CHECK_H

#include <stdio.h>

static int check_failures;

#define CHECK(name, expr)                                                      \
	do {                                                                   \
		if (expr) {                                                    \
			printf("ok - %s\n", (name));                           \
		} else {                                                       \
			check_failures++;                                      \
			printf("not ok - %s (%s:%d: %s)\n", (name), __FILE__,  \
			       __LINE__, #expr);                               \
		}                                                              \
	} while (0)

static inline int check_exit(void)
{
	return check_failures ? 1 : 0;
}

#endif
