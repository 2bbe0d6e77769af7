/*
 * report_compare.c - the writers of a comparison (compare.h): an aligned
 * text table for a terminal, a Markdown section for a pull request or a CI
 * job summary, and JSON for machines (schema "allocbench-compare/1"). All
 * three show every row with its baseline, current, change, limit and
 * verdict; allocbench-compare(1) documents each field.
 */
#include "report/compare.h"
#include "report/markdown_text.h"
#include "report/report_compare.h"
#include "report/report_formats.h"
#include "report/json_out.h"
#include "model/stats.h"
#include "report/table.h"
#include "platform/util.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define COMPARE_JSON_SCHEMA "allocbench-compare/1"

/* Whether DEF is judged against a tolerance (a memory figure). */
static int has_tolerance(const struct compare_metric_def *def)
{
	return def->rule == FIGURE_COMPARE_BYTES || def->rule == FIGURE_COMPARE_RSS ||
	       def->rule == FIGURE_COMPARE_RATIO || def->rule == FIGURE_COMPARE_COUNT;
}

enum { COL_METRIC, COL_BASELINE, COL_CURRENT, COL_CHANGE, COL_LIMIT, COL_VERDICT, NCOLS };

/*
 * Why metric M was not gated, in a few words ("3 runs, need 5"), or "" when
 * it was: its verdict then says "not gated", never "unchanged", and the
 * criteria above the table say it in full.
 */
static void not_gated_reason(const struct comparison *c, const struct compare_metric_def *def,
			     const struct compare_metric *m, char *buf, size_t size)
{
	*buf = 0;
	if (m->absent)
		snprintf(buf, size, "absent");
	else if (def->rule == FIGURE_COMPARE_EXACT && !m->tested)
		snprintf(buf, size, "runs vary");
	else if ((def->rule == FIGURE_COMPARE_TIME || def->rule == FIGURE_COMPARE_RATE) && !m->tested) {
		if (m->not_asked)
			snprintf(buf, size, "no --gate-time");
		else if (m->other_jobs)
			snprintf(buf, size, "--jobs %u vs %u", c->settings.jobs, c->current_jobs);
		else if (m->other_host)
			snprintf(buf, size, "other host");
		else if (!m->have_p)
			snprintf(buf, size, "no runs");
		else if (m->baseline_runs == m->current_runs)
			snprintf(buf, size, "%zu run%s, need %zu", m->baseline_runs,
				 m->baseline_runs == 1 ? "" : "s", c->min_runs);
		else
			snprintf(buf, size, "runs %zu/%zu, need %zu", m->baseline_runs,
				 m->current_runs, c->min_runs);
	}
}

