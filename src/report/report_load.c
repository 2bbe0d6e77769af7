/*
 * report_load.c - a JSON report read back into a struct run_report
 * (report_load.h).
 */
#include "report/report_load.h"
#include "model/rerun.h"
#include "model/settings.h"
#include "model/abi.h"
#include "model/backend_set.h"
#include "model/breakdown.h"
#include "report/report_counters.h"
#include "measure/backend.h"
#include "platform/util.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The member NAME of OBJ, or NULL. */
static const cJSON *member(const cJSON *obj, const char *name)
{
	return cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, name) : NULL;
}

/* The string member NAME of OBJ, or FALLBACK. */
static const char *string_or(const cJSON *obj, const char *name, const char *fallback)
{
	const cJSON *item = member(obj, name);

	return cJSON_IsString(item) ? item->valuestring : fallback;
}

/* The number member NAME of OBJ, or FALLBACK. */
static double number_or(const cJSON *obj, const char *name, double fallback)
{
	const cJSON *item = member(obj, name);

	return cJSON_IsNumber(item) ? item->valuedouble : fallback;
}

/* A whole number from 0 to MAX, or FALLBACK. */
static uint64_t whole_or(const cJSON *obj, const char *name, uint64_t max, uint64_t fallback)
{
	double v = number_or(obj, name, -1);

	return v >= 0 && v <= (double)max && v == (double)(uint64_t)v ? (uint64_t)v : fallback;
}

static int fail(struct loaded_report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct loaded_report *r, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	error("'%s': %s", r->file.path, msg);
	report_loaded_release(r);
	return -1;
}

/* The index of the backend called NAME in R's, or -1. */
static long backend_index(const struct loaded_report *r, const char *name)
{
	for (size_t i = 0; i < r->nbackends; i++)
		if (!strcmp(r->backends[i].name, name))
			return (long)i;
	return -1;
}

/*
 * R's backends: config.backends, or where a report lacks it, the names of
 * the rows in their order. Returns 0, or -1 after an error naming the field.
 */
static int load_backends(struct loaded_report *r, const cJSON *config)
{
	const cJSON *names = member(config, "backends"), *item;
	size_t room = (size_t)cJSON_GetArraySize(names) + r->file.nrows, i = 0;

	r->backends = calloc(room ? room : 1, sizeof(*r->backends));
	if (!r->backends)
		return fail(r, "out of memory");
	if (!names) {
		for (size_t k = 0; k < r->file.nrows; k++)
			if (backend_index(r, r->file.rows[k].backend) < 0)
				r->backends[r->nbackends++].name = r->file.rows[k].backend;
	} else if (!cJSON_IsArray(names)) {
		return fail(r, "config.backends is not a list of backend names");
	}
	cJSON_ArrayForEach(item, names) {
		if (!cJSON_IsString(item) || !*item->valuestring)
			return fail(r, "config.backends[%zu] is not a backend name", i);
		if (backend_index(r, item->valuestring) >= 0)
			return fail(r, "config.backends names '%s' twice", item->valuestring);
		r->backends[r->nbackends++].name = item->valuestring;
		i++;
	}
	for (size_t k = 0; k < r->nbackends; k++) {
		char allocator[32];

		r->backends[k].summary = "";
		/* A preloaded one's library (config.preload), its allocator's for one with settings. */
		settings_split(r->backends[k].name, allocator, sizeof(allocator));
		r->backends[k].preload_path = string_or(member(config, "preload"), allocator, NULL);
	}
	if (!r->nbackends)
		return fail(r, "config.backends is empty: the report names no backend");
	return 0;
}

