/*
 * report_formats.h - a run report's writers and the one list of its
 * formats, for --format and --export FORMAT=FILE: a new format is its
 * writer and one entry.
 */
#ifndef ALLOCBENCH_REPORT_FORMATS_H
#define ALLOCBENCH_REPORT_FORMATS_H

#include "model/report.h"

#include <stddef.h>
#include <stdio.h>

/* The report writers: return 0, or -1 when writing fails. */
int report_text_write(FILE *out, const struct run_report *report);
int report_json_write(FILE *out, const struct run_report *report);
int report_csv_write(FILE *out, const struct run_report *report);
/* report_csv_write() without the header line: rows to append to another report's. */
int report_csv_write_rows(FILE *out, const struct run_report *report);
int report_markdown_write(FILE *out, const struct run_report *report);

struct cJSON;
/*
 * The document report_json_write() prints, built in memory (NULL: out of
 * memory); the caller owns it (results_load_tree() takes it).
 */
struct cJSON *report_json_document(const struct run_report *report);

/* A format of the report, as --format names it. */
struct report_writer {
	const char *name;
	int (*write)(FILE *out, const struct run_report *report);
};

/* How many formats report_formats holds. */
#define REPORT_FORMATS 4

/* The formats, the default (text) first, ended by a NULL name. */
extern const struct report_writer report_formats[REPORT_FORMATS + 1];

/* The format called NAME, or NULL. */
const struct report_writer *report_format_find(const char *name);

/* "text, json, csv or markdown" into BUF (SIZE bytes), for messages. */
void report_formats_names(char *buf, size_t size);

#endif
