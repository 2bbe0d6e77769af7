#include "model/breakdown.h"
#include "measure/backend.h"
#include "model/run.h"
#include "model/stats.h"

#include <stdio.h>
#include <math.h>
#include <string.h>

static const char *const breakdown_names[BREAKDOWN_COUNT] = {
	[BREAKDOWN_USABLE] = "usable_bytes",
	[BREAKDOWN_SLACK] = "slack_bytes",
	[BREAKDOWN_METADATA] = "metadata_bytes",
	[BREAKDOWN_MARGINAL_METADATA] = "marginal_metadata_bytes",
};

_Static_assert(BREAKDOWN_COUNT == CELL_LOADED_BREAKDOWNS, "struct cell_loaded's breakdowns");

const char *breakdown_name(enum breakdown b)
{
	return breakdown_names[b];
}

int breakdown_value(const struct cell *cell, const struct sample *sample,
		    enum breakdown b, double *out)
{
	double overhead;

	if (!sample->allocator.has_usable)
		return -1;
	switch (b) {
	case BREAKDOWN_USABLE:
		*out = sample->allocator.usable_bytes;
		return 0;
	case BREAKDOWN_SLACK:
		*out = sample->allocator.usable_bytes - (double)cell->size;
		return 0;
	case BREAKDOWN_METADATA:
		if (metric_value(cell, sample, METRIC_OVERHEAD_BYTES, 0, &overhead))
			return -1;
		*out = overhead - (sample->allocator.usable_bytes - (double)cell->size);
		return 0;
	case BREAKDOWN_MARGINAL_METADATA:
		if (metric_value(cell, sample, METRIC_MARGINAL_BYTES, 0, &overhead))
			return -1;
		*out = overhead - (sample->allocator.usable_bytes - (double)cell->size);
		return 0;
	case BREAKDOWN_COUNT:
		break;
	}
	return -1;
}

int breakdown_summary(const struct cell *cell, enum breakdown b,
		      struct stat_summary *out, double *runs)
{
	double values[RUN_MAX_REPEAT];

	if (!cell->ok || !cell->runs)
		return -1;
	if (cell->loaded) {
		/* Read back from JSON: the summary only (RUNS is left alone). */
		if (!cell->loaded->have_breakdown[b])
			return -1;
		*out = cell->loaded->breakdown[b];
		return 0;
	}
	for (unsigned r = 0; r < cell->runs; r++)
		if (breakdown_value(cell, &cell->samples[r], b, &values[r]))
			return -1;
	if (runs)
		memcpy(runs, values, cell->runs * sizeof(values[0]));
	return stats_summarize(values, cell->runs, out);
}

int breakdown_slack_exceeds_overhead(const struct run_report *report, const struct cell *cell)
{
	struct stat_summary slack, overhead;

	if (breakdown_summary(cell, BREAKDOWN_SLACK, &slack, NULL) ||
	    cell_summary(report, cell, METRIC_OVERHEAD_BYTES, &overhead))
		return -1;
	return slack.median - overhead.median > resolution_bytes(report, cell->count);
}

int breakdown_metadata_negative(const struct cell *cell)
{
	struct stat_summary s;

	if (breakdown_summary(cell, BREAKDOWN_METADATA, &s, NULL))
		return -1;
	return s.median < 0;
}

int breakdown_overhead_varies(const struct run_report *report, const struct cell *cell)
{
	struct stat_summary s;
	double allowed;

	if (cell_summary(report, cell, METRIC_OVERHEAD_BYTES, &s))
		return -1;
	allowed = fmax(0.01 * fabs(s.median), resolution_bytes(report, cell->count));
	return s.max - s.min > allowed;
}

size_t breakdown_notes(const struct run_report *report, const struct cell *cell,
		       char notes[BREAKDOWN_MAX_NOTES][BREAKDOWN_NOTE_BYTES])
{
	struct stat_summary overhead, slack, usable;
	size_t n = 0;

	if (cell_summary(report, cell, METRIC_OVERHEAD_BYTES, &overhead))
		return 0;
	if (breakdown_overhead_varies(report, cell) == 1)
		snprintf(notes[n++], BREAKDOWN_NOTE_BYTES,
			 "overhead varies by %.1f%% between runs (%.2f to %.2f B/chunk): "
			 "where the allocator places the chunks changes from run to run",
			 (overhead.max - overhead.min) / fmax(fabs(overhead.median), 1e-9) * 100,
			 overhead.min, overhead.max);
	if (breakdown_slack_exceeds_overhead(report, cell) == 1 &&
	    !breakdown_summary(cell, BREAKDOWN_SLACK, &slack, NULL) &&
	    !breakdown_summary(cell, BREAKDOWN_USABLE, &usable, NULL))
		snprintf(notes[n++], BREAKDOWN_NOTE_BYTES,
			 "metadata < 0 (*): slack (%.2f B) exceeds the RSS overhead (%.2f B): the untouched "
			 "tail of each %.0f-byte slot never became resident",
			 slack.median, overhead.median, usable.median);
	else if (breakdown_metadata_negative(cell) == 1 &&
		 !breakdown_summary(cell, BREAKDOWN_METADATA, &slack, NULL))
		snprintf(notes[n++], BREAKDOWN_NOTE_BYTES,
			 "metadata < 0 (*): %.2f B is within the resolution of the RSS overhead "
			 "(%.2f B per chunk, one page over the count): the metadata is 0 to "
			 "within a page", slack.median, resolution_bytes(report, cell->count));
	return n;
}

void breakdown_allocator(char *buf, size_t size, const struct cell *cell)
{
	const struct allocator_info *info;
	char version[32];

	buf[0] = '\0';
	if (!cell->ok || !cell->runs)
		return;
	info = &cell->samples[cell_median_run(cell)].allocator;
	if (!info->name[0])
		return;
	/* "5.3.0" of jemalloc's "5.3.0-0-g54eaed1d...": the table has no room for the hash. */
	snprintf(version, sizeof(version), "%.*s", (int)strcspn(info->version, "-"), info->version);
	snprintf(buf, size, "%s%s%s", info->name, strcmp(version, "unknown") ? " " : "",
		 strcmp(version, "unknown") ? version : "");
}
