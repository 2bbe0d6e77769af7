/*
 * history.c - the series of a history and their steps (history.h).
 */
#include "model/history.h"
#include "model/report.h"
#include "model/run.h"
#include "model/stats.h"
#include "measure/backend.h"
#include "platform/util.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The most steps kept per series: a history is read by a person. */
enum { HISTORY_MAX_STEPS = 16 };

void history_options_init(struct history_options *options)
{
	options->alpha = 0.05;
	options->min_step = 5;
	options->metric = -1;
}

/* The cell of REPORT with BACKEND and SIZE, or NULL. */
static const struct cell *find_cell(const struct run_report *report, const char *backend,
				    size_t size)
{
	for (size_t i = 0; i < report->ncells; i++)
		if (report->cells[i].size == size && !strcmp(report->cells[i].backend->name, backend))
			return &report->cells[i];
	return NULL;
}

/*
 * The least step of METRIC that is more than the measurement's own
 * resolution, at CELL of REPORT: compare's page tolerances (report/compare.h),
 * so that a history flags nothing a gate between two of its reports
 * would pass for its size.
 */
static double step_floor(enum metric metric, const struct run_report *report,
			 const struct cell *cell)
{
	switch (figure_get(metric)->compare) {
	case FIGURE_COMPARE_BYTES:
		return 2 * resolution_bytes(report, cell->count);
	case FIGURE_COMPARE_RSS:
		return 2.0 * (double)report->host.page_size;
	case FIGURE_COMPARE_COUNT:
		return 2;
	default:
		return 0;
	}
}

/*
 * The median of the values of V in [LO, HI) that are not NAN, and their
 * spread: 1.4826 times their median absolute deviation, which is the
 * standard deviation of normal noise, and is not moved by an outlier. BUF
 * has room for the values.
 */
static double segment_median(const double *v, size_t lo, size_t hi, double *buf,
			     double *spread)
{
	struct stat_summary s;
	size_t n = 0;

	for (size_t i = lo; i < hi; i++)
		if (!isnan(v[i]))
			buf[n++] = v[i];
	if (!n || stats_summarize(buf, n, &s))
		return NAN;
	if (spread) {
		struct stat_summary d;

		for (size_t i = 0; i < n; i++)
			buf[i] = fabs(buf[i] - s.median);
		*spread = stats_summarize(buf, n, &d) ? 0 : 1.4826 * d.median;
	}
	return s.median;
}

/*
 * The steps of S: E-divisive over the reports that have a value, then
 * only those larger than MIN_STEP per cent of the value before, than the
 * measurement's resolution (step_floor()) and than three times the noise
 * of the reports on either side (segment_median()'s spread), each with
 * the medians between its neighbours. Returns 0 or -1 (no memory).
 */
static int find_steps(struct history_series *s, const struct history_options *options,
		      const struct history *h)
{
	struct changepoint cp[HISTORY_MAX_STEPS];
	size_t at[HISTORY_MAX_STEPS + 2], *idx = malloc(h->nreports * sizeof(*idx)), kept = 0;
	double *dense = malloc(2 * h->nreports * sizeof(*dense)), *buf, p[HISTORY_MAX_STEPS];
	size_t n = 0;
	int found, ret = -1;

	if (!idx || !dense)
		goto out;
	buf = dense + h->nreports;
	for (size_t i = 0; i < h->nreports; i++)
		if (!isnan(s->values[i])) {
			idx[n] = i;
			dense[n++] = s->values[i];
		}
	s->nvalues = n;
	found = changepoints_find(dense, n, options->alpha, cp, HISTORY_MAX_STEPS);
	if (found < 0)
		goto out;
	at[0] = 0;
	for (int c = 0; c < found; c++) {
		size_t from = idx[cp[c].at], next = c + 1 < found ? idx[cp[c + 1].at] : h->nreports;
		double noise_before, noise_after;
		double before = segment_median(s->values, at[kept], from, buf, &noise_before);
		double after = segment_median(s->values, from, next, buf, &noise_after);
		const struct cell *cell = find_cell(h->reports[from].report, s->backend, s->size);
		double least = fmax(step_floor(s->metric, h->reports[from].report, cell),
				    options->min_step / 100 * fabs(before));

		if (fabs(after - before) <= fmax(least, 3 * fmax(noise_before, noise_after)))
			continue;
		at[++kept] = from;
		p[kept - 1] = cp[c].p;
	}
	at[kept + 1] = h->nreports;
	s->steps = kept ? calloc(kept, sizeof(*s->steps)) : NULL;
	if (kept && !s->steps)
		goto out;
	for (size_t k = 0; k < kept; k++)
		s->steps[k] = (struct history_step){
			.at = at[k + 1],
			.before = segment_median(s->values, at[k], at[k + 1], buf, NULL),
			.after = segment_median(s->values, at[k + 1], at[k + 2], buf, NULL),
			.p = p[k],
		};
	s->nsteps = kept;
	if (kept) {
		const struct history_step *last = &s->steps[kept - 1];
		int higher = last->after > last->before;

		s->worse = figure_get(s->metric)->aspect == FIGURE_RATE ? !higher : higher;
	}
	ret = 0;
out:
	free(idx);
	free(dense);
	return ret;
}

