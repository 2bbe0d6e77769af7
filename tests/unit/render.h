/*
 * render.h - the unit tests' way to read a report writer's output: REPORT
 * written by WRITE (report_text_write, report_csv_write, ...) into a string.
 */
#ifndef ALLOCBENCH_TEST_RENDER_H
#define ALLOCBENCH_TEST_RENDER_H

#include "model/report.h"

#include <stdio.h>
#include <stdlib.h>

/* What WRITE printed of REPORT, in a string the caller frees; NULL when it failed. */
static inline char *render_report(int (*write)(FILE *, const struct run_report *),
				  const struct run_report *report)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	if (write(f, report)) {
		fclose(f);
		free(text);
		return NULL;
	}
	fclose(f);
	return text;
}

#endif
