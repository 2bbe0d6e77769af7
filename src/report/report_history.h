/*
 * report_history.h - `allocbench history` written out: the text for a
 * person, JSON for a script and the plot (allocbench-history(1)).
 */
#ifndef ALLOCBENCH_REPORT_HISTORY_H
#define ALLOCBENCH_REPORT_HISTORY_H

#include "model/history.h"

#include <stdio.h>

/*
 * The reports in order, then per figure one line per row: its first and
 * last value and each step (where, by how much, its p-value). Returns 0,
 * or -1 when OUT fails.
 */
int history_text_write(FILE *out, const struct history *history);

/*
 * The same as one JSON document (schema "allocbench-history/1"): reports
 * [{path, name, created}], series [{figure, unit, backend, size, values
 * (null where a report lacks the row), steps [{report (index into
 * reports), before, after, change, percent, p}], worse (its last step made
 * it worse)}]. Returns 0 or -1.
 */
int history_json_write(FILE *out, const struct history *history);

/*
 * The same as an SVG chart: a panel per figure, each report's median
 * against its place in the series, a line per row, a dashed line at each
 * step. Returns 0, or -1 when OUT fails.
 */
int history_svg_write(FILE *out, const struct history *history);

#endif
