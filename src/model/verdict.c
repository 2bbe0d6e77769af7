/*
 * verdict.c - the best backend per size for memory and for time, against
 * the C library's malloc, with spreads (verdict.h): for the text after the
 * tables and for the JSON's "summary".
 */
#include "model/verdict.h"
#include "model/abi.h"
#include "report/report_columns.h"
#include "model/run.h"
#include "measure/backend.h"
#include "platform/util.h"

#include <stdlib.h>
#include <string.h>

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

/* The ranges [min, max] of X and Y overlap: neither is better beyond the noise. */
static int overlap(const struct stat_summary *x, const struct stat_summary *y)
{
	return x->min <= y->max && y->min <= x->max;
}

static void aspect_compute(const struct run_report *report, size_t column, unsigned abi,
			   struct verdict_aspect *a)
{
	struct verdict_entry all[VERDICT_MAX_BACKENDS];
	size_t n = 0, best = 0;

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
	for (size_t i = 1; i < n; i++)
		if (better(a, &all[i].s, &all[best].s))
			best = i;
	a->best[a->nbest++] = all[best];
	for (size_t i = 0; i < n; i++)
		if (i != best && overlap(&all[i].s, &all[best].s))
			a->best[a->nbest++] = all[i];
}

int verdict_compute(const struct run_report *report, size_t column, struct verdict *out)
{
	return verdict_compute_abi(report, column, abi_native(), out);
}

int verdict_compute_abi(const struct run_report *report, size_t column, unsigned abi,
			struct verdict *out)
{
	enum workload workload = report->config->workload;

