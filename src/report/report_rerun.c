/*
 * report_rerun.c - advise's real runs in its answer, its table and its
 * JSON (report_rerun.h).
 */
#include "report/report_rerun.h"
#include "report/markdown_text.h"
#include "measure/replay_series.h"
#include "model/rerun.h"
#include "model/settings.h"
#include "model/verdict.h"
#include "report/report_verdict.h"
#include "platform/util.h"

#include <math.h>
#include <string.h>

/* How an aspect is shown: memory in KiB, time in s or ms (by malloc's, else the best's). */
struct unit {
	const char *name;
	double scale;       /* the figure's unit per display unit */
};

static struct unit unit_of(const struct rerun *r, enum rerun_figure figure,
			   const struct rerun_best *b)
{
	struct stat_summary s;

	if (figure != RERUN_WALL)
		return (struct unit){ "KiB", 1024 };
	if (!rerun_summary(&r->rows[b->have_malloc ? b->malloc_row : b->row[0]], RERUN_WALL, &s) &&
	    s.median >= 1e9)
		return (struct unit){ "s", 1e9 };
	return (struct unit){ "ms", 1e6 };
}

/* "12.3 [11.0-14.2]" of ROW's FIGURE, in U. */
static void fmt_range(char *buf, size_t size, const struct rerun_row *row,
		      enum rerun_figure figure, struct unit u)
{
	struct stat_summary s;
	char med[24], lo[24], hi[24];

	if (rerun_summary(row, figure, &s)) {
		snprintf(buf, size, "-");
		return;
	}
	verdict_number(med, sizeof(med), s.median / u.scale);
	verdict_number(lo, sizeof(lo), s.min / u.scale);
	verdict_number(hi, sizeof(hi), s.max / u.scale);
	snprintf(buf, size, "%s [%s-%s]", med, lo, hi);
}

/* What the answer calls FIGURE, and what its percentage is of. */
static const char *const figure_label[RERUN_FIGURES] = {
	[RERUN_WALL] = "time", [RERUN_PEAK] = "memory", [RERUN_LOW] = "kept after the peak",
};
static const char *const percent_of[RERUN_FIGURES] = {
	[RERUN_WALL] = "of the program's time under malloc",
	[RERUN_PEAK] = "of the program's peak under malloc",
	[RERUN_LOW] = "of what malloc keeps",
};

/*
 * The answer's line on FIGURE (RERUN_PEAK, RERUN_WALL or RERUN_LOW) into
 * LINE: the best B of the candidates KIND names ("drop-in").
 */
static void best_line(char *line, size_t size, const struct rerun *r, enum rerun_figure figure,
		      const struct rerun_best *bp, const char *kind)
{
	const struct rerun_best b = *bp;
	struct unit u;
	char range[128], amount[32];
	size_t used;

	u = unit_of(r, figure, &b);
	used = (size_t)snprintf(line, size, "  %s, %s, measured:%s", figure_label[figure], kind,
				b.n > 1 ? " no clear winner:" : "");
	for (size_t i = 0; i < b.n && used < size; i++) {
		fmt_range(range, sizeof(range), &r->rows[b.row[i]], figure, u);
		used += (size_t)snprintf(line + used, size - used, "%s %s %s", i ? "," : "",
					 r->rows[b.row[i]].backend->name, range);
	}
	if (used >= size)
		return;
	used += (size_t)snprintf(line + used, size - used, " %s", u.name);
	if (!b.have_malloc || used >= size)
		return;
	if (b.malloc_among) {
		snprintf(line + used, size - used, "; malloc is %s", b.n == 1 ? "the best" :
			 "among them: no gain over it beyond the noise");
		return;
	}
	fmt_range(range, sizeof(range), &r->rows[b.malloc_row], figure, u);
	if (!b.clear) {
		snprintf(line + used, size - used, "; no gain over malloc %s beyond the noise", range);
		return;
	}
	verdict_number(amount, sizeof(amount), b.saves / u.scale);
	snprintf(line + used, size - used, "; %s %s less than malloc %s, %.*f%% %s", amount,
		 u.name, range, fabs(b.percent) < 10 ? 1 : 0, b.percent, percent_of[figure]);
}

