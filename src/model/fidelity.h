/*
 * fidelity.h - how close a replay comes to the program it was recorded
 * from. The recording keeps the process's own peak anonymous memory
 * (trace_format.h, anon_peak_kib); the replay under the allocator the
 * program ran with while recorded (the C library's malloc, unless the
 * user preloaded another) should reproduce it: the replay's peak RSS
 * counts the allocator's set-up as the program pays it (runner.c). Every
 * replay report says how close it came, or why it cannot.
 */
#ifndef ALLOCBENCH_FIDELITY_H
#define ALLOCBENCH_FIDELITY_H

#include "model/report.h"

#include <stddef.h>

/* The replay under malloc against the program itself. */
struct replay_fidelity {
	const struct cell *cell;       /* the malloc row */
	double replay_bytes;           /* its median peak RSS (set-up included), bytes */
	double program_bytes;          /* the program's peak anonymous memory, bytes */
	double percent;                /* |replay - program| / program, per cent */
};

/*
 * REPORT's fidelity into *OUT. Returns 0, or -1 when there is none to give
 * (not a replay, the trace keeps no peak, no malloc row or it failed):
 * replay_fidelity_text() says which.
 */
int replay_fidelity(const struct run_report *report, struct replay_fidelity *out);

/*
 * The sentence every replay report prints, into BUF (SIZE bytes): "replay
 * under malloc reproduces the program's peak anonymous memory within 1.2%
 * (replay 20008 KiB, program 20268 KiB)", or why it cannot be said. ""
 * when REPORT is no replay.
 */
void replay_fidelity_text(const struct run_report *report, char *buf, size_t size);

/*
 * How far the replay under malloc may miss the program's own peak before
 * a verdict says that its figures may not stand for the program's.
 */
#define FIDELITY_TRUST_PERCENT 10.0

/*
 * When REPORT's replay misses the program by more than
 * FIDELITY_TRUST_PERCENT: the caution the answer gives before any verdict,
 * into BUF (SIZE bytes), and 1; else 0 (close enough, or not known).
 */
int replay_fidelity_caution(const struct run_report *report, char *buf, size_t size);

#endif
