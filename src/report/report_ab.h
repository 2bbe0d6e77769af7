/*
 * report_ab.h - allocbench ab's comparison written out: text for the job
 * log, JSON for a script (allocbench-ab(1)).
 */
#ifndef ALLOCBENCH_REPORT_AB_H
#define ALLOCBENCH_REPORT_AB_H

#include "model/ab.h"

#include <stdio.h>

/* What ab measured and judged. */
struct ab_comparison {
	const char *old, *new;       /* the variants as given */
	const char *workload;
	size_t pairs;
	struct ab_options options;
	const struct ab_series *series;
	size_t nseries;
	size_t slower;               /* series judged slower */
};

struct ab_writer {
	const char *name;
	int (*write)(FILE *out, const struct ab_comparison *c);
};

/* A row per series, then the family's size, its level and the verdict; 0 or -1. */
int ab_write_text(FILE *out, const struct ab_comparison *c);

/*
 * The same as JSON (schema "allocbench-ab/1"): old, new, workload, pairs,
 * alpha, max_time_percent, tests, least_p, series [{old_backend,
 * new_backend, size, figure, old [per pair], new, slowdown {median, min,
 * max}, p_slower, p_faster, q_slower, q_faster, verdict}], regression.
 */
int ab_write_json(FILE *out, const struct ab_comparison *c);

#endif
