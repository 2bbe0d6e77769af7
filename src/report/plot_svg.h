/*
 * plot_svg.h - writes a chart that plot_build() made (plot.h) for a person to
 * read at a glance: a standalone SVG (no script, no external font or file),
 * its panels with a legend and notes.
 *
 * Colours are the charts' one palette (svg.h: Okabe and Ito's, which stays apart for
 * colour-blind readers); each backend also has its own marker shape and each file its own
 * line dash and marker fill, so the chart still reads in grey.
 */
#ifndef ALLOCBENCH_PLOT_SVG_H
#define ALLOCBENCH_PLOT_SVG_H

#include <stdio.h>

struct plot;

/*
 * Writes PLOT, from a plot_build() that succeeded (else returns -1 at once),
 * to OUT as one SVG document. All text from the reports (file
 * names, host names, errors) is escaped and made valid UTF-8. Returns 0, or
 * -1 when writing fails (nothing is printed: the caller names the output).
 */
int plot_svg_write(const struct plot *plot, FILE *out);

#endif
