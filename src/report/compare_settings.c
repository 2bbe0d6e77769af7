/*
 * compare_settings.c - what two reports must share to be compared (their
 * settings), and what they may record differently that a reader must be told
 * first (the host, the build, each backend's allocator): compare.h.
 */
#include "report/compare.h"
#include "model/run.h"
#include "platform/util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- settings ---------------------------------------------------------- */

/* FILE's value at PATH as text into BUF; 0, or -1 when it records none. */
static int field_text(const struct result_file *file, const char *path, char *buf, size_t size)
{
	const char *s = results_file_string(file, path);
	double v;

	if (s)
		copy_string(buf, size, s);
	else if (!results_file_number(file, path, &v))
		snprintf(buf, size, "%.15g", v);
	else
		return -1;
	return 0;
}

int compare_settings_of_file(const struct result_file *file, struct compare_settings *out)
{
	double v;

	memset(out, 0, sizeof(*out));
	out->workload = file->workload;
	if (results_file_number(file, "config.total_bytes", &v) || v <= 0)
		return error("'%s': no \"config.total_bytes\": cannot tell what was measured",
			     file->path);
	out->total_bytes = file->total_bytes;
	if (!*file->touch)
		return error("'%s': no \"config.touch\": cannot tell what was measured", file->path);
	out->touch = file->touch;
	field_text(file, "config.align", out->align, sizeof(out->align));
	out->pool_block_bytes = -1;
	if (!results_file_number(file, "config.pool_block_bytes", &v))
		out->pool_block_bytes = v;
	out->sanitizers = results_file_string(file, "tool.sanitizers");
	field_text(file, "config.rounds", out->rounds, sizeof(out->rounds));
	out->threads = -1;
	if (!results_file_number(file, "config.threads", &v))
		out->threads = v;
	out->seed = -1;
	if (!results_file_number(file, "config.seed", &v))
		out->seed = v;
	if (!strcmp(file->workload, "random")) {
		results_file_numbers(file, "config.sizes", out->sizes, sizeof(out->sizes));
		results_file_numbers(file, "config.weights", out->weights, sizeof(out->weights));
	}
	if (!strcmp(file->workload, "replay")) {
		double calls, steps, threads, peak;

		out->replay_threads = results_file_string(file, "config.replay.threads_mode");
		if (!results_file_number(file, "config.replay.calls", &calls) &&
		    !results_file_number(file, "config.replay.steps", &steps) &&
		    !results_file_number(file, "config.replay.threads", &threads) &&
		    !results_file_number(file, "config.replay.peak_live_bytes", &peak) &&
		    calls >= 0 && steps >= 0 && threads >= 0 && peak >= 0)
			compare_settings_trace(out, (uint64_t)calls, (uint64_t)steps,
					       (uint64_t)threads, (uint64_t)peak);
	}
	out->jobs = 1;
	if (!results_file_number(file, "config.jobs", &v)) {
		if (v < 1 || v > RUN_MAX_JOBS || v != floor(v))
			return error("'%s': config.jobs: %g is not a whole number from 1 to %d",
				     file->path, v, RUN_MAX_JOBS);
		out->jobs = (unsigned)v;
	}
	return 0;
}

void compare_settings_trace(struct compare_settings *out, uint64_t calls, uint64_t steps,
			    uint64_t threads, uint64_t peak_live_bytes)
{
	snprintf(out->trace, sizeof(out->trace), "a trace of %llu calls (%llu steps), %llu "
		 "threads, peak live %llu bytes", (unsigned long long)calls,
		 (unsigned long long)steps, (unsigned long long)threads,
		 (unsigned long long)peak_live_bytes);
}

/* The first setting compare_settings_differences() names, for compare_settings_check(). */
struct first_difference {
	const char *setting;      /* NULL: none yet */
	char baseline[256];
	char current[256];
};

static void keep_first(void *ctx, const char *setting, const char *baseline, const char *current)
{
	struct first_difference *d = ctx;

	if (d->setting)
		return;
	d->setting = setting;
	copy_string(d->baseline, sizeof(d->baseline), baseline);
	copy_string(d->current, sizeof(d->current), current);
}

