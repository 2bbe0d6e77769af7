/*
 * report_verdict.h - the verdict (model/verdict.h) written: a line per
 * size, ABI and aspect for the best drop-in choice and one for the best
 * with code changes, as text after the tables or as a Markdown list.
 */
#ifndef ALLOCBENCH_REPORT_VERDICT_H
#define ALLOCBENCH_REPORT_VERDICT_H

#include "model/report.h"

#include <stddef.h>
#include <stdio.h>

/* V into BUF (SIZE bytes) as a verdict writes a figure: "12.3", about three significant digits. */
void verdict_number(char *buf, size_t size, double v);

/*
 * The text: a heading and per size, ABI and aspect a line for the best
 * drop-in choice and one for the best with code changes (where that kind
 * was measured), figures in their display unit (figure.h); nothing when
 * !verdict_wanted, or when REPORT's answer_first is set (advise printed
 * it before the tables: verdict_write_answer()).
 */
int verdict_write_text(FILE *out, const struct run_report *report);

/*
 * The same lines after HEADING, whatever answer_first says: advise's
 * answer, whose drop-in lines come from its real runs where they measured
 * (rerun_answers()): then only the lines with code changes.
 */
int verdict_write_answer(FILE *out, const struct run_report *report, const char *heading);

/* The same as a Markdown list, for the Markdown report. */
int verdict_write_markdown(FILE *out, const struct run_report *report);

#endif