	memset(out, 0, sizeof(*out));
	out->abi = abi;
	out->size = workload_one_column(workload) ? 0 : report->config->sizes[column];
	aspect_init(&out->memory, "memory", workload_def(workload)->verdict_memory);
	aspect_init(&out->time, "time", workload_def(workload)->verdict_time);
	aspect_compute(report, column, abi, &out->memory);
	aspect_compute(report, column, abi, &out->time);
	return out->memory.valid || out->time.valid ? 0 : -1;
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

/* "12.3" with about three significant digits; bytes and rates as whole numbers. */
static void fmt(char *buf, size_t size, double v)
{
	double a = v < 0 ? -v : v;

	snprintf(buf, size, a < 10 ? "%.2f" : a < 100 ? "%.1f" : "%.0f", v);
}

/* "12.3 [11.0-14.2]": a median and its runs' range, in the display unit of A's figure. */
static void fmt_range(char *buf, size_t size, const struct verdict_aspect *a,
		      const struct stat_summary *s)
{
	char med[32], lo[32], hi[32];

	fmt(med, sizeof(med), figure_display_value(a->metric, s->median));
	fmt(lo, sizeof(lo), figure_display_value(a->metric, s->min));
	fmt(hi, sizeof(hi), figure_display_value(a->metric, s->max));
	snprintf(buf, size, "%s [%s-%s]", med, lo, hi);
}

/* 1 when the C library's malloc is among A's best (no clear gain over it). */
static int malloc_among_best(const struct verdict_aspect *a)
{
	for (size_t i = 0; i < a->nbest; i++)
		if (is_libc_malloc(a->best[i].cell))
			return 1;
	return 0;
}

/* By how much the best beats malloc, in words; "" when malloc is absent. */
static void against_malloc(char *buf, size_t size, const struct verdict_aspect *a)
{
	const struct stat_summary *b = &a->best[0].s, *m = &a->malloc_s;
	char range[160], amount[64];

	*buf = '\0';
	if (!a->have_malloc)
		return;
	if (malloc_among_best(a)) {
		snprintf(buf, size, "; malloc is %s: no gain over it beyond the noise",
			 a->nbest == 1 ? "the best" : "among them");
		return;
	}
	fmt_range(range, sizeof(range), a, m);
	if (figure_get(a->metric)->aspect == FIGURE_MEMORY) {
		fmt(amount, sizeof(amount), figure_display_value(a->metric, m->median - b->median));
		snprintf(buf, size, "; %s %s less than malloc %s", amount,
			 figure_get(a->metric)->display_unit, range);
	} else if (a->higher_is_better) {
		snprintf(buf, size, "; %.2fx the rate of malloc %s",
			 m->median > 0 ? b->median / m->median : 0, range);
	} else {
		snprintf(buf, size, "; %.2fx as fast as malloc %s",
			 b->median > 0 ? m->median / b->median : 0, range);
	}
}

/* "(needs code changes)", "(drop-in)", or both lists when the best mix them. */
static void adoption(char *buf, size_t size, const struct verdict_aspect *a)
{
	size_t changes = 0, used;

	for (size_t i = 0; i < a->nbest; i++)
		changes += (size_t)verdict_needs_code_changes(a->best[i].cell);
	if (changes == a->nbest || !changes) {
		snprintf(buf, size, "(%s)", !changes ? "drop-in" :
			 a->nbest == 1 ? "needs code changes" : "all need code changes");
		return;
	}
	used = (size_t)snprintf(buf, size, "(needs code changes:");
	for (int pass = 0; pass < 2; pass++) {
		size_t k = 0;

		if (pass && used < size)
			used += (size_t)snprintf(buf + used, size - used, "; drop-in:");
		for (size_t i = 0; i < a->nbest && used < size; i++)
			if (verdict_needs_code_changes(a->best[i].cell) == !pass)
				used += (size_t)snprintf(buf + used, size - used, "%s %s",
							 k++ ? "," : "",
							 a->best[i].cell->backend->name);
	}
	if (used < size)
		snprintf(buf + used, size - used, ")");
}

/* 1 when every one of A's best has the same median, min and max: a tie. */
static int all_tied(const struct verdict_aspect *a)
{
	for (size_t i = 1; i < a->nbest; i++)
		if (a->best[i].s.median != a->best[0].s.median ||
		    a->best[i].s.min != a->best[0].s.min || a->best[i].s.max != a->best[0].s.max)
			return 0;
	return 1;
}

/* The verdict on A at WHERE as one line into LINE (SIZE bytes), in its figure's display unit. */
static void aspect_line(char *line, size_t size, const char *where, const struct verdict_aspect *a)
{
	const char *unit = figure_get(a->metric)->display_unit;
	char range[160], vs[320], kind[512];
	size_t used;

	against_malloc(vs, sizeof(vs), a);
	adoption(kind, sizeof(kind), a);
	fmt_range(range, sizeof(range), a, &a->best[0].s);
	if (a->nbest == 1) {
		snprintf(line, size, "%s%s: %s %s %s %s%s", where, a->name,
			 a->best[0].cell->backend->name, kind, range, unit, vs);
	} else if (all_tied(a)) {
		used = (size_t)snprintf(line, size, "%s%s:", where, a->name);
		for (size_t i = 0; i < a->nbest && used < size; i++)
			used += (size_t)snprintf(line + used, size - used, "%s %s",
						 i ? "," : "", a->best[i].cell->backend->name);
		if (used < size)
			snprintf(line + used, size - used, " tie at %s %s %s%s", range, unit, kind, vs);
	} else {
		used = (size_t)snprintf(line, size, "%s%s: no clear winner:", where, a->name);
		for (size_t i = 0; i < a->nbest && used < size; i++) {
			fmt_range(range, sizeof(range), a, &a->best[i].s);
			used += (size_t)snprintf(line + used, size - used, "%s %s %s",
						 i ? "," : "", a->best[i].cell->backend->name, range);
		}
		if (used < size)
			snprintf(line + used, size - used, " %s %s%s", unit, kind, vs);
	}
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
 * Every verdict of REPORT, one per size (one-column workloads: one) and
 * ABI, after HEADING, each line through PUT; nothing when !verdict_wanted.
 */
static int verdict_write(FILE *out, const struct run_report *report, const char *heading,
			 verdict_put_fn *put)
{
	unsigned abis[2];
	size_t nabis = report_abis(report, abis);
	int any = 0;

	if (!verdict_wanted(report))
		return 0;
	for (size_t c = 0; c < ncolumns(report); c++)
		for (size_t k = 0; k < nabis; k++) {
			struct verdict v;
			char where[64], abi[16] = "", line[4096];

			if (verdict_compute_abi(report, c, abis[k], &v))
				continue;
			if (!any++)
				fputs(heading, out);
			if (nabis > 1)
				snprintf(abi, sizeof(abi), "%u-bit ", abis[k]);
			if (workload_one_column(report->config->workload))
				snprintf(where, sizeof(where), "  %s", abi);
			else
				snprintf(where, sizeof(where), "  %zu B %s", v.size, abi);
			if (v.memory.valid) {
				aspect_line(line, sizeof(line), where, &v.memory);
				put(out, line);
			}
			if (v.time.valid) {
				aspect_line(line, sizeof(line), where, &v.time);
				put(out, line);
			}
		}
	return ferror(out) ? -1 : 0;
}

int verdict_write_text(FILE *out, const struct run_report *report)
{
	return verdict_write(out, report,
			     "\nverdict (median [min-max] of the runs; pool, pool-locked and arena "
			     "need\ncode changes, the others are drop-in; no clear winner where "
			     "ranges overlap):\n", put_text_line);
}

int verdict_write_markdown(FILE *out, const struct run_report *report)
{
	return verdict_write(out, report,
			     "\n**Verdict** (median [min-max] of the runs; pool, pool-locked and "
			     "arena need code changes, the others are drop-in; no clear winner "
			     "where ranges overlap):\n\n", put_markdown_line);
}