int compare_settings_check(const struct compare_settings *b, const char *b_name,
			   const struct compare_settings *c, const char *c_name)
{
	struct first_difference d = { .setting = NULL };

	compare_settings_differences(b, c, keep_first, &d);
	if (!d.setting)
		return 0;
	return error("different %s: %s in the baseline '%s', %s in '%s' (only reports "
		     "measured with the same settings compare)", d.setting, d.baseline, b_name,
		     d.current, c_name);
}

void compare_settings_differences(const struct compare_settings *b,
				  const struct compare_settings *c, compare_setting_fn *fn,
				  void *ctx)
{
	char bv[64], cv[64];

	if (strcmp(b->workload, c->workload))
		fn(ctx, "workload", b->workload, c->workload);
	if (b->total_bytes != c->total_bytes) {
		snprintf(bv, sizeof(bv), "%llu bytes", (unsigned long long)b->total_bytes);
		snprintf(cv, sizeof(cv), "%llu bytes", (unsigned long long)c->total_bytes);
		fn(ctx, "total (--total)", bv, cv);
	}
	if (strcmp(b->touch, c->touch))
		fn(ctx, "touch policy (--touch)", b->touch, c->touch);
	if (*b->align && *c->align && strcmp(b->align, c->align))
		fn(ctx, "alignment (--align)", b->align, c->align);
	if (b->pool_block_bytes >= 0 && c->pool_block_bytes >= 0 &&
	    b->pool_block_bytes != c->pool_block_bytes) {
		snprintf(bv, sizeof(bv), "%.0f bytes", b->pool_block_bytes);
		snprintf(cv, sizeof(cv), "%.0f bytes", c->pool_block_bytes);
		fn(ctx, "pool block (--pool-block)", bv, cv);
	}
	/* Under AddressSanitizer malloc is the sanitizer's, with its red zones. */
	if (b->sanitizers && c->sanitizers && strcmp(b->sanitizers, c->sanitizers)) {
		snprintf(bv, sizeof(bv), "'%s'", b->sanitizers);
		snprintf(cv, sizeof(cv), "'%s'", c->sanitizers);
		fn(ctx, "sanitizers (tool.sanitizers)", bv, cv);
	}
	if (*b->rounds && *c->rounds && strcmp(b->rounds, c->rounds))
		fn(ctx, "rounds (--rounds)", b->rounds, c->rounds);
	if (b->threads >= 0 && c->threads >= 0 && b->threads != c->threads) {
		snprintf(bv, sizeof(bv), "%.0f", b->threads);
		snprintf(cv, sizeof(cv), "%.0f", c->threads);
		fn(ctx, "threads (--threads)", bv, cv);
	}
	if (b->seed >= 0 && c->seed >= 0 && b->seed != c->seed) {
		snprintf(bv, sizeof(bv), "%.0f", b->seed);
		snprintf(cv, sizeof(cv), "%.0f", c->seed);
		fn(ctx, "seed (--seed)", bv, cv);
	}
	/* A replay: one trace, replayed the same way; another is another experiment. */
	if (b->replay_threads && c->replay_threads && strcmp(b->replay_threads, c->replay_threads))
		fn(ctx, "replay thread mode (--replay-threads)", b->replay_threads,
		   c->replay_threads);
	if (*b->trace && *c->trace && strcmp(b->trace, c->trace))
		fn(ctx, "trace (--trace)", b->trace, c->trace);
	if (*b->sizes && *c->sizes && strcmp(b->sizes, c->sizes))
		fn(ctx, "size mix (--sizes)", b->sizes, c->sizes);
	if ((*b->sizes || *c->sizes) && strcmp(b->weights, c->weights))
		fn(ctx, "size weights (--sizes SIZE:WEIGHT)", *b->weights ? b->weights : "none",
		   *c->weights ? c->weights : "none");
}

/* ---- what changed ------------------------------------------------------ */

