/*
 * report_json.c - the machine-readable report (schema "allocbench/2"), the
 * contract that scripts, `allocbench compare` and `allocbench plot` rely on.
 * Every field and its unit is documented in allocbench-run(1). What was not
 * measured is left out (allocbench/1 wrote null): the writers below add
 * null where a value does not exist, and json_drop_nulls() removes those
 * members before the document is printed.
 */
#include "model/fidelity.h"
#include "report/report_formats.h"
#include "report/report_rerun.h"
#include "model/figure.h"
#include "model/verdict.h"
#include "model/abi.h"
#include "report/report_counters.h"
#include "model/breakdown.h"
#include "platform/build_info.h"
#include "model/preload.h"
#include "report/json_out.h"
#include "measure/backend.h"
#include "model/report.h"
#include "model/run.h"
#include "model/settings.h"
#include "model/stats.h"
#include "platform/util.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define JSON_SCHEMA "allocbench/2"

/* Adds METRIC of CELL as {median, min, max, runs}, or null when it does not exist. */
static void add_metric(cJSON *obj, const struct run_report *report,
		       const struct cell *cell, enum metric metric)
{
	double runs[RUN_MAX_REPEAT];
	struct stat_summary s;

	if (cell_summary(report, cell, metric, &s) || cell_runs(report, cell, metric, runs)) {
		cJSON_AddNullToObject(obj, metric_name(metric));
		return;
	}
	cJSON_AddItemToObject(obj, metric_name(metric), json_stat(&s, runs, cell->runs));
}

/*
 * The memory guard's bound for the row (run_bound_bytes()) and the highest
 * peak resident set its measuring processes reached: the first is meant to
 * be an upper bound of the second.
 */
/* The median run's memory over time (replay): "series", absent without one. */
static void add_series(cJSON *obj, const struct sample *s)
{
	double steps[SAMPLE_SERIES_POINTS], rss[SAMPLE_SERIES_POINTS], live[SAMPLE_SERIES_POINTS];
	cJSON *series;

	if (!s->nseries)
		return;
	for (unsigned i = 0; i < s->nseries; i++) {
		steps[i] = (double)s->series_steps[i];
		rss[i] = (double)s->series_rss_bytes[i];
		live[i] = (double)s->series_live_bytes[i];
	}
	series = cJSON_AddObjectToObject(obj, "series");
	cJSON_AddItemToObject(series, "steps", cJSON_CreateDoubleArray(steps, (int)s->nseries));
	cJSON_AddItemToObject(series, "rss_bytes", cJSON_CreateDoubleArray(rss, (int)s->nseries));
	cJSON_AddItemToObject(series, "live_bytes", cJSON_CreateDoubleArray(live, (int)s->nseries));
}

static void add_memory(cJSON *obj, const struct run_config *config, const struct cell *cell)
{
	uint64_t peak = 0;

	cJSON_AddNumberToObject(obj, "memory_bound_bytes",
				(double)run_bound_bytes(config, cell->backend,
							cell->size ? cell->size : 1));
	for (unsigned r = 0; r < cell->runs; r++)
		if (cell->samples[r].peak_memory_bytes > peak)
			peak = cell->samples[r].peak_memory_bytes;
	json_add_number(obj, "peak_memory_bytes", cell->ok && peak, (double)peak);
}

static cJSON *host_json(const struct host_info *host)
{
	cJSON *obj = cJSON_CreateObject();

	cJSON_AddStringToObject(obj, "hostname", host->hostname);
	cJSON_AddStringToObject(obj, "kernel", host->kernel);
	cJSON_AddStringToObject(obj, "machine", host->machine);
	cJSON_AddStringToObject(obj, "cpu_model", host->cpu_model);
	cJSON_AddNumberToObject(obj, "cpus", host->cpus);
	cJSON_AddStringToObject(obj, "libc", host->libc);
	cJSON_AddStringToObject(obj, "libc_version", host->libc_version);
	cJSON_AddNumberToObject(obj, "page_size", (double)host->page_size);
	cJSON_AddStringToObject(obj, "thp", host->thp);
	json_add_number(obj, "mem_available_bytes", host->mem_available_bytes != 0,
			(double)host->mem_available_bytes);
	return obj;
}

