/*
 * replay_plan.h - the plan's file as the analysis writes it (replay_plan.c,
 * for trace_analyze.c): steps in order through a buffer, a step already
 * written patched in place, then the figures.
 */
#ifndef ALLOCBENCH_REPLAY_PLAN_H
#define ALLOCBENCH_REPLAY_PLAN_H

#include "trace/trace.h"

struct plan_writer {
	int fd;                    /* the unnamed file, -1: not open */
	struct replay_op *buf;     /* steps [base, base + n), not yet written */
	size_t base, n;
	int err;                   /* the errno of the first failure, 0: none */
};

/* Opens W's file and buffer. Returns 0, or -1 with W->err. */
int plan_writer_open(struct plan_writer *w);

/* Room for the next step (zeroed), W's buffer written out first when full; NULL with W->err. */
struct replay_op *plan_writer_add(struct plan_writer *w);

/* Step STEP's unwritten share set to SHARE, in the buffer or in the file. Returns 0, or -1. */
int plan_writer_unwritten(struct plan_writer *w, size_t step, uint16_t share);

/*
 * The steps left in the buffer and PLAN's figures written; PLAN->fd is the
 * file from then on. Returns 0, or -1 with W->err.
 */
int plan_writer_finish(struct plan_writer *w, struct replay_plan *plan);

/* W's buffer freed and its file closed (when plan_writer_finish() has not handed it on). */
void plan_writer_close(struct plan_writer *w);

/* Where the plan's file is made, for messages: $TMPDIR, or /tmp. */
const char *plan_writer_dir(void);

#endif
