/*
 * counters_internal.h - what the files of the counters module share; the
 * contract is counters.h. The module is cut where PAPI starts:
 *
 *   counters_list.c     the --counters lists and the program's own events'
 *                       names and descriptions: pure C, no PAPI (the fuzzer's)
 *   counters_papi.c     counting through PAPI and libsde, in the child
 *   counters_explain.c  why an event cannot be counted here, in PAPI's words
 *   counters_nopapi.c   the twin of both PAPI files for make PAPI=0
 *
 * The Makefile builds either the two PAPI files or their twin, never both.
 */
#ifndef ALLOCBENCH_COUNTERS_INTERNAL_H
#define ALLOCBENCH_COUNTERS_INTERNAL_H

#include "platform/counters.h"

#include <string.h>

/* The program's own events: counters_sde_names without its NULL. */
#define COUNTERS_SDE_COUNT 6

static inline int counters_starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* Index of NAME (without the prefix) among the program's own events, or -1. */
int counters_sde_index(const char *name);

/*
 * 1 when the program's own event K is given by a reader a backend attaches
 * (counters_attach_reader(): PAPI reads it as INSTANT), 0 when it is the
 * loop's own count (counters_note_allocs/frees(): DELTA).
 */
int counters_sde_attached(size_t k);

/*
 * What event NAME (a full name, sde:::allocbench::NAME) counts when it is
 * one of the program's own; NULL for any other name.
 */
const char *counters_sde_description(const char *name);

/* Clears COUNTERS for LIST: no event set, no component, nothing counted yet. */
void counters_reset(struct counters *counters, const struct counter_list *list);

#endif