/* config.settings: each candidate with settings (settings.h); absent when none. */
static void add_settings_config(cJSON *obj, const struct run_config *config)
{
	cJSON *list = NULL;

	for (size_t b = 0; b < config->nbackends; b++) {
		char env[SETTINGS_ENV_MAX], how[256];
		int confirmed;
		cJSON *one;

		if (!settings_describe(config->backends[b], env, sizeof(env), &confirmed, how,
				       sizeof(how)))
			continue;
		if (!list)
			list = cJSON_AddArrayToObject(obj, "settings");
		one = cJSON_CreateObject();
		cJSON_AddStringToObject(one, "backend", config->backends[b]->name);
		cJSON_AddStringToObject(one, "environment", env);
		cJSON_AddBoolToObject(one, "confirmed", confirmed);
		cJSON_AddStringToObject(one, "how", how);
		cJSON_AddItemToArray(list, one);
	}
}

/*
 * config.preload: the library each preloaded backend puts into LD_PRELOAD;
 * config.skipped: what --backend all left out, and why.
 */
static void add_preload_config(cJSON *obj, const struct run_config *config)
{
	cJSON *preload = cJSON_CreateObject(), *skipped = cJSON_CreateArray();

	for (size_t i = 0; i < config->npreloads; i++)
		cJSON_AddStringToObject(preload, config->preloads[i]->name,
					config->preloads[i]->path);
	cJSON_AddItemToObject(obj, "preload", preload);
	for (size_t i = 0; i < config->nskipped; i++) {
		cJSON *skip = cJSON_CreateObject();

		cJSON_AddStringToObject(skip, "backend", config->skipped[i].name);
		cJSON_AddStringToObject(skip, "reason", config->skipped[i].reason);
		cJSON_AddStringToObject(skip, "package", config->skipped[i].package);
		cJSON_AddItemToArray(skipped, skip);
	}
	cJSON_AddItemToObject(obj, "skipped", skipped);
	add_settings_config(obj, config);
}

/*
 * "abi": the word sizes measured ([64] by default); with 32, "abi32" says
 * how: the program and the emulator (absent when the kernel ran it).
 */
static void add_abi_config(cJSON *obj, const struct run_report *report)
{
	const struct run_config *config = report->config;
	cJSON *abis = cJSON_CreateArray(), *how;

	for (size_t i = 0; i < config->nabis; i++)
		cJSON_AddItemToArray(abis, cJSON_CreateNumber(config->abis[i]));
	if (!config->nabis)
		cJSON_AddItemToArray(abis, cJSON_CreateNumber(abi_native()));
	cJSON_AddItemToObject(obj, "abi", abis);
	if (!report->abi32_program)
		return;
	how = cJSON_CreateObject();
	cJSON_AddStringToObject(how, "program", report->abi32_program);
	if (report->abi32_emulator)
		cJSON_AddStringToObject(how, "emulator", report->abi32_emulator);
	else
		cJSON_AddNullToObject(how, "emulator");
	cJSON_AddItemToObject(obj, "abi32", how);
}

/*
 * config.replay.program: the recorded process's own figures, each left out
 * where the trace does not keep it (fidelity.h).
 */
static void add_program(cJSON *replay, const struct run_replay *r)
{
	cJSON *p;

	if (r->cut_short || (!r->program_anon_kib && !r->program_hwm_kib && !r->program_run_ns))
		return;
	p = cJSON_AddObjectToObject(replay, "program");
	cJSON_AddNumberToObject(p, "calls", (double)r->calls);
	if (r->program_anon_kib)
		cJSON_AddNumberToObject(p, "peak_anon_bytes", 1024.0 * r->program_anon_kib);
	if (r->program_hwm_kib)
		cJSON_AddNumberToObject(p, "hwm_bytes", 1024.0 * r->program_hwm_kib);
	if (r->program_run_ns)
		cJSON_AddNumberToObject(p, "wall_seconds", (double)r->program_run_ns / 1e9);
}

/*
 * "fidelity" (replay only): how close the replay under malloc comes to the
 * program's own peak anonymous memory, with the sentence the text prints.
 */
