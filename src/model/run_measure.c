/*
 * run_measure.c - measuring a run (run.h's run_measure_all()): the list of
 * measurements, interleaved, the threads that take it (--jobs), each
 * measurement in a fresh process, and its sample kept in its row.
 */
#include "model/run.h"
#include "measure/backend.h"
#include "model/abi.h"
#include "model/report.h"
#include "model/runner.h"
#include "model/run_progress.h"
#include "model/progress.h"
#include "platform/parse.h"
#include "platform/probe.h"
#include "platform/util.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * What a measuring process reports in words (why it failed, which allocator
 * served malloc, from which file) may hold any bytes a path or a library
 * holds: cleaned like the host's strings.
 */
static void sample_clean(struct sample *sample)
{
	struct allocator_info *info = &sample->allocator;

	text_clean_in_place(sample->error, sizeof(sample->error));
	text_clean_in_place(info->name, sizeof(info->name));
	text_clean_in_place(info->version, sizeof(info->version));
	text_clean_in_place(info->path, sizeof(info->path));
	for (unsigned i = 0; i < info->nstats && i < ALLOCINFO_MAX_STATS; i++)
		text_clean_in_place(info->stats[i].name, sizeof(info->stats[i].name));
}

const struct sample *run_output_sample(const struct sample *samples, unsigned runs, int ok,
				       unsigned repeat, int err)
{
	unsigned taken = runs + (!ok && runs < repeat);

	while (taken--) {
		const struct sample *s = &samples[taken];

		if ((err ? s->child_stderr : s->child_stdout)[0])
			return s;
	}
	return NULL;
}

/*
 * Says on standard error, once per row and stream, that the measuring
 * process of NAME at SIZE (0: the random mix) wrote on its standard output or
 * error: its last line, since a text report has no room for it. SAMPLES[REP]
 * is the sample just taken.
 */
static void warn_child_output(const char *name, size_t size, const struct sample *samples,
			      unsigned rep)
{
	for (int err = 0; err < 2; err++) {
		const char *text = err ? samples[rep].child_stderr : samples[rep].child_stdout;
		const char *last = strrchr(text, '\n');
		char where[64];

		if (!text[0] || run_output_sample(samples, rep, 1, rep, err))
			continue;
		where[0] = 0;
		if (size)
			snprintf(where, sizeof(where), " at %zu B", size);
		warning("the measuring process of %s%s wrote on its standard %s (kept in the row's "
			"notes in --format json, never in the report); last line: '%s'", name, where,
			err ? "error" : "output", last ? last + 1 : text);
	}
}

/*
 * What the measuring threads share (--jobs): the list of measurements in
 * the order --jobs 1 takes them, the next one to start, and the lock that
 * guards the cells, the floors, the progress line and the warnings. A
 * thread holds the lock only between measurements, never while a child
 * runs.
 */
struct run_task {
	size_t column;   /* the size's index (0 for random's one column) */
	size_t backend;  /* the backend's index; ignored for the floor */
	int floor;       /* the floor of this size, not a backend */
	unsigned run;    /* its run of the row's, from 0 */
};

struct run_work {
	const struct run_config *config;
	struct run_report *report;
	struct run_task *tasks;
	size_t ntasks, next;
	size_t rows_done;           /* rows whose every task ended (progress_lines) */
	int again;                  /* run_measure_again(): its caller says when the row ends */
	pthread_mutex_t lock;
};

/*
 * Keeps SAMPLE, just measured, in the samples of a row (SAMPLES, *RUNS
 * kept so far, *OK): a success as the next run, a failure as the one after
 * the last (where the reports look for its reason), which ends the row. A
 * sample that comes back after its row failed (--jobs) is dropped. Called
 * with the lock held.
 */
static void keep_sample(struct run_report *report, const char *name, size_t size,
			struct sample *samples, unsigned *runs, int *ok, char *error,
			size_t error_size, const struct sample *sample, int ret)
{
	if (!*ok)
		return;
	samples[*runs] = *sample;
	sample_clean(&samples[*runs]);
	warn_child_output(name, size, samples, *runs);
	if (ret) {
		*ok = 0;
		copy_string(error, error_size, samples[*runs].error);
		report->failed = 1;
		return;
	}
	(*runs)++;
}

