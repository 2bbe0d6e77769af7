/*
 * svg.h - what every chart allocbench draws has in common: its palette and
 * its XML escaping, so that the size charts (plot_svg.h) and the replay
 * bars (report/plot_bars.h) look alike and escape alike.
 */
#ifndef ALLOCBENCH_SVG_H
#define ALLOCBENCH_SVG_H

#include <stddef.h>
#include <stdio.h>

/*
 * Okabe and Ito's colours, yellow left out (too faint on white), in an
 * order that keeps the first few far apart in hue and in grey: a chart
 * gives its Nth series or bar svg_colours[N % SVG_COLOURS].
 */
#define SVG_COLOURS 7
extern const char *const svg_colours[SVG_COLOURS];

/*
 * Writes S (NULL: nothing) to OUT as XML text or attribute value: markup
 * characters as entities, white space as a space, other control
 * characters and invalid UTF-8 as U+FFFD. At most MAX characters (0: all),
 * ending in an ellipsis when cut, because a chart has no way to measure or
 * wrap text.
 */
void svg_put_text(FILE *out, const char *s, size_t max);

/* The XML entity of C (& < > " '), or NULL: the one table of them (Markdown's HTML too). */
const char *xml_entity(int c);

/* svg_put_text() of a printf-formatted string (up to 1023 bytes). */
void svg_put_textf(FILE *out, size_t max, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
