#include "model/run.h"
#include "model/report.h"
#include "measure/allocator.h"
#include "measure/backend.h"
#include "measure/replay_series.h"
#include "model/stats.h"
#include "platform/parse.h"
#include "model/runner.h"
#include "platform/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(RUN_MAX_JOBS <= RUNNER_MAX_CHILDREN, "--jobs runs at most RUNNER_MAX_CHILDREN children");

/*
 * The line fitted to SAMPLE's resident growth against the chunks allocated
 * (README: The method): through the readings taken during the fill, after
 * the first part of the loop and up to the last chunk, the reading before
 * the loop as the origin (0 chunks, 0 bytes) and not fitted, so that a cost
 * paid once at the first allocation is the intercept and leaves the slope
 * alone. With fewer than two readings (a count below MEASURE_SEGMENTS, the
 * readings switched off) the line runs through the origin and the last
 * reading: the slope is the average. Returns 0, or -1 when COUNT is 0.
 */
static int sample_fit(const struct sample *sample, size_t count, struct line_fit *out)
{
	double x[MEASURE_SEGMENTS + 1], y[MEASURE_SEGMENTS + 1];
	size_t n = 0;
	unsigned nreadings = sample->nreadings <= MEASURE_SEGMENTS ? sample->nreadings : 0;

	if (!count)
		return -1;
	if (nreadings < 2) {
		/* The origin and the last reading. */
		x[n] = 0;
		y[n++] = 0;
		x[n] = (double)count;
		y[n++] = (double)sample->rss_after_bytes - (double)sample->rss_before_bytes;
	} else {
		for (unsigned i = 0; i < nreadings; i++) {
			x[n] = (double)sample->reading_chunks[i];
			y[n++] = (double)sample->reading_bytes[i] - (double)sample->rss_before_bytes;
		}
	}
	return stats_fit_line(x, y, n, out);
}

/*
 * metric_value() of a figure of resident memory worked out of SAMPLE's
 * readings: the fill's average overhead and its fitted line, what a replay
 * kept after the live peak, fragmentation. -1 for any other METRIC.
 */
static int memory_metric_value(const struct cell *cell, const struct sample *sample,
			       enum metric metric, double *out)
{
	struct line_fit fit;
	uint64_t low, end;

	switch (metric) {
	case METRIC_OVERHEAD_BYTES:
		*out = ((double)sample->rss_after_bytes - (double)sample->rss_before_bytes) /
		       (double)cell->count - (double)cell->size;
		return 0;
	case METRIC_MARGINAL_BYTES:
	case METRIC_ONE_TIME_BYTES:
	case METRIC_LINEARITY_BYTES:
		if (sample_fit(sample, cell->count, &fit))
			return -1;
		*out = metric == METRIC_MARGINAL_BYTES ? fit.slope - (double)cell->size :
		       metric == METRIC_ONE_TIME_BYTES ? fit.intercept : fit.worst;
		return 0;
	case METRIC_LOW_RSS_BYTES:
	case METRIC_END_RSS_BYTES:
		if (sample_after_live_peak(sample, &low, &end))
			return -1;
		*out = (double)(metric == METRIC_LOW_RSS_BYTES ? low : end);
		return 0;
	case METRIC_FRAGMENTATION:
		/*
		 * replay (the only workload with a peak live set): peak RSS over
		 * peak live bytes, whatever is alive at the end. random: nothing
		 * alive at the end, no ratio exists (n/a, null in JSON).
		 */
		if (sample->peak_live_bytes) {
			*out = (double)sample->peak_rss_bytes / (double)sample->peak_live_bytes;
			return 0;
		}
		if (!sample->live_bytes)
			return -1;
		*out = sample->fragmentation;
		return 0;
	default:
		break;
	}
	return -1;
}