static void add_fidelity(cJSON *root, const struct run_report *report)
{
	struct replay_fidelity f;
	char text[1024];
	cJSON *o;

	if (report->config->workload != WORKLOAD_REPLAY)
		return;
	o = cJSON_AddObjectToObject(root, "fidelity");
	if (!replay_fidelity(report, &f)) {
		cJSON_AddStringToObject(o, "backend", f.cell->backend->name);
		cJSON_AddNumberToObject(o, "replay_peak_bytes", f.replay_bytes);
		cJSON_AddNumberToObject(o, "program_peak_anon_bytes", f.program_bytes);
		cJSON_AddNumberToObject(o, "difference_percent", f.percent);
	}
	replay_fidelity_text(report, text, sizeof(text));
	cJSON_AddStringToObject(o, "text", text);
}

static cJSON *config_json(const struct run_report *report)
{
	const struct run_config *config = report->config;
	cJSON *obj = cJSON_CreateObject(), *sizes = cJSON_CreateArray();
	cJSON *backends = cJSON_CreateArray();

	cJSON_AddStringToObject(obj, "workload", workload_name(config->workload));
	if (config->workload == WORKLOAD_CHURN || config->workload == WORKLOAD_THREADS) {
		if (config->rounds)
			cJSON_AddNumberToObject(obj, "rounds", config->rounds);
		else
			cJSON_AddStringToObject(obj, "rounds", "auto");
	}
	if (config->workload == WORKLOAD_RANDOM)
		cJSON_AddNumberToObject(obj, "seed", (double)config->seed);
	if (config->workload == WORKLOAD_THREADS)
		cJSON_AddNumberToObject(obj, "threads", config->threads);
	if (config->workload == WORKLOAD_REPLAY) {
		cJSON *r = cJSON_AddObjectToObject(obj, "replay");

		cJSON_AddStringToObject(r, "trace", config->trace_path);
		cJSON_AddStringToObject(r, "threads_mode",
					config->replay_per_thread ? "per-thread" : "global");
		cJSON_AddNumberToObject(r, "calls", (double)config->replay.calls);
		cJSON_AddNumberToObject(r, "steps", (double)config->replay.steps);
		cJSON_AddNumberToObject(r, "threads", config->replay.threads);
		cJSON_AddNumberToObject(r, "peak_live_bytes", (double)config->replay.peak_live_bytes);
		cJSON_AddBoolToObject(r, "cut_short", config->replay.cut_short);
		cJSON_AddStringToObject(r, "policy", RUN_REPLAY_POLICY);
		add_program(r, &config->replay);
	}
	for (size_t i = 0; i < config->nsizes; i++)
		cJSON_AddItemToArray(sizes, cJSON_CreateNumber((double)config->sizes[i]));
	cJSON_AddItemToObject(obj, "sizes", sizes);
	if (config->weights) {
		/* random: each size's weight in the mix, in the order of sizes. */
		cJSON *weights = cJSON_CreateArray();

		for (size_t i = 0; i < config->nsizes; i++)
			cJSON_AddItemToArray(weights, cJSON_CreateNumber(config->weights[i]));
		cJSON_AddItemToObject(obj, "weights", weights);
	}
	for (size_t i = 0; i < config->nbackends; i++)
		cJSON_AddItemToArray(backends, cJSON_CreateString(config->backends[i]->name));
	cJSON_AddItemToObject(obj, "backends", backends);
	add_abi_config(obj, report);
	cJSON_AddNumberToObject(obj, "total_bytes", (double)config->total_bytes);
	cJSON_AddNumberToObject(obj, "repeat", config->repeat);
	cJSON_AddNumberToObject(obj, "jobs", report->jobs ? report->jobs : 1);
	cJSON_AddStringToObject(obj, "touch", touch_name(config->touch));
	if (config->align)
		cJSON_AddNumberToObject(obj, "align", (double)config->align);
	else
		cJSON_AddStringToObject(obj, "align", "natural");
	cJSON_AddNumberToObject(obj, "pool_block_bytes", (double)config->pool_block_bytes);
	cJSON_AddItemToObject(obj, "counters", report_counters_json_list(&config->counters));
	add_preload_config(obj, config);
	return obj;
}

/*
 * Appends to NOTES what the measuring processes of a row wrote on their
 * standard output and error (run_output_sample()): one note per line kept,
 * "stdout: LINE", after one that says how many lines there were when some
 * were left out.
 */
