/*
 * check.h - the unit tests' whole framework: CHECK(name, expr) prints one
 * "ok - NAME" or "not ok - NAME" line, which tests/run.sh counts;
 * check_exit() prints the plan and returns the status (1 when any check
 * failed).
 */
#ifndef ALLOCBENCH_CHECK_H
#define ALLOCBENCH_CHECK_H

#include <stdio.h>

static int check_failures;
static int check_count;

#define CHECK(name, expr)                                                      \
	do {                                                                   \
		check_count++;                                                 \
		if (expr) {                                                    \
			printf("ok - %s\n", (name));                           \
		} else {                                                       \
			check_failures++;                                      \
			printf("not ok - %s (%s:%d: %s)\n", (name), __FILE__,  \
			       __LINE__, #expr);                               \
		}                                                              \
	} while (0)

/*
 * SKIP(name, why): a check that needs something this host does not have;
 * prints "skip - NAME: WHY", counted in the plan, neither passed nor failed.
 */
#define SKIP(name, why)                                                        \
	do {                                                                   \
		check_count++;                                                 \
		printf("skip - %s: %s\n", (name), (why));                      \
	} while (0)

/* Prints the TAP plan "1..N": tests/run.sh fails a test without one. */
static inline int check_exit(void)
{
	printf("1..%d\n", check_count);
	return check_failures ? 1 : 0;
}

#endif