/* Measures TASK of W in a fresh process (the lock not held), then keeps its sample. */
static void measure_task(struct run_work *w, const struct run_task *task)
{
	const struct run_config *config = w->config;
	struct run_report *report = w->report;
	struct child_request req;
	struct measure_params *params = &req.params;
	struct sample sample;
	struct floor_cell *f = &report->floors[task->column];
	struct cell *c = &report->cells[task->column * config->nbackends + task->backend];
	int ret;

	memset(&req, 0, sizeof(req));
	req.counters = config->counters;
	req.abi = task->floor ? abi_native() : c->backend->abi ? c->backend->abi : abi_native();
	/* The 32-bit measuring process is built without PAPI (abi.h): it counts nothing. */
	if (req.abi != abi_native())
		req.counters.n = 0;
	if (task->floor) {
		req.floor = 1;
		*params = (struct measure_params){
			.size = f->size, .count = f->count, .align = 1,
			.pool_block_bytes = config->pool_block_bytes, .touch = config->touch,
		};
	} else {
		req.backend = backend_base(c->backend)->name;
		req.preload_path = c->backend->preload_path;
		req.env = c->backend->env;
		*params = (struct measure_params){
			.size = c->size, .count = c->count, .align = c->align,
			.pool_block_bytes = config->pool_block_bytes, .touch = config->touch,
			.workload = config->workload, .rounds = c->rounds, .seed = config->seed,
			.threads = config->threads,
		};
		if (config->workload == WORKLOAD_REPLAY) {
			params->size = config->sizes[0];  /* the trace's mean allocation */
			req.trace_path = config->trace_path;
			req.plan_fd = config->replay.plan_fd;
			params->replay_per_thread = config->replay_per_thread;
		}
		if (config->workload == WORKLOAD_RANDOM) {
			params->nmix = config->nsizes;
			memcpy(params->mix, config->sizes, config->nsizes * sizeof(config->sizes[0]));
			if (config->weights)
				memcpy(params->mix_weight, config->weights,
				       config->nsizes * sizeof(config->weights[0]));
			params->size = run_mix_mean_size(config);
		}
	}
	ret = runner_measure(&req, config->timeout_s, &sample);
	pthread_mutex_lock(&w->lock);
	if (task->floor)
		keep_sample(report, RUNNER_FLOOR, f->size, f->samples, &f->runs, &f->ok, f->error,
			    sizeof(f->error), &sample, ret);
	else
		keep_sample(report, c->backend->name, c->size, c->samples, &c->runs, &c->ok,
			    c->error, sizeof(c->error), &sample, ret);
	if (!task->floor)
		if (!w->again)
			run_progress_row(w->config, c, &w->rows_done, w->report->ncells);
	pthread_mutex_unlock(&w->lock);
}

/* One measuring thread: takes the next task until none is left or a signal came. */
static void *measure_worker(void *arg)
{
	struct run_work *w = arg;

	for (;;) {
		const struct run_task *task;
		int skip;

		pthread_mutex_lock(&w->lock);
		if (w->next == w->ntasks || runner_interrupted()) {
			pthread_mutex_unlock(&w->lock);
			return NULL;
		}
		task = &w->tasks[w->next];
		if (task->floor) {
			skip = !w->report->floors[task->column].ok;
			run_progress(w->config, w->next, w->ntasks, RUNNER_FLOOR,
				     w->report->floors[task->column].size, task->run,
				     w->config->repeat);
		} else {
			struct cell *c = &w->report->cells[task->column * w->config->nbackends +
								  task->backend];

			skip = !c->ok;
			run_progress(w->config, w->next, w->ntasks, c->backend->name, c->size,
				     task->run, c->repeat);
			if (skip && !w->again)
				run_progress_row(w->config, c, &w->rows_done, w->report->ncells);
		}
		w->next++;
		pthread_mutex_unlock(&w->lock);
		if (!skip)
			measure_task(w, task);
	}
}