static void add_child_output_notes(cJSON *notes, const struct sample *samples, unsigned runs,
				   int ok, unsigned repeat)
{
	for (int err = 0; err < 2; err++) {
		const struct sample *s = run_output_sample(samples, runs, ok, repeat, err);
		const char *name = err ? "stderr" : "stdout";
		unsigned long lines, kept = 1;
		char buf[SAMPLE_OUTPUT_BYTES + 16];
		const char *text;

		if (!s)
			continue;
		text = err ? s->child_stderr : s->child_stdout;
		lines = err ? s->child_stderr_lines : s->child_stdout_lines;
		for (const char *p = text; (p = strchr(p, '\n')); p++)
			kept++;
		if (lines > kept) {
			snprintf(buf, sizeof(buf), "%s: %lu lines, the last %lu kept", name, lines, kept);
			cJSON_AddItemToArray(notes, cJSON_CreateString(buf));
		}
		while (*text) {
			size_t n = strcspn(text, "\n");

			snprintf(buf, sizeof(buf), "%s: %.*s", name, (int)n, text);
			cJSON_AddItemToArray(notes, cJSON_CreateString(buf));
			text += n + (text[n] == '\n');
		}
	}
}

static cJSON *floor_json(const struct floor_cell *f, unsigned repeat)
{
	cJSON *obj = cJSON_CreateObject(), *notes;
	double alloc[RUN_MAX_REPEAT], release[RUN_MAX_REPEAT], faults[RUN_MAX_REPEAT];
	struct stat_summary s;

	cJSON_AddNumberToObject(obj, "size", (double)f->size);
	cJSON_AddNumberToObject(obj, "count", (double)f->count);
	cJSON_AddStringToObject(obj, "status", f->ok ? "ok" : "failed");
	notes = cJSON_CreateArray();
	add_child_output_notes(notes, f->samples, f->runs, f->ok, repeat);
	if (!f->ok) {
		cJSON_AddStringToObject(obj, "error", f->error);
		cJSON_AddItemToObject(obj, "notes", notes);
		return obj;
	}
	for (unsigned r = 0; r < f->runs; r++) {
		alloc[r] = f->samples[r].alloc_ns;
		release[r] = f->samples[r].free_ns;
		faults[r] = (double)f->samples[r].alloc_faults;
	}
	if (!stats_summarize(alloc, f->runs, &s))
		cJSON_AddItemToObject(obj, metric_name(METRIC_ALLOC_NS), json_stat(&s, alloc, f->runs));
	if (!stats_summarize(release, f->runs, &s))
		cJSON_AddItemToObject(obj, metric_name(METRIC_FREE_NS), json_stat(&s, release, f->runs));
	if (!stats_summarize(faults, f->runs, &s))
		cJSON_AddItemToObject(obj, metric_name(METRIC_PAGE_FAULTS), json_stat(&s, faults, f->runs));
	cJSON_AddItemToObject(obj, "notes", notes);
	return obj;
}

/* A boolean, or null when FLAG is -1 (unknown). */
static void add_flag(cJSON *obj, const char *name, int flag)
{
	if (flag < 0)
		cJSON_AddNullToObject(obj, name);
	else
		cJSON_AddBoolToObject(obj, name, flag);
}

/*
 * The malloc family's split of the overhead (breakdown.h), the allocator
 * that served malloc and its own statistics, of the median run; null for
 * pool and arena, and for failed rows. Then the flags and their notes.
 */