/* The cells after backend and size of one line: a metric, or the whole row when not compared. */
static void line_cells(const struct comparison *c, const struct compare_row *row, int metric,
		       char cells[NCOLS][TABLE_CELL])
{
	char why[TABLE_CELL];

	const struct compare_metric_def *def;
	const struct compare_metric *m;
	int d;

	if (metric < 0) {
		snprintf(cells[COL_METRIC], TABLE_CELL, "-");
		snprintf(cells[COL_BASELINE], TABLE_CELL, "%s",
			 row->baseline ? row->baseline->status : "-");
		snprintf(cells[COL_CURRENT], TABLE_CELL, "%s",
			 row->current ? row->current->status : "-");
		snprintf(cells[COL_CHANGE], TABLE_CELL, "-");
		snprintf(cells[COL_LIMIT], TABLE_CELL, "-");
		snprintf(cells[COL_VERDICT], TABLE_CELL, "%s", compare_verdict_name(row->verdict));
		return;
	}
	m = &row->metrics[metric];
	def = &row->defs[metric];
	d = def->decimals;
	not_gated_reason(c, def, m, why, sizeof(why));
	snprintf(cells[COL_METRIC], TABLE_CELL, "%s", def->label);
	if (m->absent) {
		snprintf(cells[COL_BASELINE], TABLE_CELL, "-");
		snprintf(cells[COL_CURRENT], TABLE_CELL, "-");
		snprintf(cells[COL_CHANGE], TABLE_CELL, "-");
		snprintf(cells[COL_LIMIT], TABLE_CELL, "%s", why);
		snprintf(cells[COL_VERDICT], TABLE_CELL, "not gated");
		return;
	}
	snprintf(cells[COL_BASELINE], TABLE_CELL, "%.*f", d, m->baseline);
	snprintf(cells[COL_CURRENT], TABLE_CELL, "%.*f", d, m->current);
	if (has_tolerance(def)) {
		snprintf(cells[COL_CHANGE], TABLE_CELL, "%+.*f", d, m->change);
		snprintf(cells[COL_LIMIT], TABLE_CELL, "tol %.*f%s", d ? 4 : 0, m->tolerance_bytes,
			 m->from_option ? " (option)" : "");
	} else if (def->rule == FIGURE_COMPARE_EXACT) {
		snprintf(cells[COL_CHANGE], TABLE_CELL, "%+.*f", d, m->change);
		snprintf(cells[COL_LIMIT], TABLE_CELL, "%s", m->tested ? "exact" : why);
	} else {
		snprintf(cells[COL_CHANGE], TABLE_CELL, "%+.1f%%", m->change_percent);
		if (m->tested)
			snprintf(cells[COL_LIMIT], TABLE_CELL, "p %.3f",
				 m->change >= 0 ? m->q_slower : m->q_faster);
		else
			snprintf(cells[COL_LIMIT], TABLE_CELL, "%s", why);
	}
	snprintf(cells[COL_VERDICT], TABLE_CELL, "%s",
		 *why ? "not gated" : compare_verdict_name(m->verdict));
}

/* 1 when ROW's metrics were compared (both rows ok). */
static int compared(const struct compare_row *row)
{
	return row->verdict == COMPARE_UNCHANGED || row->verdict == COMPARE_IMPROVED ||
	       row->verdict == COMPARE_REGRESSED;
}

/* TEXT in a table cell or inline code (markdown_put_text()). */
static void put_md(FILE *out, const char *text)
{
	markdown_put_text(out, text, "|\\`*_");
}

static void describe_file(FILE *out, const char *what, const struct result_file *f)
{
	put_wrappedf(out, TABLE_WIDTH, "  ", "%s %s%s%sallocbench %s on %s, %s, %u run%s", what,
		     f->label ? "'" : "", f->label ? f->label : "", f->label ? "', " : "",
		     *f->tool_version ? f->tool_version : "?", *f->hostname ? f->hostname : "?",
		     *f->created ? f->created : "?", f->repeat, f->repeat == 1 ? "" : "s");
}

/*
 * How times (rates) are gated: the percentage, the baseline's spread, the
 * rank test and the correction, with the number of tests and the rate.
 */
static void put_time_criteria(FILE *out, const struct comparison *c, const char *prefix,
			      const char *more)
{
	const struct compare_options *o = &c->options;
	int threads = !strcmp(c->settings.workload, "threads");
	char line[1024];

	if (c->time_not_asked) {
		snprintf(line, sizeof(line), "%s%s: not gated: measured at other moments they "
			 "drift on a shared machine beyond any threshold; allocbench ab gates them "
			 "side by side, pair by pair (--gate-time gates them here)", prefix,
			 threads ? "ops/s, speedup" : "time");
		put_wrapped(out, line, TABLE_WIDTH, more);
		return;
	}
	snprintf(line, sizeof(line), "%s%s: regressed when the median %s by more than %g%% "
		 "and by more than the baseline's min-max spread, and the one-sided "
		 "Mann-Whitney U test on the runs gives p < %g after Holm's correction over "
		 "this comparison's tests: %zu ran, a false alarm on any of them at most %g "
		 "(family-wise)", prefix, threads ? "ops/s, speedup" : "time",
		 threads ? "fell" : "rose", o->max_time_percent, o->alpha, c->time_tested,
		 o->alpha);
	put_wrapped(out, line, TABLE_WIDTH, more);
}

