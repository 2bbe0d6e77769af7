#include "model/breakdown.h"
#include "measure/backend.h"
#include "model/run.h"
#include "model/stats.h"
#include "report/table.h"

#include <math.h>
#include <string.h>

static const char *const breakdown_names[BREAKDOWN_COUNT] = {
	[BREAKDOWN_USABLE] = "usable_bytes",
	[BREAKDOWN_SLACK] = "slack_bytes",
	[BREAKDOWN_METADATA] = "metadata_bytes",
	[BREAKDOWN_MARGINAL_METADATA] = "marginal_metadata_bytes",
};

_Static_assert(BREAKDOWN_COUNT == CELL_LOADED_BREAKDOWNS, "struct cell_loaded's breakdowns");

const char *breakdown_name(enum breakdown b)
{
	return breakdown_names[b];
}

int breakdown_value(const struct cell *cell, const struct sample *sample,
		    enum breakdown b, double *out)
{
	double overhead;

	if (!sample->allocator.has_usable)
		return -1;
	switch (b) {
	case BREAKDOWN_USABLE:
		*out = sample->allocator.usable_bytes;
		return 0;
	case BREAKDOWN_SLACK:
		*out = sample->allocator.usable_bytes - (double)cell->size;
		return 0;
	case BREAKDOWN_METADATA:
		if (metric_value(cell, sample, METRIC_OVERHEAD_BYTES, 0, &overhead))
			return -1;
		*out = overhead - (sample->allocator.usable_bytes - (double)cell->size);
		return 0;
	case BREAKDOWN_MARGINAL_METADATA:
		if (metric_value(cell, sample, METRIC_MARGINAL_BYTES, 0, &overhead))
			return -1;
		*out = overhead - (sample->allocator.usable_bytes - (double)cell->size);
		return 0;
	case BREAKDOWN_COUNT:
		break;
	}
	return -1;
}

int breakdown_summary(const struct cell *cell, enum breakdown b,
		      struct stat_summary *out, double *runs)
{
	double values[RUN_MAX_REPEAT];

	if (!cell->ok || !cell->runs)
		return -1;
	if (cell->loaded) {
		/* Read back from JSON: the summary only (RUNS is left alone). */
		if (!cell->loaded->have_breakdown[b])
			return -1;
		*out = cell->loaded->breakdown[b];
		return 0;
	}
	for (unsigned r = 0; r < cell->runs; r++)
		if (breakdown_value(cell, &cell->samples[r], b, &values[r]))
			return -1;
	if (runs)
		memcpy(runs, values, cell->runs * sizeof(values[0]));
	return stats_summarize(values, cell->runs, out);
}

int breakdown_slack_exceeds_overhead(const struct run_report *report, const struct cell *cell)
{
	struct stat_summary slack, overhead;

	if (breakdown_summary(cell, BREAKDOWN_SLACK, &slack, NULL) ||
	    cell_summary(report, cell, METRIC_OVERHEAD_BYTES, &overhead))
		return -1;
	return slack.median - overhead.median > resolution_bytes(report, cell->count);
}

int breakdown_metadata_negative(const struct cell *cell)
{
	struct stat_summary s;

	if (breakdown_summary(cell, BREAKDOWN_METADATA, &s, NULL))
		return -1;
	return s.median < 0;
}

int breakdown_overhead_varies(const struct run_report *report, const struct cell *cell)
{
	struct stat_summary s;
	double allowed;

	if (cell_summary(report, cell, METRIC_OVERHEAD_BYTES, &s))
		return -1;
	allowed = fmax(0.01 * fabs(s.median), resolution_bytes(report, cell->count));
	return s.max - s.min > allowed;
}