/* The widest name the tables' first column holds: their figures take 57 of 80 columns. */
#define NAME_MAX_WIDTH 23

/*
 * The width of the tables' first column: 10, or the longest candidate's
 * name up to NAME_MAX_WIDTH (a longer one stands on a line of its own:
 * put_name()).
 */
static int name_width(const struct rerun *r)
{
	size_t w = 10;

	for (size_t i = 0; i < r->nrows; i++) {
		size_t n = strlen(r->rows[i].backend->name);

		if (n > w && n <= NAME_MAX_WIDTH)
			w = n;
	}
	return (int)w;
}

/* NAME in a first column WIDTH wide; a longer one on a line of its own, its row under it. */
static void put_name(FILE *out, const char *name, int width)
{
	if ((int)strlen(name) > width)
		fprintf(out, "%s\n%*s", name, width, "");
	else
		fprintf(out, "%-*s", width, name);
}

/*
 * 1 when the program's memory falls after its peak under some candidate
 * (its lowest since, median, under 90% of its peak): then what each keeps
 * is worth a line of the answer.
 */
static int falls_after_peak(const struct rerun *r)
{
	struct stat_summary peak, low;

	for (size_t i = 0; i < r->nrows; i++)
		if (!rerun_summary(&r->rows[i], RERUN_PEAK, &peak) &&
		    !rerun_summary(&r->rows[i], RERUN_LOW, &low) && series_fell(low.median, peak.median))
			return 1;
	return 0;
}


/*
 * Where the replay's drop-in leader for MEMORY (1) or time is another than
 * the real runs' (B, rerun_best()'s for that figure), the line that says
 * so into LINE; 0 when they agree, or when either leader is among the
 * other's best (within the noise).
 */
static int disagree_line(char *line, size_t size, const struct run_report *report, int memory,
			 const struct rerun_best *b)
{
	const struct rerun *r = report->rerun;
	const struct verdict_aspect *a;
	struct verdict v;
	const char *replayed, *real;

	if (!verdict_wanted(report) || verdict_compute(report, 0, &v))
		return 0;
	a = memory ? &v.memory : &v.time;
	if (!a->valid || !a->drop_in.nbest || !b->n)
		return 0;
	replayed = a->drop_in.best[0].cell->backend->name;
	real = r->rows[b->row[0]].backend->name;
	for (size_t i = 0; i < b->n; i++)
		if (!strcmp(replayed, r->rows[b->row[i]].backend->name))
			return 0;
	for (size_t i = 0; i < a->drop_in.nbest; i++)
		if (!strcmp(real, a->drop_in.best[i].cell->backend->name))
			return 0;
	snprintf(line, size, "  the replays put %s first for %s, the real runs %s: the real runs "
		 "answer for the drop-in allocators, the replays for pool and arena", replayed,
		 memory ? "memory" : "time", real);
	return 1;
}

/*
 * What B's best (for memory) costs in time, after LINE: its wall time and
 * malloc's, median [min-max], and whether they differ beyond the noise.
 */
static void time_cost(char *line, size_t size, const struct rerun *r, const struct rerun_best *b)
{
	struct stat_summary mine, theirs;
	char a[128], m[128];
	struct unit u;
	size_t used = strlen(line);

	if (!b->have_malloc || rerun_summary(&r->rows[b->row[0]], RERUN_WALL, &mine) ||
	    rerun_summary(&r->rows[b->malloc_row], RERUN_WALL, &theirs))
		return;
	u = unit_of(r, RERUN_WALL, b);
	fmt_range(a, sizeof(a), &r->rows[b->row[0]], RERUN_WALL, u);
	fmt_range(m, sizeof(m), &r->rows[b->malloc_row], RERUN_WALL, u);
	snprintf(line + used, size - used, "; in time %s %s against malloc's %s%s", a, u.name, m,
		 stats_overlap(&mine, &theirs) ? ", the same beyond the noise" :
		 mine.median < theirs.median ? ", faster" : ", slower");
}

