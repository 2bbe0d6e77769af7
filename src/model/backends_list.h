/*
 * backends_list.h - every backend --backend knows, whether it can run on
 * this machine, and why not: what `allocbench backends` and `--backend
 * list` print.
 */
#ifndef ALLOCBENCH_BACKENDS_LIST_H
#define ALLOCBENCH_BACKENDS_LIST_H

#include <stddef.h>
#include <stdio.h>

struct preload;

/*
 * Writes the list to OUT as text (an aligned table: name, "yes" or "no",
 * then what it is, the library it preloads or why it cannot run) or, JSON
 * set, as a JSON document {"backends": [...]}. The built-in backends come
 * first, then the known third-party allocators, each looked up as --backend
 * would look it up (preload_locate()), then the N backends of EXTRA (from
 * --preload). Returns 0, or -1 when writing fails.
 */
int backends_list_write(FILE *out, int json, struct preload *const *extra, size_t n);

#endif
