/*
 * report_verdict.c - the verdict's lines (report_verdict.h): each choice
 * with its range and what it saves over malloc, wrapped at 80 columns or
 * as Markdown items.
 */
#include "report/report_verdict.h"
#include "report/markdown_text.h"
#include "model/fidelity.h"
#include "model/figure.h"
#include "model/rerun.h"
#include "model/run.h"
#include "model/verdict.h"
#include "measure/backend.h"
#include "platform/util.h"

#include <math.h>
#include <string.h>

void verdict_number(char *buf, size_t size, double v)
{
	double a = v < 0 ? -v : v;

	snprintf(buf, size, a < 10 ? "%.2f" : a < 100 ? "%.1f" : "%.0f", v);
}

/* "12.3 [11.0-14.2]": a median and its runs' range, in the display unit of A's figure. */
static void fmt_range(char *buf, size_t size, const struct verdict_aspect *a,
		      const struct stat_summary *s)
{
	char med[32], lo[32], hi[32];

	verdict_number(med, sizeof(med), figure_display_value(a->metric, s->median));
	verdict_number(lo, sizeof(lo), figure_display_value(a->metric, s->min));
	verdict_number(hi, sizeof(hi), figure_display_value(a->metric, s->max));
	snprintf(buf, size, "%s [%s-%s]", med, lo, hi);
}

/*
 * What the best of CHOICE saves over malloc, in words ("; 28.0 B/chunk
 * (87.5%) less than malloc 32.0 [32.0-32.0]"); "" when malloc is absent.
 */
static void against_malloc(char *buf, size_t size, const struct verdict_aspect *a,
			   const struct verdict_choice *choice)
{
	char range[160], amount[64], percent[48] = "";
	double saves, pc;
	int clear = verdict_saves(a, choice, &saves, &pc);

	*buf = '\0';
	if (clear < 0)
		return;
	if (choice->malloc_among) {
		snprintf(buf, size, "; malloc is %s", choice->nbest == 1 ? "the best" :
			 "among them: no gain over it beyond the noise");
		return;
	}
	fmt_range(range, sizeof(range), a, &a->malloc_s);
	if (!clear) {
		snprintf(buf, size, "; no gain over malloc %s beyond the noise", range);
		return;
	}
	verdict_number(amount, sizeof(amount), figure_display_value(a->metric, fabs(saves)));
	if (!isnan(pc)) {
		snprintf(percent, sizeof(percent), fabs(pc) < 10 ? " (%.1f%%)" : " (%.0f%%)",
			 fabs(pc));
	}
	/* Less memory or time is a saving; a higher rate is. */
	snprintf(buf, size, "; %s %s%s %s than malloc %s", amount,
		 figure_get(a->metric)->display_unit, percent,
		 (saves >= 0) != a->higher_is_better ? "less" : "more", range);
}

/* 1 when every one of CHOICE's best has the same median, min and max: a tie. */
static int all_tied(const struct verdict_choice *choice)
{
	const struct verdict_entry *b = choice->best;

	for (size_t i = 1; i < choice->nbest; i++)
		if (b[i].s.median != b[0].s.median || b[i].s.min != b[0].s.min ||
		    b[i].s.max != b[0].s.max)
			return 0;
	return 1;
}

/*
 * The verdict on CHOICE of A ("drop-in" or "with code changes": KIND) at
 * WHERE as one line into LINE (SIZE bytes), in its figure's display unit.
 */
static void choice_line(char *line, size_t size, const char *where, const struct verdict_aspect *a,
			const char *kind, const struct verdict_choice *choice)
{
	const char *unit = figure_get(a->metric)->display_unit;
	const struct verdict_entry *best = choice->best;
	char range[160], vs[320];
	size_t used;

	against_malloc(vs, sizeof(vs), a, choice);
	fmt_range(range, sizeof(range), a, &best[0].s);
	used = (size_t)snprintf(line, size, "%s%s, %s:", where, a->name, kind);
	if (choice->nbest == 1) {
		snprintf(line + used, size - used, " %s %s %s%s", best[0].cell->backend->name,
			 range, unit, vs);
		return;
	}
	if (!all_tied(choice) && used < size)
		used += (size_t)snprintf(line + used, size - used, " no clear winner:");
	for (size_t i = 0; i < choice->nbest && used < size; i++) {
		char own[160] = "";

		if (!all_tied(choice))
			fmt_range(own, sizeof(own), a, &best[i].s);
		used += (size_t)snprintf(line + used, size - used, "%s %s%s%s", i ? "," : "",
					 best[i].cell->backend->name, *own ? " " : "", own);
	}
	if (used < size)
		snprintf(line + used, size - used, "%s%s %s%s", all_tied(choice) ? " tie at " : "",
			 all_tied(choice) ? range : "", unit, vs);
}

