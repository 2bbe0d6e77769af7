/*
 * report_text.c - the aligned tables people read, like the 2012 field
 * study's: one table per run, its columns chosen by the workload.
 */
#include "model/abi.h"
#include "report/report_formats.h"
#include "model/fidelity.h"
#include "model/rerun.h"
#include "report/report_rerun.h"
#include "report/report_columns.h"
#include "report/report_counters.h"
#include "model/breakdown.h"
#include "measure/backend.h"
#include "measure/replay_series.h"
#include "model/report.h"
#include "model/run.h"
#include "model/settings.h"
#include "model/stats.h"
#include "report/table.h"
#include "model/verdict.h"
#include "report/report_verdict.h"
#include "platform/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_header(FILE *out, const struct run_report *report)
{
	const struct run_config *config = report->config;
	const struct host_info *host = &report->host;
	char total[32], align[64], sizes[MEASURE_MAX_MIX * 21 + 1], abi[256], shown[4096];
	const char *sanitizers = report->sanitizers ? report->sanitizers : ALLOCBENCH_SANITIZE;
	size_t used = 0;

	format_bytes(total, sizeof(total), config->total_bytes);
	put_wrappedf(out, 80, "  ",
		     "allocbench %s: %s, %s per measurement, touch %s, median of %u run%s%s",
		     report->tool_version ? report->tool_version : ALLOCBENCH_VERSION, workload_name(config->workload), total,
		     touch_name(config->touch), config->repeat, config->repeat == 1 ? "" : "s",
		     report_runs_note(report));
	/* A report read back is cleaned as it is read; --label and a trace's name are not. */
	if (config->label) {
		text_clean(shown, sizeof(shown), config->label);
		put_wrappedf(out, 80, "  ", "label: %s", shown);
	}
	put_wrappedf(out, 80, "  ", "host: %s, %s %s, %s %s, %d CPU%s, %s", host->hostname,
		     host->kernel, host->machine, host->libc, host->libc_version, host->cpus,
		     host->cpus == 1 ? "" : "s", host->cpu_model);
	if (config->align)
		snprintf(align, sizeof(align), "%zu B for pool, arena (--align)", config->align);
	else
		copy_string(align, sizeof(align), "natural for pool, arena");
	put_wrappedf(out, 80, "  ", "page %ld B, THP %s; alignment: %s, %zu B for malloc",
		     host->page_size, host->thp, align, backend_malloc_alignment());
	report_abi_note(abi, sizeof(abi), report);
	if (abi[0])
		put_wrappedf(out, 80, "  ", "%s", abi);
	for (size_t b = 0; b < config->nbackends; b++) {
		char env[SETTINGS_ENV_MAX], how[256];
		int confirmed;

		if (settings_describe(config->backends[b], env, sizeof(env), &confirmed, how,
				      sizeof(how)))
			put_wrappedf(out, 80, "  ", "settings: %s as %s, %s", config->backends[b]->name,
				     env, how);
	}
	if (*sanitizers)
		put_wrappedf(out, 80, "  ",
			     "warning: a -fsanitize=%s build: malloc is the sanitizer's",
			     sanitizers);
	switch (config->workload) {
	case WORKLOAD_RANDOM:
		sizes[0] = '\0';
		for (size_t i = 0; i < config->nsizes && used < sizeof(sizes); i++) {
			used += (size_t)snprintf(sizes + used, sizeof(sizes) - used, "%s%zu",
						 i ? "," : "", config->sizes[i]);
			if (config->weights && used < sizeof(sizes))
				used += (size_t)snprintf(sizes + used, sizeof(sizes) - used, ":%u",
							 config->weights[i]);
		}
		put_wrappedf(out, 80, "  ", "random: seed %llu, sizes %s B mixed in one heap%s",
			     (unsigned long long)config->seed, sizes,
			     config->weights ? " (SIZE:WEIGHT)" : "");
		break;
	case WORKLOAD_THREADS:
		put_wrappedf(out, 80, "  ",
			     "threads: %u at once, against 1 thread, swapping elements of a shared array",
			     config->threads);
		break;
	case WORKLOAD_REPLAY:
		text_clean(shown, sizeof(shown), config->trace_path);
		put_wrappedf(out, 80, "  ",
			     "replay: %s, %llu calls of %u thread%s%s, %s; peak live %llu bytes",
			     shown, (unsigned long long)config->replay.calls,
			     config->replay.threads, config->replay.threads == 1 ? "" : "s",
			     config->replay.cut_short ? " (cut short)" : "",
			     config->replay_per_thread ?
				     "each in a thread of its own (pool and arena: in one, in the "
				     "recorded order)" :
				     "in the recorded order in one thread",
			     (unsigned long long)config->replay.peak_live_bytes);
		put_wrappedf(out, 80, "  ", "%s", RUN_REPLAY_POLICY);
		break;
	default:
		break;
	}
	report_counters_text_header(out, report);
	fputc('\n', out);
}