int metric_value(const struct cell *cell, const struct sample *sample,
		 enum metric metric, double floor_ns, double *out)
{
	switch (metric) {
	case METRIC_OVERHEAD_BYTES:
	case METRIC_MARGINAL_BYTES:
	case METRIC_ONE_TIME_BYTES:
	case METRIC_LINEARITY_BYTES:
	case METRIC_LOW_RSS_BYTES:
	case METRIC_END_RSS_BYTES:
	case METRIC_FRAGMENTATION:
		return memory_metric_value(cell, sample, metric, out);
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
	case METRIC_WARM_ALLOC_NS:
		*out = sample->warm_alloc_ns;
		return 0;
	case METRIC_WARM_FREE_NS:
		*out = sample->warm_free_ns;
		return 0;
	case METRIC_WARM_PAGE_FAULTS:
		*out = (double)sample->warm_faults;
		return 0;
	case METRIC_CHURN_NS:
		*out = sample->churn_ns;
		return 0;
	case METRIC_CHURN_COLD_NS:
		*out = sample->churn_cold_ns;
		return 0;
	case METRIC_OP_NS:
		*out = sample->op_ns;
		return 0;
	case METRIC_PEAK_RSS_BYTES:
		*out = (double)sample->peak_rss_bytes;
		return 0;
	case METRIC_SETUP_BYTES:
		*out = (double)sample->setup_bytes;
		return 0;
	case METRIC_OPS_PER_S:
		*out = sample->ops_per_s;
		return 0;
	case METRIC_OPS_PER_S_PER_THREAD:
		*out = sample->threads ? sample->ops_per_s / sample->threads : 0;
		return 0;
	case METRIC_OPS_PER_S_1THREAD:
		*out = sample->ops_per_s_1thread;
		return 0;
	case METRIC_SPEEDUP:
		if (sample->ops_per_s_1thread <= 0)
			return -1;
		*out = sample->ops_per_s / sample->ops_per_s_1thread;
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

/*
 * The floor's ns per chunk for CELL's run R: the floor's run of the same
 * repetition, measured next to it (the floor is measured as often as the
 * cells, interleaved with them), or the floor's median where that run is
 * missing. -1 when the floor failed.
 */
static int floor_ns_of_run(const struct run_report *report, const struct cell *cell,
			   unsigned r, double *out)
{
	for (size_t i = 0; i < report->nfloors; i++) {
		const struct floor_cell *f = &report->floors[i];

		if (f->size != cell->size)
			continue;
		if (f->ok && r < f->runs && f->samples[r].alloc_ns > 0) {
			*out = f->samples[r].alloc_ns;
			return 0;
		}
		break;
	}
	return report_floor_ns(report, cell->size, out);
}

int cell_runs(const struct run_report *report, const struct cell *cell, enum metric metric,
	      double *values)
{
	if (!cell->ok || !cell->runs || !metric_applies(metric, report->config->workload))
		return -1;
	for (unsigned r = 0; r < cell->runs; r++) {
		double floor_ns = 0;

		if (metric == METRIC_X_FLOOR && floor_ns_of_run(report, cell, r, &floor_ns))
			return -1;
		if (metric_value(cell, &cell->samples[r], metric, floor_ns, &values[r]))
			return -1;
	}
	return 0;
}

int cell_summary(const struct run_report *report, const struct cell *cell,
		 enum metric metric, struct stat_summary *out)
{
	double values[RUN_MAX_REPEAT];

	if (cell->loaded) {
		if (!cell->ok || !cell->runs || !metric_applies(metric, report->config->workload) ||
		    !cell->loaded->have_metric[metric])
			return -1;
		*out = cell->loaded->metric[metric];
		return 0;
	}
	if (cell_runs(report, cell, metric, values))
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

void report_abi_note(char *buf, size_t size, const struct run_report *report)
{
	buf[0] = '\0';
	if (!report->abi32_program)
		return;
	if (report->abi32_emulator)
		snprintf(buf, size, "abi: NAME/32 rows measured in 32-bit processes (%s) under %s, "
			 "as this kernel runs no 32-bit program: their bytes and page faults are the "
			 "process's, their times the emulator's; no counters", report->abi32_program,
			 report->abi32_emulator);
	else
		snprintf(buf, size, "abi: NAME/32 rows measured in 32-bit processes (%s); no "
			 "counters", report->abi32_program);
}

double resolution_bytes(const struct run_report *report, size_t count)
{
	return (double)report->host.page_size / (double)count;
}

size_t run_mix_mean_size(const struct run_config *config)
{
	uint64_t sum = 0, n = 0;

	for (size_t i = 0; i < config->nsizes; i++) {
		uint64_t w = config->weights ? config->weights[i] : 1;

		sum += config->sizes[i] * w;
		n += w;
	}
	return (size_t)((sum + n - 1) / n);
}

/* Saturating arithmetic: UINT64_MAX stands for "more than 64 bits hold". */
static uint64_t sat_add(uint64_t a, uint64_t b)
{
	uint64_t r;

	return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	uint64_t r;

	return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

/* Rounds N up to a multiple of the power of two A (saturating). */
static uint64_t round_up(uint64_t n, uint64_t a)
{
	return n > UINT64_MAX - (a - 1) ? UINT64_MAX : (n + a - 1) & ~(a - 1);
}

/*
 * The bytes one chunk of SIZE may take from BACKEND, rounded up on purpose.
 * malloc and the preloaded allocators: glibc takes max(32, n + 8 rounded to
 * 16); jemalloc, mimalloc and tcmalloc round to size classes at most 25%
 * apart and keep metadata beside them, so max(32, n + n/4 + 16, rounded to
 * 16) covers them all. pool and arena: the size rounded to the alignment,
 * and at least the pool's 4-byte link.
 */
static uint64_t chunk_estimate(const struct run_config *config, const struct backend *b,
			       size_t size)
{
	uint64_t n = size;

	if (b && b->uses_align) {
		n = round_up(n, config->align ? config->align : natural_alignment(size));
		return n < 4 ? 4 : n;
	}
	n = round_up(sat_add(sat_add(n, n / 4), 16), 16);
	return n < 32 ? 32 : n;
}

/* The largest size of CONFIG's list. */
static size_t largest_size(const struct run_config *config)
{
	size_t most = 0;

	for (size_t i = 0; i < config->nsizes; i++)
		if (config->sizes[i] > most)
			most = config->sizes[i];
	return most;
}

uint64_t run_bound_bytes(const struct run_config *config, const struct backend *backend,
			 size_t size)
{
	uint64_t count, chunk, need, threads = config->threads ? config->threads : 1;
	/*
	 * A pool reserves its blocks without touching them: what becomes
	 * resident is the chunks handed out, counted above, plus at most the
	 * rest of the last page of each pool.
	 */
	uint64_t page = (uint64_t)probe_page_size();
	int pooled;

	backend = backend ? backend_base(backend) : NULL;
	pooled = backend == &backend_pool || backend == &backend_pool_locked;

	if (config->workload == WORKLOAD_REPLAY) {
		/*
		 * The trace's live set at its peak (twice, for the allocator's
		 * own), two words and a version per slot, the steps mapped (a
		 * window of 24 bytes a step, two while the series' pass runs, and
		 * the per-thread replay's index, 4 bytes a step of one); the arena
		 * never reuses, the pools keep a page each.
		 */
		const struct run_replay *r = &config->replay;
		uint64_t window = r->steps < PLAN_VIEW_STEPS ? r->steps : PLAN_VIEW_STEPS;

		need = sat_add(sat_mul(r->peak_live_bytes, 2), sat_mul(r->slots, 20));
		need = sat_add(need, sat_mul(window, 2 * 24 + 4));
		if (backend == &backend_arena)
			need = sat_add(need, sat_add(r->alloc_bytes, sat_mul(r->allocs, 16)));
		else if (pooled)
			need = sat_add(need, 64 * page);
		return sat_add(need, RUN_PROCESS_BYTES);
	}
	if (config->workload == WORKLOAD_RANDOM) {
		/*
		 * At most count chunks alive at once, each at most the largest of
		 * the mix; the plan is 4 * count steps of 4 bytes and count bytes
		 * of sizes. The arena never reuses: of the 4 * count steps at most
		 * (4 * count + count) / 2 allocate, each padded to 16.
		 */
		count = config->total_bytes / run_mix_mean_size(config);
		chunk = chunk_estimate(config, backend, largest_size(config));
		need = sat_mul(count, sat_add(8 + 16 + 1, chunk));
		if (backend == &backend_arena)
			need = sat_add(need, sat_mul(sat_mul(count, 5) / 2,
						     round_up(sat_add(largest_size(config), 16), 16)));
		else if (pooled)
			need = sat_add(need, sat_mul(config->nsizes, page));
	} else {
		/*
		 * count chunks alive at once (fill; churn and threads at most as
		 * many) and their 8-byte pointers; threads also maps and writes a
		 * shared array of count * size bytes, and each thread of the pool
		 * has a pool of its own.
		 */
		count = config->total_bytes / size;
		chunk = chunk_estimate(config, backend, size);
		need = sat_mul(count, sat_add(8, chunk));
		if (config->workload == WORKLOAD_THREADS)
			need = sat_add(need, sat_mul(count, size));
		if (pooled)
			need = sat_add(need, sat_mul(config->workload == WORKLOAD_THREADS ?
						     threads + 1 : 1, page));
	}
	return sat_add(need, RUN_PROCESS_BYTES);
}

uint64_t run_estimate_bytes(const struct run_config *config, size_t *size)
{
	uint64_t most = 0;

	*size = 0;
	for (size_t s = 0; s < config->nsizes; s++) {
		for (size_t b = 0; b < config->nbackends; b++) {
			uint64_t need = run_bound_bytes(config, config->backends[b],
							config->sizes[s]);

			if (need > most) {
				most = need;
				*size = workload_one_column(config->workload) ? 0 : config->sizes[s];
			}
		}
		if (workload_one_column(config->workload))
			break;
	}
	return most;
}


void report_backend_label(char *buf, size_t size, const struct cell *cell)
{
	const struct allocator_info *info;

	snprintf(buf, size, "%s", cell->backend->name);
	if (strcmp(cell->backend->name, "malloc") || !cell->ok || !cell->runs)
		return;
	info = &cell->samples[cell_median_run(cell)].allocator;
	for (size_t i = 0; allocator_known[i].name; i++) {
		if (strcmp(info->name, allocator_known[i].name))
			continue;
		if (*info->version && strcmp(info->version, "unknown"))
			/* "5.3.0" of jemalloc's "5.3.0-0-g54eaed1d...". */
			snprintf(buf, size, "malloc (%s %.*s)", info->name,
				 (int)strcspn(info->version, "-"), info->version);
		else
			snprintf(buf, size, "malloc (%s)", info->name);
	}
}

const char *report_runs_note(const struct run_report *report)
{
	static char note[256];
	size_t used = 0;
	int once = 0;

	/* advise's preloaded_once, in a report measured or read back: rows of fewer runs. */
	for (size_t i = 0; report->config && i < report->ncells; i++)
		if (report->cells[i].ok && report->cells[i].runs &&
		    report->cells[i].runs < report->config->repeat)
			once = 1;
	note[0] = '\0';
	if (once)
		used = (size_t)snprintf(note, sizeof(note), ", the preloaded allocators' once beside "
					"their real runs (%u times where that missed them by over "
					"%d%%)", report->config->repeat, RUN_AGAIN_PERCENT);
	if (report->jobs > 1 && used < sizeof(note))
		snprintf(note + used, sizeof(note) - used, ", times measured %u at a time (--jobs)",
			 report->jobs);
	return note;
}