static void load_host(struct host_info *host, const cJSON *obj)
{
	copy_string(host->hostname, sizeof(host->hostname), string_or(obj, "hostname", "?"));
	copy_string(host->kernel, sizeof(host->kernel), string_or(obj, "kernel", "?"));
	copy_string(host->machine, sizeof(host->machine), string_or(obj, "machine", "?"));
	copy_string(host->cpu_model, sizeof(host->cpu_model), string_or(obj, "cpu_model", "?"));
	copy_string(host->libc, sizeof(host->libc), string_or(obj, "libc", "?"));
	copy_string(host->libc_version, sizeof(host->libc_version),
		    string_or(obj, "libc_version", "?"));
	copy_string(host->thp, sizeof(host->thp), string_or(obj, "thp", "unknown"));
	host->cpus = (int)whole_or(obj, "cpus", 1 << 20, 1);
	host->page_size = (long)whole_or(obj, "page_size", 1 << 30, 4096);
	host->mem_available_bytes = whole_or(obj, "mem_available_bytes", UINT64_MAX >> 11, 0);
}

/* config.replay: the trace replayed, as the header names it (replay only). */
static void load_replay(struct run_config *c, const cJSON *replay)
{
	const cJSON *cut = member(replay, "cut_short"), *program;
	double wall_s;

	c->trace_path = string_or(replay, "trace", "");
	c->replay_per_thread = !strcmp(string_or(replay, "threads_mode", "global"), "per-thread");
	c->replay.calls = whole_or(replay, "calls", UINT64_MAX >> 11, 0);
	c->replay.steps = whole_or(replay, "steps", UINT64_MAX >> 11, 0);
	c->replay.threads = (uint32_t)whole_or(replay, "threads", UINT32_MAX, 0);
	c->replay.peak_live_bytes = whole_or(replay, "peak_live_bytes", UINT64_MAX >> 11, 0);
	c->replay.cut_short = cJSON_IsTrue(cut);
	/* The recorded process's own figures (fidelity.h): the replay's line is made again from them. */
	program = member(replay, "program");
	wall_s = number_or(program, "wall_seconds", 0);
	c->replay.program_anon_kib = (uint32_t)(whole_or(program, "peak_anon_bytes",
							 (uint64_t)UINT32_MAX * 1024, 0) / 1024);
	c->replay.program_hwm_kib = (uint32_t)(whole_or(program, "hwm_bytes",
							(uint64_t)UINT32_MAX * 1024, 0) / 1024);
	c->replay.program_run_ns = wall_s > 0 && wall_s < 1e9 ? (uint64_t)(wall_s * 1e9) : 0;
}

/* config: what the header and the columns read. */
static int load_config(struct loaded_report *r, const cJSON *config)
{
	struct run_config *c = &r->config;
	const cJSON *sizes = member(config, "sizes"), *item, *counters;
	const char *align = string_or(config, "align", NULL);
	size_t n = 0;

	if (workload_parse(r->file.workload, &c->workload))
		return fail(r, "workload '%s' is not one this allocbench shows", r->file.workload);
	if (touch_parse(string_or(config, "touch", ""), &c->touch))
		return fail(r, "config.touch is not none, first, pages or full");
	c->total_bytes = r->file.total_bytes;
	c->repeat = r->file.repeat;
	if (!c->repeat || c->repeat > RUN_MAX_REPEAT)
		return fail(r, "config.repeat is not a whole number from 1 to %d", RUN_MAX_REPEAT);
	c->align = align && !strcmp(align, "natural") ? 0 :
		   (size_t)whole_or(config, "align", 4096, 0);
	c->pool_block_bytes = (size_t)whole_or(config, "pool_block_bytes", SIZE_MAX >> 11, 0);
	c->seed = whole_or(config, "seed", UINT64_MAX >> 11, 0);
	c->threads = (unsigned)whole_or(config, "threads", MEASURE_MAX_THREADS, 0);
	c->rounds = (unsigned)whole_or(config, "rounds", 1000000, 0);
	if (!cJSON_IsArray(sizes) || !cJSON_GetArraySize(sizes))
		return fail(r, "config.sizes is not an array of sizes");
	c->sizes = calloc((size_t)cJSON_GetArraySize(sizes), sizeof(*c->sizes));
	if (!c->sizes)
		return fail(r, "out of memory");
	cJSON_ArrayForEach(item, sizes) {
		if (!cJSON_IsNumber(item) || item->valuedouble < 1 || item->valuedouble > 1e15)
			return fail(r, "config.sizes[%zu] is not a size in bytes", n);
		c->sizes[n] = (size_t)item->valuedouble;
		for (size_t k = 0; k < n; k++)
			if (c->sizes[k] == c->sizes[n])
				return fail(r, "config.sizes names %zu twice", c->sizes[n]);
		n++;
	}
	c->nsizes = n;
	if (c->workload == WORKLOAD_RANDOM && n > MEASURE_MAX_MIX)
		return fail(r, "config.sizes has more than %d sizes", MEASURE_MAX_MIX);
	c->label = r->file.label;
	if (c->workload == WORKLOAD_REPLAY)
		load_replay(c, member(config, "replay"));
	cJSON_ArrayForEach(item, member(config, "abi"))
		if (c->nabis < 2 && cJSON_IsNumber(item) &&
		    (item->valuedouble == 32 || item->valuedouble == 64))
			c->abis[c->nabis++] = (unsigned)item->valuedouble;
	counters = member(config, "counters");
	cJSON_ArrayForEach(item, counters) {
		if (!cJSON_IsString(item) || c->counters.n == COUNTERS_MAX ||
		    strlen(item->valuestring) >= COUNTERS_NAME_MAX)
			return fail(r, "config.counters is not a list of at most %d event names",
				    COUNTERS_MAX);
		copy_string(c->counters.names[c->counters.n++], COUNTERS_NAME_MAX, item->valuestring);
	}
	return 0;
}

