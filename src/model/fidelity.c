/*
 * fidelity.c - a replay against the program it was recorded from (fidelity.h).
 */
#include "model/fidelity.h"
#include "model/run.h"
#include "measure/backend.h"
#include "trace/trace_set.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* The 64-bit malloc row of REPORT, or NULL. */
static const struct cell *malloc_cell(const struct run_report *report)
{
	for (size_t i = 0; i < report->ncells; i++)
		if (!strcmp(report->cells[i].backend->name, "malloc"))
			return &report->cells[i];
	return NULL;
}

int replay_fidelity(const struct run_report *report, struct replay_fidelity *out)
{
	const struct run_replay *r = &report->config->replay;
	struct stat_summary s;

	memset(out, 0, sizeof(*out));
	if (report->config->workload != WORKLOAD_REPLAY || r->cut_short || !r->program_anon_kib)
		return -1;
	out->cell = malloc_cell(report);
	if (!out->cell || !out->cell->ok ||
	    cell_summary(report, out->cell, METRIC_PEAK_RSS_BYTES, &s))
		return -1;
	out->replay_bytes = s.median;
	out->program_bytes = 1024.0 * r->program_anon_kib;
	out->percent = 100.0 * fabs(out->replay_bytes - out->program_bytes) / out->program_bytes;
	return 0;
}

void replay_fidelity_text(const struct run_report *report, char *buf, size_t size)
{
	const struct run_replay *r = &report->config->replay;
	struct replay_fidelity f;
	struct trace_header h;
	char program[512];

	buf[0] = '\0';
	if (report->config->workload != WORKLOAD_REPLAY)
		return;
	if (!replay_fidelity(report, &f)) {
		snprintf(buf, size, "replay under malloc reproduces the program's peak anonymous "
			 "memory within %.1f%% (replay %.0f KiB, program %.0f KiB)", f.percent,
			 f.replay_bytes / 1024, f.program_bytes / 1024);
		return;
	}
	/* The trace's own words for what it lacks (trace_program_text()). */
	memset(&h, 0, sizeof(h));
	h.state = r->cut_short ? TRACE_STATE_WRITING : TRACE_STATE_EXIT;
	h.run_ns = r->program_run_ns;
	h.hwm_kib = r->program_hwm_kib;
	h.anon_peak_kib = r->program_anon_kib;
	if (!trace_program_text(&h, r->calls, program, sizeof(program)))
		snprintf(buf, size, "no comparison with the program itself: %s", program);
	else if (!f.cell)
		snprintf(buf, size, "no comparison with the program itself: malloc, the allocator "
			 "it was recorded with, was not replayed (the program's peak anonymous memory: "
			 "%" PRIu32 " KiB)", r->program_anon_kib);
	else
		snprintf(buf, size, "no comparison with the program itself: the replay under malloc "
			 "failed (the program's peak anonymous memory: %" PRIu32 " KiB)",
			 r->program_anon_kib);
}

int replay_fidelity_caution(const struct run_report *report, char *buf, size_t size)
{
	struct replay_fidelity f;
	int n;

	if (replay_fidelity(report, &f) || f.percent <= FIDELITY_TRUST_PERCENT)
		return 0;
	n = snprintf(buf, size, "  caution: the replay under malloc misses the program's own peak "
		     "anonymous memory by %.1f%% (replay %.0f KiB, program %.0f KiB), more than "
		     "%.0f%%: ", f.percent, f.replay_bytes / 1024, f.program_bytes / 1024,
		     FIDELITY_TRUST_PERCENT);
	if (n < 0 || (size_t)n >= size)
		return 1;
	if (f.replay_bytes < f.program_bytes)
		/* cc1 keeps most of its memory in its own mappings: malloc holds a share. */
		snprintf(buf + n, size - (size_t)n, "the program holds %.0f%% of it outside "
			 "malloc (its own mappings, stack and libraries' data), which no "
			 "allocator changes; the savings below are of malloc's share alone",
			 100.0 * (f.program_bytes - f.replay_bytes) / f.program_bytes);
	else
		snprintf(buf + n, size - (size_t)n, "the replay holds memory the program did "
			 "not (pages it allocated and never touched, threads it had not alive "
			 "at once); the figures below are the replay's, and the program may rank "
			 "the allocators otherwise");
	return 1;
}
