/*
 * report_counters.h - the counters' part of the reports: the run report's
 * counter header and table (text) and its counters fields (JSON), and the
 * report of `allocbench counters`. Every field is in allocbench-counters(1).
 */
#ifndef ALLOCBENCH_REPORT_COUNTERS_H
#define ALLOCBENCH_REPORT_COUNTERS_H

#include "platform/counters.h"
#include "model/report.h"
#include "model/stats.h"

#include <stdint.h>
#include <stdio.h>

struct cJSON;

/* Text: which counters are live and which are not, and why; the header's last lines. */
void report_counters_text_header(FILE *out, const struct run_report *report);

/*
 * Text: the live counters per chunk, one row per loop, backend and size,
 * medians; split into tables of 80 columns. Nothing when no counter is live.
 * Returns 0, or -1 when writing fails.
 */
int report_counters_text_table(FILE *out, const struct run_report *report);

/* JSON: the list of events (config.counters). */
struct cJSON *report_counters_json_list(const struct counter_list *list);

/*
 * JSON: a result's "counters": event name to {alloc, free, alloc_total,
 * free_total} statistics, or null where the event was not counted.
 */
struct cJSON *report_counters_json_cell(const struct run_report *report, const struct cell *cell);

/*
 * For allocbench's own events, sets *ALLOC and *FREE to the totals over the
 * allocation and the free loop of CELL at which they restate what the row
 * already says, and returns 1: allocbench::allocs and allocbench::frees the
 * count, allocbench::bytes_requested count times size, the others (pool
 * blocks and bytes, arena bytes) 0, where the backend has none. Returns 0
 * for any other event NAME (PAPI's). Unless --counters was given,
 * the JSON report leaves such an event out of a row where every run reads
 * exactly that, and a reader puts it back (report_load.c).
 */
int report_counters_restated(const char *name, const struct cell *cell, uint64_t *alloc,
			     uint64_t *free_total);

/* JSON: "counters_status" (name to "ok" or the reason) and "counters_hints" of CHECK into ROOT. */
void report_counters_json_status(struct cJSON *root, const struct counters_check *check);

/* The report of `allocbench counters`; return 0, or -1 when writing fails. */
int report_counters_check_text(FILE *out, const struct counters_check *check);
int report_counters_check_json(FILE *out, const struct counters_check *check);

/* A format of `allocbench counters`, as its --format names it. */
struct counters_writer {
	const char *name;
	int (*write)(FILE *out, const struct counters_check *check);
};

#endif
