/*
 * progress.c - what a run says while it works, handed on (progress.h).
 */
#include "model/progress.h"

#include <stdarg.h>
#include <stdio.h>

void (*progress_sink)(enum progress_kind kind, const char *text);

void progress_say(enum progress_kind kind, const char *fmt, ...)
{
	char text[1024];            /* a line names a program, a backend and why it stopped */
	va_list ap;

	if (!progress_sink)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	progress_sink(kind, text);
}
