/*
 * report_ab.h - allocbench ab's comparison written out: text for the job
 * log, JSON for a script (allocbench-ab(1)).
 */
#ifndef ALLOCBENCH_REPORT_AB_H
#define ALLOCBENCH_REPORT_AB_H

#include "model/ab.h"
#include "report/results.h"

#include <stdio.h>

/* What ab measured and judged. */
struct ab_comparison {
	const char *old, *new;       /* the variants as given */
	const char *workload;
	const char *label;           /* what NEW is (--label), or NULL */
	const char *created;         /* when it was judged (ISO 8601 UTC), or "" */
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
 * The same as JSON (schema "allocbench-ab/1"): old, new, label (null
 * without one), created, workload, pairs, alpha, max_time_percent, tests,
 * least_p, series [{old_backend,
 * new_backend, size, figure, old [per pair], new, slowdown {median, min,
 * max}, p_slower, p_faster, q_slower, q_faster, verdict}], regression.
 */
int ab_write_json(FILE *out, const struct ab_comparison *c);

/* A comparison read back from its JSON (allocbench history). */
struct ab_loaded {
	struct result_file file;     /* the document: the strings point into it */
	struct ab_comparison c;      /* c.series is series */
	struct ab_series *series;    /* owned */
	double *values;              /* every series' old and new pairs, owned */
};

/*
 * Reads the JSON comparison at PATH into *OUT, believing nothing: the
 * schema allocbench-ab/1, a workload, and per series two backends, a
 * whole size, a time or rate figure and OLD and NEW of the same 2 to 64
 * positive finite values; the slowdowns, p-values and verdicts are not
 * read (ab_judge() works them out again). Returns 0, or -1 after an
 * error that names PATH and the field.
 */
int ab_load(const char *path, struct ab_loaded *out);

/* Frees what ab_load() allocated. */
void ab_loaded_release(struct ab_loaded *a);

/* The schema of ab's JSON. */
#define AB_SCHEMA "allocbench-ab/1"

#endif