/*
 * The text's mark after a figure: '?' on an x floor whose runs lie on both
 * sides of 1, '~' on a time whose runs spread widely; "" for the others.
 */
static const char *text_mark(const struct run_report *report, const struct cell *cell,
			     const struct report_column *column)
{
	struct stat_summary s;

	if (!cell->ok || cell_summary(report, cell, column->metric, &s))
		return "";
	if (column->kind == COL_FIGURE && column->metric == METRIC_X_FLOOR)
		return report_x_floor_crosses(&s) ? "?" : "";
	if (report_column_is_time(column))
		return report_time_spread_wide(&s) ? "~" : "";
	return "";
}

/* 1 when a time column of the table carries the '~' of a wide spread. */
static int any_time_spread_wide(const struct run_report *report)
{
	const struct report_column *columns;
	size_t ncolumns;

	columns = report_columns(report->config->workload, &ncolumns);
	for (size_t i = 0; i < report->ncells; i++)
		for (size_t c = 0; c < ncolumns; c++) {
			struct stat_summary s;

			if (report_column_is_time(&columns[c]) &&
			    !cell_summary(report, &report->cells[i], columns[c].metric, &s) &&
			    report_time_spread_wide(&s))
				return 1;
		}
	return 0;
}

/* The floor's ns per chunk at each size, two spaces in front, items whole, within 80 columns. */
static void print_floor(FILE *out, const struct run_report *report)
{
	fputs("floor (this loop filling one fresh mapping, no allocator), ns per chunk:\n", out);
	for (size_t i = 0, col = 0; i < report->nfloors; i++) {
		const struct floor_cell *f = &report->floors[i];
		char item[sizeof(f->error) + 64];
		size_t len;
		double ns;

		if (!report_floor_ns(report, f->size, &ns))
			snprintf(item, sizeof(item), "  %zu B %.2f%s", f->size, ns,
				 i + 1 < report->nfloors ? "," : "");
		else
			snprintf(item, sizeof(item), "  %zu B %s%s", f->size,
				 f->ok ? "n/a (nothing touched)" : f->error,
				 i + 1 < report->nfloors ? "," : "");
		len = strlen(item) - 2;
		if (col && col + 1 + len > 80) {
			fputc('\n', out);
			col = 0;
		}
		if (len > 78) {
			/* A failure's reason: lines of its own. */
			put_wrapped(out, item, 80, "  ");
			col = 0;
			continue;
		}
		fputs(col ? item + 1 : item, out);
		col += col ? len + 1 : len + 2;
		if (i + 1 == report->nfloors)
			fputc('\n', out);
	}
}

/* Under the floor: the overhead's resolution, warm, and x floor's '?' where a row has it. */
static void print_floor_notes(FILE *out, const struct run_report *report)
{
	double worst = 0;

	for (size_t i = 0; i < report->nfloors; i++)
		if (resolution_bytes(report, report->floors[i].count) > worst)
			worst = resolution_bytes(report, report->floors[i].count);
	fprintf(out, "overhead resolution: one page over the count, at most %.3g B per "
		"chunk;\nwarm: the same fill again after freeing everything, in the same "
		"process\n", worst);
	for (size_t i = 0; i < report->ncells; i++) {
		struct stat_summary s;

		if (!cell_summary(report, &report->cells[i], METRIC_X_FLOOR, &s) &&
		    report_x_floor_crosses(&s)) {
			fputs("x floor: alloc ns over the floor's, each run over the floor run "
			      "measured next\nto it; ?: the runs' ratios lie on both sides of "
			      "1, neither faster nor\nslower than the floor beyond the noise\n",
			      out);
			break;
		}
	}
}

