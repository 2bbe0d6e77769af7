/*
 * report_csv.c - the run report as CSV: a header line, then one line per
 * result (backend and size), every quantity with its unit in the column
 * name. Fields are quoted as RFC 4180 says (a field holding a comma, a
 * double quote or a line break is enclosed in double quotes, its quotes
 * doubled); lines end with LF, which every CSV reader accepts, rather than
 * the RFC's CRLF, which Unix tools do not expect.
 */
#include "model/breakdown.h"
#include "report/report_formats.h"
#include "measure/backend.h"
#include "model/report.h"
#include "model/run.h"
#include "model/stats.h"
#include "platform/util.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Writes TEXT as one field, quoted when it must be. A text that begins as
 * a spreadsheet's formula may (= + - @, a tab or a carriage return) gets a
 * single quote before it, which a spreadsheet shows as text and does not
 * evaluate: an error or an allocator's name read from a report is never
 * run as a formula. Numbers are not written here (put_number()): a
 * negative one stays a number.
 */
static void put_field(FILE *out, const char *text)
{
	const char *quote = *text && strchr("=+-@\t\r", *text) ? "'" : "";

	if (!text[strcspn(text, ",\"\r\n")]) {
		fprintf(out, "%s%s", quote, text);
		return;
	}
	fprintf(out, "\"%s", quote);
	for (const char *p = text; *p; p++) {
		if (*p == '"')
			fputc('"', out);
		fputc(*p, out);
	}
	fputc('"', out);
}

/*
 * A number in the digits the JSON report gives it (cJSON's: 15 significant
 * digits where they read back as the same double within a unit in the last
 * place, else 17), so that a report read back (allocbench show) writes the
 * CSV the run wrote.
 */
static void put_number(FILE *out, double v)
{
	char buf[32];
	double back;

	snprintf(buf, sizeof(buf), "%1.15g", v);
	back = strtod(buf, NULL);
	if (!(fabs(back - v) <= fmax(fabs(back), fabs(v)) * DBL_EPSILON))
		snprintf(buf, sizeof(buf), "%1.17g", v);
	fputs(buf, out);
}

/* ",MEDIAN,MIN,MAX": the three columns of a figure. */
static void put_summary(FILE *out, const struct stat_summary *s)
{
	fputc(',', out);
	put_number(out, s->median);
	fputc(',', out);
	put_number(out, s->min);
	fputc(',', out);
	put_number(out, s->max);
}

static const char *const fixed_head[] = {
	"workload", "backend", "size_bytes", "count", "align_bytes", "status", "resolution_bytes",
};
static const char *const stat_parts[] = { "median", "min", "max" };

static void put_header(FILE *out, enum workload workload)
{
	for (size_t i = 0; i < sizeof(fixed_head) / sizeof(fixed_head[0]); i++)
		fprintf(out, "%s%s", i ? "," : "", fixed_head[i]);
	for (int m = 0; m < METRIC_COUNT; m++)
		if (metric_applies((enum metric)m, workload))
			for (size_t p = 0; p < sizeof(stat_parts) / sizeof(stat_parts[0]); p++)
			fprintf(out, ",%s_%s", metric_name((enum metric)m), stat_parts[p]);
	/* The malloc family's split of the overhead and who served malloc (breakdown.h). */
	for (int b = 0; b < BREAKDOWN_COUNT; b++)
		for (size_t p = 0; p < sizeof(stat_parts) / sizeof(stat_parts[0]); p++)
			fprintf(out, ",%s_%s", breakdown_name((enum breakdown)b), stat_parts[p]);
	fputs(",allocator,rss_before_bytes,rss_after_bytes,reserved_bytes,error\n", out);
}

static void put_cell(FILE *out, const struct run_report *report, const struct cell *cell)
{
	enum workload workload = report->config->workload;

	put_field(out, workload_name(workload));
	fputc(',', out);
	put_field(out, cell->backend->name);
	fprintf(out, ",%zu,%zu,%zu,%s,", cell->size, cell->count, cell->align,
		cell->ok ? "ok" : "failed");
	if (workload == WORKLOAD_FILL)
		put_number(out, resolution_bytes(report, cell->count));
	for (int m = 0; m < METRIC_COUNT; m++) {
		struct stat_summary s;

		if (!metric_applies((enum metric)m, workload))
			continue;
		/* A failed cell, or a quantity that does not exist (x_floor without a floor): empty. */
		if (cell_summary(report, cell, (enum metric)m, &s)) {
			fputs(",,,", out);
			continue;
		}
		put_summary(out, &s);
	}
	for (int b = 0; b < BREAKDOWN_COUNT; b++) {
		struct stat_summary s;

		if (breakdown_summary(cell, (enum breakdown)b, &s, NULL)) {
			fputs(",,,", out);
			continue;
		}
		put_summary(out, &s);
	}
	{
		char who[160];

		breakdown_allocator(who, sizeof(who), cell);
		fputc(',', out);
		put_field(out, who);
	}
	if (cell->ok) {
		const struct sample *median = &cell->samples[cell_median_run(cell)];

		fprintf(out, ",%llu,%llu,%llu,", (unsigned long long)median->rss_before_bytes,
			(unsigned long long)median->rss_after_bytes,
			(unsigned long long)median->reserved_bytes);
	} else {
		fputs(",,,,", out);
		put_field(out, cell->error);
	}
	fputc('\n', out);
}

int report_csv_write_rows(FILE *out, const struct run_report *report)
{
	for (size_t i = 0; i < report->ncells; i++)
		put_cell(out, report, &report->cells[i]);
	return ferror(out) ? -1 : 0;
}

int report_csv_write(FILE *out, const struct run_report *report)
{
	put_header(out, report->config->workload);
	for (size_t i = 0; i < report->ncells; i++)
		put_cell(out, report, &report->cells[i]);
	return ferror(out) ? -1 : 0;
}
