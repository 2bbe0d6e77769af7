/*
 * plot_series.h - a replay report's memory over time ("series" of each row,
 * report_json.c): under the bars (plot_bars.h), one panel of the resident
 * memory against the program's progress in per cent of its calls, a line
 * per backend (and input), and the live bytes dashed, once per input (they
 * are the same on every backend); each line's peak marked and said in the
 * legend ("malloc: peak 52.1 MiB at 63% of calls").
 */
#ifndef ALLOCBENCH_PLOT_SERIES_H
#define ALLOCBENCH_PLOT_SERIES_H

#include "report/plot.h"

#include <stdio.h>

/* The height in px the panels take: 0 when no row of the N inputs has a series. */
double plot_series_height(const struct plot_input *inputs, size_t n);

/*
 * Writes the panels to OUT, from TOP (px) down, WIDTH px wide. Returns 0,
 * or -1 on a write error.
 */
int plot_series_write(FILE *out, const struct plot_input *inputs, size_t n, double top,
		      double width);

#endif
