/*
 * results.h - reads allocbench JSON reports (schema allocbench/1 and /2) back, for
 * the commands that consume them (compare, plot). Everything that reads a
 * report goes through here, so a report is validated the same way everywhere
 * and cJSON stays out of the callers.
 */
#ifndef ALLOCBENCH_RESULTS_H
#define ALLOCBENCH_RESULTS_H

#include <stddef.h>
#include <stdint.h>

/* The schema this tool writes and reads; readers accept the same major number. */
#define RESULTS_SCHEMA_NAME "allocbench"
#define RESULTS_SCHEMA_MAJOR 2      /* the newest major this allocbench reads */
#define RESULTS_SCHEMA_MIN_MAJOR 1  /* the oldest: allocbench/1 spells "not
				       measured" null where /2 leaves the member
				       out, and reads the same otherwise */

/* A statistic as the report stores it: {median, min, max, runs}. */
struct result_stat {
	double median;
	double min;
	double max;
	const double *runs;  /* every repetition's value; owned by the file */
	size_t nruns;
};

/* One element of "results", its common fields extracted. */
struct result_row {
	const char *workload;   /* "fill" when the report does not say */
	const char *backend;
	uint64_t size;          /* bytes per chunk (0 for rows that mix sizes) */
	uint64_t count;
	int ok;                 /* status is "ok" */
	const char *status;     /* "ok", "failed", ... */
	const char *error;      /* why it failed, or NULL */
	double resolution_bytes;/* page over count, 0 when absent */
	const void *json;       /* the row's JSON object, for results_row_* */
};

/* A whole report. Strings point into memory the file owns. */
struct result_file {
	char *path;             /* as given ("-" for standard input) */
	const char *schema;     /* "allocbench/2" (or /1) */
	const char *tool_version;
	const char *hostname;   /* host.hostname, or "" */
	const char *created;    /* or "" */
	const char *label;      /* the run's --label, or NULL */
	const char *workload;   /* config.workload, or "fill" */
	const char *touch;      /* config.touch, or "" */
	uint64_t total_bytes;   /* config.total_bytes, or 0 */
	unsigned repeat;        /* config.repeat, or 0 */
	struct result_row *rows;
	size_t nrows;
	void *root;             /* the parsed document */
	void *runs_blocks;      /* storage behind result_stat.runs */
};

/*
 * Reads and validates the report at PATH ("-" reads standard input) into
 * *FILE. A FIFO is not waited for: without a writer it reads as empty. Returns 0, or -1 after printing an error that names PATH and the
 * problem: unreadable, not JSON, text after the document, an object that
 * names a key twice, not an allocbench report, another schema major
 * version, a row without backend, size or status, a size, count, total or
 * repeat that is not a whole number (below 2^53), a number that is not
 * finite, a statistic whose median, min, max or runs are not all numbers,
 * a figure that is neither a number nor a statistic (absent or null is
 * "not measured"). Each message gives the JSON path of the bad value.
 */
int results_load(const char *path, struct result_file *file);

/*
 * Reads PATH as results_load() does, up to the parsed document: FILE->root,
 * and FILE->schema ("" without one); nothing else is checked or filled.
 * For the other documents allocbench writes (ab's, ab_load()). Returns 0,
 * or -1 after an error naming PATH.
 */
int results_parse(const char *path, struct result_file *file);

/*
 * Like results_load(), from the LEN bytes of TEXT (not necessarily
 * terminated) instead of a file; NAME stands for the path in messages and
 * in FILE->path (the unit tests, the fuzz target).
 */
int results_load_buffer(const char *name, const char *text, size_t len,
			struct result_file *file);

struct cJSON;
/*
 * Like results_load(), from ROOT, the document a report writer built in
 * memory (report_json_document(); NULL: out of memory), which FILE owns
 * from then on: run --baseline compares the report it writes, not parsed
 * again, checked as its file would be (a number that is not finite reads
 * as the null the file would hold; its keys are unique, as the writer's).
 * Returns 0, or -1 after an error, with ROOT freed.
 */
int results_load_tree(const char *name, struct cJSON *root, struct result_file *file);

/* Frees what results_load() allocated. */
void results_release(struct result_file *file);

/*
 * Looks up the statistic NAME of ROW. NAME may be a dotted path
 * ("counters.PAPI_TOT_CYC.alloc"). A plain number counts as a statistic of
 * one run. Returns 0, or -1 when it is absent or null (results_load()
 * refused a figure of any other type, of the figure and breakdown tables,
 * the row's other numbers and its counters).
 */
int results_row_stat(struct result_file *file, const struct result_row *row,
		     const char *name, struct result_stat *out);

/* Looks up the number at dotted path NAME of ROW; returns 0, or -1 when absent. */
int results_row_number(const struct result_row *row, const char *name, double *out);

/*
 * Copies the array of numbers at dotted path NAME of ROW into OUT (MAX
 * numbers). Returns how many, or 0 when it is absent, longer than MAX, or
 * holds anything but finite numbers.
 */
size_t results_row_numbers(const struct result_row *row, const char *name, double *out,
			   size_t max);

/* Looks up the string at dotted path NAME of ROW; NULL when absent. */
const char *results_row_string(const struct result_row *row, const char *name);

/* Looks up the string at dotted path NAME of the whole document; NULL when absent. */
const char *results_file_string(const struct result_file *file, const char *name);

/* Looks up the number at dotted path NAME of the whole document; -1 when absent. */
int results_file_number(const struct result_file *file, const char *name, double *out);

/*
 * Writes the array of numbers at dotted path NAME of the whole document to
 * OUT as "a,b,c" (integers without a fraction); "" when absent. Returns 0,
 * or -1 when absent or not an array of numbers.
 */
int results_file_numbers(const struct result_file *file, const char *name, char *out,
			 size_t size);

#endif
