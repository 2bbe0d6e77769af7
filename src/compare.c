#include "compare.h"
#include "stats.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const verdict_names[COMPARE_NVERDICTS] = {
	[COMPARE_UNCHANGED] = "unchanged",
	[COMPARE_IMPROVED] = "improved",
	[COMPARE_REGRESSED] = "regressed",
	[COMPARE_MISSING] = "missing",
	[COMPARE_NEW] = "new",
	[COMPARE_FAILED] = "failed",
};

static const char *const metric_names[COMPARE_NMETRICS] = {
	[COMPARE_OVERHEAD] = "overhead_bytes",
	[COMPARE_ALLOC] = "alloc_ns",
	[COMPARE_FREE] = "free_ns",
};

const char *compare_verdict_name(enum compare_verdict verdict)
{
	return verdict_names[verdict];
}

const char *compare_metric_name(enum compare_metric_id metric)
{
	return metric_names[metric];
}

void compare_options_init(struct compare_options *options)
{
	memset(options, 0, sizeof(*options));
	options->max_overhead = -1;
	options->max_time_percent = COMPARE_DEFAULT_MAX_TIME_PERCENT;
	options->alpha = COMPARE_DEFAULT_ALPHA;
}

/* ---- settings ---------------------------------------------------------- */

int compare_settings_of_file(const struct result_file *file, struct compare_settings *out)
{
	double v;
	const char *s;

	memset(out, 0, sizeof(*out));
	out->workload = file->workload;
	if (results_file_number(file, "config.total_bytes", &v) || v <= 0)
		return error("'%s': no \"config.total_bytes\": cannot tell what was measured",
			     file->path);
	out->total_bytes = file->total_bytes;
	if (!*file->touch)
		return error("'%s': no \"config.touch\": cannot tell what was measured", file->path);
	out->touch = file->touch;
	if ((s = results_file_string(file, "config.align")))
		copy_string(out->align, sizeof(out->align), s);
	else if (!results_file_number(file, "config.align", &v))
		snprintf(out->align, sizeof(out->align), "%.0f", v);
	out->pool_block_bytes = -1;
	if (!results_file_number(file, "config.pool_block_bytes", &v))
		out->pool_block_bytes = v;
	out->sanitizers = results_file_string(file, "tool.sanitizers");
	return 0;
}

void compare_settings_of_config(const struct run_config *config, struct compare_settings *out)
{
	memset(out, 0, sizeof(*out));
	out->workload = "fill";
	out->total_bytes = config->total_bytes;
	out->touch = touch_name(config->touch);
	if (config->align)
		snprintf(out->align, sizeof(out->align), "%zu", config->align);
	else
		copy_string(out->align, sizeof(out->align), "natural");
	out->pool_block_bytes = (double)config->pool_block_bytes;
	out->sanitizers = ALLOCBENCH_SANITIZE;
}

static int differ(const char *setting, const char *baseline_value, const char *baseline_name,
		  const char *current_value, const char *current_name)
{
	return error("different %s: %s in the baseline '%s', %s in '%s' (only reports "
		     "measured with the same settings compare)", setting, baseline_value,
		     baseline_name, current_value, current_name);
}

int compare_settings_check(const struct compare_settings *b, const char *b_name,
			   const struct compare_settings *c, const char *c_name)
{
	char bv[64], cv[64];

	if (strcmp(b->workload, c->workload))
		return differ("workload", b->workload, b_name, c->workload, c_name);
	if (b->total_bytes != c->total_bytes) {
		snprintf(bv, sizeof(bv), "%llu bytes", (unsigned long long)b->total_bytes);
		snprintf(cv, sizeof(cv), "%llu bytes", (unsigned long long)c->total_bytes);
		return differ("total (--total)", bv, b_name, cv, c_name);
	}
	if (strcmp(b->touch, c->touch))
		return differ("touch policy (--touch)", b->touch, b_name, c->touch, c_name);
	if (*b->align && *c->align && strcmp(b->align, c->align))
		return differ("alignment (--align)", b->align, b_name, c->align, c_name);
	if (b->pool_block_bytes >= 0 && c->pool_block_bytes >= 0 &&
	    b->pool_block_bytes != c->pool_block_bytes) {
		snprintf(bv, sizeof(bv), "%.0f bytes", b->pool_block_bytes);
		snprintf(cv, sizeof(cv), "%.0f bytes", c->pool_block_bytes);
		return differ("pool block (--pool-block)", bv, b_name, cv, c_name);
	}
	/* Under AddressSanitizer malloc is the sanitizer's, with its red zones. */
	if (b->sanitizers && c->sanitizers && strcmp(b->sanitizers, c->sanitizers)) {
		snprintf(bv, sizeof(bv), "'%s'", b->sanitizers);
		snprintf(cv, sizeof(cv), "'%s'", c->sanitizers);
		return differ("sanitizers (tool.sanitizers)", bv, b_name, cv, c_name);
	}
	return 0;
}