/* The sequence's checksum: the same operations on every backend, or a bug. */
static void print_checksum(FILE *out, const struct run_report *report)
{
	uint64_t checksum = 0;
	int same = 1, any = 0;

	for (size_t i = 0; i < report->ncells; i++) {
		const struct cell *c = &report->cells[i];

		for (unsigned r = 0; r < c->runs; r++) {
			if (any && c->samples[r].checksum != checksum)
				same = 0;
			checksum = c->samples[r].checksum;
			any = 1;
		}
	}
	if (any)
		fprintf(out, "sequence checksum %016llx: %s\n", (unsigned long long)checksum,
			same ? "the same operations on every backend" :
			       "DIFFERS between backends (a bug: please report it)");
}

/* BYTES in KiB or MiB, one decimal. */
static void series_bytes(char *buf, size_t size, uint64_t bytes)
{
	if (bytes >= 1 << 20)
		snprintf(buf, size, "%.1f MiB", (double)bytes / (1 << 20));
	else
		snprintf(buf, size, "%.1f KiB", (double)bytes / 1024);
}

/* Each backend's resident memory after the live bytes' peak: its lowest, and at the end. */
static void print_after_peak(FILE *out, const struct run_report *report)
{
	put_wrapped(out, "  after the live bytes' peak, resident at its lowest and at the end (the "
		    "replay runs faster than the program: what an allocator gives back after a "
		    "delay, it keeps here; advise's real runs say what it gives back):", 80, "    ");
	for (size_t i = 0; i < report->ncells; i++) {
		const struct cell *c = &report->cells[i];
		const struct sample *s = c->ok && c->runs ? &c->samples[cell_median_run(c)] : NULL;
		char low[32], end[32];
		uint64_t lo, en;

		if (!s || sample_after_live_peak(s, &lo, &en))
			continue;
		series_bytes(low, sizeof(low), lo);
		series_bytes(end, sizeof(end), en);
		put_wrappedf(out, 80, "      ", "  %-12s lowest %s, at the end %s", c->backend->name,
			     low, end);
	}
}

/* Where each backend's resident memory peaked in the replay's series (replay_series.h). */
static void print_series(FILE *out, const struct run_report *report)
{
	const struct sample *live = NULL;
	char bytes[32];

	for (size_t i = 0; i < report->ncells; i++) {
		const struct cell *c = &report->cells[i];
		const struct sample *s = c->ok && c->runs ? &c->samples[cell_median_run(c)] : NULL;
		unsigned at;

		if (!s || !s->nseries)
			continue;
		if (!live)
			fprintf(out, "memory over time (%u points of %llu calls; allocbench plot "
				"draws it):\n", s->nseries,
				(unsigned long long)s->series_steps[s->nseries - 1]);
		live = s;
		at = series_peak(s->series_rss_bytes, s->nseries);
		series_bytes(bytes, sizeof(bytes), s->series_rss_bytes[at]);
		put_wrappedf(out, 80, "      ", "  %-12s resident peak %s at %.0f%% of calls",
			     c->backend->name, bytes,
			     100.0 * (double)s->series_steps[at] / (double)s->series_steps[s->nseries - 1]);
	}
	if (live) {
		unsigned at = series_peak(live->series_live_bytes, live->nseries);

		series_bytes(bytes, sizeof(bytes), live->series_live_bytes[at]);
		fprintf(out, "  %-12s peak %s at %.0f%% of calls (on every backend)\n",
			"live bytes", bytes,
			100.0 * (double)live->series_steps[at] /
			(double)live->series_steps[live->nseries - 1]);
		/* What each kept, where the program freed much of its peak. */
		if (series_fell((double)live->series_live_bytes[live->nseries - 1],
				(double)live->series_live_bytes[at]))
			print_after_peak(out, report);
	}
}

/*
 * The notes under the table: the workload's sections and notes (figure.h),
 * how a figure of several runs combines where it is a median of ratios, the
 * marks.
 */
static void print_footer(FILE *out, const struct run_report *report)
{
	const struct workload_def *def = workload_def(report->config->workload);
	const struct report_column *columns;
	size_t ncolumns;

	fputc('\n', out);
	if (def->sections & SECTION_FLOOR) {
		print_floor(out, report);
		print_floor_notes(out, report);
	}
	if (def->sections & SECTION_CHECKSUM)
		print_checksum(out, report);
	if (report->config->workload == WORKLOAD_REPLAY) {
		char text[1024];

		replay_fidelity_text(report, text, sizeof(text));
		put_wrappedf(out, 80, "  ", "program: %s", text);
	}
	print_series(out, report);
	if (def->notes)
		fputs(def->notes, out);
	columns = report_columns(report->config->workload, &ncolumns);
	for (size_t c = 0; c < ncolumns; c++) {
		const struct figure *f = figure_get(columns[c].metric);

		if (columns[c].kind == COL_FIGURE && f->combine == FIGURE_MEDIAN_OF_RATIOS &&
		    f->combine_note)
			fprintf(out, "%s\n", f->combine_note);
	}
	if (any_time_spread_wide(report))
		fprintf(out, "~: a time whose runs spread by more than %gx (max/min): the median "
			"alone\nwould hide it\n", REPORT_TIME_SPREAD);
	fputs("--format json gives min, max and every run\n", out);
}

