/*
 * markdown_text.h - text as Markdown writes it, for every writer of a
 * Markdown page (a run's report and its verdict, a comparison, advise's
 * real runs).
 */
#ifndef ALLOCBENCH_MARKDOWN_TEXT_H
#define ALLOCBENCH_MARKDOWN_TEXT_H

#include <stdio.h>

/*
 * Writes TEXT into a Markdown table cell or list item: cleaned as
 * text_clean() cleans it (line breaks as spaces, other control characters
 * as U+FFFD), '<', '>' and '&' as HTML's entities (Markdown passes HTML
 * through), and a backslash before each character of ESCAPED ("|\\" at
 * least).
 */
void markdown_put_text(FILE *out, const char *text, const char *escaped);

#endif