/* Writes a verdict line: the text wraps it at 80 columns, Markdown makes it an item. */
typedef void verdict_put_fn(FILE *out, const char *line);

static void put_text_line(FILE *out, const char *line)
{
	put_wrapped(out, line, 80, "      ");
}

static void put_markdown_line(FILE *out, const char *line)
{
	fputs("- ", out);
	markdown_put_text(out, line + strspn(line, " "), "|\\*_");
	fputc('\n', out);
}

/*
 * A's lines through PUT: the best drop-in choice (unless real runs gave
 * it: MEASURED), then the best with code changes.
 */
static void put_aspect(FILE *out, const char *where, const struct verdict_aspect *a,
		       int measured, verdict_put_fn *put)
{
	char line[4096];

	if (!a->valid)
		return;
	if (a->drop_in.nbest && !measured) {
		choice_line(line, sizeof(line), where, a, "drop-in", &a->drop_in);
		put(out, line);
	}
	if (a->code_changes.nbest) {
		choice_line(line, sizeof(line), where, a, "with code changes", &a->code_changes);
		put(out, line);
	}
}

/*
 * Every verdict of REPORT, one per size (one-column workloads: one) and
 * ABI, after HEADING, each line through PUT; nothing when !verdict_wanted.
 */
static int verdict_write(FILE *out, const struct run_report *report, const char *heading,
			 verdict_put_fn *put)
{
	size_t nabis, n = verdict_count(report, &nabis);
	int any = 0, measured = report->answer_first && rerun_answers(report->rerun);

	if (!verdict_wanted(report))
		return 0;
	for (size_t i = 0; i < n; i++) {
		struct verdict v;
		char where[64], abi[16] = "";

		if (verdict_at(report, i, &v))
			continue;
		if (!any++) {
			char caution[1024];

			fputs(heading, out);
			if (replay_fidelity_caution(report, caution, sizeof(caution)))
				put(out, caution);
		}
		if (nabis > 1)
			snprintf(abi, sizeof(abi), "%u-bit ", v.abi);
		if (workload_one_column(report->config->workload))
			snprintf(where, sizeof(where), "  %s", abi);
		else
			snprintf(where, sizeof(where), "  %zu B %s", v.size, abi);
		put_aspect(out, where, &v.memory, measured, put);
		put_aspect(out, where, &v.time, measured, put);
		/* Where no real runs answer, the replay says what the drop-in ones keep. */
		if (!measured && v.kept_fell) {
			char line[4096];

			choice_line(line, sizeof(line), where, &v.kept, "drop-in", &v.kept.drop_in);
			put(out, line);
		}
	}
	return ferror(out) ? -1 : 0;
}

int verdict_write_text(FILE *out, const struct run_report *report)
{
	if (report->answer_first)
		return 0;
	return verdict_write_answer(out, report,
				    "\nverdict (median [min-max] of the runs; pool, pool-locked and "
				    "arena need\ncode changes, the others are drop-in; no clear winner "
				    "where ranges overlap):\n");
}

int verdict_write_answer(FILE *out, const struct run_report *report, const char *heading)
{
	return verdict_write(out, report, heading, put_text_line);
}

int verdict_write_markdown(FILE *out, const struct run_report *report)
{
	return verdict_write(out, report,
			     "\n**Verdict** (median [min-max] of the runs; pool, pool-locked and "
			     "arena need code changes, the others are drop-in; no clear winner "
			     "where ranges overlap):\n\n", put_markdown_line);
}