/* 1 when B's best is one candidate, apart from malloc's range, and not malloc. */
static int clear_winner(const struct rerun_best *b)
{
	return b->n == 1 && b->clear && !b->malloc_among;
}

/*
 * Where B's best (for memory) is one candidate other than malloc, apart
 * from malloc, the line that says how to run the program so in production
 * into LINE (its preload and settings before the command); 0 when there is
 * none.
 */
static int run_line(char *line, size_t size, const struct rerun *r, const struct rerun_best *b)
{
	char env[SETTINGS_ENV_MAX];

	if (!clear_winner(b) || !settings_environment(r->rows[b->row[0]].backend, env, sizeof(env)))
		return 0;
	snprintf(line, size, "  to run it so: %s %s ...", env, r->program);
	return 1;
}

/* The answer's measured lines, each written by PUT (text or Markdown). */
static void answer_lines(FILE *out, const struct run_report *report,
			 void (*put)(FILE *out, const char *line))
{
	static const enum rerun_figure order[] = { RERUN_PEAK, RERUN_WALL, RERUN_LOW };
	const struct rerun *r = report->rerun;
	struct rerun_best b[RERUN_FIGURES], libc;
	char line[SETTINGS_ENV_MAX + 2048];

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (order[i] == RERUN_LOW && !falls_after_peak(r))
			continue;
		rerun_best(r, order[i], &b[order[i]]);
		best_line(line, sizeof(line), r, order[i], &b[order[i]], "drop-in");
		put(out, line);
	}
	if (run_line(line, sizeof(line), r, &b[RERUN_PEAK]))
		put(out, line);
	/*
	 * The cheapest change is often a setting of the allocator the program
	 * has: the best of glibc's candidates, where another allocator is best.
	 */
	rerun_best_libc(r, RERUN_PEAK, &libc);
	if (clear_winner(&libc) && b[RERUN_PEAK].n && b[RERUN_PEAK].row[0] != libc.row[0]) {
		best_line(line, sizeof(line), r, RERUN_PEAK, &libc, "glibc with settings");
		time_cost(line, sizeof(line), r, &libc);
		put(out, line);
		if (run_line(line, sizeof(line), r, &libc))
			put(out, line);
	}
	for (int memory = 1; memory >= 0; memory--)
		if (disagree_line(line, sizeof(line), report, memory,
				  &b[memory ? RERUN_PEAK : RERUN_WALL]))
			put(out, line);
}

static void put_text(FILE *out, const char *line)
{
	put_wrapped(out, line, 80, "      ");
}

int rerun_write_answer(FILE *out, const struct run_report *report)
{
	const struct rerun *r = report->rerun;

	if (!r)
		return 0;
	if (!r->rounds) {
		put_wrappedf(out, 80, "      ", "  no real runs: %s; the drop-in lines are replayed",
			     r->why);
		return ferror(out) ? -1 : 0;
	}
	if (!rerun_answers(report->rerun)) {
		put_wrapped(out, "  the real runs failed (the table below says why); the drop-in "
			    "lines are replayed", 80, "      ");
		return ferror(out) ? -1 : 0;
	}
	answer_lines(out, report, put_text);
	return ferror(out) ? -1 : 0;
}

/* The replay's median peak RSS (set-up included) under ROW's backend, bytes; -1: none. */
static double replay_peak(const struct run_report *report, const struct rerun_row *row)
{
	struct stat_summary s;

	for (size_t i = 0; i < report->ncells; i++)
		if (report->cells[i].backend == row->backend)
			return cell_summary(report, &report->cells[i], METRIC_PEAK_RSS_BYTES, &s) ?
			       -1 : s.median;
	return -1;
}

