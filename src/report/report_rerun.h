/*
 * report_rerun.h - advise's real runs (model/rerun.h) as its answer says
 * them: the drop-in lines of the answer, measured; the table of the runs
 * beside the replay of each allocator; the JSON's "real_runs" object
 * (data/allocbench.schema.json).
 */
#ifndef ALLOCBENCH_REPORT_RERUN_H
#define ALLOCBENCH_REPORT_RERUN_H

#include "cJSON.h"
#include "model/report.h"

#include <stdio.h>

/*
 * The answer's drop-in lines from REPORT's real runs, each wrapped at 80
 * columns: memory and time, each the best with what it saves over malloc
 * in its unit and as a share of malloc's own peak or time; and where the
 * replay's drop-in leader differs, a line that says so. Where there are
 * no real runs, the one line saying why. Returns 0, or -1 when OUT fails.
 */
int rerun_write_answer(FILE *out, const struct run_report *report);

/* The table of the real runs, with each allocator's replay against them. */
int rerun_write_table(FILE *out, const struct run_report *report);

/*
 * The table and the measured answer in Markdown (before the verdict, whose
 * drop-in lines are the replay's), or why there were no real runs.
 */
int rerun_write_markdown(FILE *out, const struct run_report *report);

/* The "real_runs" object, or NULL when REPORT has none. */
cJSON *rerun_json(const struct run_report *report);

#endif
