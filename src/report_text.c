/* report_text.c - the aligned table people read, like the 2012 field study's. */
#include "breakdown.h"
#include "run.h"
#include "table.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

/* "100 MiB" when BYTES is a whole number of a binary unit, else "123456 B". */
static void format_bytes(char *buf, size_t size, uint64_t bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	size_t u = 0;

	while (u + 1 < sizeof(units) / sizeof(units[0]) && bytes >= 1024 && !(bytes % 1024)) {
		bytes /= 1024;
		u++;
	}
	snprintf(buf, size, "%llu %s", (unsigned long long)bytes, units[u]);
}

static void print_header(FILE *out, const struct run_report *report)
{
	const struct run_config *config = report->config;
	const struct host_info *host = &report->host;
	char total[32];

	format_bytes(total, sizeof(total), config->total_bytes);
	fprintf(out, "allocbench %s: fill, %s per measurement, touch %s, median of %u run%s\n",
		ALLOCBENCH_VERSION, total, touch_name(config->touch), config->repeat,
		config->repeat == 1 ? "" : "s");
	fprintf(out, "host: %s, %s %s, %s %s, %d CPU%s, %s\n",
		host->hostname, host->kernel, host->machine, host->libc, host->libc_version,
		host->cpus, host->cpus == 1 ? "" : "s", host->cpu_model);
	fprintf(out, "page %ld B, THP %s; alignment: ", host->page_size, host->thp);
	if (config->align)
		fprintf(out, "%zu B for pool and arena (--align)", config->align);
	else
		fputs("natural for pool and arena", out);
	fprintf(out, ", %zu B for malloc\n", backend_malloc_alignment());
	if (*ALLOCBENCH_SANITIZE)
		fprintf(out, "warning: built with -fsanitize=%s: malloc's figures are the "
			"sanitizer's\n", ALLOCBENCH_SANITIZE);
	fputc('\n', out);
}

static const char *const head1[] = {
	"", "size", "", "align", "total", "overhead", "alloc", "free", "page", "x",
};
static const char *const head2[] = {
	"backend", "B", "count", "B", "KiB", "B/chunk", "ns", "ns", "faults", "floor",
};

static void add_cell_row(struct table *table, const struct run_report *report,
			 const struct cell *cell)
{
	struct table_row *row = table_add_row(table);
	struct stat_summary s;
	const struct sample *median;

	if (!row)
		return;
	table_set(row, 0, "%s", cell->backend->name);
	table_set(row, 1, "%zu", cell->size);
	table_set(row, 2, "%zu", cell->count);
	table_set(row, 3, "%zu", cell->align);
	if (!cell->ok) {
		char note[256];

		snprintf(note, sizeof(note), "failed: %s", cell->error);
		table_set_note(row, note);
		return;
	}
	median = &cell->samples[cell_median_run(cell)];
	table_set(row, 4, "%.0f",
		  ((double)median->rss_after_bytes - (double)median->rss_before_bytes) / 1024.0);
	if (!cell_summary(report, cell, METRIC_OVERHEAD_BYTES, &s))
		table_set(row, 5, "%.2f", s.median);
	if (!cell_summary(report, cell, METRIC_ALLOC_NS, &s))
		table_set(row, 6, "%.2f", s.median);
	if (!cell_summary(report, cell, METRIC_FREE_NS, &s))
		table_set(row, 7, "%.2f", s.median);
	if (!cell_summary(report, cell, METRIC_PAGE_FAULTS, &s))
		table_set(row, 8, "%.0f", s.median);
	if (!cell_summary(report, cell, METRIC_X_FLOOR, &s))
		table_set(row, 9, "%.2f", s.median);
	else
		table_set(row, 9, "n/a");
}

static void print_footer(FILE *out, const struct run_report *report)
{
	double worst = 0;

	fputs("\nfloor (this loop filling one fresh mapping, no allocator), ns per chunk:\n ", out);
	for (size_t i = 0; i < report->nfloors; i++) {
		const struct floor_cell *f = &report->floors[i];
		double ns;

		if (!report_floor_ns(report, f->size, &ns))
			fprintf(out, " %zu B %.2f%s", f->size, ns, i + 1 < report->nfloors ? "," : "");
		else
			fprintf(out, " %zu B %s%s", f->size, f->ok ? "n/a (nothing touched)" : f->error,
				i + 1 < report->nfloors ? "," : "");
		if (resolution_bytes(report, f->count) > worst)
			worst = resolution_bytes(report, f->count);
	}
	fprintf(out, "\noverhead resolution: one page over the count, at most %.3g B per chunk;\n"
		"--format json gives min, max and every run\n", worst);
}

int report_text_write(FILE *out, const struct run_report *report)
{
	struct table table;
	int ret;

	print_header(out, report);
	table_init(&table, sizeof(head2) / sizeof(head2[0]), head1, head2);
	for (size_t i = 0; i < report->ncells; i++)
		add_cell_row(&table, report, &report->cells[i]);
	ret = table_print(&table, out);
	table_release(&table);
	print_footer(out, report);
	if (breakdown_write_text(out, report))
		ret = -1;
	return ret || ferror(out) ? -1 : 0;
}