/*
 * The series of H at (METRIC, BACKEND, SIZE); when it is not there, appended
 * with every value NAN and *ADDED set. NULL: no memory.
 */
static struct history_series *series_at(struct history *h, enum metric metric, const char *backend,
					size_t size, int *added)
{
	struct history_series *s;

	*added = 0;
	for (size_t i = 0; i < h->nseries; i++)
		if (h->series[i].metric == metric && h->series[i].size == size &&
		    !strcmp(h->series[i].backend, backend))
			return &h->series[i];
	s = realloc(h->series, (h->nseries + 1) * sizeof(*s));
	if (!s)
		return NULL;
	h->series = s;
	s = &s[h->nseries];
	*s = (struct history_series){ .metric = metric, .backend = backend, .size = size };
	s->values = malloc(h->nreports * sizeof(*s->values));
	if (!s->values)
		return NULL;
	for (size_t r = 0; r < h->nreports; r++)
		s->values[r] = NAN;
	h->nseries++;
	*added = 1;
	return s;
}

/* Appends the series of METRIC at (BACKEND, SIZE) to H unless it is there. */
static int add_series(struct history *h, enum metric metric, const char *backend, size_t size)
{
	int added;
	struct history_series *s = series_at(h, metric, backend, size, &added);

	if (!s)
		return -1;
	if (!added)
		return 0;
	for (size_t r = 0; r < h->nreports; r++) {
		const struct run_report *report = h->reports[r].report;
		const struct cell *cell = find_cell(report, backend, size);
		struct stat_summary sum;

		s->values[r] = cell && !cell_summary(report, cell, metric, &sum) ? sum.median : NAN;
	}
	return find_steps(s, &h->options, h);
}

/* The figures to follow: --metric, or the workload's gated ones. */
static size_t history_metrics(const struct history *h, enum workload workload,
			      const enum metric **out, enum metric *one)
{
	const struct workload_def *def = workload_def(workload);

	if (h->options.metric < 0) {
		*out = def->gated;
		return def->ngated;
	}
	*one = (enum metric)h->options.metric;
	*out = one;
	return 1;
}

/* ------------------------------------------------------------ side by side */

/*
 * S's values and steps from the judged family F (N series, FROM[k] the
 * report of F[k]): each link's level is the one before times its median
 * slowdown (a rate: over it), starting, and again after a link without
 * the row, from the link's OLD median. Returns 0, or -1 (no memory).
 */
static int link_chain(struct history *h, struct history_series *s, const struct ab_series *f,
		      const size_t *from, size_t n)
{
	int rate = figure_get(s->metric)->aspect == FIGURE_RATE;
	double level = NAN;

	for (size_t r = 0; r < h->nreports; r++) {
		const struct ab_series *a = NULL;
		struct stat_summary old;
		double before;

		for (size_t k = 0; k < n && !a; k++)
			if (from[k] == r && f[k].metric == s->metric && f[k].size == s->size &&
			    !strcmp(f[k].new_backend, s->backend))
				a = &f[k];
		if (!a) {
			level = NAN;
			continue;
		}
		if (isnan(level)) {
			if (stats_summarize(a->old, a->n, &old))
				return -1;
			level = old.median;
		}
		before = level;
		level = rate ? level / a->slowdown : level * a->slowdown;
		s->values[r] = level;
		s->nvalues++;
		if (a->verdict == AB_SAME)
			continue;
		if (s->nsteps % HISTORY_MAX_STEPS == 0) {
			struct history_step *more = realloc(s->steps, (s->nsteps + HISTORY_MAX_STEPS) *
							    sizeof(*more));

			if (!more)
				return -1;
			s->steps = more;
		}
		s->steps[s->nsteps++] = (struct history_step){
			.at = r, .before = before, .after = level,
			.p = a->verdict == AB_SLOWER ? a->q_slower : a->q_faster,
		};
		s->worse = a->verdict == AB_SLOWER;
	}
	return 0;
}

/*
 * H's series from its links (side by side): every time of every link
 * (--metric: the one) judged as one family, then each row chained.
 * Returns 0, or -1 with WHY set.
 */