#define KIB ((struct unit){ "KiB", 1024 })

/*
 * ROW's memory after its peak: its lowest since, its last reading, and what
 * of the peak the lowest gave back ("75%"), each SIZE bytes.
 */
static void fmt_after_peak(char *low, char *end, char *back, size_t size,
			   const struct rerun_row *row)
{
	struct stat_summary peak, least;

	fmt_range(low, size, row, RERUN_LOW, KIB);
	fmt_range(end, size, row, RERUN_END, KIB);
	snprintf(back, size, "-");
	if (!rerun_summary(row, RERUN_PEAK, &peak) && !rerun_summary(row, RERUN_LOW, &least) &&
	    peak.median > 0)
		snprintf(back, size, "%.0f%%", 100 * (peak.median - least.median) / peak.median);
}

/*
 * The text's second table of the real runs: what each candidate kept after
 * the peak; a line where the program's memory does not fall after it.
 */
static int write_after_peak(FILE *out, const struct rerun *r)
{
	fputc('\n', out);
	if (!falls_after_peak(r)) {
		put_wrapped(out, "after the peak: the program's memory does not fall after its "
			    "peak under any allocator (its lowest reading since is within 10% of "
			    "it): nothing to give back", 80, "  ");
		return ferror(out) ? -1 : 0;
	}
	put_wrapped(out, "after the peak: the program's RssAnon at its lowest after its peak "
		    "and at its last reading before it ended, median [min-max], and what of "
		    "its peak the lowest gave back", 80, "  ");
	fprintf(out, "%-*s %22s %22s %8s\n%-*s %22s %22s %8s\n", name_width(r), "",
		"lowest after peak", "at the end", "given", name_width(r), "backend", "KiB", "KiB",
		"back");
	for (size_t i = 0; i < r->nrows; i++) {
		char low[128], end[128], back[128];

		if (!r->rows[i].ok)
			continue;
		fmt_after_peak(low, end, back, sizeof(low), &r->rows[i]);
		put_name(out, r->rows[i].backend->name, name_width(r));
		fprintf(out, " %22s %22s %8s\n", low, end, back);
	}
	return ferror(out) ? -1 : 0;
}

/* Writes TEXT with Markdown's table, emphasis, code and link characters escaped. */
static void put_markdown(FILE *out, const char *text)
{
	markdown_put_text(out, text, "|\\*_`[]");
}

/* The real runs' table's heading, "real runs: PROGRAM, ...", into HEAD. */
static void table_heading(char *head, size_t size, const struct rerun *r)
{
	char times[32] = "once";

	if (r->rounds > 1)
		snprintf(times, sizeof(times), "%u times", r->rounds);
	snprintf(head, size, "real runs: %s, the program the trace is of, run again %s under each "
		 "drop-in allocator, interleaved (fewer where the answer was settled, below): its "
		 "peak anonymous memory (RssAnon) and the whole command's wall time, median "
		 "[min-max]; beside them the replay's peak", r->program, times);
}

/*
 * The real runs' table, each row with its replay against it: text (80
 * columns) or, with MARKDOWN, a Markdown table after a paragraph.
 */
