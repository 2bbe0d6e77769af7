#include "report/compare.h"
#include "platform/probe.h"
#include "model/run.h"
#include "model/stats.h"
#include "measure/workloads.h"
#include "platform/util.h"

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

/* Not a figure of the tables: the bytes a deterministic backend reserves. */
static const struct compare_metric_def reserved_def = {
	"reserved_bytes", "reserved B", 0, FIGURE_COMPARE_EXACT, 0
};

/* Each workload's gated metrics, made from figure.h's tables on first use. */
static struct {
	int made;
	struct compare_metric_def defs[COMPARE_MAX_METRICS];
	size_t n;
} gated[WORKLOAD_COUNT];

/*
 * The gated metrics of WORKLOAD ("fill", "churn", "random", "threads") into
 * *DEFS; returns how many, 0 for a workload this allocbench does not know.
 */
static size_t compare_workload_metrics(const char *workload, const struct compare_metric_def **defs)
{
	enum workload w;

	*defs = NULL;
	if (workload_parse(workload, &w))
		return 0;
	if (!gated[w].made) {
		const struct workload_def *wd = workload_def(w);

		for (size_t i = 0; i < wd->ngated && gated[w].n < COMPARE_MAX_METRICS; i++) {
			const struct figure *f = figure_get(wd->gated[i]);

			gated[w].defs[gated[w].n++] = (struct compare_metric_def){
				f->name, f->compare_label, f->compare_decimals, f->compare,
				f->compare_optional
			};
		}
		if (wd->gates_reserved && gated[w].n < COMPARE_MAX_METRICS)
			gated[w].defs[gated[w].n++] = reserved_def;
		gated[w].made = 1;
	}
	*defs = gated[w].defs;
	return gated[w].n;
}

const char *compare_verdict_name(enum compare_verdict verdict)
{
	return verdict_names[verdict];
}

