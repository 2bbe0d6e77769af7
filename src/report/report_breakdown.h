/*
 * report_breakdown.h - the split of each malloc-family row's overhead
 * (model/breakdown.h) in the text and Markdown reports.
 */
#ifndef ALLOCBENCH_REPORT_BREAKDOWN_H
#define ALLOCBENCH_REPORT_BREAKDOWN_H

#include <stdio.h>

struct run_report;

/*
 * Prints, under the main table, the split of each malloc-family row's
 * overhead (usable, slack, metadata, the allocator and its version) and the
 * notes; prints nothing when no row has a usable size. Returns 0, or -1 on a
 * write error.
 */
int report_breakdown_text(FILE *out, const struct run_report *report);

/* report_breakdown_text() as a GitHub table and a list of notes, for --format markdown. */
int report_breakdown_markdown(FILE *out, const struct run_report *report);

#endif