/* counters_status and counters_hints: which events were counted, or why not. */
static void load_counters_check(struct loaded_report *r, const cJSON *root)
{
	struct counters_check *check = &r->report.counters;
	const cJSON *status = member(root, "counters_status"), *hints = member(root, "counters_hints");

	check->list = r->config.counters;
	for (size_t i = 0; i < check->list.n; i++) {
		const char *name = check->list.names[i];
		const char *st = string_or(status, name, "not in the report");

		check->events[i].ok = !strcmp(st, "ok");
		if (!check->events[i].ok)
			copy_string(check->events[i].reason, sizeof(check->events[i].reason), st);
		copy_string(check->events[i].hint, sizeof(check->events[i].hint),
			    string_or(hints, name, ""));
	}
}

/* The runs of the statistic at NAME of OBJ into VALUES; their number, 0 when absent. */
static unsigned stat_runs(const cJSON *obj, const char *name, double *values)
{
	const cJSON *runs = member(member(obj, name), "runs"), *item;
	unsigned n = 0;

	cJSON_ArrayForEach(item, runs) {
		if (!cJSON_IsNumber(item) || n == RUN_MAX_REPEAT)
			return 0;
		values[n++] = item->valuedouble;
	}
	return n;
}

/* The statistic at NAME of OBJ ({median, min, max}); -1 when absent or null. */
static int stat_of(const cJSON *obj, const char *name, struct stat_summary *out)
{
	const cJSON *s = member(obj, name);

	if (!cJSON_IsNumber(member(s, "median")) || !cJSON_IsNumber(member(s, "min")) ||
	    !cJSON_IsNumber(member(s, "max")))
		return -1;
	out->median = member(s, "median")->valuedouble;
	out->min = member(s, "min")->valuedouble;
	out->max = member(s, "max")->valuedouble;
	return 0;
}

