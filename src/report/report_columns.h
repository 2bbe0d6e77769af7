/*
 * report_columns.h - the columns of the human-readable tables (text and
 * Markdown), chosen by the workload, and each cell formatted as a string, so
 * that both reports show the same figures the same way.
 */
#ifndef ALLOCBENCH_REPORT_COLUMNS_H
#define ALLOCBENCH_REPORT_COLUMNS_H

#include "model/report.h"

#include <stddef.h>

/* What a column shows. */
enum column_kind {
	COL_BACKEND,
	COL_SIZE,
	COL_COUNT,
	COL_ROUNDS,
	COL_TOTAL_KIB,     /* fill: RSS growth of the median run */
	COL_FIGURE,        /* a figure's median in its display unit (figure.h) */
	COL_OVERHEAD,      /* fill, text: the overhead's median with two decimals, or
			      "average(marginal)" where report_marginal_differs() */
	COL_LIVE_KIB,      /* random: live bytes at the end, KiB */
	COL_OPS,           /* random: operations in the sequence */
	COL_VS_MALLOC,     /* churn: malloc's ns per pair over this backend's */
	COL_X_ARENA,       /* churn: this backend's ns per pair over the arena's,
			      the floor of a create/destroy round */
};

struct report_column {
	const char *head1;   /* upper heading line: the quantity ("" for none); NULL:
				the figure's (figure.h) */
	const char *head2;   /* lower heading line: the rest of its name, or its unit */
	int head2_is_unit;   /* Markdown writes "head1 (head2)" rather than "head1 head2" */
	enum column_kind kind;
	enum metric metric;  /* for COL_FIGURE, COL_OVERHEAD, COL_VS_MALLOC and COL_X_ARENA */
};

/* COLUMN's heading lines and whether the lower is a unit, the figure's where it has none. */
void report_column_heads(const struct report_column *column, const char **head1,
			 const char **head2, int *head2_is_unit);

/* 1 when COLUMN shows a time or a rate: a wide spread of its runs is marked. */
int report_column_is_time(const struct report_column *column);

/* The columns of WORKLOAD's table; their number in *N. */
const struct report_column *report_columns(enum workload workload, size_t *n);

/* The columns of WORKLOAD's Markdown table (fill: the marginal figures too; replay: what
 * each backend kept after the live bytes' peak). */
const struct report_column *report_columns_markdown(enum workload workload, size_t *n);

/*
 * The fit's rounding: each reading is rounded to a page, which moves the
 * slope through four readings at the quarters by at most 1.6 pages over the
 * count; the text shows the marginal figure where it differs from the
 * average by more than two pages over the count.
 */
#define REPORT_MARGINAL_PAGES 2

/* How many leading columns name a row (shown for a failed row too). */
size_t report_identity_columns(enum workload workload);

/*
 * Formats COLUMN of CELL into BUF (SIZE bytes): a number without unit, or
 * "n/a" when the quantity does not exist. CELL must have succeeded unless
 * COLUMN is an identity column.
 */
void report_column_format(char *buf, size_t size, const struct report_column *column,
			  const struct run_report *report, const struct cell *cell);

/*
 * A time's runs spread widely when the largest exceeds the smallest by more
 * than this factor: the text marks the median with '~' (--format json gives
 * every run). Cold allocation on a shared machine reads 26 to 54 ns.
 */
#define REPORT_TIME_SPREAD 1.5

/* 1 when the runs summarised in S spread more than REPORT_TIME_SPREAD. */
int report_time_spread_wide(const struct stat_summary *s);

/*
 * 1 when the x floor summarised in S has runs on both sides of 1: whether
 * the allocator is faster or slower than the floor is within the noise, and
 * the table marks it with '?'.
 */
int report_x_floor_crosses(const struct stat_summary *s);

#endif
