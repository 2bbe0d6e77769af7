/*
 * report_markdown.c - the run report as Markdown: one paragraph that says
 * what was measured, the text report's table as a GitHub table (medians),
 * and the floor, ready to paste into an issue or a pull request.
 */
#include "model/fidelity.h"
#include "report/markdown_text.h"
#include "report/report_rerun.h"
#include "report/report_columns.h"
#include "model/breakdown.h"
#include "report/report_formats.h"
#include "report/svg.h"
#include "measure/backend.h"
#include "model/report.h"
#include "model/run.h"
#include "model/stats.h"
#include "platform/util.h"
#include "report/report_verdict.h"

#include <stdio.h>
#include <string.h>

/* "| backend | size (B) | ... |" and the alignment row, from the text table's columns. */
static void put_table_head(FILE *out, enum workload workload)
{
	const struct report_column *columns;
	size_t n;

	columns = report_columns_markdown(workload, &n);
	fputs("\n|", out);
	for (size_t c = 0; c < n; c++) {
		const char *head1, *head2;
		int is_unit;

		report_column_heads(&columns[c], &head1, &head2, &is_unit);
		if (!*head1)
			fprintf(out, " %s |", head2);
		else if (is_unit)
			fprintf(out, " %s (%s) |", head1, head2);
		else
			fprintf(out, " %s %s |", head1, head2);
	}
	fputs("\n|", out);
	for (size_t c = 0; c < n; c++)
		fputs(c ? "--:|" : ":--|", out);
	fputc('\n', out);
}

/* The paragraph over the table; every string a report read back may hold goes through markdown_put_text(). */
static void put_header(FILE *out, const struct run_report *report)
{
	const struct run_config *config = report->config;
	const struct host_info *host = &report->host;
	const char *sanitizers = report->sanitizers ? report->sanitizers : ALLOCBENCH_SANITIZE;
	char total[32], line[1024];

	format_bytes(total, sizeof(total), config->total_bytes);
	if (config->label) {
		fputs("**", out);
		markdown_put_text(out, config->label, "|\\*_");
		fputs("**\n\n", out);
	}
	fputs("**allocbench ", out);
	markdown_put_text(out, report->tool_version ? report->tool_version : ALLOCBENCH_VERSION,
			  "|\\*_");
	fprintf(out, "**: %s, %s per measurement, touch %s, median of %u run%s%s; ",
		workload_name(config->workload), total, touch_name(config->touch), config->repeat,
		config->repeat == 1 ? "" : "s", report_runs_note(report));
	if (config->align)
		fprintf(out, "alignment %zu B for pool and arena", config->align);
	else
		fputs("natural alignment for pool and arena", out);
	fprintf(out, ", %zu B for malloc.\n\nHost: ", backend_malloc_alignment());
	snprintf(line, sizeof(line), "%s, %s %s, %s %s, %d CPU%s, %s; page %ld B, THP %s",
		 host->hostname, host->kernel, host->machine, host->libc, host->libc_version,
		 host->cpus, host->cpus == 1 ? "" : "s", host->cpu_model, host->page_size, host->thp);
	markdown_put_text(out, line, "|\\");
	fputs(".\n", out);
	if (*sanitizers) {
		fputs("\nWarning: built with -fsanitize=", out);
		markdown_put_text(out, sanitizers, "|\\");
		fputs(": malloc's figures are the sanitizer's.\n", out);
	}
	put_table_head(out, config->workload);
}

static void put_row(FILE *out, const struct run_report *report, const struct cell *cell)
{
	enum workload workload = report->config->workload;
	const struct report_column *columns;
	size_t n, shown;

	columns = report_columns_markdown(workload, &n);
	shown = cell->ok ? n : report_identity_columns(workload);
	fputc('|', out);
	for (size_t c = 0; c < shown; c++) {
		char buf[64];

		report_column_format(buf, sizeof(buf), &columns[c], report, cell);
		fputc(' ', out);
		markdown_put_text(out, buf, "|\\");
		fputs(" |", out);
	}
	if (!cell->ok) {
		fputs(" failed: ", out);
		markdown_put_text(out, cell->error, "|\\");
		fputs(" |", out);
		for (size_t c = shown + 1; c < n; c++)
			fputs(" |", out);
	}
	fputc('\n', out);
}

/* The fill's floor and the overhead's resolution. */
static void put_floor(FILE *out, const struct run_report *report)
{
	double worst = 0;

	fputs("\nFloor (this loop filling one fresh mapping, no allocator), ns per chunk:", out);
	for (size_t i = 0; i < report->nfloors; i++) {
		const struct floor_cell *f = &report->floors[i];
		double ns;

		fprintf(out, "%s %zu B ", i ? "," : "", f->size);
		if (!report_floor_ns(report, f->size, &ns))
			fprintf(out, "%.2f", ns);
		else
			markdown_put_text(out, f->ok ? "n/a (nothing touched)" : f->error, "|\\");
		if (resolution_bytes(report, f->count) > worst)
			worst = resolution_bytes(report, f->count);
	}
	fprintf(out, ".\nOverhead resolution: one page over the count, at most %.3g B per chunk.\n",
		worst);
}

