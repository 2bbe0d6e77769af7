#include "run.h"
#include "parse.h"
#include "runner.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const metric_names[METRIC_COUNT] = {
	[METRIC_OVERHEAD_BYTES] = "overhead_bytes",
	[METRIC_ALLOC_NS] = "alloc_ns",
	[METRIC_FREE_NS] = "free_ns",
	[METRIC_PAGE_FAULTS] = "page_faults",
	[METRIC_FREE_PAGE_FAULTS] = "free_page_faults",
	[METRIC_X_FLOOR] = "x_floor",
};

const char *metric_name(enum metric metric)
{
	return metric_names[metric];
}

int metric_value(const struct cell *cell, const struct sample *sample,
		 enum metric metric, double floor_ns, double *out)
{
	switch (metric) {
	case METRIC_OVERHEAD_BYTES:
		*out = ((double)sample->rss_after_bytes - (double)sample->rss_before_bytes) /
		       (double)cell->count - (double)cell->size;
		return 0;
	case METRIC_ALLOC_NS:
		*out = sample->alloc_ns;
		return 0;
	case METRIC_FREE_NS:
		*out = sample->free_ns;
		return 0;
	case METRIC_PAGE_FAULTS:
		*out = (double)sample->alloc_faults;
		return 0;
	case METRIC_FREE_PAGE_FAULTS:
		*out = (double)sample->free_faults;
		return 0;
	case METRIC_X_FLOOR:
		if (floor_ns <= 0)
			return -1;
		*out = sample->alloc_ns / floor_ns;
		return 0;
	case METRIC_COUNT:
		break;
	}
	return -1;
}

int report_floor_ns(const struct run_report *report, size_t size, double *out)
{
	for (size_t i = 0; i < report->nfloors; i++) {
		const struct floor_cell *f = &report->floors[i];
		double values[RUN_MAX_REPEAT];
		struct stat_summary s;

		if (f->size != size)
			continue;
		if (!f->ok || !f->runs)
			return -1;
		for (unsigned r = 0; r < f->runs; r++)
			values[r] = f->samples[r].alloc_ns;
		if (stats_summarize(values, f->runs, &s) || s.median <= 0)
			return -1;
		*out = s.median;
		return 0;
	}
	return -1;
}

int cell_summary(const struct run_report *report, const struct cell *cell,
		 enum metric metric, struct stat_summary *out)
{
	double values[RUN_MAX_REPEAT], floor_ns = 0;

	if (!cell->ok || !cell->runs)
		return -1;
	if (metric == METRIC_X_FLOOR && report_floor_ns(report, cell->size, &floor_ns))
		return -1;
	for (unsigned r = 0; r < cell->runs; r++)
		if (metric_value(cell, &cell->samples[r], metric, floor_ns, &values[r]))
			return -1;
	return stats_summarize(values, cell->runs, out);
}

size_t cell_median_run(const struct cell *cell)
{
	double values[RUN_MAX_REPEAT];

	for (unsigned r = 0; r < cell->runs; r++)
		metric_value(cell, &cell->samples[r], METRIC_OVERHEAD_BYTES, 0, &values[r]);
	return stats_median_index(values, cell->runs);
}

double resolution_bytes(const struct run_report *report, size_t count)
{
	return (double)report->host.page_size / (double)count;
}

static void progress(const struct run_config *config, size_t done, size_t total,
		     const char *what, size_t size)
{
	if (config->quiet || !isatty(STDERR_FILENO))
		return;
	fprintf(stderr, "\rallocbench: measuring %-7s %8zu B  [%zu/%zu]   ",
		what, size, done + 1, total);
	if (done + 1 == total)
		fputs("\r\033[K", stderr);
	fflush(stderr);
}

static void measure_floor_cell(const struct run_config *config, struct floor_cell *f,
			       unsigned rep, int *failed)
{
	struct measure_params params = {
		.size = f->size, .count = f->count, .align = 1,
		.pool_block_bytes = config->pool_block_bytes, .touch = config->touch,
	};

	if (!f->ok)
		return;
	if (runner_measure(RUNNER_FLOOR, &params, &f->samples[rep])) {
		f->ok = 0;
		copy_string(f->error, sizeof(f->error), f->samples[rep].error);
		*failed = 1;
		return;
	}
	f->runs++;
}

static void measure_cell(const struct run_config *config, struct cell *c, unsigned rep,
			 int *failed)
{
	struct measure_params params = {
		.size = c->size, .count = c->count, .align = c->align,
		.pool_block_bytes = config->pool_block_bytes, .touch = config->touch,
	};

	if (!c->ok)
		return;
	if (runner_measure_preloaded(c->backend->name, c->backend->preload_path, &params,
				     &c->samples[rep])) {
		c->ok = 0;
		copy_string(c->error, sizeof(c->error), c->samples[rep].error);
		*failed = 1;
		return;
	}
	c->runs++;
}

int run_measure_all(const struct run_config *config, struct run_report *report)
{
	size_t steps, step = 0;

	memset(report, 0, sizeof(*report));
	report->config = config;
	probe_host(&report->host);
	report->nfloors = config->nsizes;
	report->ncells = config->nsizes * config->nbackends;
	report->floors = calloc(report->nfloors, sizeof(*report->floors));
	report->cells = calloc(report->ncells, sizeof(*report->cells));
	if (!report->floors || !report->cells)
		return error("out of memory");
	for (size_t s = 0; s < config->nsizes; s++) {
		struct floor_cell *f = &report->floors[s];

		f->size = config->sizes[s];
		f->count = (size_t)(config->total_bytes / f->size);
		f->ok = 1;
		f->samples = calloc(config->repeat, sizeof(*f->samples));
		if (!f->samples)
			return error("out of memory");
		for (size_t b = 0; b < config->nbackends; b++) {
			struct cell *c = &report->cells[s * config->nbackends + b];

			c->backend = config->backends[b];
			c->size = f->size;
			c->count = f->count;
			c->align = !c->backend->uses_align ? backend_malloc_alignment() :
				   config->align ? config->align : natural_alignment(c->size);
			c->ok = 1;
			c->samples = calloc(config->repeat, sizeof(*c->samples));
			if (!c->samples)
				return error("out of memory");
		}
	}

	/*
	 * Repetitions are interleaved (every backend once, then again) so that a
	 * slow moment of a shared machine spreads over all backends instead of
	 * falling on one.
	 */
	steps = config->nsizes * config->repeat * (config->nbackends + 1);
	for (size_t s = 0; s < config->nsizes; s++) {
		for (unsigned rep = 0; rep < config->repeat; rep++) {
			progress(config, step++, steps, RUNNER_FLOOR, config->sizes[s]);
			measure_floor_cell(config, &report->floors[s], rep, &report->failed);
			for (size_t b = 0; b < config->nbackends; b++) {
				struct cell *c = &report->cells[s * config->nbackends + b];

				progress(config, step++, steps, c->backend->name, c->size);
				measure_cell(config, c, rep, &report->failed);
			}
		}
	}
	return 0;
}

void run_report_release(struct run_report *report)
{
	for (size_t i = 0; report->cells && i < report->ncells; i++)
		free(report->cells[i].samples);
	for (size_t i = 0; report->floors && i < report->nfloors; i++)
		free(report->floors[i].samples);
	free(report->cells);
	free(report->floors);
	memset(report, 0, sizeof(*report));
}