/*
 * The settings, the criteria and the caveats: lines that start with PREFIX,
 * continued on lines that start with MORE.
 */
static void put_criteria(FILE *out, const struct comparison *c, const char *prefix,
			 const char *more)
{
	const struct compare_options *o = &c->options;
	char total[32];

	format_bytes(total, sizeof(total), c->settings.total_bytes);
	fprintf(out, "%ssettings: %s, %s per measurement, touch %s, align %s", prefix,
		c->settings.workload, total, c->settings.touch,
		*c->settings.align ? c->settings.align : "?");
	if (o->backends) {
		fprintf(out, ";\n%sbackends ", more);
		for (size_t i = 0; i < o->nbackends; i++)
			fprintf(out, "%s%s", i ? ", " : "", o->backends[i]);
		fputs(" only (--backend)", out);
	}
	fputc('\n', out);
	if (!strcmp(c->settings.workload, "fill")) {
		fprintf(out, "%soverhead, marginal: regressed when the median rose by more than",
			prefix);
		if (o->max_overhead < 0)
			fprintf(out, " the\n%stolerance (B/chunk), derived: %d pages over the count "
				"plus the\n%sbaseline's min-max spread\n", more,
				COMPARE_TOLERANCE_PAGES, more);
		else if (o->max_overhead_percent)
			fprintf(out, "\n%s%g%% of the baseline's bytes per chunk, size + overhead "
				"(--max-overhead)\n", more, o->max_overhead);
		else
			fprintf(out, "\n%s%g B/chunk (--max-overhead)\n", more, o->max_overhead);
	} else if (!strcmp(c->settings.workload, "churn")) {
		fprintf(out, "%sfaults: regressed when the median rose by more than 2 + 1%% plus the\n"
			"%sbaseline's min-max spread; reserved B: regressed when higher, gated\n"
			"%swhere every run of both sides agrees (a deterministic backend)\n",
			prefix, more, more);
	} else if (!strcmp(c->settings.workload, "random") || !strcmp(c->settings.workload, "replay")) {
		fprintf(out, "%speak RSS, RSS/live: regressed when the median rose by more than "
			"%d pages\n%s(over the live bytes for RSS/live) plus the baseline's "
			"min-max spread;\n%sthe sequence checksums match\n", prefix,
			COMPARE_TOLERANCE_PAGES, more, more);
	}
	put_time_criteria(out, c, prefix, more);
	if (c->absent)
		fprintf(out, "%smarginal B: not gated in %zu place%s, where a report older than the\n"
			"%sfigure (allocbench 0.1.0) lacks it\n", prefix, c->absent,
			c->absent == 1 ? "" : "s", more);
	if (c->time_untested) {
		size_t places = c->time_untested + c->time_tested;
		char note[512];

		snprintf(note, sizeof(note), "%s%s: not gated in %zu of %zu places: %u and %u runs "
			 "reach p = %.3g at best; %s needs p < %.3g; %s (allocbench ab gates "
			 "times side by side)", prefix,
			 !strcmp(c->settings.workload, "threads") ? "rates" : "time",
			 c->time_untested, places, c->baseline->repeat, c->current->repeat,
			 stats_mann_whitney_min_p(c->baseline->repeat, c->current->repeat),
			 places == 1 ? "the test" : "Holm's correction of that many tests",
			 c->options.alpha / (double)places,
			 !strcmp(c->settings.workload, "threads") ? "nothing else is gated there" :
			 "gating on the other figures there");
		put_wrapped(out, note, TABLE_WIDTH, more);
	}
	if (c->time_other_jobs) {
		char note[512];

		snprintf(note, sizeof(note), "%s%s: not gated: the baseline measured %u at a time "
			 "(--jobs), the current %u; gating on the other figures", prefix,
			 !strcmp(c->settings.workload, "threads") ? "rates" : "time",
			 c->settings.jobs, c->current_jobs);
		put_wrapped(out, note, TABLE_WIDTH, more);
	}
	if (c->time_other_host) {
		char note[512];

		snprintf(note, sizeof(note), "%s%s: not gated: the reports come from different "
			 "hosts (what changed, above), whose drift no threshold can tell from a "
			 "change; gating on the other figures (--allow-host-change gates them)",
			 prefix, !strcmp(c->settings.workload, "threads") ? "rates" : "time");
		put_wrapped(out, note, TABLE_WIDTH, more);
	}
}

