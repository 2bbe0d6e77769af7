/*
 * plot_svg_text.h - the words around a chart of plot_svg.h: the title, the
 * subtitle (what was measured, on which host) and the notes below (failed
 * results, rows left out, the files plotted). Every text from a report is
 * escaped (svg.h). Used by plot_svg.c alone.
 */
#ifndef ALLOCBENCH_PLOT_SVG_TEXT_H
#define ALLOCBENCH_PLOT_SVG_TEXT_H

#include <stddef.h>
#include <stdio.h>

struct plot;
struct plot_series;

/* Writes the title's text (no element): "allocbench: overhead per chunk ... by chunk size". */
void plot_svg_title(FILE *out, const struct plot *plot);

/* The legend name of series S into BUF (SIZE bytes): "pool", "pool (churn)". */
void plot_svg_series_name(char *buf, size_t size, const struct plot_series *s);

/*
 * Writes the subtitle from Y: what was measured, on which host; once when
 * every file says the same, else a line per file. Returns the y below it.
 */
double plot_svg_subtitle(FILE *out, const struct plot *plot, double y);

/* Writes the notes below the chart from TOP; returns the y below them. */
double plot_svg_notes(FILE *out, const struct plot *plot, double top);

#endif