static int write_table(FILE *out, const struct run_report *report, int markdown)
{
	const struct rerun *r = report->rerun;
	struct rerun_best b;
	struct unit time;
	char head[1024];

	if (!r || !r->rounds)
		return 0;
	rerun_best(r, RERUN_WALL, &b);
	time = unit_of(r, RERUN_WALL, &b);
	table_heading(head, sizeof(head), r);
	fputc('\n', out);
	if (markdown) {
		fputs("**Real runs**: ", out);
		put_markdown(out, head + strlen("real runs: "));
		fprintf(out, ".\n\n| backend | peak anon (KiB) | wall (%s) | replay (KiB) | replay vs "
			"real | lowest after the peak (KiB) | at the end (KiB) | given back |\n"
			"|:--|--:|--:|--:|--:|--:|--:|--:|\n", time.name);
	} else {
		put_wrapped(out, head, 80, "  ");
		fprintf(out, "%-*s %18s %18s %9s %8s\n%-*s %18s %18s %9s %8s\n", name_width(r), "",
			"peak anon", "wall", "replay", "replay", name_width(r), "backend", "KiB",
			time.name, "KiB", "vs real");
	}
	for (size_t i = 0; i < r->nrows; i++) {
		const struct rerun_row *row = &r->rows[i];
		char peak[128], wall[128], replay[32] = "-", off[32] = "-", line[512];
		char low[128], end[128], back[32];
		struct stat_summary s;
		double rp = replay_peak(report, row);

		if (!row->ok && markdown) {
			fprintf(out, "| %s | failed: ", row->backend->name);
			put_markdown(out, row->error);
			fputs(" | | | | | | |\n", out);
			continue;
		}
		if (!row->ok) {
			snprintf(line, sizeof(line), "%-*s failed: %s", name_width(r), row->backend->name,
				 row->error);
			put_wrapped(out, line, 80, "             ");
			continue;
		}
		fmt_range(peak, sizeof(peak), row, RERUN_PEAK, KIB);
		fmt_range(wall, sizeof(wall), row, RERUN_WALL, time);
		if (rp >= 0 && !rerun_summary(row, RERUN_PEAK, &s)) {
			snprintf(replay, sizeof(replay), "%.0f", rp / 1024);
			if (s.median > 0)
				snprintf(off, sizeof(off), "%+.0f%%", 100 * (rp - s.median) / s.median);
		}
		if (markdown) {
			fmt_after_peak(low, end, back, sizeof(low), row);
			fprintf(out, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", row->backend->name,
				peak, wall, replay, off, low, end, back);
		} else {
			put_name(out, row->backend->name, name_width(r));
			fprintf(out, " %18s %18s %9s %8s\n", peak, wall, replay, off);
		}
	}
	for (size_t i = 0; i < r->nrows; i++) {
		char line[512];

		if (!r->rows[i].ok || !r->rows[i].stopped[0])
			continue;
		snprintf(line, sizeof(line), "%s ran no more: %s", r->rows[i].backend->name,
			 r->rows[i].stopped);
		if (markdown) {
			fputc('\n', out);
			put_markdown(out, line);
			fputs(".\n", out);
		} else {
			put_wrapped(out, line, 80, "  ");
		}
	}
	return markdown ? ferror(out) ? -1 : 0 : write_after_peak(out, r);
}

int rerun_write_table(FILE *out, const struct run_report *report)
{
	return write_table(out, report, 0);
}

/* LINE as a Markdown list item. */
static void put_item(FILE *out, const char *line)
{
	fputs("- ", out);
	put_markdown(out, line + strspn(line, " "));
	fputc('\n', out);
}

int rerun_write_markdown(FILE *out, const struct run_report *report)
{
	if (!report->rerun || write_table(out, report, 1))
		return ferror(out) ? -1 : 0;
	if (!report->rerun->rounds) {
		fputs("\nNo real runs: ", out);
		put_markdown(out, report->rerun->why);
		fputs(".\n", out);
	} else if (rerun_answers(report->rerun)) {
		fputs("\n**Answer, measured** (drop-in allocators, median [min-max]; no clear "
		      "winner where ranges overlap, or memory lies within 2%):\n\n", out);
		answer_lines(out, report, put_item);
	}
	return ferror(out) ? -1 : 0;
}

/* ---- JSON ---- */

/* {median, min, max, runs} of ROW's FIGURE, in bytes or seconds. */
static cJSON *figure_json(const struct rerun_row *row, enum rerun_figure figure)
{
	cJSON *obj = cJSON_CreateObject(), *runs = cJSON_CreateArray();
	double scale = figure == RERUN_WALL ? 1e9 : 1;
	struct stat_summary s;

	if (!rerun_summary(row, figure, &s)) {
		cJSON_AddNumberToObject(obj, "median", s.median / scale);
		cJSON_AddNumberToObject(obj, "min", s.min / scale);
		cJSON_AddNumberToObject(obj, "max", s.max / scale);
	}
	for (unsigned k = 0; k < row->runs; k++)
		cJSON_AddItemToArray(runs, cJSON_CreateNumber(row->value[figure][k] / scale));
	cJSON_AddItemToObject(obj, "runs", runs);
	return obj;
}

