/*
 * json_out.h - what every JSON writer shares: a statistic as the reports
 * store it, and writing a finished document. The writers include cJSON
 * themselves; this header keeps it out of their callers.
 */
#ifndef ALLOCBENCH_JSON_OUT_H
#define ALLOCBENCH_JSON_OUT_H

#include "model/stats.h"

#include <stdio.h>

struct cJSON;

/* {median, min, max, runs: [N values]}; the caller owns the object. */
struct cJSON *json_stat(const struct stat_summary *s, const double *runs, unsigned n);

/* Adds NAME: VALUE to OBJ where KNOWN, else NAME: null. */
void json_add_number(struct cJSON *obj, const char *name, int known, double value);

/*
 * Cleans every string and member name in NODE, its siblings and everything
 * below them with text_clean() (util.h): control characters and invalid
 * UTF-8 become U+FFFD, tab and newline a space.
 */
void json_clean_strings(struct cJSON *node);

/*
 * Prints ROOT (indented), its strings cleaned as json_clean_strings() does,
 * and a newline to OUT, then frees ROOT. Returns 0, or -1 when it cannot be
 * printed (after saying so) or OUT fails.
 */
int json_write_document(FILE *out, struct cJSON *root);

#endif