/*
 * What the reports record differently, the host first: a heading, then a
 * line per change that starts with ITEM (Markdown escapes its values).
 * Nothing when they record the same.
 */
static void put_changes(FILE *out, const struct comparison *c, int markdown)
{
	const char *why = !c->host_changed ? "" : c->options.allow_host_change ?
		" (another host: times gated anyway, --allow-host-change)" :
		" (another host: times not gated, --allow-host-change gates them)";

	if (!c->nchanges)
		return;
	fprintf(out, markdown ? "**What changed**%s:\n\n" : "what changed%s:\n", why);
	for (size_t i = 0; i < c->nchanges; i++) {
		const struct compare_change *ch = &c->changes[i];

		if (markdown) {
			fprintf(out, "- %s: `", ch->what);
			put_md(out, ch->baseline);
			fputs("` -> `", out);
			put_md(out, ch->current);
			fputs("`\n", out);
		} else {
			put_wrappedf(out, TABLE_WIDTH, "    ", "  %s: %s -> %s", ch->what,
				     ch->baseline, ch->current);
		}
	}
	if (markdown)
		fputc('\n', out);
}

/* "regressed: pool 40 B (overhead B), arena 4 B (alloc ns, free ns)", wrapped; nothing when none did. */
static void put_regressed(FILE *out, const struct comparison *c)
{
	char line[4096];
	size_t len = 0, named = 0;

	for (size_t i = 0; i < c->nrows && len < sizeof(line) - 64; i++) {
		const struct compare_row *row = &c->rows[i];
		size_t nmetrics = 0;

		if (row->verdict != COMPARE_REGRESSED)
			continue;
		len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s %llu B (",
					named++ ? ", " : "regressed: ", row->backend,
					(unsigned long long)row->size);
		for (size_t m = 0; m < row->nmetrics && len < sizeof(line) - 64; m++)
			if (row->metrics[m].verdict == COMPARE_REGRESSED)
				len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s",
							nmetrics++ ? ", " : "",
							row->defs[m].label);
		len += (size_t)snprintf(line + len, sizeof(line) - len, ")");
	}
	if (named)
		put_wrapped(out, line, TABLE_WIDTH, "  ");
}

static void put_summary(FILE *out, const struct comparison *c)
{
	fprintf(out, "%zu row%s:", c->nrows, c->nrows == 1 ? "" : "s");
	for (int v = 0; v < COMPARE_NVERDICTS; v++) {
		/* The order a reader looks for: the bad news first. */
		static const enum compare_verdict order[] = {
			COMPARE_REGRESSED, COMPARE_FAILED, COMPARE_IMPROVED, COMPARE_UNCHANGED,
			COMPARE_MISSING, COMPARE_NEW,
		};

		fprintf(out, "%s %zu %s", v ? "," : "", c->verdicts[order[v]],
			compare_verdict_name(order[v]));
	}
	fputc('\n', out);
	put_regressed(out, c);
	if (!c->in_common)
		fprintf(out, "no row of the current report is in the baseline: nothing was "
			"compared%s\n", c->options.allow_missing ? " (--allow-missing)" : "");
	else if (c->verdicts[COMPARE_MISSING])
		fprintf(out, "%zu row%s of the baseline %s missing from the current report%s\n",
			c->verdicts[COMPARE_MISSING], c->verdicts[COMPARE_MISSING] == 1 ? "" : "s",
			c->verdicts[COMPARE_MISSING] == 1 ? "is" : "are",
			c->options.allow_missing ? " (allowed: --allow-missing)" :
			": the gate covers less (--allow-missing to accept it)");
}