static void add_breakdown(cJSON *obj, const struct run_report *report, const struct cell *cell)
{
	char notes[BREAKDOWN_MAX_NOTES][BREAKDOWN_NOTE_BYTES];
	const struct allocator_info *info = NULL;
	cJSON *array = cJSON_CreateArray();
	size_t n;

	for (int b = 0; b < BREAKDOWN_COUNT; b++) {
		double runs[RUN_MAX_REPEAT];
		struct stat_summary s;

		if (breakdown_summary(cell, (enum breakdown)b, &s, runs))
			cJSON_AddNullToObject(obj, breakdown_name((enum breakdown)b));
		else
			cJSON_AddItemToObject(obj, breakdown_name((enum breakdown)b),
					      json_stat(&s, runs, cell->runs));
	}
	add_flag(obj, "slack_exceeds_overhead", breakdown_slack_exceeds_overhead(report, cell));
	add_flag(obj, "overhead_varies", breakdown_overhead_varies(report, cell));
	if (cell->ok && cell->runs)
		info = &cell->samples[cell_median_run(cell)].allocator;
	if (info && info->name[0]) {
		cJSON *who = cJSON_CreateObject(), *stats = cJSON_CreateObject();

		cJSON_AddStringToObject(who, "name", info->name);
		cJSON_AddStringToObject(who, "version", info->version);
		cJSON_AddStringToObject(who, "path", info->path);
		cJSON_AddItemToObject(obj, "allocator", who);
		for (unsigned i = 0; i < info->nstats && i < ALLOCINFO_MAX_STATS; i++)
			cJSON_AddNumberToObject(stats, info->stats[i].name,
						(double)info->stats[i].bytes);
		cJSON_AddItemToObject(obj, "allocator_stats", stats);
	} else {
		cJSON_AddNullToObject(obj, "allocator");
		cJSON_AddNullToObject(obj, "allocator_stats");
	}
	n = breakdown_notes(report, cell, notes);
	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(array, cJSON_CreateString(notes[i]));
	add_child_output_notes(array, cell->samples, cell->runs, cell->ok, report->config->repeat);
	cJSON_AddItemToObject(obj, "notes", array);
}

static cJSON *cell_json(const struct run_report *report, const struct cell *cell)
{
	static const struct sample none;    /* a failed cell's: its figures below are null */
	cJSON *obj = cJSON_CreateObject();
	const struct run_config *config = report->config;
	const struct sample *first = cell->ok ? &cell->samples[0] : &none;
	const struct sample *median = cell->ok ? &cell->samples[cell_median_run(cell)] : &none;

	cJSON_AddStringToObject(obj, "workload", workload_name(config->workload));
	cJSON_AddStringToObject(obj, "backend", cell->backend->name);
	cJSON_AddNumberToObject(obj, "abi", cell->backend->abi ? cell->backend->abi : abi_native());
	cJSON_AddNumberToObject(obj, "size", (double)cell->size);
	if (config->workload == WORKLOAD_RANDOM) {
		cJSON *sizes = cJSON_CreateArray();

		for (size_t i = 0; i < config->nsizes; i++)
			cJSON_AddItemToArray(sizes, cJSON_CreateNumber((double)config->sizes[i]));
		cJSON_AddItemToObject(obj, "sizes", sizes);
	}
	if (cell->rounds)
		cJSON_AddNumberToObject(obj, "rounds", cell->rounds);
	if (config->workload == WORKLOAD_THREADS)
		cJSON_AddNumberToObject(obj, "threads", config->threads);
	cJSON_AddNumberToObject(obj, "count", (double)cell->count);
	cJSON_AddNumberToObject(obj, "align", (double)cell->align);
	cJSON_AddStringToObject(obj, "status", cell->ok ? "ok" : "failed");
	if (!cell->ok)
		cJSON_AddStringToObject(obj, "error", cell->error);
	if (config->workload == WORKLOAD_FILL)
		cJSON_AddNumberToObject(obj, "resolution_bytes", resolution_bytes(report, cell->count));
	for (int m = 0; m < METRIC_COUNT; m++)
		if (metric_applies((enum metric)m, config->workload))
			add_metric(obj, report, cell, (enum metric)m);
	if (config->workload == WORKLOAD_RANDOM || config->workload == WORKLOAD_REPLAY) {
		int random = config->workload == WORKLOAD_RANDOM;
		char checksum[24];

		snprintf(checksum, sizeof(checksum), "%016llx", (unsigned long long)first->checksum);
		json_add_number(obj, "ops", cell->ok, (double)first->ops);
		json_add_number(obj, random ? "live_bytes" : "peak_live_bytes", cell->ok,
				(double)(random ? first->live_bytes : first->peak_live_bytes));
		if (cell->ok)
			cJSON_AddStringToObject(obj, "checksum", checksum);
		else
			cJSON_AddNullToObject(obj, "checksum");
		/* A replay per thread: as many alive at once as the program had. */
		if (!random && cell->ok && first->threads)
			cJSON_AddNumberToObject(obj, "threads_alive_most", first->threads);
	}
	if (config->workload == WORKLOAD_THREADS)
		cJSON_AddNumberToObject(obj, "ops", (double)first->ops);
	if (config->workload == WORKLOAD_FILL || workload_one_column(config->workload)) {
		json_add_number(obj, "rss_before_bytes", cell->ok, (double)median->rss_before_bytes);
		json_add_number(obj, "rss_after_bytes", cell->ok, (double)median->rss_after_bytes);
	}
	add_series(obj, median);
	json_add_number(obj, "reserved_bytes", cell->ok, (double)median->reserved_bytes);
	add_memory(obj, config, cell);
	cJSON_AddItemToObject(obj, "counters", report_counters_json_cell(report, cell));
	add_breakdown(obj, report, cell);
	return obj;
}

