/*
 * progress.h - what a run and advise's real runs say while they work, and
 * where it goes. The model says what (progress_say()); the command that
 * runs it says where (progress_sink: report/progress.c's, for allocbench).
 * Unset, nothing is said. -q is the model's: it says nothing then.
 */
#ifndef ALLOCBENCH_PROGRESS_H
#define ALLOCBENCH_PROGRESS_H

enum progress_kind {
	PROGRESS_TASK,   /* a task starts: on a terminal, its line replaces the last */
	PROGRESS_LINE,   /* a row ended: in a log (no terminal), a line of its own */
	PROGRESS_END,    /* the tasks are done: the terminal's line cleared */
};

/* Where progress_say() hands its text ("" for PROGRESS_END). */
extern void (*progress_sink)(enum progress_kind kind, const char *text);

void progress_say(enum progress_kind kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