static const char *const breakdown_head1[] = { "", "size", "usable", "slack", "metadata", "marginal", "allocator" };
static const char *const breakdown_head2[] = { "backend", "B", "B", "B", "B", "metadata", "version" };

/*
 * Under the main table: the split of each malloc-family row's overhead
 * (model/breakdown.h: usable, slack, metadata, the allocator and its
 * version) and the notes; nothing when no row has a usable size. Returns
 * 0, or -1 on a write error.
 */
static int put_breakdown(FILE *out, const struct run_report *report)
{
	struct table table;
	size_t nnotes = 0;
	int ret;

	table_init(&table, sizeof(breakdown_head2) / sizeof(breakdown_head2[0]), breakdown_head1,
		   breakdown_head2);
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

/*
 * advise's answer (REPORT's answer_first): the real runs' lines where they
 * answer, the replays' otherwise, then the real runs' tables and a blank
 * line, before the report. Returns 0, or -1 on a write error.
 */
static int put_answer(FILE *out, const struct run_report *report)
{
	int ret = 0;

	if (!verdict_wanted(report)) {
		fputs("no answer: only one backend was replayed (--backend names two or more)\n",
		      out);
	} else if (rerun_answers(report->rerun)) {
		fputs("answer (median [min-max]; drop-in as measured, with code changes as "
		      "replayed;\nno clear winner where ranges overlap, or measured memory lies "
		      "within 2%):\n", out);
		ret |= rerun_write_answer(out, report);
		ret |= verdict_write_answer(out, report, "");
	} else {
		ret |= verdict_write_answer(out, report, "answer (median [min-max] of the replays; "
					    "no clear winner where ranges overlap):\n");
		ret |= rerun_write_answer(out, report);
	}
	ret |= rerun_write_table(out, report);
	fputc('\n', out);
	return ret;
}

int report_text_write(FILE *out, const struct run_report *report)
{
	const char *head1[TABLE_MAX_COLUMNS], *head2[TABLE_MAX_COLUMNS];
	enum workload workload = report->config->workload;
	const struct report_column *columns;
	size_t ncolumns, identity = report_identity_columns(workload);
	struct table table;
	int ret, color = color_enabled(out);

	columns = report_columns(workload, &ncolumns);
	for (size_t c = 0; c < ncolumns; c++) {
		int is_unit;

		report_column_heads(&columns[c], &head1[c], &head2[c], &is_unit);
	}
	if (report->answer_first && put_answer(out, report))
		return -1;
	print_header(out, report);
	table_init(&table, ncolumns, head1, head2);
	for (size_t i = 0; i < report->ncells; i++) {
		const struct cell *cell = &report->cells[i];
		struct table_row *row = table_add_row(&table);
		/* A failed row: its identity, then why it failed. */
		size_t shown = cell->ok ? ncolumns : identity;

		if (!row)
			break;
		for (size_t c = 0; c < shown; c++) {
			char buf[TABLE_CELL];

			if (columns[c].kind == COL_BACKEND)
				report_backend_label(buf, sizeof(buf), cell);
			else
				report_column_format(buf, sizeof(buf), &columns[c], report, cell);
			table_set(row, c, "%s%s", buf, text_mark(report, cell, &columns[c]));
		}
		if (!cell->ok) {
			char note[256];

			snprintf(note, sizeof(note), "failed: %s", cell->error);
			table_set_note(row, note);
			if (color)
				row->color = COLOR_RED;
		}
	}
	ret = table_print(&table, out);
	table_release(&table);
	print_footer(out, report);
	ret |= report_counters_text_table(out, report);
	if (put_breakdown(out, report))
		ret = -1;
	if (verdict_write_text(out, report))
		ret = -1;
	return ret || ferror(out) ? -1 : 0;
}