/* A replay row's "series" into S: what every run of a loaded row holds (the median run's). */
static void load_series(const cJSON *row, struct sample *s)
{
	const cJSON *series = member(row, "series");
	const cJSON *steps = member(series, "steps"), *rss = member(series, "rss_bytes");
	const cJSON *live = member(series, "live_bytes");
	int n = cJSON_GetArraySize(steps);

	s->nseries = 0;
	if (!cJSON_IsArray(steps) || n > SAMPLE_SERIES_POINTS || cJSON_GetArraySize(rss) != n ||
	    cJSON_GetArraySize(live) != n)
		return;
	for (int i = 0; i < n; i++) {
		const cJSON *a = cJSON_GetArrayItem(steps, i), *b = cJSON_GetArrayItem(rss, i);
		const cJSON *c = cJSON_GetArrayItem(live, i);

		if (!cJSON_IsNumber(a) || !cJSON_IsNumber(b) || !cJSON_IsNumber(c) ||
		    a->valuedouble < 0 || b->valuedouble < 0 || c->valuedouble < 0 ||
		    a->valuedouble > 1e15 || b->valuedouble > 1e15 || c->valuedouble > 1e15 ||
		    (i && a->valuedouble <= (double)s->series_steps[i - 1]))
			return;
		s->series_steps[i] = (uint64_t)a->valuedouble;
		s->series_rss_bytes[i] = (uint64_t)b->valuedouble;
		s->series_live_bytes[i] = (uint64_t)c->valuedouble;
	}
	s->nseries = (unsigned)n;
}

/*
 * ROW's counters into CELL's samples, run by run, as counted (an event
 * without a total for each run was not), and the events ROW left out
 * because they restated the count put back.
 */
static void load_cell_counters(const struct loaded_report *r, const cJSON *row, struct cell *cell)
{
	const struct run_config *c = &r->config;
	const cJSON *counters = member(row, "counters");
	unsigned runs = cell->runs;

	for (size_t e = 0; e < c->counters.n; e++) {
		const cJSON *event = member(counters, c->counters.names[e]);
		double alloc[RUN_MAX_REPEAT], release[RUN_MAX_REPEAT];
		int counted = cJSON_IsObject(event) && stat_runs(event, "alloc_total", alloc) == runs &&
			      stat_runs(event, "free_total", release) == runs;
		uint64_t known_alloc, known_free;

		/* Left out because it restated the count (allocbench/2): put it back. */
		if (!event && r->report.counters.events[e].ok &&
		    report_counters_restated(c->counters.names[e], cell, &known_alloc, &known_free)) {
			for (unsigned i = 0; i < runs; i++) {
				alloc[i] = (double)known_alloc;
				release[i] = (double)known_free;
			}
			counted = 1;
		}

		for (unsigned i = 0; i < runs; i++) {
			struct counter_values *v = &cell->samples[i].counters;

			v->n = (uint32_t)c->counters.n;
			v->status[e] = counted ? COUNTERS_OK : -1;
			if (counted) {
				v->alloc_loop[e] = alloc[i] >= 0 ? (uint64_t)alloc[i] : 0;
				v->free_loop[e] = release[i] >= 0 ? (uint64_t)release[i] : 0;
			}
		}
	}
}

/* One result row into CELL (its samples and its summaries). */
static int load_cell(struct loaded_report *r, const cJSON *row, struct cell *cell,
		     struct cell_loaded *loaded, size_t index)
{
	const struct run_config *c = &r->config;
	const cJSON *who = member(row, "allocator");
	const char *checksum = string_or(row, "checksum", "0");
	unsigned runs = 0;