/* The reasons of the rows that failed in the current report, one line each. */
static void put_failed(FILE *out, const struct comparison *c)
{
	for (size_t i = 0; i < c->nrows; i++) {
		const struct compare_row *row = &c->rows[i];

		if (row->verdict == COMPARE_FAILED)
			put_wrappedf(out, TABLE_WIDTH, "  ", "failed: %s %llu B: %s",
				     row->backend, (unsigned long long)row->size,
				     row->current->error ? row->current->error : "no reason given");
	}
}

/* ---- text -------------------------------------------------------------- */

int compare_write_text(FILE *out, const struct comparison *c)
{
	static const char *const head1[] = { "", "", "", "", "", "", "", "" };
	static const char *const head2[] = {
		"backend", "size B", "metric", "baseline", "current", "change", "limit", "verdict",
	};
	struct table table;
	int ret, color = color_enabled(out);

	put_wrappedf(out, TABLE_WIDTH, "  ", "allocbench compare: baseline '%s', current '%s'",
		     c->baseline->path, c->current->path);
	put_changes(out, c, 0);
	describe_file(out, "baseline:", c->baseline);
	describe_file(out, "current: ", c->current);
	put_criteria(out, c, "", "  ");
	fputc('\n', out);

	table_init(&table, 8, head1, head2);
	table_align_left(&table, 2 + COL_METRIC);
	table_align_left(&table, 2 + COL_LIMIT);
	table_align_left(&table, 2 + COL_VERDICT);
	for (size_t i = 0; i < c->nrows; i++) {
		const struct compare_row *row = &c->rows[i];
		int first = compared(row) ? 0 : -1, last = compared(row) ? (int)row->nmetrics - 1 : -1;

		for (int m = first; m <= last; m++) {
			struct table_row *line = table_add_row(&table);
			char cells[NCOLS][TABLE_CELL];

			if (!line)
				break;
			line_cells(c, row, m, cells);
			if (color && (!strcmp(cells[COL_VERDICT], "regressed") ||
				      !strcmp(cells[COL_VERDICT], "failed")))
				line->color = COLOR_RED;
			table_set(line, 0, "%s", row->backend);
			table_set(line, 1, "%llu", (unsigned long long)row->size);
			for (int k = 0; k < NCOLS; k++)
				table_set(line, (size_t)(2 + k), "%s", cells[k]);
		}
	}
	ret = table_print(&table, out);
	table_release(&table);

	fputc('\n', out);
	put_failed(out, c);
	put_summary(out, c);
	fprintf(out, "result: %s%s%s\n", color && c->regression ? COLOR_BOLD_RED : "",
		c->regression ? "REGRESSION" : "no regression",
		color && c->regression ? COLOR_RESET : "");
	return ret || ferror(out) ? -1 : 0;
}

int compare_write_summary(FILE *out, const struct comparison *c, const char *format,
			  const char *path)
{
	put_changes(out, c, 0);
	put_failed(out, c);
	put_summary(out, c);
	put_wrappedf(out, TABLE_WIDTH, "  ", "result: %s (the comparison in %s: %s)",
		     c->regression ? "REGRESSION" : "no regression", format, path);
	return ferror(out) ? -1 : 0;
}

/* ---- Markdown ---------------------------------------------------------- */

/* "PATH (LABEL; allocbench VERSION on HOST, CREATED, N runs)": F in Markdown. */
static void put_md_file(FILE *out, const struct result_file *f)
{
	char what[1024];

	put_md(out, f->path);
	fputs(" (", out);
	if (f->label) {
		put_md(out, f->label);
		fputs("; ", out);
	}
	snprintf(what, sizeof(what), "allocbench %s on %s, %s", f->tool_version, f->hostname,
		 f->created);
	put_md(out, what);
	fprintf(out, ", %u runs)", f->repeat);
}

