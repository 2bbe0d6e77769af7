/*
 * table.h - an aligned text table: two heading lines (so that units fit
 * under names at 80 columns), right-aligned numbers, a left-aligned first
 * column (a name too long for the table to fit on a line of its own), and
 * rows whose last cell may span the rest (failure reasons).
 */
#ifndef ALLOCBENCH_TABLE_H
#define ALLOCBENCH_TABLE_H

#include <stddef.h>
#include <stdio.h>

#define TABLE_MAX_COLUMNS 24
#define TABLE_CELL 48
/* The text reports' width: columns closer together, notes wrapped, to fit it. */
#define TABLE_WIDTH 80
/*
 * The widest first cell kept on its row when the table would not fit
 * TABLE_WIDTH: a longer one is printed on a line of its own, its row's
 * other cells on the next.
 */
#define TABLE_FIRST_MAX 24

struct table_row {
	char cells[TABLE_MAX_COLUMNS][TABLE_CELL];
	size_t ncells;   /* cells filled; fewer than the columns means the last spans */
	char *note;      /* owned; printed after the filled cells when set */
	const char *color; /* an SGR sequence (COLOR_RED) the row is printed in, or NULL */
};

struct table {
	size_t ncolumns;
	const char *head1[TABLE_MAX_COLUMNS];  /* upper heading line ("" for none) */
	const char *head2[TABLE_MAX_COLUMNS];  /* lower heading line: name or unit */
	int left[TABLE_MAX_COLUMNS];           /* 1: left-aligned (words), else right */
	struct table_row *rows;
	size_t nrows, alloc;
};

/* Starts an empty table with the NCOLUMNS headings given as pairs. */
void table_init(struct table *table, size_t ncolumns,
		const char *const *head1, const char *const *head2);

/* Aligns column I to the left, for words; the first column always is. */
void table_align_left(struct table *table, size_t i);

/* Adds a row and returns it (cells empty), or NULL when out of memory. */
struct table_row *table_add_row(struct table *table);

/* Sets cell I of ROW with printf formatting; ROW->ncells grows to I + 1. */
void table_set(struct table_row *row, size_t i, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Sets ROW's note (copied), which follows its filled cells on the line. */
int table_set_note(struct table_row *row, const char *note);

/* Prints the table; returns 0, or -1 when OUT reports an error. */
int table_print(const struct table *table, FILE *out);

/* Frees the rows. */
void table_release(struct table *table);

#endif
