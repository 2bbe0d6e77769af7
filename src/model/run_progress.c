/*
 * run_progress.c - what a run says while it measures (run_progress.h).
 */
#include "model/run_progress.h"
#include "model/progress.h"
#include "measure/backend.h"

void run_progress(const struct run_config *config, size_t done, size_t total,
		  const char *what, size_t size, unsigned run, unsigned runs)
{
	if (config->quiet)
		return;
	if (workload_one_column(config->workload))
		progress_say(PROGRESS_TASK, "%s %-9s run %u of %u  [%zu/%zu]",
			     config->workload == WORKLOAD_REPLAY ? "replaying" : "measuring", what,
			     run + 1, runs, done + 1, total);
	else
		progress_say(PROGRESS_TASK, "measuring %-7s %8zu B  [%zu/%zu]", what, size, done + 1,
			     total);
	if (done + 1 == total)
		progress_say(PROGRESS_END, "%s", "");
}

void run_progress_row(const struct run_config *config, struct cell *c, size_t *rows_done,
		      size_t nrows)
{
	if (++c->tasks_ended < c->repeat || !config->progress_lines || config->quiet)
		return;
	progress_say(PROGRESS_LINE, "%s: %u of %u runs done%s (%zu of %zu rows)", c->backend->name,
		     c->runs, c->repeat, c->ok ? "" : ", failed", ++*rows_done, nrows);
}