	cell->ok = !strcmp(string_or(row, "status", ""), "ok");
	cell->size = (size_t)whole_or(row, "size", SIZE_MAX >> 11, 0);
	cell->count = (size_t)whole_or(row, "count", SIZE_MAX >> 11, 0);
	cell->align = (size_t)whole_or(row, "align", 4096, 0);
	cell->rounds = (unsigned)whole_or(row, "rounds", 1000000, 0);
	copy_string(cell->error, sizeof(cell->error), string_or(row, "error", ""));
	cell->loaded = loaded;
	for (int m = 0; m < METRIC_COUNT; m++) {
		double values[RUN_MAX_REPEAT];
		unsigned n;

		if (!metric_applies((enum metric)m, c->workload) ||
		    stat_of(row, metric_name((enum metric)m), &loaded->metric[m]))
			continue;
		loaded->have_metric[m] = 1;
		n = stat_runs(row, metric_name((enum metric)m), values);
		if (n > runs)
			runs = n;
	}
	for (int b = 0; b < BREAKDOWN_COUNT; b++)
		loaded->have_breakdown[b] = !stat_of(row, breakdown_name((enum breakdown)b),
						     &loaded->breakdown[b]);
	if (!cell->ok)
		return 0;
	if (!runs)
		return fail(r, "results[%zu] is ok but has no runs", index);
	cell->samples = calloc(runs, sizeof(*cell->samples));
	if (!cell->samples)
		return fail(r, "out of memory");
	cell->runs = runs;
	/* What the tables read from the samples: the same in each (the median run's). */
	for (unsigned i = 0; i < runs; i++) {
		struct sample *s = &cell->samples[i];

		s->ok = 1;
		s->rss_before_bytes = whole_or(row, "rss_before_bytes", UINT64_MAX >> 11, 0);
		s->rss_after_bytes = whole_or(row, "rss_after_bytes", UINT64_MAX >> 11, 0);
		s->reserved_bytes = whole_or(row, "reserved_bytes", UINT64_MAX >> 11, 0);
		s->ops = whole_or(row, "ops", UINT64_MAX >> 11, 0);
		s->live_bytes = whole_or(row, "live_bytes", UINT64_MAX >> 11, 0);
		s->peak_live_bytes = whole_or(row, "peak_live_bytes", UINT64_MAX >> 11, 0);
		s->checksum = strtoull(checksum, NULL, 16);
		s->rounds = cell->rounds;
		load_series(row, s);
		if (cJSON_IsObject(who)) {
			copy_string(s->allocator.name, sizeof(s->allocator.name),
				    string_or(who, "name", "unknown"));
			copy_string(s->allocator.version, sizeof(s->allocator.version),
				    string_or(who, "version", "unknown"));
			copy_string(s->allocator.path, sizeof(s->allocator.path),
				    string_or(who, "path", ""));
		}
	}
	load_cell_counters(r, row, cell);
	return 0;
}

/*
 * The rows into the grid every writer reads (struct run_report: one cell per
 * size and backend, size-major; random and replay one column): each cell
 * from the one row of its backend and size. The document is believed in
 * nothing: a row of a backend config.backends does not name, of a size
 * config.sizes does not, a row given twice, or a cell without its row is
 * refused, naming the field. Returns 0, or -1 after the error.
 */
static int load_grid(struct loaded_report *r)
{
	int one_column = workload_one_column(r->config.workload);
	size_t ncolumns = one_column ? 1 : r->config.nsizes, nb = r->nbackends;
	size_t ncells = ncolumns * nb;
	size_t *from = calloc(ncells, sizeof(*from));  /* the row of each cell, + 1; 0: none */

	r->config.backends = calloc(nb, sizeof(*r->config.backends));
	r->report.cells = calloc(ncells, sizeof(*r->report.cells));
	r->loaded = calloc(ncells, sizeof(*r->loaded));
	if (!from || !r->config.backends || !r->report.cells || !r->loaded) {
		free(from);
		return fail(r, "out of memory");
	}
	for (size_t b = 0; b < nb; b++)
		r->config.backends[b] = &r->backends[b];
	r->config.nbackends = nb;
	r->report.ncells = ncells;  /* every cell is released, loaded or not */
	if (!r->file.nrows) {
		free(from);
		return fail(r, "results is empty: the report holds no measurement");
	}
	for (size_t k = 0; k < r->file.nrows; k++) {
		const struct result_row *row = &r->file.rows[k];
		long b = backend_index(r, row->backend);
		size_t column = 0, at;

		if (b < 0) {
			free(from);
			return fail(r, "results[%zu].backend '%s' is not in config.backends", k,
				    row->backend);
		}
		if (one_column && row->size) {
			free(from);
			return fail(r, "results[%zu].size is %llu: a %s report's rows have size 0 "
				    "(the whole run)", k, (unsigned long long)row->size,
				    workload_name(r->config.workload));
		}
		while (!one_column && column < ncolumns && r->config.sizes[column] != row->size)
			column++;
		if (column == ncolumns) {
			free(from);
			return fail(r, "results[%zu].size %llu is not in config.sizes", k,
				    (unsigned long long)row->size);
		}
		at = column * nb + (size_t)b;
		if (from[at]) {
			size_t first = from[at] - 1;

			free(from);
			return fail(r, "results[%zu] repeats results[%zu] (backend '%s', size %llu)",
				    k, first, row->backend, (unsigned long long)row->size);
		}
		from[at] = k + 1;
	}
	for (size_t at = 0; at < ncells; at++) {
		const char *name = r->backends[at % nb].name;
		unsigned abi;
		size_t size = one_column ? 0 : r->config.sizes[at / nb];
		size_t k = from[at] - 1;

		if (!from[at]) {
			free(from);
			if (one_column)
				return fail(r, "results has no row for backend '%s', which "
					    "config.backends names", name);
			return fail(r, "results has no row for backend '%s' at size %zu, which "
				    "config.backends and config.sizes name", name, size);
		}
		r->report.cells[at].backend = &r->backends[at % nb];
		/* A 32-bit row ("NAME/32", abi 32): its ABI, as the run's own rows had it. */
		abi = (unsigned)whole_or(r->file.rows[k].json, "abi", 64, abi_native());
		r->backends[at % nb].abi = abi != abi_native() ? abi : 0;
		if (load_cell(r, r->file.rows[k].json, &r->report.cells[at], &r->loaded[at], k)) {
			free(from);
			return -1;
		}
		r->report.failed |= !r->report.cells[at].ok;
	}
	free(from);
	return 0;
}