/* ---- matching ---------------------------------------------------------- */

static int same_key(const struct result_row *a, const struct result_row *b)
{
	return a->size == b->size && !strcmp(a->backend, b->backend) &&
	       !strcmp(a->workload, b->workload);
}

static int wanted(const struct compare_options *options, const char *backend)
{
	if (!options->backends)
		return 1;
	for (size_t i = 0; i < options->nbackends; i++)
		if (!strcmp(options->backends[i], backend))
			return 1;
	return 0;
}

/* Refuses a file in which one (workload, backend, size) appears twice. */
static int check_unique(const struct result_file *file)
{
	for (size_t i = 0; i < file->nrows; i++)
		for (size_t j = 0; j < i; j++)
			if (same_key(&file->rows[i], &file->rows[j]))
				return error("'%s': results[%zu] repeats results[%zu] (workload '%s', "
					     "backend '%s', size %llu): rows must be unique",
					     file->path, i, j, file->rows[i].workload,
					     file->rows[i].backend,
					     (unsigned long long)file->rows[i].size);
	return 0;
}

static const struct result_row *find_row(const struct result_file *file,
					 const struct result_row *key)
{
	for (size_t i = 0; i < file->nrows; i++)
		if (same_key(&file->rows[i], key))
			return &file->rows[i];
	return NULL;
}

/* ---- metrics ----------------------------------------------------------- */

/* Reads statistic NAME of an ok ROW; an error naming the file and row when absent. */
static int need_stat(struct result_file *file, const struct result_row *row, const char *name,
		     struct result_stat *out)
{
	if (!results_row_stat(file, row, name, out) && isfinite(out->median))
		return 0;
	return error("'%s': results[%zu] (%s, %llu B) has status \"ok\" but no \"%s\"",
		     file->path, (size_t)(row - file->rows), row->backend,
		     (unsigned long long)row->size, name);
}

static int compare_overhead(struct comparison *c, struct compare_row *row,
			    struct compare_metric *m)
{
	struct result_stat b, cur;
	double resolution;

	if (need_stat(c->baseline, row->baseline, "overhead_bytes", &b) ||
	    need_stat(c->current, row->current, "overhead_bytes", &cur))
		return -1;
	if (row->baseline->resolution_bytes <= 0)
		return error("'%s': results[%zu] (%s, %llu B) has no \"resolution_bytes\"",
			     c->baseline->path, (size_t)(row->baseline - c->baseline->rows),
			     row->backend, (unsigned long long)row->size);
	if (row->current->resolution_bytes <= 0)
		return error("'%s': results[%zu] (%s, %llu B) has no \"resolution_bytes\"",
			     c->current->path, (size_t)(row->current - c->current->rows),
			     row->backend, (unsigned long long)row->size);
	resolution = fmax(row->baseline->resolution_bytes, row->current->resolution_bytes);
	m->baseline = b.median;
	m->current = cur.median;
	m->change = cur.median - b.median;
	m->change_percent = b.median != 0 ? 100 * m->change / fabs(b.median) : 0;
	m->derived_bytes = COMPARE_TOLERANCE_PAGES * resolution + fabs(b.max - b.min);
	m->tolerance_bytes = m->derived_bytes;
	if (c->options.max_overhead >= 0) {
		m->from_option = 1;
		m->tolerance_bytes = c->options.max_overhead_percent ?
			c->options.max_overhead / 100 * ((double)row->size + b.median) :
			c->options.max_overhead;
	}
	m->verdict = m->change > m->tolerance_bytes ? COMPARE_REGRESSED :
		     m->change < -m->tolerance_bytes ? COMPARE_IMPROVED : COMPARE_UNCHANGED;
	return 0;
}

