/*
 * report_text.c - the aligned tables people read, like the 2012 field
 * study's: one table per run, its columns chosen by the workload.
 */
#include "run.h"
#include "table.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Three significant digits at least, no more decimals than that needs. */
static void set_adaptive(struct table_row *row, size_t col, double v)
{
	double a = fabs(v);

	if (a < 10)
		table_set(row, col, "%.2f", v);
	else if (a < 100)
		table_set(row, col, "%.1f", v);
	else
		table_set(row, col, "%.0f", v);
}

static void print_header(FILE *out, const struct run_report *report)
{
	const struct run_config *config = report->config;
	const struct host_info *host = &report->host;
	char total[32];

	format_bytes(total, sizeof(total), config->total_bytes);
	fprintf(out, "allocbench %s: %s, %s per measurement, touch %s, median of %u run%s\n",
		ALLOCBENCH_VERSION, workload_name(config->workload), total,
		touch_name(config->touch), config->repeat, config->repeat == 1 ? "" : "s");
	fprintf(out, "host: %s, %s %s, %s %s, %d CPU%s, %s\n",
		host->hostname, host->kernel, host->machine, host->libc, host->libc_version,
		host->cpus, host->cpus == 1 ? "" : "s", host->cpu_model);
	fprintf(out, "page %ld B, THP %s; alignment: ", host->page_size, host->thp);
	if (config->align)
		fprintf(out, "%zu B for pool, arena (--align)", config->align);
	else
		fputs("natural for pool, arena", out);
	fprintf(out, ", %zu B for malloc\n", backend_malloc_alignment());
	if (*ALLOCBENCH_SANITIZE)
		fprintf(out, "warning: a -fsanitize=%s build: malloc is the sanitizer's\n",
			ALLOCBENCH_SANITIZE);
	switch (config->workload) {
	case WORKLOAD_RANDOM:
		fprintf(out, "random: seed %llu, sizes", (unsigned long long)config->seed);
		for (size_t i = 0; i < config->nsizes; i++)
			fprintf(out, "%s%zu", i ? "," : " ", config->sizes[i]);
		fputs(" B mixed in one heap\n", out);
		break;
	case WORKLOAD_THREADS:
		fprintf(out, "threads: %u at once, against 1 thread, swapping elements of a "
			"shared array\n", config->threads);
		break;
	default:
		break;
	}
	fputc('\n', out);
}

/* What a column shows. */
enum column_kind {
	COL_BACKEND,
	COL_SIZE,
	COL_COUNT,
	COL_ROUNDS,
	COL_TOTAL_KIB,     /* fill: RSS growth of the median run */
	COL_METRIC,        /* a metric's median, adaptive precision */
	COL_METRIC_FIXED,  /* a metric's median with two decimals */
	COL_METRIC_COUNT,  /* a metric's median as a whole number */
	COL_METRIC_KIB,    /* a metric in bytes, shown in KiB */
	COL_METRIC_MEGA,   /* a metric divided by a million */
	COL_LIVE_KIB,      /* random: live bytes at the end, KiB */
	COL_OPS,           /* random: operations in the sequence */
	COL_VS_MALLOC,     /* churn: malloc's ns per pair over this backend's */
};

struct column {
	const char *head1;
	const char *head2;
	enum column_kind kind;
	enum metric metric;
};

static const struct column fill_columns[] = {
	{ "", "backend", COL_BACKEND, 0 },
	{ "size", "B", COL_SIZE, 0 },
	{ "", "count", COL_COUNT, 0 },
	{ "total", "KiB", COL_TOTAL_KIB, 0 },
	{ "overhead", "B/chunk", COL_METRIC_FIXED, METRIC_OVERHEAD_BYTES },
	{ "alloc", "ns", COL_METRIC, METRIC_ALLOC_NS },
	{ "free", "ns", COL_METRIC, METRIC_FREE_NS },
	{ "page", "faults", COL_METRIC_COUNT, METRIC_PAGE_FAULTS },
	{ "x", "floor", COL_METRIC_FIXED, METRIC_X_FLOOR },
	{ "warm", "ns", COL_METRIC, METRIC_WARM_ALLOC_NS },
};