void compare_options_init(struct compare_options *options)
{
	memset(options, 0, sizeof(*options));
	options->max_overhead = -1;
	options->max_time_percent = COMPARE_DEFAULT_MAX_TIME_PERCENT;
	options->alpha = COMPARE_DEFAULT_ALPHA;
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

/* Where a row sits in its file, for messages: "results[3] (pool, 40 B)". */
static void row_name(const struct result_file *file, const struct result_row *row, char *buf,
		     size_t size)
{
	snprintf(buf, size, "results[%zu] (%s, %llu B)", (size_t)(row - file->rows), row->backend,
		 (unsigned long long)row->size);
}

/* Reads statistic NAME of an ok ROW; an error naming the file and row when absent. */
static int need_stat(struct result_file *file, const struct result_row *row, const char *name,
		     struct result_stat *out)
{
	char where[128];

	if (!results_row_stat(file, row, name, out) && isfinite(out->median))
		return 0;
	row_name(file, row, where, sizeof(where));
	return error("'%s': %s has status \"ok\" but no \"%s\"", file->path, where, name);
}

/* ROW's resolution_bytes; an error naming the file and row when absent. */
static int need_resolution(const struct result_file *file, const struct result_row *row)
{
	char where[128];

	if (row->resolution_bytes > 0)
		return 0;
	row_name(file, row, where, sizeof(where));
	return error("'%s': %s has no \"resolution_bytes\"", file->path, where);
}

/* The page size of the host that measured FILE (this host's when it does not say). */
static double page_size_of(const struct result_file *file)
{
	double page;

	if (results_file_number(file, "host.page_size", &page) || !(page > 0))
		page = (double)probe_page_size();
	return page;
}

/*
 * The evidence of CUR against the baseline B into *D (their summaries only,
 * no rank test yet), and its change into M.
 */
static void set_change(struct compare_metric *m, struct stats_difference *d,
		       const struct result_stat *b, const struct result_stat *cur)
{
	struct stat_summary x = { b->median, b->min, b->max }, y = { cur->median, cur->min, cur->max };

	stats_difference_init(d, &x, &y);
	m->baseline = b->median;
	m->current = cur->median;
	m->change = d->change;
	m->change_percent = d->change_percent;
}

/*
 * The verdict of the statistics module's decision on D under RULE: higher
 * is worse, except for a rate (HIGHER_IS_BETTER).
 */
static enum compare_verdict judge(const struct stats_difference *d, const struct stats_rule *rule,
				  int higher_is_better)
{
	enum stats_direction dir = stats_differ(d, rule);

	if (dir == STATS_SAME)
		return COMPARE_UNCHANGED;
	return (dir == STATS_HIGHER) != higher_is_better ? COMPARE_REGRESSED : COMPARE_IMPROVED;
}

/* The verdict of a higher-is-worse change against a tolerance. */
static enum compare_verdict judge_tolerance(const struct compare_metric *m,
					    const struct stats_difference *d)
{
	struct stats_rule rule = { .min_change = m->tolerance_bytes };

	return judge(d, &rule, 0);
}

/* Memory figures: their tolerance is derived from the measurement. */
static int compare_memory(struct comparison *c, struct compare_row *row,
			  const struct compare_metric_def *def, const struct result_stat *b,
			  const struct result_stat *cur, struct compare_metric *m)
{
	struct stats_difference d;
	double live;
	char name[128];

	set_change(m, &d, b, cur);
	switch (def->rule) {
	case FIGURE_COMPARE_BYTES:
		if (need_resolution(c->baseline, row->baseline) ||
		    need_resolution(c->current, row->current))
			return -1;
		m->derived_bytes = COMPARE_TOLERANCE_PAGES *
				   fmax(row->baseline->resolution_bytes,
					row->current->resolution_bytes);
		break;
	case FIGURE_COMPARE_RSS:
		m->derived_bytes = COMPARE_TOLERANCE_PAGES * page_size_of(c->baseline);
		break;
	case FIGURE_COMPARE_COUNT:
		m->derived_bytes = 2 + fabs(b->median) / 100;
		break;
	default: /* FIGURE_COMPARE_RATIO: RSS over the bytes alive */
		/* random: over the bytes alive at the end; replay: at the peak */
		if (results_row_number(row->baseline, strcmp(row->workload, "replay") ? "live_bytes" :
				       "peak_live_bytes", &live) || !(live > 0)) {
			row_name(c->baseline, row->baseline, name, sizeof(name));
			return error("'%s': %s has no \"%s\" to judge its fragmentation by",
				     c->baseline->path, name,
				     strcmp(row->workload, "replay") ? "live_bytes" : "peak_live_bytes");
		}
		m->derived_bytes = COMPARE_TOLERANCE_PAGES * page_size_of(c->baseline) / live;
		break;
	}
	m->derived_bytes += fabs(b->max - b->min);
	m->tolerance_bytes = m->derived_bytes;
	if (def->rule == FIGURE_COMPARE_BYTES && c->options.max_overhead >= 0) {
		m->from_option = 1;
		m->tolerance_bytes = c->options.max_overhead_percent ?
			c->options.max_overhead / 100 * ((double)row->size + b->median) :
			c->options.max_overhead;
	}
	m->verdict = judge_tolerance(m, &d);
	return 0;
}

/*
 * Times (higher is worse) and rates (lower is worse): the evidence, with the
 * U test where both sides have runs. Decided by gate_times() once every row
 * is in, since the tests of one comparison are corrected together.
 */
static int compare_ranked(struct comparison *c, const struct result_stat *b,
			  const struct result_stat *cur, struct compare_metric *m)
{
	set_change(m, &m->diff, b, cur);
	m->baseline_runs = b->nruns;
	m->current_runs = cur->nruns;
	m->verdict = COMPARE_UNCHANGED;
	if (b->nruns && cur->nruns) {
		if (stats_difference_test(&m->diff, b->runs, b->nruns, cur->runs, cur->nruns))
			return error("out of memory");
		m->have_p = 1;
		m->exact = m->diff.exact;
		m->p_slower = m->q_slower = m->diff.p_higher;
		m->p_faster = m->q_faster = m->diff.p_lower;
	}
	/*
	 * Times measured at other moments drift on a shared machine (unchanged
	 * builds at --repeat 6 fail one in two): gated only when asked. Times
	 * measured N at a time are another machine's: two reports of different
	 * --jobs compare their bytes, not their times.
	 */
	if (!c->options.gate_time && !c->options.allow_host_change) {
		m->not_asked = 1;
		c->time_not_asked++;
	} else if (c->settings.jobs != c->current_jobs) {
		m->other_jobs = 1;
		c->time_other_jobs++;
	} else if (c->host_changed && !c->options.allow_host_change) {
		/* Another machine's drift exceeds any threshold worth having. */
		m->other_host = 1;
		c->time_other_host++;
	} else if (!m->have_p) {
		c->time_untested++;
	} else {
		m->candidate = 1;
	}
	return 0;
}

/* Counts that a deterministic backend repeats exactly: gated where every run agrees. */
static void compare_exact(const struct result_stat *b, const struct result_stat *cur,
			  struct compare_metric *m)
{
	static const struct stats_rule any_change = { .min_change = 0 };
	struct stats_difference d;

	set_change(m, &d, b, cur);
	m->tested = b->min == b->max && cur->min == cur->max;
	m->verdict = m->tested ? judge(&d, &any_change, 0) : COMPARE_UNCHANGED;
}

/* 1 when ROW's metrics were compared (both rows ok). */
static int compared_row(const struct compare_row *row)
{
	return row->baseline && row->current && row->baseline->ok && row->current->ok &&
	       row->nmetrics;
}

/* ROW's verdict: the worst of its metrics'. */
static void row_verdict(struct compare_row *row)
{
	int regressed = 0, improved = 0;

	for (size_t i = 0; i < row->nmetrics; i++) {
		regressed |= row->metrics[i].verdict == COMPARE_REGRESSED;
		improved |= row->metrics[i].verdict == COMPARE_IMPROVED;
	}
	row->verdict = regressed ? COMPARE_REGRESSED : improved ? COMPARE_IMPROVED :
		       COMPARE_UNCHANGED;
}

static int compare_row_metrics(struct comparison *c, struct compare_row *row)
{

	for (size_t i = 0; i < row->nmetrics; i++) {
		const struct compare_metric_def *def = &row->defs[i];
		struct compare_metric *m = &row->metrics[i];
		struct result_stat b, cur;

		if (def->optional &&
		    (results_row_stat(c->baseline, row->baseline, def->name, &b) ||
		     results_row_stat(c->current, row->current, def->name, &cur))) {
			m->absent = 1;
			m->verdict = COMPARE_UNCHANGED;
			c->absent++;
			continue;
		}
		if (need_stat(c->baseline, row->baseline, def->name, &b) ||
		    need_stat(c->current, row->current, def->name, &cur))
			return -1;
		switch (def->rule) {
		case FIGURE_COMPARE_BYTES:
		case FIGURE_COMPARE_RSS:
		case FIGURE_COMPARE_RATIO:
		case FIGURE_COMPARE_COUNT:
			if (compare_memory(c, row, def, &b, &cur, m))
				return -1;
			break;
		case FIGURE_COMPARE_TIME:
		case FIGURE_COMPARE_RATE:
			if (compare_ranked(c, &b, &cur, m))
				return -1;
			break;
		case FIGURE_COMPARE_EXACT:
			compare_exact(&b, &cur, m);
			break;
		case FIGURE_COMPARE_NONE:
			break;
		}
	}
	row_verdict(row);
	return 0;
}

/* The time tests of C that can reach significance, how many, and the runs that needs. */
static size_t time_family(struct comparison *c)
{
	size_t candidates = 0, family = 0;

	for (size_t i = 0; i < c->nrows; i++)
		for (size_t k = 0; k < c->rows[i].nmetrics; k++)
			candidates += (size_t)c->rows[i].metrics[k].candidate;
	/*
	 * A test whose runs cannot give p < alpha / candidates cannot pass
	 * Holm's first step: it is left out of the family (which depends on
	 * the counts of runs only, never on the values, so the rate holds).
	 */
	for (c->min_runs = 1; c->min_runs < RUN_MAX_REPEAT; c->min_runs++)
		if (stats_mann_whitney_min_p(c->min_runs, c->min_runs) * (double)(candidates ? candidates : 1) <
		    c->options.alpha)
			break;
	for (size_t i = 0; i < c->nrows; i++)
		for (size_t k = 0; k < c->rows[i].nmetrics; k++) {
			struct compare_metric *m = &c->rows[i].metrics[k];

			if (!m->candidate)
				continue;
			m->tested = m->diff.min_p * (double)candidates < c->options.alpha;
			family += (size_t)m->tested;
			c->time_untested += (size_t)!m->tested;
		}
	return family;
}

/*
 * Decides the time and rate metrics of C together: Holm's correction over
 * the family of its tests (those of regressions, and apart those of
 * improvements), then the statistics module's decision with the percentage
 * and the baseline's own spread. Returns 0, or -1 when out of memory.
 */
static int gate_times(struct comparison *c)
{
	const struct stats_rule rule = {
		.beyond_spread = 1, .min_percent = c->options.max_time_percent,
		.alpha = c->options.alpha,
	};
	struct tested {
		struct compare_metric *m;
		int rate;       /* lower is worse */
	} *family;
	double *worse, *better;
	size_t n = time_family(c), k = 0;
	int ret = 0;

	c->time_tested = n;
	if (!n)
		return 0;
	family = calloc(n, sizeof(*family));
	worse = calloc(n, sizeof(*worse));
	better = calloc(n, sizeof(*better));
	for (size_t i = 0; family && i < c->nrows; i++)
		for (size_t j = 0; j < c->rows[i].nmetrics; j++)
			if (c->rows[i].metrics[j].tested && c->rows[i].metrics[j].candidate)
				family[k++] = (struct tested){
					&c->rows[i].metrics[j],
					c->rows[i].defs[j].rule == FIGURE_COMPARE_RATE
				};
	for (k = 0; family && worse && better && k < n; k++) {
		worse[k] = family[k].rate ? family[k].m->p_faster : family[k].m->p_slower;
		better[k] = family[k].rate ? family[k].m->p_slower : family[k].m->p_faster;
	}
	if (!family || !worse || !better || stats_holm(worse, n, worse) ||
	    stats_holm(better, n, better)) {
		ret = error("out of memory");
		n = 0;
	}
	for (k = 0; k < n; k++) {
		struct compare_metric *m = family[k].m;

		m->diff.q_higher = m->q_slower = family[k].rate ? better[k] : worse[k];
		m->diff.q_lower = m->q_faster = family[k].rate ? worse[k] : better[k];
		m->verdict = judge(&m->diff, &rule, family[k].rate);
	}
	free(family);
	free(worse);
	free(better);
	for (size_t i = 0; i < c->nrows; i++)
		if (compared_row(&c->rows[i]))
			row_verdict(&c->rows[i]);
	return ret;
}

/* Random and replay rows run one sequence: different checksums are not comparable. */
static int check_sequence(const struct comparison *c, const struct compare_row *row)
{
	const char *b = results_row_string(row->baseline, "checksum");
	const char *cur = results_row_string(row->current, "checksum");

	if ((strcmp(row->workload, "random") && strcmp(row->workload, "replay")) ||
	    !row->baseline->ok || !row->current->ok)
		return 0;
	if (!b || !cur)
		return error("'%s': results[%zu] (%s) has no sequence \"checksum\"",
			     !b ? c->baseline->path : c->current->path,
			     (size_t)(!b ? row->baseline - c->baseline->rows :
				      row->current - c->current->rows), row->backend);
	if (strcmp(b, cur))
		return error("different sequences: checksum %s in the baseline '%s', %s in '%s' "
			     "(%s): only the same operations compare", b, c->baseline->path, cur,
			     c->current->path, row->backend);
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
	row->nmetrics = compare_workload_metrics(row->workload, &row->defs);
	if (row->baseline && row->current && check_sequence(c, row))
		return -1;
	if (!row->nmetrics && row->baseline && row->current && row->current->ok &&
	    row->baseline->ok)
		return error("'%s': results[%zu]: workload '%s' is not one this allocbench "
			     "compares", c->current->path, (size_t)(row->current - c->current->rows),
			     row->workload);
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
	out->current_jobs = current_settings.jobs;

	compare_find_host_changes(out);
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
	compare_find_allocator_changes(out);
	if (gate_times(out)) {
		comparison_release(out);
		return -1;
	}
	for (size_t i = 0; i < out->nrows; i++) {
		const struct compare_row *row = &out->rows[i];

		out->verdicts[row->verdict]++;
		out->in_common += row->baseline && row->current;
		/* A row that failed in both reports is no news: the run says so anyway. */
		if (row->verdict == COMPARE_REGRESSED ||
		    (row->verdict == COMPARE_FAILED && row->baseline && row->baseline->ok) ||
		    (row->verdict == COMPARE_MISSING && !options->allow_missing))
			out->regression = 1;
	}
	/* A gate that an empty report passes is no gate. */
	if (!out->in_common && !options->allow_missing)
		out->regression = 1;
	return 0;
}

void comparison_release(struct comparison *comparison)
{
	free(comparison->rows);
	memset(comparison, 0, sizeof(*comparison));
}