int compare_write_markdown(FILE *out, const struct comparison *c)
{
	fprintf(out, "### allocbench compare: %s\n\n",
		c->regression ? "regression found" : "no regression");
	put_changes(out, c, 1);
	fputs("Baseline ", out);
	put_md_file(out, c->baseline);
	fputs(", current ", out);
	put_md_file(out, c->current);
	fputs(".\n\n", out);
	put_criteria(out, c, "- ", "  ");
	fputs("\n| backend | size (B) | metric | baseline | current | change | limit | verdict |\n"
	      "|:--|--:|:--|--:|--:|--:|:--|:--|\n", out);
	for (size_t i = 0; i < c->nrows; i++) {
		const struct compare_row *row = &c->rows[i];
		int first = compared(row) ? 0 : -1, last = compared(row) ? (int)row->nmetrics - 1 : -1;

		for (int m = first; m <= last; m++) {
			char cells[NCOLS][TABLE_CELL];
			int bad;

			line_cells(c, row, m, cells);
			bad = !strcmp(cells[COL_VERDICT], "regressed") ||
			      !strcmp(cells[COL_VERDICT], "failed");
			fputs("| ", out);
			put_md(out, row->backend);
			fprintf(out, " | %llu |", (unsigned long long)row->size);
			for (int k = 0; k < NCOLS; k++) {
				fputc(' ', out);
				if (k == COL_VERDICT && bad)
					fputs("**", out);
				put_md(out, cells[k]);
				if (k == COL_VERDICT && bad)
					fputs("**", out);
				fputs(" |", out);
			}
			fputc('\n', out);
		}
	}
	fputc('\n', out);
	for (size_t i = 0; i < c->nrows; i++) {
		const struct compare_row *row = &c->rows[i];

		if (row->verdict != COMPARE_FAILED)
			continue;
		fputs("- failed: ", out);
		put_md(out, row->backend);
		fprintf(out, " %llu B: ", (unsigned long long)row->size);
		put_md(out, row->current->error ? row->current->error : "no reason given");
		fputs("\n\n", out);
	}
	put_summary(out, c);
	return ferror(out) ? -1 : 0;
}

/* ---- JSON -------------------------------------------------------------- */

static cJSON *file_json(const struct result_file *f)
{
	cJSON *obj = cJSON_CreateObject();

	cJSON_AddStringToObject(obj, "path", f->path);
	cJSON_AddStringToObject(obj, "schema", f->schema);
	cJSON_AddStringToObject(obj, "tool_version", f->tool_version);
	cJSON_AddStringToObject(obj, "hostname", f->hostname);
	cJSON_AddStringToObject(obj, "created", f->created);
	if (f->label)
		cJSON_AddStringToObject(obj, "label", f->label);
	cJSON_AddNumberToObject(obj, "repeat", f->repeat);
	return obj;
}

static cJSON *changes_json(const struct comparison *c)
{
	cJSON *list = cJSON_CreateArray();

	for (size_t i = 0; i < c->nchanges; i++) {
		cJSON *obj = cJSON_CreateObject();

		cJSON_AddStringToObject(obj, "what", c->changes[i].what);
		cJSON_AddStringToObject(obj, "baseline", c->changes[i].baseline);
		cJSON_AddStringToObject(obj, "current", c->changes[i].current);
		cJSON_AddBoolToObject(obj, "host", c->changes[i].host);
		cJSON_AddItemToArray(list, obj);
	}
	return list;
}

static cJSON *settings_json(const struct compare_settings *s)
{
	cJSON *obj = cJSON_CreateObject();

	cJSON_AddStringToObject(obj, "workload", s->workload);
	cJSON_AddNumberToObject(obj, "total_bytes", (double)s->total_bytes);
	cJSON_AddStringToObject(obj, "touch", s->touch);
	if (*s->align)
		cJSON_AddStringToObject(obj, "align", s->align);
	else
		cJSON_AddNullToObject(obj, "align");
	if (s->pool_block_bytes >= 0)
		cJSON_AddNumberToObject(obj, "pool_block_bytes", s->pool_block_bytes);
	else
		cJSON_AddNullToObject(obj, "pool_block_bytes");
	return obj;
}