static const struct column churn_columns[] = {
	{ "", "backend", COL_BACKEND, 0 },
	{ "size", "B", COL_SIZE, 0 },
	{ "", "count", COL_COUNT, 0 },
	{ "", "rounds", COL_ROUNDS, 0 },
	{ "create+destroy", "ns/pair", COL_METRIC, METRIC_CHURN_NS },
	{ "cold", "ns/pair", COL_METRIC, METRIC_CHURN_COLD_NS },
	{ "page", "faults", COL_METRIC_COUNT, METRIC_PAGE_FAULTS },
	{ "faster", "than malloc", COL_VS_MALLOC, METRIC_CHURN_NS },
};

static const struct column random_columns[] = {
	{ "", "backend", COL_BACKEND, 0 },
	{ "", "ops", COL_OPS, 0 },
	{ "", "ns/op", COL_METRIC, METRIC_OP_NS },
	{ "peak", "KiB", COL_METRIC_KIB, METRIC_PEAK_RSS_BYTES },
	{ "live", "KiB", COL_LIVE_KIB, 0 },
	{ "RSS/live", "ratio", COL_METRIC_FIXED, METRIC_FRAGMENTATION },
	{ "page", "faults", COL_METRIC_COUNT, METRIC_PAGE_FAULTS },
};

static const struct column threads_columns[] = {
	{ "", "backend", COL_BACKEND, 0 },
	{ "size", "B", COL_SIZE, 0 },
	{ "", "rounds", COL_ROUNDS, 0 },
	{ "all threads", "Mops/s", COL_METRIC_MEGA, METRIC_OPS_PER_S },
	{ "per thread", "Mops/s", COL_METRIC_MEGA, METRIC_OPS_PER_S_PER_THREAD },
	{ "1 thread", "Mops/s", COL_METRIC_MEGA, METRIC_OPS_PER_S_1THREAD },
	{ "", "speed-up", COL_METRIC_FIXED, METRIC_SPEEDUP },
};

/* The malloc cell at CELL's size, or NULL when malloc was not measured. */
static const struct cell *malloc_cell(const struct run_report *report, const struct cell *cell)
{
	for (size_t i = 0; i < report->ncells; i++)
		if (report->cells[i].size == cell->size &&
		    !strcmp(report->cells[i].backend->name, "malloc"))
			return &report->cells[i];
	return NULL;
}

static void set_column(struct table_row *row, size_t col, const struct column *c,
		       const struct run_report *report, const struct cell *cell)
{
	const struct cell *base;
	struct stat_summary s, b;
	const struct sample *median;

	switch (c->kind) {
	case COL_BACKEND:
		table_set(row, col, "%s", cell->backend->name);
		return;
	case COL_SIZE:
		table_set(row, col, "%zu", cell->size);
		return;
	case COL_COUNT:
		table_set(row, col, "%zu", cell->count);
		return;
	case COL_ROUNDS:
		table_set(row, col, "%u", cell->rounds);
		return;
	case COL_TOTAL_KIB:
		median = &cell->samples[cell_median_run(cell)];
		table_set(row, col, "%.0f", ((double)median->rss_after_bytes -
					     (double)median->rss_before_bytes) / 1024.0);
		return;
	case COL_OPS:
		table_set(row, col, "%llu", (unsigned long long)cell->samples[0].ops);
		return;
	case COL_LIVE_KIB:
		table_set(row, col, "%.0f", (double)cell->samples[0].live_bytes / 1024.0);
		return;
	case COL_VS_MALLOC:
		base = malloc_cell(report, cell);
		if (base && !cell_summary(report, base, c->metric, &b) &&
		    !cell_summary(report, cell, c->metric, &s) && s.median > 0)
			table_set(row, col, "%.2fx", b.median / s.median);
		else
			table_set(row, col, "n/a");
		return;
	default:
		break;
	}
	if (cell_summary(report, cell, c->metric, &s)) {
		table_set(row, col, "n/a");
		return;
	}
	switch (c->kind) {
	case COL_METRIC_FIXED:
		table_set(row, col, "%.2f", s.median);
		break;
	case COL_METRIC_COUNT:
		table_set(row, col, "%.0f", s.median);
		break;
	case COL_METRIC_KIB:
		table_set(row, col, "%.0f", s.median / 1024.0);
		break;
	case COL_METRIC_MEGA:
		set_adaptive(row, col, s.median / 1e6);
		break;
	default:
		set_adaptive(row, col, s.median);
		break;
	}
}

