/*
 * verdict.c - the best backend per size for memory and for time, against
 * the C library's malloc, with spreads (verdict.h): for the text after the
 * tables and for the JSON's "summary".
 */
#include "model/verdict.h"
#include "measure/replay_series.h"
#include "model/abi.h"
#include "model/fidelity.h"
#include "model/rerun.h"
#include "model/run.h"
#include "measure/backend.h"
#include "platform/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The best of a kind (defined after aspect_compute(), its caller). */
static size_t choose(const struct verdict_aspect *a, const struct verdict_entry *all, size_t n,
		     int kind, struct verdict_entry *best);

int verdict_wanted(const struct run_report *report)
{
	return report->config->nbackends > 1 && !report->interrupted;
}

int verdict_needs_code_changes(const struct cell *cell)
{
	/* A 32-bit row is its base backend's ("arena/32": the arena). */
	const char *name = cell->backend->name;
	size_t len = strcspn(name, "/");

	return (len == 4 && !strncmp(name, "pool", len)) ||
	       (len == 11 && !strncmp(name, "pool-locked", len)) ||
	       (len == 5 && !strncmp(name, "arena", len));
}

/* The word size CELL was measured at, bits. */
static unsigned cell_abi(const struct cell *cell)
{
	return cell->backend->abi ? cell->backend->abi : abi_native();
}

/*
 * 1 when CELL is the C library's malloc of its own ABI ("malloc", or
 * "malloc/32" for a 32-bit row), not a preloaded allocator under that name.
 */
static int is_libc_malloc(const struct cell *cell)
{
	char label[128], abi_malloc[32];

	report_backend_label(label, sizeof(label), cell);
	snprintf(abi_malloc, sizeof(abi_malloc), "malloc/%u", cell_abi(cell));
	return !strcmp(label, "malloc") || (cell->backend->abi && !strcmp(label, abi_malloc));
}

/* The ABIs of REPORT's rows into ABIS (room for 2), in the order of the rows; their number. */
static size_t report_abis(const struct run_report *report, unsigned abis[2])
{
	size_t n = 0;

	for (size_t i = 0; i < report->ncells; i++) {
		unsigned abi = cell_abi(&report->cells[i]);

		if ((n < 1 || abis[0] != abi) && (n < 2 || abis[1] != abi) && n < 2)
			abis[n++] = abi;
	}
	return n;
}

/* The aspect NAME of a verdict on FIGURE (METRIC_COUNT: the workload has none). */
static void aspect_init(struct verdict_aspect *a, const char *name, enum metric figure)
{
	memset(a, 0, sizeof(*a));
	a->name = name;
	if (figure == METRIC_COUNT)
		return;
	a->valid = 1;
	a->metric = figure;
	a->unit = figure_get(figure)->unit;
	a->higher_is_better = figure_get(figure)->aspect == FIGURE_RATE;
}

/* 1 when A is better than B by its median. */
static int better(const struct verdict_aspect *a, const struct stat_summary *x,
		  const struct stat_summary *y)
{
	return a->higher_is_better ? x->median > y->median : x->median < y->median;
}

static void aspect_compute(const struct run_report *report, size_t column, unsigned abi,
			   struct verdict_aspect *a)
{
	struct verdict_entry all[VERDICT_MAX_BACKENDS];
	size_t n = 0;

	if (!a->valid)
		return;
	for (size_t b = 0; b < report->config->nbackends && n < VERDICT_MAX_BACKENDS; b++) {
		size_t at = column * report->config->nbackends + b;
		const struct cell *cell;
		struct stat_summary s;

		/* The grid is whole (report.h); a report that is not has no cell there. */
		if (at >= report->ncells)
			break;
		cell = &report->cells[at];
		if (cell_abi(cell) != abi || cell_summary(report, cell, a->metric, &s))
			continue;
		if (is_libc_malloc(cell)) {
			a->have_malloc = 1;
			a->malloc_s = s;
		}
		all[n++] = (struct verdict_entry){ .cell = cell, .s = s };
	}
	if (!n) {
		a->valid = 0;
		return;
	}
	a->nbest = choose(a, all, n, -1, a->best);
	a->drop_in.nbest = choose(a, all, n, 0, a->drop_in.best);
	a->code_changes.nbest = choose(a, all, n, 1, a->code_changes.best);
}

/* 1 when E is of KIND: -1 any, 0 drop-in, 1 needing code changes. */
static int of_kind(const struct verdict_entry *e, int kind)
{
	return kind < 0 || verdict_needs_code_changes(e->cell) == kind;
}

/*
 * The best of the N entries ALL of KIND (of_kind()) into BEST, then every
 * one of that kind whose range overlaps it; returns how many (0: none of
 * the kind).
 */
/* The best of a kind (defined after aspect_compute(), its caller). */
static size_t choose(const struct verdict_aspect *a, const struct verdict_entry *all, size_t n,
		     int kind, struct verdict_entry *best)
{
	size_t at = n, nbest = 0;

	for (size_t i = 0; i < n; i++)
		if (of_kind(&all[i], kind) && (at == n || better(a, &all[i].s, &all[at].s)))
			at = i;
	if (at == n)
		return 0;
	best[nbest++] = all[at];
	for (size_t i = 0; i < n; i++)
		if (i != at && of_kind(&all[i], kind) && stats_overlap(&all[i].s, &all[at].s))
			best[nbest++] = all[i];
	return nbest;
}