/* Sets up CELL for BACKEND at SIZE (random: the whole mix, size 0). */
static int cell_init(const struct run_config *config, struct cell *c,
		     const struct backend *backend, size_t size)
{
	c->backend = backend;
	c->size = size;
	if (config->workload == WORKLOAD_REPLAY) {
		c->count = config->replay.slots ? config->replay.slots : 1;
		c->align = backend->uses_align ? config->align : backend_malloc_alignment();
	} else if (config->workload == WORKLOAD_RANDOM) {
		c->count = (size_t)(config->total_bytes / run_mix_mean_size(config));
		c->align = backend->uses_align ? config->align : backend_malloc_alignment();
	} else {
		c->count = (size_t)(config->total_bytes / size);
		c->align = !backend->uses_align ? backend_malloc_alignment() :
			   config->align ? config->align : natural_alignment(size);
	}
	if (config->workload == WORKLOAD_CHURN || config->workload == WORKLOAD_THREADS)
		c->rounds = config->rounds ? config->rounds :
			    workload_default_rounds(config->workload, c->count);
	c->ok = 1;
	/* A candidate with settings is a drop-in one too (settings.h). */
	c->repeat = config->preloaded_once && (backend->preload_path || backend->env) ? 1 :
		    config->repeat;
	c->samples = calloc(config->repeat, sizeof(*c->samples));
	return c->samples ? 0 : error("out of memory");
}

/*
 * The host's strings come from outside (a host name is any bytes root sets):
 * printable, valid UTF-8 in every format, as text_clean() makes them.
 */
static void host_clean(struct host_info *host)
{
	text_clean_in_place(host->kernel, sizeof(host->kernel));
	text_clean_in_place(host->machine, sizeof(host->machine));
	text_clean_in_place(host->hostname, sizeof(host->hostname));
	text_clean_in_place(host->cpu_model, sizeof(host->cpu_model));
	text_clean_in_place(host->libc, sizeof(host->libc));
	text_clean_in_place(host->libc_version, sizeof(host->libc_version));
	text_clean_in_place(host->thp, sizeof(host->thp));
}

/* REPORT's rows: NCOLUMNS of cells and, WITH_FLOOR, the floors. 0, or -1 out of memory. */
static int rows_init(const struct run_config *config, struct run_report *report,
		     size_t ncolumns, int with_floor)
{
	report->nfloors = with_floor ? config->nsizes : 0;
	report->ncells = ncolumns * config->nbackends;
	report->floors = calloc(config->nsizes, sizeof(*report->floors));
	report->cells = calloc(report->ncells, sizeof(*report->cells));
	if (!report->floors || !report->cells)
		return error("out of memory");
	for (size_t s = 0; s < ncolumns; s++) {
		struct floor_cell *f = &report->floors[s];

		if (with_floor) {
			f->size = config->sizes[s];
			f->count = (size_t)(config->total_bytes / f->size);
			f->ok = 1;
			f->samples = calloc(config->repeat, sizeof(*f->samples));
			if (!f->samples)
				return error("out of memory");
		}
		for (size_t b = 0; b < config->nbackends; b++)
			if (cell_init(config, &report->cells[s * config->nbackends + b],
				      config->backends[b],
				      workload_one_column(config->workload) ? 0 : config->sizes[s]))
				return -1;
	}
	return 0;
}

/*
 * The list of W's tasks for REPORT's NCOLUMNS of cells and, WITH_FLOOR,
 * the floors. Repetitions are interleaved (the floor and every backend
 * once, then again) so that a slow moment of a shared machine spreads over
 * all backends instead of falling on one. The floor is measured as often
 * as the cells, each time right before them, so that a cell's x floor is
 * the ratio of two neighbours and its spread is the ratio's own. --jobs N
 * threads take the list in this order, each running one measuring process
 * at a time. Returns 0, or -1 out of memory.
 */
static int tasks_init(const struct run_config *config, const struct run_report *report,
		      size_t ncolumns, int with_floor, struct run_work *w)
{
	w->tasks = calloc(ncolumns * config->repeat * (config->nbackends + (size_t)with_floor),
			  sizeof(*w->tasks));
	if (!w->tasks)
		return error("out of memory");
	for (size_t s = 0; s < ncolumns; s++)
		for (unsigned rep = 0; rep < config->repeat; rep++) {
			if (with_floor)
				w->tasks[w->ntasks++] = (struct run_task){ .column = s, .floor = 1,
									   .run = rep };
			for (size_t b = 0; b < config->nbackends; b++)
				if (rep < report->cells[s * config->nbackends + b].repeat)
					w->tasks[w->ntasks++] = (struct run_task){ .column = s,
										   .backend = b, .run = rep };
		}
	return 0;
}

