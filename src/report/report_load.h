/*
 * report_load.h - a JSON report read back into a struct run_report, so that
 * the report writers print it as the run that made it did (allocbench
 * show). The report keeps each figure's summary, not every reading: the
 * cells carry those summaries (struct cell_loaded), the samples what the
 * tables read directly (the median run's resident set, the allocator that
 * served malloc, the counters of each run, the floor's times).
 */
#ifndef ALLOCBENCH_REPORT_LOAD_H
#define ALLOCBENCH_REPORT_LOAD_H

#include "model/report.h"
#include "report/results.h"
#include "model/run.h"

/* A report read back, and everything its struct run_report points into. */
struct loaded_report {
	struct result_file file;      /* the parsed document; the strings point into it */
	struct run_config config;     /* config.backends[b] is &backends[b], or a candidate
					 with settings (config.settings) in config.candidates */
	struct run_report report;     /* report.config is &config */
	struct backend *backends;     /* one per name in config.backends (the rows' names
					 where a report lacks it) */
	size_t nbackends;
	struct cell_loaded *loaded;   /* one per cell of the grid */
	struct rerun *rerun;          /* advise's real runs (report.rerun), or NULL */
	int advise;                   /* advise wrote it (command_line): in text, the
					 answer comes first (report.answer_first) */
	const char *created;          /* "created", or "" */
	char *command_line;           /* command_line as one shell-quoted line, owned;
					 NULL when the report has none */
};

/*
 * Reads the JSON report at PATH ("-": standard input) into *OUT, checked
 * as compare checks it (results_load()), then what the tables need: a
 * known workload, touch policy and repeat, the sizes and backends (each
 * named once), and the whole grid the writers read (report.h: one cell per
 * size and backend), each cell from the one row of that backend and size,
 * whatever the rows' order, and each candidate's settings as
 * config.settings says them. A row of a backend or size config does not
 * name, a row given twice, a cell without a row, an empty results, a
 * config.settings entry of a backend not named, without settings or named
 * twice are refused. Returns 0, or -1 after an error that names PATH and
 * the field.
 */
int report_load(const char *path, struct loaded_report *out);

/* Frees what report_load() allocated. */
void report_loaded_release(struct loaded_report *r);

#endif