static int compare_time(struct comparison *c, struct compare_row *row, const char *name,
			struct compare_metric *m)
{
	struct result_stat b, cur;
	struct mann_whitney mw;

	if (need_stat(c->baseline, row->baseline, name, &b) ||
	    need_stat(c->current, row->current, name, &cur))
		return -1;
	m->baseline = b.median;
	m->current = cur.median;
	m->change = cur.median - b.median;
	m->change_percent = b.median > 0 ? 100 * m->change / b.median : 0;
	m->baseline_runs = b.nruns;
	m->current_runs = cur.nruns;
	m->verdict = COMPARE_UNCHANGED;
	if (b.nruns && cur.nruns) {
		if (stats_mann_whitney(b.runs, b.nruns, cur.runs, cur.nruns, &mw))
			return error("out of memory");
		m->have_p = 1;
		m->exact = mw.exact;
		m->p_slower = mw.p_greater;
		m->p_faster = mw.p_less;
		m->tested = stats_mann_whitney_min_p(b.nruns, cur.nruns) < c->options.alpha;
	}
	if (!m->tested) {
		c->time_untested++;
		return 0;
	}
	c->time_tested++;
	if (m->p_slower < c->options.alpha && m->change_percent > c->options.max_time_percent)
		m->verdict = COMPARE_REGRESSED;
	else if (m->p_faster < c->options.alpha &&
		 m->change_percent < -c->options.max_time_percent)
		m->verdict = COMPARE_IMPROVED;
	return 0;
}

static int compare_row_metrics(struct comparison *c, struct compare_row *row)
{
	int regressed = 0, improved = 0;

	if (compare_overhead(c, row, &row->metrics[COMPARE_OVERHEAD]) ||
	    compare_time(c, row, "alloc_ns", &row->metrics[COMPARE_ALLOC]) ||
	    compare_time(c, row, "free_ns", &row->metrics[COMPARE_FREE]))
		return -1;
	for (int i = 0; i < COMPARE_NMETRICS; i++) {
		regressed |= row->metrics[i].verdict == COMPARE_REGRESSED;
		improved |= row->metrics[i].verdict == COMPARE_IMPROVED;
	}
	row->verdict = regressed ? COMPARE_REGRESSED : improved ? COMPARE_IMPROVED :
		       COMPARE_UNCHANGED;
	return 0;
}

/* ---- the comparison ---------------------------------------------------- */

static struct compare_row *add_row(struct comparison *c, const struct result_row *key)
{
	struct compare_row *row = &c->rows[c->nrows++];

	memset(row, 0, sizeof(*row));
	row->workload = key->workload;
	row->backend = key->backend;
	row->size = key->size;
	return row;
}

static int compare_pair(struct comparison *c, struct compare_row *row)
{
	if (!row->current) {
		row->verdict = COMPARE_MISSING;
	} else if (!row->baseline) {
		row->verdict = COMPARE_NEW;
	} else if (!row->current->ok) {
		row->verdict = COMPARE_FAILED;
	} else if (!row->baseline->ok) {
		/* Nothing to compare against: as if the baseline did not have it. */
		row->verdict = COMPARE_NEW;
	} else if (compare_row_metrics(c, row)) {
		return -1;
	}
	return 0;
}

/* A --backend that matches no row of either file is most likely a typo. */
static int check_backends(const struct comparison *c)
{
	for (size_t i = 0; i < c->options.nbackends; i++) {
		const char *name = c->options.backends[i];
		int found = 0;

		for (size_t r = 0; r < c->baseline->nrows && !found; r++)
			found = !strcmp(c->baseline->rows[r].backend, name);
		for (size_t r = 0; r < c->current->nrows && !found; r++)
			found = !strcmp(c->current->rows[r].backend, name);
		if (!found)
			return error("--backend '%s' matches no row of '%s' or '%s'", name,
				     c->baseline->path, c->current->path);
	}
	return 0;
}