static cJSON *criteria_json(const struct comparison *c)
{
	const struct compare_options *o = &c->options;
	cJSON *obj = cJSON_CreateObject(), *overhead = cJSON_CreateObject();
	cJSON *time = cJSON_CreateObject();

	cJSON_AddStringToObject(overhead, "tolerance", o->max_overhead < 0 ? "derived" :
				o->max_overhead_percent ? "percent" : "bytes");
	if (o->max_overhead < 0)
		cJSON_AddNullToObject(overhead, "max_overhead");
	else
		cJSON_AddNumberToObject(overhead, "max_overhead", o->max_overhead);
	cJSON_AddNumberToObject(overhead, "tolerance_pages", COMPARE_TOLERANCE_PAGES);
	cJSON_AddItemToObject(obj, "overhead", overhead);
	cJSON_AddStringToObject(time, "test", "mann-whitney-u, one-sided");
	cJSON_AddStringToObject(time, "correction", "holm");
	cJSON_AddNumberToObject(time, "tests", (double)c->time_tested);
	cJSON_AddNumberToObject(time, "family_wise_alpha", o->alpha);
	cJSON_AddNumberToObject(time, "alpha", o->alpha);
	cJSON_AddNumberToObject(time, "max_time_percent", o->max_time_percent);
	cJSON_AddNumberToObject(time, "min_runs", (double)c->min_runs);
	cJSON_AddBoolToObject(time, "gate_time", o->gate_time || o->allow_host_change);
	cJSON_AddBoolToObject(time, "allow_host_change", o->allow_host_change);
	cJSON_AddItemToObject(obj, "time", time);
	if (o->backends) {
		cJSON *list = cJSON_CreateArray();

		for (size_t i = 0; i < o->nbackends; i++)
			cJSON_AddItemToArray(list, cJSON_CreateString(o->backends[i]));
		cJSON_AddItemToObject(obj, "backends", list);
	} else {
		cJSON_AddNullToObject(obj, "backends");
	}
	return obj;
}

static cJSON *metric_json(const struct comparison *c, const struct compare_metric_def *def,
			  const struct compare_metric *m)
{
	cJSON *obj = cJSON_CreateObject();
	char why[TABLE_CELL];

	cJSON_AddNumberToObject(obj, "baseline", m->baseline);
	cJSON_AddNumberToObject(obj, "current", m->current);
	cJSON_AddNumberToObject(obj, "change", m->change);
	/* A change from nothing (the pool's overhead) has no percentage. */
	if (m->baseline != 0)
		cJSON_AddNumberToObject(obj, "change_percent", m->change_percent);
	else
		cJSON_AddNullToObject(obj, "change_percent");
	if (has_tolerance(def)) {
		/* In the metric's unit: bytes per chunk, bytes, or a ratio. */
		cJSON_AddNumberToObject(obj, "tolerance_bytes", m->tolerance_bytes);
		cJSON_AddNumberToObject(obj, "derived_tolerance_bytes", m->derived_bytes);
		cJSON_AddStringToObject(obj, "tolerance_source", m->from_option ? "option" : "derived");
	} else if (def->rule == FIGURE_COMPARE_EXACT) {
		cJSON_AddBoolToObject(obj, "tested", m->tested);
	} else {
		cJSON_AddNumberToObject(obj, "baseline_runs", (double)m->baseline_runs);
		cJSON_AddNumberToObject(obj, "current_runs", (double)m->current_runs);
		cJSON_AddBoolToObject(obj, "tested", m->tested);
		if (m->have_p) {
			cJSON_AddNumberToObject(obj, "p_slower", m->p_slower);
			cJSON_AddNumberToObject(obj, "p_faster", m->p_faster);
			cJSON_AddNumberToObject(obj, "p_slower_holm", m->q_slower);
			cJSON_AddNumberToObject(obj, "p_faster_holm", m->q_faster);
			cJSON_AddBoolToObject(obj, "exact", m->exact);
		} else {
			cJSON_AddNullToObject(obj, "p_slower");
			cJSON_AddNullToObject(obj, "p_faster");
			cJSON_AddNullToObject(obj, "p_slower_holm");
			cJSON_AddNullToObject(obj, "p_faster_holm");
			cJSON_AddNullToObject(obj, "exact");
		}
	}
	not_gated_reason(c, def, m, why, sizeof(why));
	cJSON_AddBoolToObject(obj, "gated", !*why);
	cJSON_AddStringToObject(obj, "verdict", *why ? "not gated" : compare_verdict_name(m->verdict));
	if (*why)
		cJSON_AddStringToObject(obj, "why_not_gated", why);
	return obj;
}

