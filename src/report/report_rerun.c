/*
 * report_rerun.c - advise's real runs in its answer, its table and its
 * JSON (report_rerun.h).
 */
#include "report/report_rerun.h"
#include "model/rerun.h"
#include "model/verdict.h"
#include "platform/util.h"

#include <math.h>
#include <string.h>

/* How an aspect is shown: memory in KiB, time in s or ms (by malloc's, else the best's). */
struct unit {
	const char *name;
	double scale;       /* the figure's unit per display unit */
};

static struct unit unit_of(const struct rerun *r, int memory, const struct rerun_best *b)
{
	struct stat_summary s;

	if (memory)
		return (struct unit){ "KiB", 1024 };
	if (!rerun_summary(&r->rows[b->have_malloc ? b->malloc_row : b->row[0]], 0, &s) &&
	    s.median >= 1e9)
		return (struct unit){ "s", 1e9 };
	return (struct unit){ "ms", 1e6 };
}

/* "12.3 [11.0-14.2]" of ROW's figure, in U. */
static void fmt_range(char *buf, size_t size, const struct rerun_row *row, int memory,
		      struct unit u)
{
	struct stat_summary s;
	char med[24], lo[24], hi[24];

	if (rerun_summary(row, memory, &s)) {
		snprintf(buf, size, "-");
		return;
	}
	verdict_number(med, sizeof(med), s.median / u.scale);
	verdict_number(lo, sizeof(lo), s.min / u.scale);
	verdict_number(hi, sizeof(hi), s.max / u.scale);
	snprintf(buf, size, "%s [%s-%s]", med, lo, hi);
}

