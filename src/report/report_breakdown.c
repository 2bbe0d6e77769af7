/*
 * report_breakdown.c - where the overhead goes, under the main table
 * (report_breakdown.h; the figures are model/breakdown.h's).
 */
#include "report/report_breakdown.h"
#include "measure/backend.h"
#include "model/breakdown.h"
#include "model/run.h"
#include "model/stats.h"
#include "report/report_formats.h"
#include "report/table.h"
#include "platform/util.h"

#include <string.h>

/* What the breakdown escapes: its notes say "metadata < 0 (*)". */
#define MARKDOWN_ESCAPED "|\\*_"

int report_breakdown_markdown(FILE *out, const struct run_report *report)
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
		markdown_put_text(out, cell->backend->name, MARKDOWN_ESCAPED);
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
		markdown_put_text(out, who, MARKDOWN_ESCAPED);
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
			markdown_put_text(out, cell->backend->name, MARKDOWN_ESCAPED);
			fprintf(out, " %zu B: ", cell->size);
			markdown_put_text(out, notes[k], MARKDOWN_ESCAPED);
			fputc('\n', out);
		}
	}
	return ferror(out) ? -1 : 0;
}

static const char *const head1[] = { "", "size", "usable", "slack", "metadata", "marginal", "allocator" };
static const char *const head2[] = { "backend", "B", "B", "B", "B", "metadata", "version" };

int report_breakdown_text(FILE *out, const struct run_report *report)
{
	struct table table;
	size_t nnotes = 0;
	int ret;

	table_init(&table, sizeof(head2) / sizeof(head2[0]), head1, head2);
	for (size_t i = 0; i < report->ncells; i++) {
		const struct cell *cell = &report->cells[i];
		struct stat_summary s;
		struct table_row *row;
		char who[160];

		if (breakdown_summary(cell, BREAKDOWN_USABLE, &s, NULL))
			continue;
		row = table_add_row(&table);
		if (!row)
			break;
		table_set(row, 0, "%s", cell->backend->name);
		table_set(row, 1, "%zu", cell->size);
		table_set(row, 2, "%.2f", s.median);
		/* Slack, metadata and marginal metadata: columns 3 to 5, as the enum goes. */
		for (int b = BREAKDOWN_SLACK; b < BREAKDOWN_COUNT; b++)
			if (!breakdown_summary(cell, (enum breakdown)b, &s, NULL))
				table_set(row, (size_t)b + 2, "%.2f%s", s.median,
					  b == BREAKDOWN_METADATA &&
					  (breakdown_metadata_negative(cell) == 1 ||
					   breakdown_slack_exceeds_overhead(report, cell) == 1) ? "*" : "");
		breakdown_allocator(who, sizeof(who), cell);
		table_set_note(row, who);
	}
	if (!table.nrows) {
		table_release(&table);
		return 0;
	}
	fputs("\nwhere the overhead goes, B/chunk (medians): slack = usable - size rounds the\n"
	      "request up to the size class; metadata = overhead - slack is the rest;\n"
	      "marginal metadata = marginal - slack, of one more chunk (no one-time cost)\n\n",
	      out);
	ret = table_print(&table, out);
	table_release(&table);
	for (size_t i = 0; i < report->ncells; i++) {
		const struct cell *cell = &report->cells[i];
		char notes[BREAKDOWN_MAX_NOTES][BREAKDOWN_NOTE_BYTES];
		size_t n = breakdown_notes(report, cell, notes);

		for (size_t k = 0; k < n; k++) {
			if (!nnotes++)
				fputs("\nnotes:\n", out);
			put_wrappedf(out, 79, "    ", "  %s %zu B: %s", cell->backend->name,
				     cell->size, notes[k]);
		}
	}
	return ret || ferror(out) ? -1 : 0;
}
