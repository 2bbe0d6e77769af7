/*
 * plot_bars.h - the chart of replay reports: they have no size axis, so
 * `allocbench plot` draws a bar per backend (and input) for each of peak
 * RSS, peak RSS over peak live bytes, and ns per call.
 */
#ifndef ALLOCBENCH_PLOT_BARS_H
#define ALLOCBENCH_PLOT_BARS_H

#include "report/plot.h"

#include <stdio.h>

/* 1 when every one of the N inputs is a replay report. */
int plot_bars_applies(const struct plot_input *inputs, size_t n);

/* Writes the SVG to OUT. Returns 0, or -1 (after an error naming the input, or a write error). */
int plot_bars_write(FILE *out, const struct plot_input *inputs, size_t n);

#endif