/*
 * The command line of the run as an array of its words: "allocbench", then
 * "run" when it was named, then the options as given.
 */
static cJSON *command_line_json(const struct run_config *config)
{
	cJSON *array = cJSON_CreateArray();

	cJSON_AddItemToArray(array, cJSON_CreateString("allocbench"));
	for (int i = 0; i < config->argc; i++)
		/* argv[0] is the program, or the command that measured (run, advise). */
		if (i || !strcmp(config->argv[0], "run") || !strcmp(config->argv[0], "advise"))
			cJSON_AddItemToArray(array, cJSON_CreateString(config->argv[i]));
	return array;
}

/* How this binary was built (build_info.h). */
static cJSON *build_json(void)
{
	cJSON *obj = cJSON_CreateObject();

	cJSON_AddStringToObject(obj, "compiler", build_compiler());
	cJSON_AddStringToObject(obj, "flags", build_flags());
	cJSON_AddBoolToObject(obj, "papi", build_papi());
	return obj;
}

/*
 * Removes every member of NODE's objects, at any depth, whose value is null:
 * allocbench/2 leaves out what was not measured. Array elements stay (an
 * array of runs holds numbers only).
 */
static void json_drop_nulls(cJSON *node)
{
	cJSON *item = node ? node->child : NULL;

	while (item) {
		cJSON *next = item->next;

		if (cJSON_IsNull(item) && cJSON_IsObject(node))
			cJSON_Delete(cJSON_DetachItemViaPointer(node, item));
		else
			json_drop_nulls(item);
		item = next;
	}
}

/* ---- the verdict: the "summary" object (data/allocbench.schema.json) ---- */

static cJSON *verdict_stat_json(const struct stat_summary *s)
{
	cJSON *obj = cJSON_CreateObject();

	cJSON_AddNumberToObject(obj, "median", s->median);
	cJSON_AddNumberToObject(obj, "min", s->min);
	cJSON_AddNumberToObject(obj, "max", s->max);
	return obj;
}

/* The N entries of BEST as the schema's "best" array. */
static cJSON *best_json(const struct verdict_entry *best, size_t n)
{
	cJSON *arr = cJSON_CreateArray();

	for (size_t i = 0; i < n; i++) {
		cJSON *e = verdict_stat_json(&best[i].s);

		cJSON_AddStringToObject(e, "backend", best[i].cell->backend->name);
		cJSON_AddStringToObject(e, "adoption", verdict_needs_code_changes(best[i].cell) ?
					"needs code changes" : "drop-in");
		cJSON_AddItemToArray(arr, e);
	}
	return arr;
}

/* The best drop-in choice, or the best with code changes, and what it saves over malloc. */
static cJSON *choice_json(const struct verdict_aspect *a, const struct verdict_choice *choice)
{
	cJSON *obj = cJSON_CreateObject();
	double saves, percent;
	int clear = verdict_saves(a, choice, &saves, &percent);

	cJSON_AddBoolToObject(obj, "clear_winner", choice->nbest == 1);
	cJSON_AddItemToObject(obj, "best", best_json(choice->best, choice->nbest));
	if (clear >= 0) {
		cJSON_AddNumberToObject(obj, "saves", saves);
		if (!isnan(percent))
			cJSON_AddNumberToObject(obj, "saves_percent", percent);
		cJSON_AddBoolToObject(obj, "beyond_noise", clear);
	}
	return obj;
}