size_t breakdown_notes(const struct run_report *report, const struct cell *cell,
		       char notes[BREAKDOWN_MAX_NOTES][BREAKDOWN_NOTE_BYTES])
{
	struct stat_summary overhead, slack, usable;
	size_t n = 0;

	if (cell_summary(report, cell, METRIC_OVERHEAD_BYTES, &overhead))
		return 0;
	if (breakdown_overhead_varies(report, cell) == 1)
		snprintf(notes[n++], BREAKDOWN_NOTE_BYTES,
			 "overhead varies by %.1f%% between runs (%.2f to %.2f B/chunk): "
			 "where the allocator places the chunks changes from run to run",
			 (overhead.max - overhead.min) / fmax(fabs(overhead.median), 1e-9) * 100,
			 overhead.min, overhead.max);
	if (breakdown_slack_exceeds_overhead(report, cell) == 1 &&
	    !breakdown_summary(cell, BREAKDOWN_SLACK, &slack, NULL) &&
	    !breakdown_summary(cell, BREAKDOWN_USABLE, &usable, NULL))
		snprintf(notes[n++], BREAKDOWN_NOTE_BYTES,
			 "metadata < 0 (*): slack (%.2f B) exceeds the RSS overhead (%.2f B): the untouched "
			 "tail of each %.0f-byte slot never became resident",
			 slack.median, overhead.median, usable.median);
	else if (breakdown_metadata_negative(cell) == 1 &&
		 !breakdown_summary(cell, BREAKDOWN_METADATA, &slack, NULL))
		snprintf(notes[n++], BREAKDOWN_NOTE_BYTES,
			 "metadata < 0 (*): %.2f B is within the resolution of the RSS overhead "
			 "(%.2f B per chunk, one page over the count): the metadata is 0 to "
			 "within a page", slack.median, resolution_bytes(report, cell->count));
	return n;
}

/* Prints TEXT after PREFIX, wrapped at 79 columns, continuation lines indented by 4. */
static void print_wrapped(FILE *out, const char *prefix, const char *text)
{
	size_t col = strlen(prefix);

	fputs(prefix, out);
	while (*text) {
		size_t word = strcspn(text, " ");

		if (col + 1 + word > 79) {
			fputs("\n   ", out);
			col = 3;
		}
		fprintf(out, " %.*s", (int)word, text);
		col += 1 + word;
		text += word;
		text += strspn(text, " ");
	}
	fputc('\n', out);
}

/* "5.3.0" of jemalloc's "5.3.0-0-g54eaed1d...": the table has no room for the hash. */
static void short_version(char *buf, size_t size, const char *version)
{
	size_t n = strcspn(version, "-");

	if (n >= size)
		n = size - 1;
	memcpy(buf, version, n);
	buf[n] = '\0';
}

void breakdown_allocator(char *buf, size_t size, const struct cell *cell)
{
	const struct allocator_info *info;
	char version[32];

	buf[0] = '\0';
	if (!cell->ok || !cell->runs)
		return;
	info = &cell->samples[cell_median_run(cell)].allocator;
	if (!info->name[0])
		return;
	short_version(version, sizeof(version), info->version);
	snprintf(buf, size, "%s%s%s", info->name, strcmp(version, "unknown") ? " " : "",
		 strcmp(version, "unknown") ? version : "");
}

/* Writes TEXT into a Markdown table cell or list item: '|' escaped, line breaks as spaces. */
static void put_markdown_text(FILE *out, const char *text)
{
	for (const char *p = text; *p; p++) {
		if (*p == '|' || *p == '\\' || *p == '*' || *p == '_')
			fputc('\\', out);
		fputc(*p == '\n' || *p == '\r' ? ' ' : *p, out);
	}
}

int breakdown_write_markdown(FILE *out, const struct run_report *report)
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
		put_markdown_text(out, cell->backend->name);
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
		put_markdown_text(out, who);
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
			put_markdown_text(out, cell->backend->name);
			fprintf(out, " %zu B: ", cell->size);
			put_markdown_text(out, notes[k]);
			fputc('\n', out);
		}
	}
	return ferror(out) ? -1 : 0;
}

static const char *const head1[] = { "", "size", "usable", "slack", "metadata", "marginal", "allocator" };
static const char *const head2[] = { "backend", "B", "B", "B", "B", "metadata", "version" };

int breakdown_write_text(FILE *out, const struct run_report *report)
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
		if (!breakdown_summary(cell, BREAKDOWN_SLACK, &s, NULL))
			table_set(row, 3, "%.2f", s.median);
		if (!breakdown_summary(cell, BREAKDOWN_METADATA, &s, NULL))
			table_set(row, 4, "%.2f%s", s.median,
				  breakdown_metadata_negative(cell) == 1 ||
				  breakdown_slack_exceeds_overhead(report, cell) == 1 ? "*" : "");
		if (!breakdown_summary(cell, BREAKDOWN_MARGINAL_METADATA, &s, NULL))
			table_set(row, 5, "%.2f", s.median);
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
			char prefix[64];

			if (!nnotes++)
				fputs("\nnotes:\n", out);
			snprintf(prefix, sizeof(prefix), "  %s %zu B:", cell->backend->name, cell->size);
			print_wrapped(out, prefix, notes[k]);
		}
	}
	return ret || ferror(out) ? -1 : 0;
}
