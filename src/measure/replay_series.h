/*
 * replay_series.h - a replay's memory over time: the resident anonymous
 * memory and the bytes alive at SAMPLE_SERIES_POINTS evenly spaced points
 * of its steps, read in the pauses of measure_replay()'s loop (replay.h).
 *
 * A point is read exactly, as rss_before_bytes and the fill's readings
 * are (smaps_rollup's Anonymous, probe_rss_read()), while the exact
 * readings so far cost at most REPLAY_SERIES_SHARE per cent of the time
 * since the series began, or REPLAY_SERIES_ALLOWANCE_NS in all; the last
 * point always. Another point is the last exact reading plus what statm
 * says changed since (probe_statm_anon()): exact where the kernel sums its
 * per-CPU counters (seen on 6.18), else off by up to max(32, 2 x CPUs)
 * pages per CPU (probe.h), which a large replay, the one whose exact
 * readings cost, can bear. smaps_rollup costs 10 to 20 us per MiB resident
 * (1.3 ms a reading at 60 MiB on a loaded machine: 0.25 s over 200
 * readings, a third of such a replay when every point was exact); statm a
 * third of a microsecond. None of it is timed (the clock stops for each) and none of
 * its page faults counted. The reader adds no page of its own to the
 * figure: its descriptors are open, its buffer on a stack already as deep,
 * and the series' arrays written, before the first reading of the loop
 * (rss_before_bytes).
 */
#ifndef ALLOCBENCH_REPLAY_SERIES_H
#define ALLOCBENCH_REPLAY_SERIES_H

#include "measure/measure.h"
#include "trace/trace.h"

#include <stddef.h>
#include <stdint.h>

#define REPLAY_SERIES_SHARE 5
#define REPLAY_SERIES_ALLOWANCE_NS 5e6

struct replay_series {
	int fd;            /* the exact reader (probe_rss_open()), -1: no series */
	int statm;         /* the cheap one (probe_statm_open()), -1: every point exact */
	unsigned next;     /* the next point to read */
	uint64_t faults;   /* minor page faults of the readings, not of the loop */
	uint64_t exact;    /* the last exact reading, bytes */
	uint64_t statm_then; /* statm's reading right after it, bytes */
	struct probe_time start; /* when the series began */
	double spent_ns;   /* the exact readings' time so far */
	double cost_ns;    /* the last exact reading's */
};

/*
 * Before the loop and its first RSS reading: plans SAMPLE's points for PLAN
 * (nseries, series_steps: the i-th of N after ceil(i * nops / N) steps,
 * N = SAMPLE_SERIES_POINTS or nops when fewer; series_live_bytes, worked
 * out from the plan with SCRATCH, one word per slot, whose contents it
 * leaves undefined), opens the reader and reads once. Without a reader
 * SAMPLE has no series (nseries 0); the replay goes on.
 */
void replay_series_start(struct replay_series *rs, const struct replay_plan *plan,
			 struct sample *sample, uint64_t *scratch);

/* The step after which the next point is due; NOPS when none is. */
static inline size_t replay_series_due(const struct replay_series *rs,
				       const struct sample *sample, size_t nops)
{
	return rs->next < sample->nseries ? (size_t)sample->series_steps[rs->next] : nops;
}

/* Reads the point due (none: nothing), over SAMPLE's rss_before_bytes. */
void replay_series_read(struct replay_series *rs, struct sample *sample);

/* After the loop: closes the reader. A point not read (the loop failed) leaves the series. */
void replay_series_stop(struct replay_series *rs, struct sample *sample);

/* The first of N values at their highest. */
unsigned series_peak(const uint64_t *values, unsigned n);

/*
 * 1 when memory fell from PEAK to NOW by more than a tenth: what was kept
 * after the peak is then worth saying (the text, the chart, advise's answer).
 */
static inline int series_fell(double now, double peak)
{
	return now < 0.9 * peak;
}

/*
 * What a replay kept once the program's live bytes fell from their peak:
 * the lowest resident of SAMPLE's series from the live bytes' (first) peak
 * on, and the resident at its last point, into LOW and END (bytes over the
 * replay's start, as the series reads them). -1 without a series.
 */
int sample_after_live_peak(const struct sample *sample, uint64_t *low, uint64_t *end);

#endif