static cJSON *aspect_json(const struct verdict_aspect *a)
{
	cJSON *obj = cJSON_CreateObject();
	const struct stat_summary *b = &a->best[0].s, *m = &a->malloc_s;

	cJSON_AddStringToObject(obj, "metric", metric_name(a->metric));
	cJSON_AddStringToObject(obj, "unit", a->unit);
	cJSON_AddBoolToObject(obj, "higher_is_better", a->higher_is_better);
	cJSON_AddBoolToObject(obj, "clear_winner", a->nbest == 1);
	cJSON_AddItemToObject(obj, "best", best_json(a->best, a->nbest));
	if (a->drop_in.nbest)
		cJSON_AddItemToObject(obj, "drop_in", choice_json(a, &a->drop_in));
	if (a->code_changes.nbest)
		cJSON_AddItemToObject(obj, "code_changes", choice_json(a, &a->code_changes));
	if (a->have_malloc) {
		cJSON_AddItemToObject(obj, "malloc", verdict_stat_json(m));
		/* Bytes less than malloc's; for times, how many times faster (rates: its rate over malloc's). */
		if (figure_get(a->metric)->aspect == FIGURE_MEMORY)
			cJSON_AddNumberToObject(obj, "less_than_malloc", m->median - b->median);
		else if (a->higher_is_better)
			cJSON_AddNumberToObject(obj, "times_malloc", m->median > 0 ? b->median / m->median : 0);
		else
			cJSON_AddNumberToObject(obj, "times_faster_than_malloc",
						b->median > 0 ? m->median / b->median : 0);
	}
	return obj;
}

static cJSON *verdict_json(const struct run_report *report)
{
	cJSON *summary, *verdicts;
	size_t nabis, n;

	if (!verdict_wanted(report))
		return NULL;
	summary = cJSON_CreateObject();
	verdicts = cJSON_CreateArray();
	cJSON_AddStringToObject(summary, "workload", workload_name(report->config->workload));
	n = verdict_count(report, &nabis);
	for (size_t i = 0; i < n; i++) {
		struct verdict v;
		cJSON *obj;

		if (verdict_at(report, i, &v))
			continue;
		obj = cJSON_CreateObject();
		cJSON_AddNumberToObject(obj, "size", (double)v.size);
		if (nabis > 1)
			cJSON_AddNumberToObject(obj, "abi", v.abi);
		if (v.memory.valid)
			cJSON_AddItemToObject(obj, "memory", aspect_json(&v.memory));
		if (v.time.valid)
			cJSON_AddItemToObject(obj, "time", aspect_json(&v.time));
		cJSON_AddItemToArray(verdicts, obj);
	}
	cJSON_AddItemToObject(summary, "verdicts", verdicts);
	return summary;
}

cJSON *report_json_document(const struct run_report *report)
{
	cJSON *root = cJSON_CreateObject(), *tool = cJSON_CreateObject();
	cJSON *floors = cJSON_CreateArray(), *results = cJSON_CreateArray();
	char created[32];

	now_utc(created);
	cJSON_AddStringToObject(root, "schema", JSON_SCHEMA);
	cJSON_AddStringToObject(tool, "name", "allocbench");
	cJSON_AddStringToObject(tool, "version", ALLOCBENCH_VERSION);
	cJSON_AddStringToObject(tool, "sanitizers", ALLOCBENCH_SANITIZE);
	cJSON_AddItemToObject(tool, "build", build_json());
	cJSON_AddItemToObject(root, "tool", tool);
	if (report->config->label)
		cJSON_AddStringToObject(root, "label", report->config->label);
	if (report->config->argv)
		cJSON_AddItemToObject(root, "command_line", command_line_json(report->config));
	cJSON_AddStringToObject(root, "created", created);
	cJSON_AddItemToObject(root, "host", host_json(&report->host));
	cJSON_AddItemToObject(root, "config", config_json(report));
	for (size_t i = 0; i < report->nfloors; i++)
		cJSON_AddItemToArray(floors, floor_json(&report->floors[i], report->config->repeat));
	cJSON_AddItemToObject(root, "floor", floors);
	for (size_t i = 0; i < report->ncells; i++)
		cJSON_AddItemToArray(results, cell_json(report, &report->cells[i]));
	cJSON_AddItemToObject(root, "results", results);
	add_fidelity(root, report);
	if (report->rerun)
		cJSON_AddItemToObject(root, "real_runs", rerun_json(report));
	report_counters_json_status(root, &report->counters);
	{
		cJSON *summary = verdict_json(report);

		if (summary)
			cJSON_AddItemToObject(root, "summary", summary);
	}
	json_drop_nulls(root);
	return root;
}

int report_json_write(FILE *out, const struct run_report *report)
{
	return json_write_document(out, report_json_document(report));
}