int run_measure_all(const struct run_config *config, struct run_report *report)
{
	/* random measures every size in one heap: one cell per backend. */
	size_t ncolumns = workload_one_column(config->workload) ? 1 : config->nsizes;
	int with_floor = config->workload == WORKLOAD_FILL;
	pthread_t threads[RUN_MAX_JOBS];
	struct run_work w = { 0 };
	unsigned jobs, started;
	char why[PATH_MAX + 512];

	memset(report, 0, sizeof(*report));
	report->config = config;
	/* The floor's ABI, which --abi need not name (its others are ready: backend_set.c). */
	if (abi_prepare(abi_native(), why, sizeof(why)))
		return error("cannot measure here: %s", why);
	probe_host(&report->host);
	host_clean(&report->host);
	counters_check(&config->counters, &report->counters);
	if (rows_init(config, report, ncolumns, with_floor))
		return -1;
	if (tasks_init(config, report, ncolumns, with_floor, &w))
		return -1;
	w.config = config;
	w.report = report;
	pthread_mutex_init(&w.lock, NULL);
	jobs = config->jobs ? config->jobs : 1;
	if (jobs > w.ntasks)
		jobs = (unsigned)w.ntasks;
	for (started = 1; started < jobs; started++)
		if (pthread_create(&threads[started], NULL, measure_worker, &w)) {
			warning("cannot start measuring thread %u of %u (%s): measuring %u at a time",
				started + 1, jobs, strerror(errno), started);
			break;
		}
	measure_worker(&w);
	for (unsigned i = 1; i < started; i++)
		pthread_join(threads[i], NULL);
	pthread_mutex_destroy(&w.lock);
	free(w.tasks);
	report->jobs = started;
	for (size_t i = 0; i < config->nabis; i++) {
		const struct abi_program *p = abi_program(32);

		if (config->abis[i] == 32 && p && abi_native() != 32) {
			report->abi32_program = ABI_CHILD32;
			report->abi32_emulator = p->emulator[0] ? ABI_EMULATOR : NULL;
		}
	}
	if ((report->interrupted = runner_interrupted())) {
		if (!config->quiet)
			progress_say(PROGRESS_END, "%s", "");
		return 0;
	}
	/* An event the check found countable that a measuring process could not count. */
	for (size_t i = 0; i < report->ncells; i++)
		for (unsigned r = 0; r < report->cells[i].runs; r++)
			counters_check_merge(&report->counters, &report->cells[i].samples[r].counters);
	for (size_t i = 0; i < report->nfloors; i++)
		for (unsigned r = 0; r < report->floors[i].runs; r++)
			counters_check_merge(&report->counters, &report->floors[i].samples[r].counters);
	return 0;
}

int run_measure_again(const struct run_config *config, struct run_report *report,
		      struct cell *cell)
{
	size_t at = (size_t)(cell - report->cells);
	unsigned from = cell->repeat;
	struct run_work w = { .config = config, .report = report, .again = 1 };

	if (!cell->ok || from >= config->repeat)
		return 0;
	w.tasks = calloc(config->repeat - from, sizeof(*w.tasks));
	if (!w.tasks)
		return error("out of memory");
	cell->repeat = config->repeat;
	for (unsigned rep = from; rep < config->repeat; rep++)
		w.tasks[w.ntasks++] = (struct run_task){ .column = at / config->nbackends,
							 .backend = at % config->nbackends, .run = rep };
	pthread_mutex_init(&w.lock, NULL);
	measure_worker(&w);
	pthread_mutex_destroy(&w.lock);
	free(w.tasks);
	report->interrupted = runner_interrupted();
	if (!config->quiet)
		progress_say(PROGRESS_END, "%s", "");
	for (unsigned r = from; r < cell->runs; r++)
		counters_check_merge(&report->counters, &cell->samples[r].counters);
	return 0;
}

void run_report_release(struct run_report *report)
{
	for (size_t i = 0; report->cells && i < report->ncells; i++)
		free(report->cells[i].samples);
	for (size_t i = 0; report->floors && report->config && i < report->config->nsizes; i++)
		free(report->floors[i].samples);
	free(report->cells);
	free(report->floors);
	memset(report, 0, sizeof(*report));
}
