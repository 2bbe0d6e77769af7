/*
 * run_progress.h - what a run says on standard error while it measures:
 * on a terminal, one line rewritten as each measuring process starts; in
 * a log (standard error no terminal), nothing, or where the caller asks
 * (advise, whose replays take minutes), a line per row as its runs end.
 * -q silences both.
 */
#ifndef ALLOCBENCH_RUN_PROGRESS_H
#define ALLOCBENCH_RUN_PROGRESS_H

#include "model/report.h"
#include "model/run.h"

#include <stddef.h>

/*
 * Task DONE of TOTAL starts: WHAT (a backend, or the floor) at SIZE, or
 * for a workload of one column (a replay, the random mix) its run RUN of
 * RUNS (from 0). On a terminal only; the last task clears the line.
 */
void run_progress(const struct run_config *config, size_t done, size_t total,
		  const char *what, size_t size, unsigned run, unsigned runs);

/*
 * A task of row C ended (measured, or skipped after the row failed), with
 * the run's lock held: its last one (of c->repeat), in a log and with
 * config->progress_lines, says so in a line ("malloc: 3 of 3 runs done (1
 * of 6 rows)"), *ROWS_DONE counting them among NROWS.
 */
void run_progress_row(const struct run_config *config, struct cell *c, size_t *rows_done,
		      size_t nrows);

#endif