/* The best of R for FIGURE, and what it saves over malloc; LIBC: among glibc's candidates alone. */
static cJSON *best_json(const struct rerun *r, enum rerun_figure figure, int libc)
{
	cJSON *obj = cJSON_CreateObject(), *best = cJSON_CreateArray();
	struct rerun_best b;

	(libc ? rerun_best_libc : rerun_best)(r, figure, &b);
	for (size_t i = 0; i < b.n; i++)
		cJSON_AddItemToArray(best, cJSON_CreateString(r->rows[b.row[i]].backend->name));
	cJSON_AddItemToObject(obj, "best", best);
	cJSON_AddBoolToObject(obj, "clear_winner", b.n == 1);
	if (b.have_malloc && b.n) {
		cJSON_AddNumberToObject(obj, "saves", b.saves / (figure == RERUN_WALL ? 1e9 : 1));
		if (!isnan(b.percent))
			cJSON_AddNumberToObject(obj, "saves_percent", b.percent);
		cJSON_AddBoolToObject(obj, "beyond_noise", b.clear);
	}
	return obj;
}

cJSON *rerun_json(const struct run_report *report)
{
	const struct rerun *r = report->rerun;
	cJSON *obj, *rows;

	if (!r)
		return NULL;
	obj = cJSON_CreateObject();
	cJSON_AddStringToObject(obj, "program", r->program);
	cJSON_AddNumberToObject(obj, "runs", r->rounds);
	if (!r->rounds) {
		cJSON_AddStringToObject(obj, "why", r->why);
		return obj;
	}
	rows = cJSON_AddArrayToObject(obj, "rows");
	for (size_t i = 0; i < r->nrows; i++) {
		const struct rerun_row *row = &r->rows[i];
		cJSON *o = cJSON_CreateObject();
		double rp = replay_peak(report, row);
		char env[SETTINGS_ENV_MAX];

		cJSON_AddStringToObject(o, "backend", row->backend->name);
		if (settings_environment(row->backend, env, sizeof(env)))
			cJSON_AddStringToObject(o, "environment", env);
		cJSON_AddBoolToObject(o, "ok", row->ok);
		if (!row->ok)
			cJSON_AddStringToObject(o, "error", row->error);
		else if (row->stopped[0])
			cJSON_AddStringToObject(o, "stopped", row->stopped);
		if (row->no_effect)
			cJSON_AddTrueToObject(o, "no_effect");
		cJSON_AddItemToObject(o, "peak_anon_bytes", figure_json(row, RERUN_PEAK));
		cJSON_AddItemToObject(o, "wall_seconds", figure_json(row, RERUN_WALL));
		cJSON_AddItemToObject(o, "low_anon_bytes", figure_json(row, RERUN_LOW));
		cJSON_AddItemToObject(o, "end_anon_bytes", figure_json(row, RERUN_END));
		if (rp >= 0)
			cJSON_AddNumberToObject(o, "replay_peak_bytes", rp);
		cJSON_AddItemToArray(rows, o);
	}
	if (rerun_answers(report->rerun)) {
		cJSON_AddItemToObject(obj, "memory", best_json(r, RERUN_PEAK, 0));
		cJSON_AddItemToObject(obj, "time", best_json(r, RERUN_WALL, 0));
		cJSON_AddItemToObject(obj, "kept_after_peak", best_json(r, RERUN_LOW, 0));
		cJSON_AddItemToObject(obj, "memory_glibc", best_json(r, RERUN_PEAK, 1));
	}
	return obj;
}
