/*
 * progress.c - a run's progress on standard error (progress.h).
 */
#include "report/progress.h"

#include <stdio.h>
#include <unistd.h>

void progress_stderr(enum progress_kind kind, const char *text)
{
	int tty = isatty(STDERR_FILENO);

	if (kind == PROGRESS_LINE) {
		if (!tty)
			fprintf(stderr, "allocbench: %s\n", text);
		return;
	}
	if (!tty)
		return;
	if (kind == PROGRESS_TASK)
		fprintf(stderr, "\rallocbench: %s   ", text);
	else
		fputs("\r\033[K", stderr);
	fflush(stderr);
}
