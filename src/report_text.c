/*
 * report_text.c - the aligned tables people read, like the 2012 field
 * study's: one table per run, its columns chosen by the workload.
 */
#include "report_columns.h"
#include "report_counters.h"
#include "breakdown.h"
#include "run.h"
#include "table.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

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
	report_counters_text_header(out, report);
	fputc('\n', out);
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
	enum workload workload = report->config->workload;
	const struct report_column *columns;
	size_t ncolumns, identity = report_identity_columns(workload);
	struct table table;
	int ret;

	columns = report_columns(workload, &ncolumns);
	for (size_t c = 0; c < ncolumns; c++) {
		head1[c] = columns[c].head1;
		head2[c] = columns[c].head2;
	}
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

			report_column_format(buf, sizeof(buf), &columns[c], report, cell);
			table_set(row, c, "%s", buf);
		}
		if (!cell->ok) {
			char note[256];

			snprintf(note, sizeof(note), "failed: %s", cell->error);
			table_set_note(row, note);
		}
	}
	ret = table_print(&table, out);
	table_release(&table);
	print_footer(out, report);
	ret |= report_counters_text_table(out, report);
	if (breakdown_write_text(out, report))
		ret = -1;
	return ret || ferror(out) ? -1 : 0;
}