/* One element of "floor". */
static int load_floor(struct loaded_report *r, const cJSON *obj, struct floor_cell *f)
{
	double alloc[RUN_MAX_REPEAT], release[RUN_MAX_REPEAT], faults[RUN_MAX_REPEAT];
	unsigned n;

	f->size = (size_t)whole_or(obj, "size", SIZE_MAX >> 11, 0);
	f->count = (size_t)whole_or(obj, "count", SIZE_MAX >> 11, 1);
	f->ok = !strcmp(string_or(obj, "status", ""), "ok");
	copy_string(f->error, sizeof(f->error), string_or(obj, "error", ""));
	n = stat_runs(obj, metric_name(METRIC_ALLOC_NS), alloc);
	if (!f->ok || !n)
		return 0;
	f->samples = calloc(n, sizeof(*f->samples));
	if (!f->samples)
		return fail(r, "out of memory");
	if (stat_runs(obj, metric_name(METRIC_FREE_NS), release) != n)
		memset(release, 0, sizeof(release));
	if (stat_runs(obj, metric_name(METRIC_PAGE_FAULTS), faults) != n)
		memset(faults, 0, sizeof(faults));
	for (unsigned i = 0; i < n; i++) {
		f->samples[i].ok = 1;
		f->samples[i].alloc_ns = alloc[i];
		f->samples[i].free_ns = release[i];
		f->samples[i].alloc_faults = faults[i] >= 0 ? (uint64_t)faults[i] : 0;
	}
	f->runs = n;
	return 0;
}

/* Writes WORD to OUT, quoted for a POSIX shell when it must be. */
static void put_shell_word(FILE *out, const char *word)
{
	if (*word && !word[strspn(word, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				     "0123456789-_=+,./:@%")]) {
		fputs(word, out);
		return;
	}
	fputc('\'', out);
	for (const char *p = word; *p; p++) {
		if (*p == '\'')
			fputs("'\\''", out);
		else
			fputc(*p, out);
	}
	fputc('\'', out);
}

