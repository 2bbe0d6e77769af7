/*
 * backends_list.h - every backend --backend knows, whether it can run on
 * this machine, and why not: the data of `allocbench backends` and
 * `--backend list` (report/report_backends.h writes it).
 */
#ifndef ALLOCBENCH_BACKENDS_LIST_H
#define ALLOCBENCH_BACKENDS_LIST_H

#include <limits.h>
#include <stddef.h>

struct preload;

/* One line of the list. */
struct backend_entry {
	const char *name;
	const char *kind;       /* "built-in", "preload" (a known allocator) or "--preload" */
	int available;          /* 1: --backend NAME measures it here */
	char what[PATH_MAX + 64]; /* the summary, or the library preloaded */
	char reason[768];       /* why not, when not available */
	const char *package;    /* the Debian package of a known allocator, or NULL */
};

/*
 * Every backend, in --backend all's order: the built-in backends first,
 * then the known third-party allocators, each looked up as --backend would
 * look it up (preload_locate()), then the NEXTRA backends of EXTRA (from
 * --preload). Returns *N entries, which the caller frees, or NULL after an
 * error (out of memory).
 */
struct backend_entry *backends_list_collect(struct preload *const *extra, size_t nextra,
					    size_t *n);

#endif
