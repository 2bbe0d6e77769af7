/*
 * report_backends.h - what `allocbench backends` and `--backend list`
 * print: the list of model/backends_list.h.
 */
#ifndef ALLOCBENCH_REPORT_BACKENDS_H
#define ALLOCBENCH_REPORT_BACKENDS_H

#include <stddef.h>
#include <stdio.h>

struct preload;

/*
 * Writes the list (backends_list_collect() of EXTRA, N) to OUT as text (an
 * aligned table: name, "yes" or "no", then what it is, the library it
 * preloads or why it cannot run) or, JSON set, as a JSON document
 * {"backends": [...]}. Returns 0, or -1 when writing fails.
 */
int report_backends_write(FILE *out, int json, struct preload *const *extra, size_t n);

#endif
