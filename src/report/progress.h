/*
 * progress.h - where a run's progress goes for allocbench (model/progress.h):
 * standard error, a task's line rewritten in place on a terminal, a line
 * per row ended in a log.
 */
#ifndef ALLOCBENCH_REPORT_PROGRESS_H
#define ALLOCBENCH_REPORT_PROGRESS_H

#include "model/progress.h"

void progress_stderr(enum progress_kind kind, const char *text);

#endif