static cJSON *row_json(const struct comparison *c, const struct compare_row *row)
{
	cJSON *obj = cJSON_CreateObject();

	cJSON_AddStringToObject(obj, "workload", row->workload);
	cJSON_AddStringToObject(obj, "backend", row->backend);
	cJSON_AddNumberToObject(obj, "size", (double)row->size);
	cJSON_AddStringToObject(obj, "verdict", compare_verdict_name(row->verdict));
	if (row->baseline)
		cJSON_AddStringToObject(obj, "baseline_status", row->baseline->status);
	else
		cJSON_AddNullToObject(obj, "baseline_status");
	if (row->current)
		cJSON_AddStringToObject(obj, "current_status", row->current->status);
	else
		cJSON_AddNullToObject(obj, "current_status");
	if (row->verdict == COMPARE_FAILED && row->current->error)
		cJSON_AddStringToObject(obj, "error", row->current->error);
	else
		cJSON_AddNullToObject(obj, "error");
	for (size_t m = 0; m < row->nmetrics; m++) {
		if (compared(row))
			cJSON_AddItemToObject(obj, row->defs[m].name,
					      metric_json(c, &row->defs[m], &row->metrics[m]));
		else
			cJSON_AddNullToObject(obj, row->defs[m].name);
	}
	return obj;
}

int compare_write_json(FILE *out, const struct comparison *c)
{
	cJSON *root = cJSON_CreateObject(), *rows = cJSON_CreateArray();
	cJSON *summary = cJSON_CreateObject();

	cJSON_AddStringToObject(root, "schema", COMPARE_JSON_SCHEMA);
	cJSON_AddStringToObject(root, "tool_version", ALLOCBENCH_VERSION);
	cJSON_AddItemToObject(root, "baseline", file_json(c->baseline));
	cJSON_AddItemToObject(root, "current", file_json(c->current));
	cJSON_AddItemToObject(root, "changes", changes_json(c));
	cJSON_AddBoolToObject(root, "host_changed", c->host_changed);
	cJSON_AddItemToObject(root, "settings", settings_json(&c->settings));
	cJSON_AddItemToObject(root, "criteria", criteria_json(c));
	for (size_t i = 0; i < c->nrows; i++)
		cJSON_AddItemToArray(rows, row_json(c, &c->rows[i]));
	cJSON_AddItemToObject(root, "rows", rows);
	cJSON_AddNumberToObject(summary, "rows", (double)c->nrows);
	for (int v = 0; v < COMPARE_NVERDICTS; v++)
		cJSON_AddNumberToObject(summary, compare_verdict_name((enum compare_verdict)v),
					(double)c->verdicts[v]);
	cJSON_AddNumberToObject(summary, "time_tested", (double)c->time_tested);
	cJSON_AddNumberToObject(summary, "time_untested", (double)c->time_untested);
	cJSON_AddNumberToObject(summary, "absent", (double)c->absent);
	cJSON_AddNumberToObject(summary, "time_not_asked", (double)c->time_not_asked);
	cJSON_AddNumberToObject(summary, "time_other_jobs", (double)c->time_other_jobs);
	cJSON_AddNumberToObject(summary, "time_other_host", (double)c->time_other_host);
	cJSON_AddItemToObject(root, "summary", summary);
	cJSON_AddBoolToObject(root, "regression", c->regression);

	return json_write_document(out, root);
}
