#include "report/table.h"
#include "platform/util.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void table_init(struct table *table, size_t ncolumns,
		const char *const *head1, const char *const *head2)
{
	memset(table, 0, sizeof(*table));
	table->ncolumns = ncolumns < TABLE_MAX_COLUMNS ? ncolumns : TABLE_MAX_COLUMNS;
	for (size_t i = 0; i < table->ncolumns; i++) {
		table->head1[i] = head1[i];
		table->head2[i] = head2[i];
	}
}

void table_align_left(struct table *table, size_t i)
{
	if (i < TABLE_MAX_COLUMNS)
		table->left[i] = 1;
}

struct table_row *table_add_row(struct table *table)
{
	if (ALLOC_GROW(table->rows, table->nrows, table->alloc))
		return NULL;
	memset(&table->rows[table->nrows], 0, sizeof(table->rows[0]));
	return &table->rows[table->nrows++];
}

void table_set(struct table_row *row, size_t i, const char *fmt, ...)
{
	va_list ap;

	if (i >= TABLE_MAX_COLUMNS)
		return;
	va_start(ap, fmt);
	vsnprintf(row->cells[i], TABLE_CELL, fmt, ap);
	va_end(ap);
	if (row->ncells < i + 1)
		row->ncells = i + 1;
}

int table_set_note(struct table_row *row, const char *note)
{
	free(row->note);
	row->note = strdup(note);
	return row->note ? 0 : -1;
}

static void print_cell(FILE *out, const struct table *table, size_t col, int width,
		       const char *text, int gap)
{
	if (col)
		fprintf(out, "%*s", gap, "");
	/* The last column left-aligned needs no padding after it. */
	if (col && table->left[col] && col + 1 == table->ncolumns)
		fputs(text, out);
	else
		fprintf(out, col && !table->left[col] ? "%*s" : "%-*s", width, text);
}

int table_print(const struct table *table, FILE *out)
{
	static const char spaces[] = "                                        "; /* 40 */
	int width[TABLE_MAX_COLUMNS];
	int two_lines = 0, gap = 2, total = 0;

	for (size_t c = 0; c < table->ncolumns; c++) {
		int w1 = (int)strlen(table->head1[c]), w2 = (int)strlen(table->head2[c]);

		width[c] = w1 > w2 ? w1 : w2;
		if (w1)
			two_lines = 1;
		for (size_t r = 0; r < table->nrows; r++) {
			const struct table_row *row = &table->rows[r];
			int w = (int)strlen(row->cells[c]);

			if (c < row->ncells && w > width[c])
				width[c] = w;
		}
	}
	/* Two spaces between columns; one when that keeps the table within 80 columns. */
	for (size_t c = 0; c < table->ncolumns; c++)
		total += width[c] + (c ? gap : 0);
	if (total > TABLE_WIDTH && width[0] > TABLE_FIRST_MAX) {
		int w0 = (int)strlen(table->head1[0]) > (int)strlen(table->head2[0]) ?
			 (int)strlen(table->head1[0]) : (int)strlen(table->head2[0]);

		/* Names too long to fit (a candidate with settings): each on a line of its own. */
		for (size_t r = 0; r < table->nrows; r++) {
			int w = (int)strlen(table->rows[r].cells[0]);

			if (w <= TABLE_FIRST_MAX && w > w0)
				w0 = w;
		}
		total -= width[0] - w0;
		width[0] = w0;
	}
	if (total > TABLE_WIDTH)
		gap = 1;
	for (int line = two_lines ? 0 : 1; line < 2; line++) {
		/* An upper heading line ends at its last word: no trailing spaces. */
		size_t last = table->ncolumns;

		while (last > 1 && !*(line ? table->head2[last - 1] : table->head1[last - 1]))
			last--;
		for (size_t c = 0; c < last; c++)
			print_cell(out, table, c, width[c], line ? table->head2[c] : table->head1[c], gap);
		fputc('\n', out);
	}
	for (size_t r = 0; r < table->nrows; r++) {
		const struct table_row *row = &table->rows[r];
		/* A first cell wider than its column: on a line of its own, the row under it. */
		int alone = row->ncells > 1 && (int)strlen(row->cells[0]) > width[0];
		size_t col = 0;

		if (row->color)
			fputs(row->color, out);
		if (alone)
			fprintf(out, "%s\n", row->cells[0]);
		for (size_t c = 0; c < row->ncells; c++) {
			print_cell(out, table, c, width[c], !c && alone ? "" : row->cells[c], gap);
			col += (size_t)width[c] + (c ? (size_t)gap : 0);
		}
		if (!row->note) {
			fputs(row->color ? COLOR_RESET "\n" : "\n", out);
			continue;
		}
		/* The note (a failure's reason) wrapped within 80 columns, under itself. */
		if (row->ncells) {
			fputs("  ", out);
			col += 2;
		}
		put_wrapped_from(out, row->note, col, TABLE_WIDTH, col <= 40 ? spaces + 40 - col : "    ");
		if (row->color)
			fputs(COLOR_RESET, out);
	}
	return ferror(out) ? -1 : 0;
}

void table_release(struct table *table)
{
	for (size_t r = 0; r < table->nrows; r++)
		free(table->rows[r].note);
	free(table->rows);
	memset(table, 0, sizeof(*table));
}
