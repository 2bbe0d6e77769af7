/*
 * report_compare.h - the writers of a comparison (compare.h), one per
 * format of allocbench compare --format.
 */
#ifndef ALLOCBENCH_REPORT_COMPARE_H
#define ALLOCBENCH_REPORT_COMPARE_H

#include <stdio.h>

struct comparison;

/*
 * The writers of a comparison (report_compare.c): an aligned text table, a
 * GitHub Markdown section for a pull request or a job summary, and JSON
 * (schema "allocbench-compare/1"). Return 0, or -1 when writing fails.
 */
int compare_write_text(FILE *out, const struct comparison *comparison);
int compare_write_markdown(FILE *out, const struct comparison *comparison);
int compare_write_json(FILE *out, const struct comparison *comparison);

/*
 * The few lines for a CI job's log when the comparison went to the file
 * PATH in FORMAT (compare -o): what changed, the rows per verdict, the
 * regressed rows with their figures, and the result with where the full
 * comparison is. Returns 0, or -1 when writing fails.
 */
int compare_write_summary(FILE *out, const struct comparison *comparison, const char *format,
			  const char *path);

/* A format of the comparison, as compare --format names it. */
struct compare_writer {
	const char *name;
	int (*write)(FILE *out, const struct comparison *comparison);
};

#endif
