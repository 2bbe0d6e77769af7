/*
 * json_out.h - what every JSON writer shares: a statistic as the reports
 * store it, and writing a finished document. The writers include cJSON
 * themselves; this header keeps it out of their callers.
 */
#ifndef ALLOCBENCH_JSON_OUT_H
#define ALLOCBENCH_JSON_OUT_H

#include "stats.h"

#include <stdio.h>

struct cJSON;

/* {median, min, max, runs: [N values]}; the caller owns the object. */
struct cJSON *json_stat(const struct stat_summary *s, const double *runs, unsigned n);

/*
 * Prints ROOT (indented) and a newline to OUT, then frees ROOT. Returns 0,
 * or -1 when it cannot be printed (after saying so) or OUT fails.
 */
int json_write_document(FILE *out, struct cJSON *root);

#endif