/*
 * Under the table: the floor where the workload has one, then the notes
 * the text gives (the workload's, figure.h, and how a median of ratios
 * combines) as one paragraph.
 */
static void put_footer(FILE *out, const struct run_report *report)
{
	const struct workload_def *def = workload_def(report->config->workload);
	const struct report_column *columns;
	size_t n;

	if (def->sections & SECTION_FLOOR)
		put_floor(out, report);
	if (report->config->workload == WORKLOAD_REPLAY) {
		char text[1024];

		/* How close the replay comes to the program itself (fidelity.h). */
		replay_fidelity_text(report, text, sizeof(text));
		fprintf(out, "\nProgram: %s.\n", text);
	}
	fputs("\nNotes: ", out);
	for (const char *p = def->notes; *p; p++)
		fputc(*p == '\n' ? (p[1] ? ' ' : '.') : *p, out);
	columns = report_columns_markdown(report->config->workload, &n);
	for (size_t c = 0; c < n; c++) {
		const struct figure *f = figure_get(columns[c].metric);

		if (columns[c].kind != COL_FIGURE || f->combine != FIGURE_MEDIAN_OF_RATIOS ||
		    !f->combine_note)
			continue;
		fputc(' ', out);
		for (const char *p = f->combine_note; *p; p++)
			fputc(*p == '\n' ? ' ' : *p, out);
		fputc('.', out);
	}
	fputc('\n', out);
}

/*
 * Under the table: the split of each malloc-family row's overhead
 * (model/breakdown.h: usable, slack, metadata, the allocator and its
 * version) as a table, then the notes as a list; nothing when no row has a
 * usable size. Returns 0, or -1 on a write error. It escapes "|\\*_": its
 * notes say "metadata < 0 (*)".
 */
static int put_breakdown(FILE *out, const struct run_report *report)
{
	size_t nrows = 0, nnotes = 0;

	for (size_t i = 0; i < report->ncells; i++) {
		const struct cell *cell = &report->cells[i];
		struct stat_summary s;
		char who[160];

		if (breakdown_summary(cell, BREAKDOWN_USABLE, &s, NULL))
			continue;
		if (!nrows++)
			fputs("\nWhere the overhead goes, B/chunk (medians): slack = usable - size "
			      "rounds the request up to the size class; metadata = overhead - slack "
			      "is the rest; marginal metadata = marginal - slack, of one more chunk.\n"
			      "\n| backend | size (B) | usable (B) | slack (B) | metadata (B) | "
			      "marginal metadata (B) | allocator |\n"
			      "|:--|--:|--:|--:|--:|--:|:--|\n", out);
		fputs("| ", out);
		markdown_put_text(out, cell->backend->name, "|\\*_");
		fprintf(out, " | %zu | %.2f |", cell->size, s.median);
		for (int b = BREAKDOWN_SLACK; b < BREAKDOWN_COUNT; b++) {
			if (breakdown_summary(cell, (enum breakdown)b, &s, NULL)) {
				fputs(" |", out);
				continue;
			}
			fprintf(out, " %.2f%s |", s.median,
				b == BREAKDOWN_METADATA && (breakdown_metadata_negative(cell) == 1 ||
				breakdown_slack_exceeds_overhead(report, cell) == 1) ? "\\*" : "");
		}
		breakdown_allocator(who, sizeof(who), cell);
		fputc(' ', out);
		markdown_put_text(out, who, "|\\*_");
		fputs(" |\n", out);
	}
	for (size_t i = 0; nrows && i < report->ncells; i++) {
		const struct cell *cell = &report->cells[i];
		char notes[BREAKDOWN_MAX_NOTES][BREAKDOWN_NOTE_BYTES];
		size_t n = breakdown_notes(report, cell, notes);

		for (size_t k = 0; k < n; k++) {
			if (!nnotes++)
				fputs("\nNotes:\n\n", out);
			fputs("- ", out);
			markdown_put_text(out, cell->backend->name, "|\\*_");
			fprintf(out, " %zu B: ", cell->size);
			markdown_put_text(out, notes[k], "|\\*_");
			fputc('\n', out);
		}
	}
	return ferror(out) ? -1 : 0;
}

int report_markdown_write(FILE *out, const struct run_report *report)
{
	put_header(out, report);
	for (size_t i = 0; i < report->ncells; i++)
		put_row(out, report, &report->cells[i]);
	put_footer(out, report);
	if (put_breakdown(out, report) || rerun_write_markdown(out, report) ||
	    verdict_write_markdown(out, report))
		return -1;
	return ferror(out) ? -1 : 0;
}