/* The columns of WORKLOAD's table; their number in *N. */
static const struct column *columns_of(enum workload workload, size_t *n)
{
#define COLUMNS(array) (*n = sizeof(array) / sizeof(array[0]), array)
	switch (workload) {
	case WORKLOAD_CHURN:
		return COLUMNS(churn_columns);
	case WORKLOAD_RANDOM:
		return COLUMNS(random_columns);
	case WORKLOAD_THREADS:
		return COLUMNS(threads_columns);
	default:
		return COLUMNS(fill_columns);
	}
#undef COLUMNS
}

static void print_footer(FILE *out, const struct run_report *report)
{
	const struct run_config *config = report->config;
	double worst = 0;

	fputc('\n', out);
	switch (config->workload) {
	case WORKLOAD_FILL:
		fputs("floor (this loop filling one fresh mapping, no allocator), ns per chunk:\n ", out);
		for (size_t i = 0; i < report->nfloors; i++) {
			const struct floor_cell *f = &report->floors[i];
			double ns;

			if (!report_floor_ns(report, f->size, &ns))
				fprintf(out, " %zu B %.2f", f->size, ns);
			else
				fprintf(out, " %zu B %s", f->size,
					f->ok ? "n/a (nothing touched)" : f->error);
			fputs(i + 1 < report->nfloors ? "," : "\n", out);
			if (resolution_bytes(report, f->count) > worst)
				worst = resolution_bytes(report, f->count);
		}
		fprintf(out, "overhead resolution: one page over the count, at most %.3g B per "
			"chunk;\nwarm: the same fill again after freeing everything, in the same "
			"process\n", worst);
		break;
	case WORKLOAD_CHURN:
		fputs("ns/pair: one create (allocate, touch) and one destroy, over rounds 2 and\n"
		      "later; cold: the first round, with its page faults\n", out);
		break;
	case WORKLOAD_RANDOM: {
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
		fputs("RSS/live: resident growth over the bytes still alive at the end\n", out);
		break;
	}
	case WORKLOAD_THREADS:
		fputs("Mops/s: millions of swaps (allocate, copy, copy, copy, free) per second\n",
		      out);
		break;
	default:
		break;
	}
	fputs("--format json gives min, max and every run\n", out);
}

int report_text_write(FILE *out, const struct run_report *report)
{
	const char *head1[TABLE_MAX_COLUMNS], *head2[TABLE_MAX_COLUMNS];
	const struct column *columns;
	struct table table;
	size_t ncolumns;
	int ret;

	columns = columns_of(report->config->workload, &ncolumns);
	for (size_t c = 0; c < ncolumns; c++) {
		head1[c] = columns[c].head1;
		head2[c] = columns[c].head2;
	}
	print_header(out, report);
	table_init(&table, ncolumns, head1, head2);
	for (size_t i = 0; i < report->ncells; i++) {
		const struct cell *cell = &report->cells[i];
		struct table_row *row = table_add_row(&table);
		size_t identity = report->config->workload == WORKLOAD_RANDOM ? 1 : 3;

		if (!row)
			break;
		if (!cell->ok) {
			char note[256];

			/* The row's identity, then why it failed. */
			for (size_t c = 0; c < identity && c < ncolumns; c++)
				set_column(row, c, &columns[c], report, cell);
			snprintf(note, sizeof(note), "failed: %s", cell->error);
			table_set_note(row, note);
			continue;
		}
		for (size_t c = 0; c < ncolumns; c++)
			set_column(row, c, &columns[c], report, cell);
	}
	ret = table_print(&table, out);
	table_release(&table);
	print_footer(out, report);
	return ret || ferror(out) ? -1 : 0;
}