int compare_reports(struct result_file *baseline, struct result_file *current,
		    const struct compare_options *options, struct comparison *out)
{
	struct compare_settings current_settings;

	memset(out, 0, sizeof(*out));
	out->baseline = baseline;
	out->current = current;
	out->options = *options;
	if (compare_settings_of_file(baseline, &out->settings) ||
	    compare_settings_of_file(current, &current_settings) ||
	    compare_settings_check(&out->settings, baseline->path, &current_settings,
				   current->path) ||
	    check_unique(baseline) || check_unique(current) || check_backends(out))
		return -1;
	for (out->min_runs = 1; out->min_runs < RUN_MAX_REPEAT; out->min_runs++)
		if (stats_mann_whitney_min_p(out->min_runs, out->min_runs) < options->alpha)
			break;

	out->rows = calloc(baseline->nrows + current->nrows + 1, sizeof(*out->rows));
	if (!out->rows)
		return error("out of memory");
	for (size_t i = 0; i < baseline->nrows; i++) {
		const struct result_row *b = &baseline->rows[i];
		struct compare_row *row;

		if (!wanted(options, b->backend))
			continue;
		row = add_row(out, b);
		row->baseline = b;
		row->current = find_row(current, b);
		if (compare_pair(out, row)) {
			comparison_release(out);
			return -1;
		}
	}
	for (size_t i = 0; i < current->nrows; i++) {
		const struct result_row *cur = &current->rows[i];
		struct compare_row *row;

		if (!wanted(options, cur->backend) || find_row(baseline, cur))
			continue;
		row = add_row(out, cur);
		row->current = cur;
		if (compare_pair(out, row)) {
			comparison_release(out);
			return -1;
		}
	}
	for (size_t i = 0; i < out->nrows; i++) {
		const struct compare_row *row = &out->rows[i];

		out->verdicts[row->verdict]++;
		/* A row that failed in both reports is no news: the run says so anyway. */
		if (row->verdict == COMPARE_REGRESSED ||
		    (row->verdict == COMPARE_FAILED && row->baseline && row->baseline->ok))
			out->regression = 1;
	}
	return 0;
}

void comparison_release(struct comparison *comparison)
{
	free(comparison->rows);
	memset(comparison, 0, sizeof(*comparison));
}

int compare_load_report(const struct run_report *report, const char *name,
			struct result_file *out)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int ret;

	if (!f)
		return error("out of memory");
	ret = report_json_write(f, report);
	if (fclose(f) || ret) {
		free(text);
		return error("cannot serialise this run's report");
	}
	ret = results_load_buffer(name, text, len, out);
	free(text);
	return ret;
}

int compare_baseline_open(const char *path, const struct run_config *config,
			  struct result_file *baseline)
{
	struct compare_settings wanted_settings, settings;
	struct compare_options options;
	struct comparison self;

	if (results_load(path, baseline))
		return -1;
	compare_settings_of_config(config, &wanted_settings);
	compare_options_init(&options);
	/* Comparing the baseline with itself checks every row as the real comparison will. */
	if (compare_settings_of_file(baseline, &settings) ||
	    compare_settings_check(&settings, baseline->path, &wanted_settings, "this run") ||
	    compare_reports(baseline, baseline, &options, &self)) {
		results_release(baseline);
		return -1;
	}
	comparison_release(&self);
	return 0;
}

int compare_baseline_run(struct result_file *baseline, const struct run_report *report,
			 FILE *out)
{
	struct compare_options options;
	struct result_file current;
	struct comparison comparison;
	int ret;

	if (compare_load_report(report, "this run", &current))
		return -1;
	compare_options_init(&options);
	if (compare_reports(baseline, &current, &options, &comparison)) {
		results_release(&current);
		return -1;
	}
	ret = compare_write_text(out, &comparison);
	if (!ret)
		ret = comparison.regression ? 1 : 0;
	else
		error("cannot write the comparison");
	comparison_release(&comparison);
	results_release(&current);
	return ret;
}