/* command_line (an array of words) as one line a shell reads back; NULL when absent. */
static char *command_line_text(const cJSON *words)
{
	const cJSON *item;
	char *text = NULL;
	size_t len = 0, n = 0;
	FILE *f;

	if (!cJSON_IsArray(words) || !cJSON_GetArraySize(words) || !(f = open_memstream(&text, &len)))
		return NULL;
	cJSON_ArrayForEach(item, words) {
		if (n++)
			fputc(' ', f);
		put_shell_word(f, cJSON_IsString(item) ? item->valuestring : "?");
	}
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

/*
 * config.settings: each candidate with settings becomes one
 * (settings_described()), in config.backends and in its cells, so that the
 * writers say its settings as the run did. An entry without its
 * environment or how, of a backend config.backends does not name, of one
 * without settings ("ALLOCATOR:NAME=VALUE"), or of one named twice, is
 * refused.
 */
static int load_settings(struct loaded_report *r, const cJSON *config)
{
	const cJSON *item;
	size_t i = 0;

	cJSON_ArrayForEach(item, member(config, "settings")) {
		const char *name = string_or(item, "backend", NULL);
		const char *env = string_or(item, "environment", NULL), *how = string_or(item, "how", NULL);
		long b = name ? backend_index(r, name) : -1;
		char allocator[32];
		const struct backend *c;

		if (!env || !*env || !how)
			return fail(r, "config.settings[%zu] lacks its environment or how", i);
		if (b < 0)
			return fail(r, "config.settings[%zu].backend is not in config.backends", i);
		if (!settings_split(name, allocator, sizeof(allocator)))
			return fail(r, "config.settings[%zu].backend '%s' has no settings", i, name);
		if (r->config.backends[b] != &r->backends[b])
			return fail(r, "config.settings names '%s' twice", name);
		c = settings_described(&r->config, &r->backends[b], env,
				       cJSON_IsTrue(member(item, "confirmed")), how);
		if (!c)
			return fail(r, "out of memory");
		r->config.backends[b] = c;
		for (size_t k = 0; k < r->report.ncells; k++)
			if (r->report.cells[k].backend == &r->backends[b])
				r->report.cells[k].backend = c;
		i++;
	}
	return 0;
}

/*
 * The runs of one figure of a real_runs row (OBJ's RUNS, each times SCALE)
 * into VALUES; how many, or -1 when they are not numbers, more than
 * RERUN_MAX_ROUNDS or not N (N < 0: any number).
 */
static int load_rerun_values(const cJSON *obj, double scale, double *values, int n)
{
	const cJSON *runs = member(obj, "runs"), *item;
	int k = 0;

	if (!cJSON_IsArray(runs) || cJSON_GetArraySize(runs) > RERUN_MAX_ROUNDS ||
	    (n >= 0 && cJSON_GetArraySize(runs) != n))
		return -1;
	cJSON_ArrayForEach(item, runs) {
		if (!cJSON_IsNumber(item) || !(item->valuedouble >= 0))
			return -1;
		values[k++] = item->valuedouble * scale;
	}
	return k;
}

/* real_runs.rows[I] (ITEM) into ROW: its backend, runs, and why it failed or stopped. */
static int load_rerun_row(struct loaded_report *r, const cJSON *item, size_t i,
			  struct rerun_row *row)
{
	static const struct { const char *name; enum rerun_figure figure; double scale; } figures[] = {
		{ "peak_anon_bytes", RERUN_PEAK, 1 }, { "wall_seconds", RERUN_WALL, 1e9 },
		{ "low_anon_bytes", RERUN_LOW, 1 }, { "end_anon_bytes", RERUN_END, 1 },
	};
	const char *name = string_or(item, "backend", "");
	long b = backend_index(r, name);
	int n = -1;

	if (b < 0)
		return fail(r, "real_runs.rows[%zu].backend is not in config.backends", i);
	memset(row, 0, sizeof(*row));
	row->backend = r->config.backends[b];
	row->ok = cJSON_IsTrue(member(item, "ok"));
	copy_string(row->error, sizeof(row->error), string_or(item, "error", ""));
	copy_string(row->stopped, sizeof(row->stopped), string_or(item, "stopped", ""));
	row->no_effect = cJSON_IsTrue(member(item, "no_effect"));
	for (size_t f = 0; f < sizeof(figures) / sizeof(figures[0]); f++) {
		n = load_rerun_values(member(item, figures[f].name), figures[f].scale,
				      row->value[figures[f].figure], n);
		if (n < 0)
			return fail(r, "real_runs.rows[%zu].%s.runs is not a list of up to %d numbers, "
				    "as many as its other figures'", i, figures[f].name, RERUN_MAX_ROUNDS);
	}
	row->runs = (unsigned)n;
	return 0;
}

/*
 * real_runs (advise's): the runs of the program under each drop-in
 * candidate, for the writers to say as advise did (rerun.h). A row of a
 * backend config.backends does not name, or whose runs are not numbers,
 * is refused.
 */
static int load_rerun(struct loaded_report *r, const cJSON *runs)
{
	const cJSON *rows = member(runs, "rows"), *item;
	struct rerun *rr;

	if (!runs)
		return 0;
	if (!(rr = r->rerun = calloc(1, sizeof(*rr))))
		return fail(r, "out of memory");
	rr->rounds = (unsigned)whole_or(runs, "runs", RERUN_MAX_ROUNDS, 0);
	rr->stdin_offset = -1;
	copy_string(rr->why, sizeof(rr->why), string_or(runs, "why", ""));
	copy_string(rr->program, sizeof(rr->program), string_or(runs, "program", ""));
	if (cJSON_GetArraySize(rows) > RERUN_MAX_ROWS)
		return fail(r, "real_runs.rows has more than %d rows", RERUN_MAX_ROWS);
	cJSON_ArrayForEach(item, rows) {
		if (load_rerun_row(r, item, rr->nrows, &rr->rows[rr->nrows]))
			return -1;
		rr->nrows++;
	}
	r->report.rerun = rr;
	return 0;
}

int report_load(const char *path, struct loaded_report *out)
{
	const cJSON *root, *config, *floors, *item;
	size_t i = 0;

	memset(out, 0, sizeof(*out));
	if (results_load(path, &out->file))
		return -1;
	root = out->file.root;
	config = member(root, "config");
	if (load_config(out, config))
		return -1;
	out->report.config = &out->config;
	out->report.tool_version = out->file.tool_version;
	out->report.sanitizers = string_or(member(root, "tool"), "sanitizers", "");
	out->report.jobs = (unsigned)whole_or(config, "jobs", RUN_MAX_JOBS, 1);
	/* config.abi32: how the 32-bit rows were measured (abi32.emulator null: natively). */
	out->report.abi32_program = string_or(member(config, "abi32"), "program", NULL);
	out->report.abi32_emulator = string_or(member(config, "abi32"), "emulator", NULL);
	out->created = out->file.created;
	out->command_line = command_line_text(member(root, "command_line"));
	load_host(&out->report.host, member(root, "host"));
	load_counters_check(out, root);

	if (load_backends(out, config) || load_grid(out) || load_settings(out, config) ||
	    load_rerun(out, member(root, "real_runs")))
		return -1;
	/* advise's report: its command line's second word. */
	item = cJSON_GetArrayItem(member(root, "command_line"), 1);
	out->advise = cJSON_IsString(item) && !strcmp(item->valuestring, "advise");

	floors = member(root, "floor");
	if (cJSON_GetArraySize(floors) > 0) {
		out->report.floors = calloc((size_t)cJSON_GetArraySize(floors),
					    sizeof(*out->report.floors));
		if (!out->report.floors)
			return fail(out, "out of memory");
	}
	cJSON_ArrayForEach(item, floors) {
		if (load_floor(out, item, &out->report.floors[i]))
			return -1;
		out->report.nfloors = ++i;
	}
	return 0;
}

void report_loaded_release(struct loaded_report *r)
{
	for (size_t i = 0; i < r->report.ncells; i++)
		free(r->report.cells[i].samples);
	free(r->report.cells);
	for (size_t i = 0; i < r->report.nfloors; i++)
		free(r->report.floors[i].samples);
	free(r->report.floors);
	free(r->loaded);
	free(r->rerun);
	free(r->backends);
	backend_set_release(&r->config);  /* config.backends and the candidates with settings */
	free(r->config.sizes);
	free(r->command_line);
	results_release(&r->file);
	memset(r, 0, sizeof(*r));
}