int verdict_saves(const struct verdict_aspect *a, const struct verdict_choice *choice,
		  double *saves, double *percent)
{
	const struct stat_summary *b = &choice->best[0].s, *m = &a->malloc_s;

	if (!a->have_malloc || !choice->nbest)
		return -1;
	*saves = a->higher_is_better ? b->median - m->median : m->median - b->median;
	*percent = m->median != 0 ? *saves / fabs(m->median) * 100 : NAN;
	/* malloc among the best overlaps the best too. */
	return !stats_overlap(b, m);
}

/*
 * The verdict at the COLUMN-th size of REPORT (random, replay: 0) on the
 * rows of ABI (bits) into *OUT. Returns 0, or -1 when no backend of that
 * ABI succeeded there.
 */
static int verdict_compute_abi(const struct run_report *report, size_t column, unsigned abi,
			       struct verdict *out)
{
	enum workload workload = report->config->workload;

	memset(out, 0, sizeof(*out));
	out->abi = abi;
	out->size = workload_one_column(workload) ? 0 : report->config->sizes[column];
	aspect_init(&out->memory, "memory", workload_def(workload)->verdict_memory);
	aspect_init(&out->time, "time", workload_def(workload)->verdict_time);
	aspect_init(&out->kept, "kept after the peak",
		    workload == WORKLOAD_REPLAY ? METRIC_LOW_RSS_BYTES : METRIC_COUNT);
	aspect_compute(report, column, abi, &out->memory);
	aspect_compute(report, column, abi, &out->time);
	aspect_compute(report, column, abi, &out->kept);
	return out->memory.valid || out->time.valid ? 0 : -1;
}

int verdict_compute(const struct run_report *report, size_t column, struct verdict *out)
{
	return verdict_compute_abi(report, column, abi_native(), out);
}

/* The columns a verdict is given for: one per size, random's one. */
static size_t ncolumns(const struct run_report *report)
{
	return workload_one_column(report->config->workload) ? 1 : report->config->nsizes;
}

size_t verdict_count(const struct run_report *report, size_t *nabis)
{
	unsigned abis[2];

	*nabis = report_abis(report, abis);
	return ncolumns(report) * *nabis;
}

int verdict_at(const struct run_report *report, size_t i, struct verdict *out)
{
	unsigned abis[2];
	size_t nabis = report_abis(report, abis);

	return nabis ? verdict_compute_abi(report, i / nabis, abis[i % nabis], out) : -1;
}

/* ---- text and Markdown ------------------------------------------------ */

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

/* 1 when the C library's malloc is among CHOICE's best. */
static int malloc_among_best(const struct verdict_choice *choice)
{
	for (size_t i = 0; i < choice->nbest; i++)
		if (is_libc_malloc(choice->best[i].cell))
			return 1;
	return 0;
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
	if (malloc_among_best(choice)) {
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
	for (const char *p = line + strspn(line, " "); *p; p++) {
		if (*p == '|' || *p == '\\' || *p == '*' || *p == '_')
			fputc('\\', out);
		fputc(*p, out);
	}
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
 * 1 when V's replay memory falls after the live bytes' peak under one of
 * its drop-in backends (its lowest since, median, under 90% of its peak:
 * series_fell()), so that what each keeps then is worth a line.
 */
static int kept_worth_saying(const struct run_report *report, const struct verdict *v)
{
	for (size_t i = 0; v->kept.valid && v->kept.drop_in.nbest && i < report->ncells; i++) {
		const struct cell *cell = &report->cells[i];
		struct stat_summary peak, low;

		if (cell_abi(cell) == v->abi && !verdict_needs_code_changes(cell) &&
		    !cell_summary(report, cell, METRIC_PEAK_RSS_BYTES, &peak) &&
		    !cell_summary(report, cell, METRIC_LOW_RSS_BYTES, &low) &&
		    series_fell(low.median, peak.median))
			return 1;
	}
	return 0;
}

/*
 * Every verdict of REPORT, one per size (one-column workloads: one) and
 * ABI, after HEADING, each line through PUT; nothing when !verdict_wanted.
 */
static int verdict_write(FILE *out, const struct run_report *report, const char *heading,
			 verdict_put_fn *put)
{
	unsigned abis[2];
	size_t nabis = report_abis(report, abis);
	int any = 0, measured = report->answer_first && rerun_answers(report->rerun);

	if (!verdict_wanted(report))
		return 0;
	for (size_t c = 0; c < ncolumns(report); c++)
		for (size_t k = 0; k < nabis; k++) {
			struct verdict v;
			char where[64], abi[16] = "";

			if (verdict_compute_abi(report, c, abis[k], &v))
				continue;
			if (!any++) {
				char caution[1024];

				fputs(heading, out);
				if (replay_fidelity_caution(report, caution, sizeof(caution)))
					put(out, caution);
			}
			if (nabis > 1)
				snprintf(abi, sizeof(abi), "%u-bit ", abis[k]);
			if (workload_one_column(report->config->workload))
				snprintf(where, sizeof(where), "  %s", abi);
			else
				snprintf(where, sizeof(where), "  %zu B %s", v.size, abi);
			put_aspect(out, where, &v.memory, measured, put);
			put_aspect(out, where, &v.time, measured, put);
			/* Where no real runs answer, the replay says what the drop-in ones keep. */
			if (!measured && kept_worth_saying(report, &v)) {
				char line[4096];

				choice_line(line, sizeof(line), where, &v.kept, "drop-in",
					    &v.kept.drop_in);
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