static int links_build(struct history *h, char *why, size_t why_size)
{
	const struct history_options *o = &h->options;
	struct ab_options judge = { .max_time = o->min_step, .alpha = o->alpha, .sign_test = 1 };
	struct ab_series *f = NULL;
	size_t *from = NULL, n = 0, k = 0;
	int ret = -1, added;

	for (size_t r = 0; r < h->nreports; r++)
		for (size_t i = 0; i < h->reports[r].link->nseries; i++)
			n += o->metric < 0 || h->reports[r].link->series[i].metric == (enum metric)o->metric;
	if (!n) {
		snprintf(why, why_size, "the comparisons time no %s (ab measures the times and "
			 "rates compare gates)", metric_name((enum metric)o->metric));
		return -1;
	}
	f = malloc(n * sizeof(*f));
	from = malloc(n * sizeof(*from));
	if (!f || !from)
		goto no_memory;
	h->least_pairs = SIZE_MAX;
	for (size_t r = 0; r < h->nreports; r++) {
		const struct history_link *l = h->reports[r].link;

		if (l->pairs < h->least_pairs)
			h->least_pairs = l->pairs;
		for (size_t i = 0; i < l->nseries; i++)
			if (o->metric < 0 || l->series[i].metric == (enum metric)o->metric) {
				from[k] = r;
				f[k++] = l->series[i];
			}
	}
	h->tests = n;
	if (ab_judge(f, n, &judge) < 0)
		goto no_memory;
	/* Figure-major, each figure's rows as the links first name them. */
	for (size_t i = 0; i < n; i++) {
		int seen = 0;

		for (size_t j = 0; j < i && !seen; j++)
			seen = f[j].metric == f[i].metric;
		for (k = i; k < n && !seen; k++)
			if (f[k].metric == f[i].metric &&
			    !series_at(h, f[k].metric, f[k].new_backend, f[k].size, &added))
				goto no_memory;
	}
	for (size_t i = 0; i < h->nseries; i++)
		if (link_chain(h, &h->series[i], f, from, n))
			goto no_memory;
	ret = 0;
	goto out;
no_memory:
	snprintf(why, why_size, "out of memory");
out:
	free(f);
	free(from);
	return ret;
}

/* ------------------------------------------------------------ the history */

static const char *report_workload(const struct history_report *r)
{
	return r->link ? r->link->workload : workload_name(r->report->config->workload);
}

int history_build(const struct history_report *reports, size_t n,
		  const struct history_options *options, struct history *out,
		  char *why, size_t why_size)
{
	enum workload workload;
	const enum metric *metrics;
	enum metric one;
	size_t nmetrics;

	*out = (struct history){ .nreports = n, .options = *options,
				 .workload = report_workload(&reports[0]),
				 .side_by_side = reports[0].link != NULL };
	for (size_t i = 1; i < n; i++) {
		if (!reports[i].link != !out->side_by_side) {
			snprintf(why, why_size, "'%s' is %s and '%s' %s: a history follows reports "
				 "or ab comparisons, not both", reports[0].path,
				 out->side_by_side ? "an ab comparison" : "a report", reports[i].path,
				 out->side_by_side ? "a report" : "an ab comparison");
			return -1;
		}
		if (strcmp(report_workload(&reports[i]), out->workload)) {
			snprintf(why, why_size, "'%s' is a %s %s and '%s' a %s one: a history follows "
				 "one workload", reports[0].path, out->workload,
				 out->side_by_side ? "comparison" : "report", reports[i].path,
				 report_workload(&reports[i]));
			return -1;
		}
	}
	if (workload_parse(out->workload, &workload)) {
		snprintf(why, why_size, "'%s': unknown workload %s", reports[0].path, out->workload);
		return -1;
	}
	if (options->metric >= 0 && !metric_applies((enum metric)options->metric, workload)) {
		snprintf(why, why_size, "%s is not a figure of the %s workload",
			 metric_name((enum metric)options->metric), out->workload);
		return -1;
	}
	out->reports = malloc(n * sizeof(*out->reports));
	if (!out->reports)
		goto no_memory;
	/* Oldest first; insertion keeps the given order where "created" ties. */
	for (size_t i = 0; i < n; i++) {
		size_t j = i;

		while (j > 0 && strcmp(out->reports[j - 1].created, reports[i].created) > 0) {
			out->reports[j] = out->reports[j - 1];
			j--;
		}
		out->reports[j] = reports[i];
	}
	if (out->side_by_side) {
		if (links_build(out, why, why_size)) {
			history_release(out);
			return -1;
		}
		return 0;
	}
	nmetrics = history_metrics(out, workload, &metrics, &one);
	for (size_t m = 0; m < nmetrics; m++)
		for (size_t r = 0; r < n; r++) {
			const struct run_report *report = out->reports[r].report;

			if (signal_caught) {  /* a series' steps can take a second or more */
				snprintf(why, why_size, "interrupted by SIG%s", sigabbrev_np(signal_caught));
				history_release(out);
				return -1;
			}
			for (size_t c = 0; c < report->ncells; c++)
				if (add_series(out, metrics[m], report->cells[c].backend->name,
					       report->cells[c].size))
					goto no_memory;
		}
	return 0;
no_memory:
	snprintf(why, why_size, "out of memory");
	history_release(out);
	return -1;
}

void history_release(struct history *history)
{
	for (size_t i = 0; i < history->nseries; i++) {
		free(history->series[i].values);
		free(history->series[i].steps);
	}
	free(history->series);
	free(history->reports);
	*history = (struct history){ 0 };
}
