/*
 * history.h - a series of reports of one workload, oldest first, and
 * where each gated figure of each row stepped (changepoint.h): what
 * `allocbench history` prints and plots. It reads loaded reports and
 * never exits.
 */
#ifndef ALLOCBENCH_HISTORY_H
#define ALLOCBENCH_HISTORY_H

#include "model/ab.h"
#include "model/changepoint.h"
#include "model/figure.h"

#include <stddef.h>

struct run_report;

/*
 * A link of a side-by-side history: one allocbench ab comparison, its NEW
 * variant measured in pairs against the variant of the link before.
 */
struct history_link {
	const char *workload;
	const struct ab_series *series;
	size_t nseries;
	size_t pairs;
};

/* A report of the series: what it measured, when, and its name. */
struct history_report {
	const struct run_report *report;   /* a report, or NULL for a link */
	const struct history_link *link;   /* a link, or NULL for a report */
	const char *created;   /* its "created" (ISO 8601 UTC), "" when unknown */
	const char *name;      /* its --label, else its file */
	const char *path;      /* its file */
};

/* How steps are told from noise. */
struct history_options {
	double alpha;          /* the permutation test's level (--alpha) */
	double min_step;       /* the least step that counts, per cent of the
				  value before it (--min-step) */
	int metric;            /* one figure (--metric), or -1: the workload's gated ones */
};

/* Fills *OPTIONS with the defaults: alpha 0.05, 5%, the gated figures. */
void history_options_init(struct history_options *options);

/* A step of a series: where it is and by how much. */
struct history_step {
	size_t at;             /* the first report after it (an index of history.reports) */
	double before, after;  /* the medians of the reports before and from it, up to
				  the next step */
	double p;              /* the permutation test's p-value */
};

/* One figure of one row (backend and size) over the reports. */
struct history_series {
	enum metric metric;
	const char *backend;   /* the row's backend, as the reports name it */
	size_t size;           /* bytes per chunk, 0 where the sizes mix */
	double *values;        /* per report: the median, NAN where it has no such row */
	size_t nvalues;        /* the reports with a value */
	struct history_step *steps;
	size_t nsteps;
	int worse;             /* the last step made the figure worse */
};

struct history {
	struct history_report *reports;   /* oldest first (by "created", then as given) */
	size_t nreports;
	const char *workload;
	/* Links (side by side): each series' value is the first link's OLD median
	   chained through each link's median slowdown; a step is a link whose
	   pairs moved the figure (ab_judge(), every test of every link one
	   family, min_step its max_time). */
	int side_by_side;
	size_t tests;                     /* side by side: the tests of the family */
	size_t least_pairs;               /* side by side: the fewest pairs of a link */
	struct history_series *series;    /* figure-major, then the rows as the first
					     report that has them orders them */
	size_t nseries;
	struct history_options options;
};

/*
 * Orders a copy of the N REPORTS by creation time and finds the steps of
 * every series under OPTIONS into *OUT: reports by E-divisive means, links
 * by their pairs. Returns 0, or -1 with the reason in WHY (WHY_SIZE
 * bytes): reports and links mixed, or of two workloads (naming both
 * files), --metric is not a figure of the workload (of the links: not one
 * they time), or no memory.
 */
int history_build(const struct history_report *reports, size_t n,
		  const struct history_options *options, struct history *out,
		  char *why, size_t why_size);

/* Frees what history_build() allocated (not the reports). */
void history_release(struct history *history);

#endif
