/*
 * replay_series.c - a replay's memory over time (replay_series.h).
 */
#include "measure/replay_series.h"

#include <unistd.h>

/*
 * The bytes alive after each of SAMPLE's points, from PLAN's steps alone.
 * Returns 0, or -1 when the steps cannot be mapped.
 */
static int plan_live_bytes(const struct replay_plan *plan, struct sample *sample,
			   uint64_t *size_of)
{
	struct plan_view view = { 0 };
	uint64_t live = 0;
	unsigned p = 0;

	for (size_t k = 0; k < plan->nops && p < sample->nseries; k++) {
		const struct replay_op *op = plan_view_at(&view, plan, k);

		if (!op)
			return -1;
		if (op->kind == REPLAY_FREE) {
			live -= size_of[op->slot];
		} else {
			if (op->kind == REPLAY_RESIZE)
				live -= size_of[op->slot];
			size_of[op->slot] = op->size;
			live += op->size;
		}
		while (p < sample->nseries && sample->series_steps[p] == k + 1)
			sample->series_live_bytes[p++] = live;
	}
	plan_view_close(&view);
	return 0;
}

void replay_series_start(struct replay_series *rs, const struct replay_plan *plan,
			 struct sample *sample, uint64_t *scratch)
{
	unsigned n = plan->nops < SAMPLE_SERIES_POINTS ? (unsigned)plan->nops :
		     SAMPLE_SERIES_POINTS;

	*rs = (struct replay_series){ .fd = -1, .statm = -1 };
	sample->nseries = 0;
	/* Written now, so that no page of them is first touched between two readings. */
	memset(sample->series_rss_bytes, 0, sizeof(sample->series_rss_bytes));
	memset(sample->series_steps, 0, sizeof(sample->series_steps));
	memset(sample->series_live_bytes, 0, sizeof(sample->series_live_bytes));
	if (!n)
		return;
	rs->fd = probe_rss_open();
	if (rs->fd < 0)
		return;
	rs->statm = probe_statm_open();
	for (unsigned i = 1; i <= n; i++)
		sample->series_steps[i - 1] = (plan->nops * i + n - 1) / n;
	sample->nseries = n;
	if (plan_live_bytes(plan, sample, scratch)) {
		/* No series rather than a wrong one; the replay says why it cannot map. */
		sample->nseries = 0;
		replay_series_stop(rs, sample);
		return;
	}
	/* The reading once, as deep in the stack as the loop's (the point is read again). */
	replay_series_read(rs, sample);
	rs->next = 0;
	rs->start = probe_now();
	rs->spent_ns = 0;
}

/* An exact reading of the resident anonymous memory into *ANON, and statm's beside it. */
static int read_exact(struct replay_series *rs, uint64_t *anon)
{
	struct probe_time start = probe_now();

	if (probe_rss_read(rs->fd, anon))
		return -1;
	if (rs->statm >= 0 && probe_statm_anon(rs->statm, &rs->statm_then)) {
		close(rs->statm);
		rs->statm = -1;
	}
	rs->exact = *anon;
	rs->cost_ns = probe_elapsed_ns(start, probe_now());
	rs->spent_ns += rs->cost_ns;
	return 0;
}

/* The point's reading into *ANON: exact while that is affordable (replay_series.h). */
static int read_point(struct replay_series *rs, const struct sample *sample, uint64_t *anon)
{
	uint64_t statm;

	if (rs->statm < 0 || rs->next + 1 == sample->nseries ||
	    rs->spent_ns + rs->cost_ns <= REPLAY_SERIES_ALLOWANCE_NS ||
	    100 * (rs->spent_ns + rs->cost_ns) <=
	    REPLAY_SERIES_SHARE * probe_elapsed_ns(rs->start, probe_now()))
		return read_exact(rs, anon);
	if (probe_statm_anon(rs->statm, &statm)) {
		close(rs->statm);
		rs->statm = -1;
		return read_exact(rs, anon);
	}
	*anon = statm >= rs->statm_then || rs->exact > rs->statm_then - statm ?
		rs->exact + statm - rs->statm_then : 0;
	return 0;
}

void replay_series_read(struct replay_series *rs, struct sample *sample)
{
	uint64_t faults = probe_minor_faults(), anon;

	if (rs->fd < 0 || rs->next >= sample->nseries)
		return;
	if (read_point(rs, sample, &anon)) {
		/* No figure is better than a wrong one: the series ends here. */
		sample->nseries = rs->next;
		return;
	}
	sample->series_rss_bytes[rs->next++] =
		anon > sample->rss_before_bytes ? anon - sample->rss_before_bytes : 0;
	rs->faults += probe_minor_faults() - faults;
}

void replay_series_stop(struct replay_series *rs, struct sample *sample)
{
	if (rs->fd >= 0)
		close(rs->fd);
	if (rs->statm >= 0)
		close(rs->statm);
	rs->fd = rs->statm = -1;
	if (rs->next < sample->nseries)
		sample->nseries = rs->next;
}

unsigned series_peak(const uint64_t *values, unsigned n)
{
	unsigned at = 0;

	for (unsigned k = 1; k < n; k++)
		if (values[k] > values[at])
			at = k;
	return at;
}

int sample_after_live_peak(const struct sample *sample, uint64_t *low, uint64_t *end)
{
	unsigned n = sample->nseries, at;

	if (!n)
		return -1;
	at = series_peak(sample->series_live_bytes, n);
	*low = sample->series_rss_bytes[at];
	for (unsigned k = at + 1; k < n; k++)
		if (sample->series_rss_bytes[k] < *low)
			*low = sample->series_rss_bytes[k];
	*end = sample->series_rss_bytes[n - 1];
	return 0;
}