static void add_change(struct comparison *c, const char *what, const char *b, const char *cur,
		       int host)
{
	struct compare_change *ch;

	if (c->nchanges == COMPARE_MAX_CHANGES)
		return;
	ch = &c->changes[c->nchanges++];
	copy_string(ch->what, sizeof(ch->what), what);
	copy_string(ch->baseline, sizeof(ch->baseline), b);
	copy_string(ch->current, sizeof(ch->current), cur);
	ch->host = host;
	c->host_changed |= host;
}

/* The host fields a report records, the label of each, in the order listed. */
static const struct {
	const char *path;
	const char *what;
} host_fields[] = {
	{ "host.hostname", "host name" },
	{ "host.cpu_model", "CPU" },
	{ "host.cpus", "CPUs" },
	{ "host.machine", "machine" },
	{ "host.kernel", "kernel" },
	{ "host.libc", "C library" },
	{ "host.libc_version", "C library version" },
	{ "host.page_size", "page size" },
	{ "host.thp", "transparent huge pages" },
	{ "tool.build.compiler", "compiler" },
};


/* The words of FLAGS that OTHER lacks, space-separated, into OUT. */
static void words_only_in(const char *flags, const char *other, char *out, size_t size)
{
	size_t used = 0;

	*out = 0;
	for (const char *w = flags + strspn(flags, " "); *w; w += strspn(w, " ")) {
		size_t len = strcspn(w, " ");
		int found = 0;

		for (const char *o = other + strspn(other, " "); *o && !found; o += strspn(o, " ")) {
			size_t olen = strcspn(o, " ");

			found = olen == len && !strncmp(o, w, len);
			o += olen;
		}
		if (!found && used + len + 2 < size)
			used += (size_t)snprintf(out + used, size - used, "%s%.*s", used ? " " : "",
						 (int)len, w);
		w += len;
	}
}

/* The allocator a row names, "glibc 2.36", into BUF; 0, or -1 when it names none. */
static int allocator_of(const struct result_row *row, char *buf, size_t size)
{
	const char *name = results_row_string(row, "allocator.name");
	const char *version = results_row_string(row, "allocator.version");

	if (!name)
		return -1;
	snprintf(buf, size, "%s%s%s", name, version ? " " : "", version ? version : "");
	return 0;
}

/*
 * What the baseline and the current record differently of the host and the
 * build. Only what both record: an older report's silence is no change.
 */
void compare_find_host_changes(struct comparison *c)
{
	char b[256], cur[256];
	const char *bf, *cf;

	for (size_t i = 0; i < sizeof(host_fields) / sizeof(host_fields[0]); i++)
		if (!field_text(c->baseline, host_fields[i].path, b, sizeof(b)) &&
		    !field_text(c->current, host_fields[i].path, cur, sizeof(cur)) && strcmp(b, cur))
			add_change(c, host_fields[i].what, b, cur, !!strncmp(host_fields[i].path, "tool.", 5));
	bf = results_file_string(c->baseline, "tool.build.flags");
	cf = results_file_string(c->current, "tool.build.flags");
	if (bf && cf && strcmp(bf, cf)) {
		words_only_in(bf, cf, b, sizeof(b));
		words_only_in(cf, bf, cur, sizeof(cur));
		add_change(c, "build flags", *b ? b : "-", *cur ? cur : "-", 0);
	}
}

/* Each backend's allocator (name and version) where the matched rows differ, once. */
void compare_find_allocator_changes(struct comparison *c)
{
	char b[256], cur[256], what[64];

	for (size_t i = 0; i < c->nrows; i++) {
		const struct compare_row *row = &c->rows[i];
		int seen = 0;

		if (!row->baseline || !row->current || allocator_of(row->baseline, b, sizeof(b)) ||
		    allocator_of(row->current, cur, sizeof(cur)) || !strcmp(b, cur))
			continue;
		snprintf(what, sizeof(what), "allocator of %s", row->backend);
		for (size_t k = 0; k < c->nchanges && !seen; k++)
			seen = !strcmp(c->changes[k].what, what);
		if (!seen)
			add_change(c, what, b, cur, 0);
	}
}