/* The answer's line on MEMORY (1) or time into LINE. */
static void best_line(char *line, size_t size, const struct rerun *r, int memory)
{
	struct rerun_best b;
	struct unit u;
	char range[128], amount[32];
	size_t used;

	rerun_best(r, memory, &b);
	u = unit_of(r, memory, &b);
	used = (size_t)snprintf(line, size, "  %s, drop-in, measured:%s", memory ? "memory" : "time",
				b.n > 1 ? " no clear winner:" : "");
	for (size_t i = 0; i < b.n && used < size; i++) {
		fmt_range(range, sizeof(range), &r->rows[b.row[i]], memory, u);
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
	fmt_range(range, sizeof(range), &r->rows[b.malloc_row], memory, u);
	if (!b.clear) {
		snprintf(line + used, size - used, "; no gain over malloc %s beyond the noise", range);
		return;
	}
	verdict_number(amount, sizeof(amount), b.saves / u.scale);
	snprintf(line + used, size - used, "; %s %s less than malloc %s, %.*f%% of the program's "
		 "%s under malloc", amount, u.name, range, fabs(b.percent) < 10 ? 1 : 0, b.percent,
		 memory ? "peak" : "time");
}

/*
 * Where the replay's drop-in leader for MEMORY (1) or time is another than
 * the real runs', the line that says so into LINE; 0 when they agree.
 */
static int disagree_line(char *line, size_t size, const struct run_report *report, int memory)
{
	const struct rerun *r = report->rerun;
	const struct verdict_aspect *a;
	struct verdict v;
	struct rerun_best b;
	const char *replayed, *real;

	if (!verdict_wanted(report) || verdict_compute(report, 0, &v))
		return 0;
	a = memory ? &v.memory : &v.time;
	rerun_best(r, memory, &b);
	if (!a->valid || !a->drop_in.nbest || !b.n)
		return 0;
	replayed = a->drop_in.best[0].cell->backend->name;
	real = r->rows[b.row[0]].backend->name;
	if (!strcmp(replayed, real) || (a->drop_in.nbest > 1 && b.n > 1))
		return 0;
	snprintf(line, size, "  the replays put %s first for %s, the real runs %s: the real runs "
		 "answer for the drop-in allocators, the replays for pool and arena", replayed,
		 memory ? "memory" : "time", real);
	return 1;
}

int rerun_write_answer(FILE *out, const struct run_report *report)
{
	const struct rerun *r = report->rerun;
	char line[2048];

	if (!r)
		return 0;
	if (!r->rounds) {
		put_wrappedf(out, 80, "      ", "  not run again: %s; the drop-in lines are replayed",
			     r->why);
		return ferror(out) ? -1 : 0;
	}
	if (!rerun_answers(report->rerun)) {
		put_wrapped(out, "  the real runs failed (the table below says why); the drop-in "
			    "lines are replayed", 80, "      ");
		return ferror(out) ? -1 : 0;
	}
	for (int memory = 1; memory >= 0; memory--) {
		best_line(line, sizeof(line), r, memory);
		put_wrapped(out, line, 80, "      ");
	}
	for (int memory = 1; memory >= 0; memory--)
		if (disagree_line(line, sizeof(line), report, memory))
			put_wrapped(out, line, 80, "      ");
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

/* Writes TEXT with Markdown's table and emphasis characters escaped. */
static void put_markdown(FILE *out, const char *text)
{
	for (const char *p = text; *p; p++) {
		if (strchr("|\\*_`<>[]", *p))
			fputc('\\', out);
		fputc(*p, out);
	}
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
	rerun_best(r, 0, &b);
	time = unit_of(r, 0, &b);
	snprintf(head, sizeof(head), "real runs: %s, the program the trace is of, run again %u "
		 "times under each drop-in allocator, interleaved: its peak anonymous memory "
		 "(RssAnon) and the whole command's wall time, median [min-max]; beside them the "
		 "replay's peak", r->program, r->rounds);
	fputc('\n', out);
	if (markdown) {
		fputs("**Real runs**: ", out);
		put_markdown(out, head + strlen("real runs: "));
		fprintf(out, ".\n\n| backend | peak anon (KiB) | wall (%s) | replay (KiB) | replay vs "
			"real |\n|:--|--:|--:|--:|--:|\n", time.name);
	} else {
		put_wrapped(out, head, 80, "  ");
		fprintf(out, "%-10s %18s %18s %9s %8s\n%-10s %18s %18s %9s %8s\n", "", "peak anon",
			"wall", "replay", "replay", "backend", "KiB", time.name, "KiB", "vs real");
	}
	for (size_t i = 0; i < r->nrows; i++) {
		const struct rerun_row *row = &r->rows[i];
		char peak[128], wall[128], replay[32] = "-", off[32] = "-", line[512];
		struct stat_summary s;
		double rp = replay_peak(report, row);

		if (!row->ok && markdown) {
			fprintf(out, "| %s | failed: ", row->backend->name);
			put_markdown(out, row->error);
			fputs(" | | | |\n", out);
			continue;
		}
		if (!row->ok) {
			snprintf(line, sizeof(line), "%-10s failed: %s", row->backend->name, row->error);
			put_wrapped(out, line, 80, "             ");
			continue;
		}
		fmt_range(peak, sizeof(peak), row, 1, (struct unit){ "KiB", 1024 });
		fmt_range(wall, sizeof(wall), row, 0, time);
		if (rp >= 0 && !rerun_summary(row, 1, &s)) {
			snprintf(replay, sizeof(replay), "%.0f", rp / 1024);
			if (s.median > 0)
				snprintf(off, sizeof(off), "%+.0f%%", 100 * (rp - s.median) / s.median);
		}
		fprintf(out, markdown ? "| %s | %s | %s | %s | %s |\n" : "%-10s %18s %18s %9s %8s\n",
			row->backend->name, peak, wall, replay, off);
	}
	return ferror(out) ? -1 : 0;
}

int rerun_write_table(FILE *out, const struct run_report *report)
{
	return write_table(out, report, 0);
}

int rerun_write_markdown(FILE *out, const struct run_report *report)
{
	char line[2048];

	if (!report->rerun || write_table(out, report, 1))
		return ferror(out) ? -1 : 0;
	if (!report->rerun->rounds) {
		fputs("\nNot run again: ", out);
		put_markdown(out, report->rerun->why);
		fputs(".\n", out);
	} else if (rerun_answers(report->rerun)) {
		fputs("\n**Answer, measured** (drop-in allocators, median [min-max]; no clear "
		      "winner where ranges overlap):\n\n", out);
		for (int memory = 1; memory >= 0; memory--) {
			best_line(line, sizeof(line), report->rerun, memory);
			fputs("- ", out);
			put_markdown(out, line + strspn(line, " "));
			fputc('\n', out);
			if (disagree_line(line, sizeof(line), report, memory)) {
				fputs("- ", out);
				put_markdown(out, line + strspn(line, " "));
				fputc('\n', out);
			}
		}
	}
	return ferror(out) ? -1 : 0;
}

/* ---- JSON ---- */

/* {median, min, max, runs} of ROW's figure, in bytes or seconds. */
static cJSON *figure_json(const struct rerun_row *row, int memory)
{
	cJSON *obj = cJSON_CreateObject(), *runs = cJSON_CreateArray();
	double scale = memory ? 1 : 1e9;
	struct stat_summary s;

	if (!rerun_summary(row, memory, &s)) {
		cJSON_AddNumberToObject(obj, "median", s.median / scale);
		cJSON_AddNumberToObject(obj, "min", s.min / scale);
		cJSON_AddNumberToObject(obj, "max", s.max / scale);
	}
	for (unsigned k = 0; k < row->runs; k++)
		cJSON_AddItemToArray(runs, cJSON_CreateNumber((memory ? row->peak_bytes[k] :
							       row->wall_ns[k]) / scale));
	cJSON_AddItemToObject(obj, "runs", runs);
	return obj;
}

/* The best for MEMORY (1) or time, and what it saves over malloc. */
static cJSON *best_json(const struct rerun *r, int memory)
{
	cJSON *obj = cJSON_CreateObject(), *best = cJSON_CreateArray();
	struct rerun_best b;

	rerun_best(r, memory, &b);
	for (size_t i = 0; i < b.n; i++)
		cJSON_AddItemToArray(best, cJSON_CreateString(r->rows[b.row[i]].backend->name));
	cJSON_AddItemToObject(obj, "best", best);
	cJSON_AddBoolToObject(obj, "clear_winner", b.n == 1);
	if (b.have_malloc && b.n) {
		cJSON_AddNumberToObject(obj, "saves", b.saves / (memory ? 1 : 1e9));
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

		cJSON_AddStringToObject(o, "backend", row->backend->name);
		cJSON_AddBoolToObject(o, "ok", row->ok);
		if (!row->ok)
			cJSON_AddStringToObject(o, "error", row->error);
		cJSON_AddItemToObject(o, "peak_anon_bytes", figure_json(row, 1));
		cJSON_AddItemToObject(o, "wall_seconds", figure_json(row, 0));
		if (rp >= 0)
			cJSON_AddNumberToObject(o, "replay_peak_bytes", rp);
		cJSON_AddItemToArray(rows, o);
	}
	if (rerun_answers(report->rerun)) {
		cJSON_AddItemToObject(obj, "memory", best_json(r, 1));
		cJSON_AddItemToObject(obj, "time", best_json(r, 0));
	}
	return obj;
}
