/*
 * report_counters.c - the counters in the reports: which events were live and
 * why the others were not, their values per chunk (text) and per chunk and in
 * total as statistics over the runs (JSON), and `allocbench counters`.
 */
#include "measure/backend.h"
#include "report/json_out.h"
#include "report/report_counters.h"
#include "model/run.h"
#include "report/table.h"
#include "platform/util.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Widest text table the counters' tables are split to fit. */
#define TEXT_WIDTH 80

/*
 * Summary over CELL's runs of its event EVENT in LOOP: per chunk (value /
 * count) when PER_CHUNK, else the total per measurement. RUNS (when not
 * NULL) gets every run's value. Returns 0, or -1 when the cell failed or the
 * event was not counted in every run.
 */
static int cell_counter_summary(const struct cell *cell, size_t event, enum counters_loop loop,
				int per_chunk, struct stat_summary *out, double *runs)
{
	double values[RUN_MAX_REPEAT];

	if (!cell->ok || !cell->runs)
		return -1;
	for (unsigned r = 0; r < cell->runs; r++) {
		const struct counter_values *v = &cell->samples[r].counters;
		uint64_t total;

		if (event >= v->n || v->status[event] != COUNTERS_OK)
			return -1;
		total = loop == COUNTERS_ALLOC_LOOP ? v->alloc_loop[event] : v->free_loop[event];
		values[r] = per_chunk ? (double)total / (double)cell->count : (double)total;
		if (runs)
			runs[r] = values[r];
	}
	return stats_summarize(values, cell->runs, out);
}

/* The name in the text header: "allocbench::allocs" for the program's own. */
static const char *header_name(const char *name)
{
	return strncmp(name, "sde:::", 6) ? name : name + 6;
}

/* Both events are not counted, for the same reason with the same hint. */
static int same_reason(const struct counter_status *a, const struct counter_status *b)
{
	return !a->ok && !b->ok && !strcmp(a->reason, b->reason) && !strcmp(a->hint, b->hint);
}

/* Appends formatted text to LINE (SIZE bytes), truncating at the end. */
static void append(char *line, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void append(char *line, size_t size, const char *fmt, ...)
{
	size_t used = strlen(line);
	va_list ap;

	if (used + 1 >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(line + used, size - used, fmt, ap);
	va_end(ap);
}

/*
 * The default list, which no one asked for: one line about the hardware
 * counters (allocbench's own events are in the JSON and need no line), and
 * where to read why when some are not live.
 */
static void counters_one_line(FILE *out, const struct counters_check *check)
{
	char line[4096] = "hardware counters:", missing[2048] = "";
	size_t hw = 0, live = 0, dead = 0;
	int not_built = 0;

	for (size_t i = 0; i < check->list.n; i++) {
		const struct counter_status *st = &check->events[i];

		if (!strncmp(check->list.names[i], COUNTERS_SDE_PREFIX, strlen(COUNTERS_SDE_PREFIX)))
			continue;
		hw++;
		if (st->ok) {
			append(line, sizeof(line), "%s %s", live++ ? "," : "", check->list.names[i]);
		} else {
			append(missing, sizeof(missing), "%s%s", dead++ ? ", " : "", check->list.names[i]);
			not_built |= !strncmp(st->reason, "not built with PAPI", 19);
		}
	}
	if (!hw)
		return;
	if (!live)
		append(line, sizeof(line), " none %s; 'allocbench counters' says why",
		       not_built ? "(not built with PAPI)" : "on this machine");
	else if (dead)
		append(line, sizeof(line), "; not %s ('allocbench counters' says why)", missing);
	else
		append(line, sizeof(line), " (the counters table below)");
	put_wrapped(out, line, 80, "  ");
}

void report_counters_text_header(FILE *out, const struct run_report *report)
{
	const struct counters_check *check = &report->counters;
	char line[4096] = "counters live:";
	size_t live = 0;

	if (!check->list.n) {
		fputs(report->config->workload == WORKLOAD_FILL ?
		      "counters: none (--counters none)\n" :
		      "counters: none (they are counted in the fill workload)\n", out);
		return;
	}
	if (!report->config->counters_given) {
		counters_one_line(out, check);
		return;
	}
	for (size_t i = 0; i < check->list.n; i++)
		if (check->events[i].ok)
			append(line, sizeof(line), "%s %s", live++ ? "," : "",
			       header_name(check->list.names[i]));
	if (!live)
		append(line, sizeof(line), " none");
	put_wrapped(out, line, 80, "  ");
	/* The others, grouped by reason: one line each (wrapped), then its hint. */
	for (size_t i = 0; i < check->list.n; i++) {
		const struct counter_status *st = &check->events[i];
		size_t j, n = 0;

		for (j = 0; j < i && !same_reason(&check->events[j], st); j++)
			;
		if (st->ok || j < i)
			continue; /* live, or printed with an earlier event of the same reason */
		snprintf(line, sizeof(line), "counters n/a:");
		for (j = i; j < check->list.n; j++)
			if (same_reason(&check->events[j], st))
				append(line, sizeof(line), "%s %s", n++ ? "," : "",
				       header_name(check->list.names[j]));
		append(line, sizeof(line), ": %s", st->reason);
		put_wrapped(out, line, 80, "  ");
		if (st->hint[0]) {
			snprintf(line, sizeof(line), "  hint: %s", st->hint);
			put_wrapped(out, line, 80, "    ");
		}
	}
}

/* A value per chunk in at most about 7 characters. */
static void format_value(char *buf, size_t size, double v)
{
	if (v == 0)
		snprintf(buf, size, "0");
	else if (v >= 100)
		snprintf(buf, size, "%.0f", v);
	else if (v >= 1)
		snprintf(buf, size, "%.2f", v);
	else
		snprintf(buf, size, "%.2g", v);
}

/* A column's two heading lines: "pool bytes" over "reserved" for the program's own. */
struct heading {
	char upper[COUNTERS_NAME_MAX];
	char lower[COUNTERS_NAME_MAX];
};

static void split_heading(const char *name, struct heading *h)
{
	const char *shown = counters_short_name(name);
	const char *last = strrchr(shown, '_');

	h->upper[0] = '\0';
	copy_string(h->lower, sizeof(h->lower), shown);
	if (shown == name || !last || strlen(shown) <= 9)
		return;
	snprintf(h->upper, sizeof(h->upper), "%.*s", (int)(last - shown), shown);
	for (char *p = h->upper; *p; p++)
		if (*p == '_')
			*p = ' ';
	copy_string(h->lower, sizeof(h->lower), last + 1);
}

#define FIXED_COLUMNS 3 /* loop, backend, size */

struct counter_table {
	size_t nlive;
	size_t live[COUNTERS_MAX];            /* event index of each live column */
	struct heading headings[COUNTERS_MAX];
	size_t nrows;
	const struct cell **row_cell;         /* the cell of each row */
	enum counters_loop *row_loop;
	char (*values)[TABLE_CELL];           /* nrows * nlive formatted values */
};

static int column_width(const struct counter_table *t, size_t col)
{
	size_t w = strlen(t->headings[col].upper);

	if (strlen(t->headings[col].lower) > w)
		w = strlen(t->headings[col].lower);
	for (size_t r = 0; r < t->nrows; r++)
		if (strlen(t->values[r * t->nlive + col]) > w)
			w = strlen(t->values[r * t->nlive + col]);
	return (int)w;
}

/* Prints the columns FROM to TO (exclusive) of T as one table. */
static int print_group(FILE *out, const struct counter_table *t, size_t from, size_t to)
{
	const char *head1[TABLE_MAX_COLUMNS] = { "", "", "size" };
	const char *head2[TABLE_MAX_COLUMNS] = { "loop", "backend", "B" };
	struct table table;
	int ret;

	for (size_t c = from; c < to; c++) {
		head1[FIXED_COLUMNS + c - from] = t->headings[c].upper;
		head2[FIXED_COLUMNS + c - from] = t->headings[c].lower;
	}
	table_init(&table, FIXED_COLUMNS + to - from, head1, head2);
	for (size_t r = 0; r < t->nrows; r++) {
		struct table_row *row = table_add_row(&table);

		if (!row)
			break;
		table_set(row, 0, "%s", t->row_loop[r] == COUNTERS_ALLOC_LOOP ? "alloc" : "free");
		table_set(row, 1, "%s", t->row_cell[r]->backend->name);
		table_set(row, 2, "%zu", t->row_cell[r]->size);
		for (size_t c = from; c < to; c++)
			table_set(row, FIXED_COLUMNS + c - from, "%s", t->values[r * t->nlive + c]);
	}
	ret = table_print(&table, out);
	table_release(&table);
	return ret;
}

/*
 * T's rows: each measured cell of REPORT in the allocation loop, then each
 * in the free loop, with the median per chunk of each live event.
 */
static void counter_table_fill(struct counter_table *t, const struct run_report *report)
{
	for (int loop = COUNTERS_ALLOC_LOOP; loop <= COUNTERS_FREE_LOOP; loop++) {
		for (size_t i = 0; i < report->ncells; i++) {
			const struct cell *cell = &report->cells[i];
			size_t r = t->nrows;

			if (!cell->ok)
				continue;
			t->row_cell[r] = cell;
			t->row_loop[r] = (enum counters_loop)loop;
			for (size_t c = 0; c < t->nlive; c++) {
				struct stat_summary s;

				if (cell_counter_summary(cell, t->live[c], (enum counters_loop)loop, 1, &s, NULL))
					snprintf(t->values[r * t->nlive + c], TABLE_CELL, "n/a");
				else
					format_value(t->values[r * t->nlive + c], TABLE_CELL, s.median);
			}
			t->nrows++;
		}
	}
}

int report_counters_text_table(FILE *out, const struct run_report *report)
{
	const struct counters_check *check = &report->counters;
	struct counter_table t;
	int fixed, ret = 0, backend_width = (int)strlen("backend"), size_width = (int)strlen("size");
	size_t from;

	memset(&t, 0, sizeof(t));
	for (size_t i = 0; i < check->list.n; i++) {
		if (!check->events[i].ok)
			continue;
		split_heading(check->list.names[i], &t.headings[t.nlive]);
		t.live[t.nlive++] = i;
	}
	/*
	 * allocbench's own events are one per chunk by construction: with the
	 * default list and no other event live, their table says nothing the
	 * main table does not, and the JSON keeps them.
	 */
	if (!report->config->counters_given) {
		size_t other = 0;

		for (size_t k = 0; k < t.nlive; k++)
			other += strncmp(check->list.names[t.live[k]], "sde:::allocbench::", 18) != 0;
		if (!other)
			t.nlive = 0;
	}
	if (!t.nlive)
		return 0;
	t.row_cell = calloc(2 * report->ncells + 1, sizeof(*t.row_cell));
	t.row_loop = calloc(2 * report->ncells + 1, sizeof(*t.row_loop));
	t.values = calloc((2 * report->ncells + 1) * t.nlive, sizeof(*t.values));
	if (!t.row_cell || !t.row_loop || !t.values) {
		ret = error("out of memory");
		goto out;
	}
	counter_table_fill(&t, report);
	if (!t.nrows)
		goto out;

	fprintf(out, "\ncounters per chunk, median of %u run%s; totals in --format json\n"
		"(alloc: the allocation loop; free: the free loop and the backend's teardown)\n",
		report->config->repeat, report->config->repeat == 1 ? "" : "s");
	/* The fixed columns: loop ("alloc"), backend, size; two spaces between columns. */
	for (size_t r = 0; r < t.nrows; r++) {
		int name = (int)strlen(t.row_cell[r]->backend->name);
		int size = snprintf(NULL, 0, "%zu", t.row_cell[r]->size);

		backend_width = name > backend_width ? name : backend_width;
		size_width = size > size_width ? size : size_width;
	}
	fixed = (int)strlen("alloc") + 2 + backend_width + 2 + size_width;
	/* As many columns per table as fit in TEXT_WIDTH, at least one. */
	for (from = 0; from < t.nlive && !ret;) {
		size_t to = from;
		int width = fixed;

		while (to < t.nlive && (to == from || width + 2 + column_width(&t, to) <= TEXT_WIDTH))
			width += 2 + column_width(&t, to++);
		if (from)
			fputc('\n', out);
		ret = print_group(out, &t, from, to);
		from = to;
	}
out:
	free(t.row_cell);
	free(t.row_loop);
	free(t.values);
	return ret || ferror(out) ? -1 : 0;
}

/* --------------------------------------------------------------- JSON */

struct cJSON *report_counters_json_list(const struct counter_list *list)
{
	cJSON *array = cJSON_CreateArray();

	for (size_t i = 0; i < list->n; i++)
		cJSON_AddItemToArray(array, cJSON_CreateString(list->names[i]));
	return array;
}

int report_counters_restated(const char *name, const struct cell *cell, uint64_t *alloc,
			     uint64_t *free_total)
{
	static const char *const events[] = { "allocs", "frees", "bytes_requested" };
	const char *own = strstr(name, "allocbench::");
	uint64_t count = cell->count;

	if (!own)
		return 0;
	own += strlen("allocbench::");
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		if (strcmp(own, events[i]))
			continue;
		*alloc = i == 1 ? 0 : i == 0 ? count : count * cell->size;
		*free_total = i == 1 ? count : 0;
		return 1;
	}
	/* The others (pool_blocks, ...) say nothing where they read 0: not the backend's. */
	*alloc = *free_total = 0;
	return 1;
}

/* 1 when event E of CELL restates a known value in every run (report_counters_restated()). */
static int restated_in_every_run(const struct counter_list *list, size_t e,
				 const struct cell *cell)
{
	uint64_t alloc, release;

	if (!cell->ok || !cell->runs ||
	    !report_counters_restated(list->names[e], cell, &alloc, &release))
		return 0;
	for (unsigned r = 0; r < cell->runs; r++) {
		const struct counter_values *v = &cell->samples[r].counters;

		if (e >= v->n || v->status[e] != COUNTERS_OK || v->alloc_loop[e] != alloc ||
		    v->free_loop[e] != release)
			return 0;
	}
	return 1;
}

struct cJSON *report_counters_json_cell(const struct run_report *report, const struct cell *cell)
{
	static const struct {
		const char *name;
		enum counters_loop loop;
		int per_chunk;
	} fields[] = {
		{ "alloc", COUNTERS_ALLOC_LOOP, 1 },
		{ "free", COUNTERS_FREE_LOOP, 1 },
		{ "alloc_total", COUNTERS_ALLOC_LOOP, 0 },
		{ "free_total", COUNTERS_FREE_LOOP, 0 },
	};
	const struct counter_list *list = &report->counters.list;
	cJSON *obj = cJSON_CreateObject();

	for (size_t i = 0; i < list->n; i++) {
		cJSON *event;
		double runs[RUN_MAX_REPEAT];
		struct stat_summary s;

		/* What the row already says (allocs = count) is left out, unless asked for. */
		if (!report->config->counters_given && restated_in_every_run(list, i, cell))
			continue;
		event = cJSON_CreateObject();

		for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]); f++) {
			if (cell_counter_summary(cell, i, fields[f].loop, fields[f].per_chunk, &s, runs)) {
				cJSON_Delete(event);
				event = cJSON_CreateNull();
				break;
			}
			cJSON_AddItemToObject(event, fields[f].name, json_stat(&s, runs, cell->runs));
		}
		cJSON_AddItemToObject(obj, list->names[i], event);
	}
	return obj;
}

void report_counters_json_status(struct cJSON *root, const struct counters_check *check)
{
	cJSON *status = cJSON_CreateObject(), *hints = cJSON_CreateObject();

	for (size_t i = 0; i < check->list.n; i++) {
		const struct counter_status *st = &check->events[i];

		cJSON_AddStringToObject(status, check->list.names[i], st->ok ? "ok" : st->reason);
		if (!st->ok && st->hint[0])
			cJSON_AddStringToObject(hints, check->list.names[i], st->hint);
	}
	cJSON_AddItemToObject(root, "counters_status", status);
	cJSON_AddItemToObject(root, "counters_hints", hints);
}

/* ------------------------------------------------- allocbench counters */

static size_t count_ok(const struct counters_check *check)
{
	size_t ok = 0;

	for (size_t i = 0; i < check->list.n; i++)
		ok += check->events[i].ok != 0;
	return ok;
}

int report_counters_check_text(FILE *out, const struct counters_check *check)
{
	int name_width = (int)strlen("event"), comp_width = (int)strlen("component");

	if (check->papi_version[0])
		fprintf(out, "PAPI %s", check->papi_version);
	else
		fputs("PAPI not available", out);
	fprintf(out, ": %zu of %zu event%s can be counted on this machine\n\n", count_ok(check),
		check->list.n, check->list.n == 1 ? "" : "s");
	if (!check->list.n) {
		fputs("no events requested (--counters none)\n", out);
		return ferror(out) ? -1 : 0;
	}
	for (size_t i = 0; i < check->list.n; i++) {
		if ((int)strlen(check->list.names[i]) > name_width)
			name_width = (int)strlen(check->list.names[i]);
		if ((int)strlen(check->events[i].component) > comp_width)
			comp_width = (int)strlen(check->events[i].component);
	}
	fprintf(out, "%-*s  %-7s  %-*s  %s\n", name_width, "event", "counted", comp_width,
		"component", "what it counts");
	for (size_t i = 0; i < check->list.n; i++) {
		const struct counter_status *st = &check->events[i];

		char line[sizeof(st->reason) + sizeof(st->hint) + 8], head[COUNTERS_NAME_MAX + 64];
		int col;

		/* Every line within 80 columns: the description, why and fix wrapped. */
		col = snprintf(head, sizeof(head), "%-*s  %-7s  %-*s  ", name_width,
			       check->list.names[i], st->ok ? "yes" : "no", comp_width,
			       st->component[0] ? st->component : "-");
		snprintf(line, sizeof(line), "    %s", st->description[0] ? st->description : "-");
		if (col >= 0 && (size_t)col + strlen(line + 4) <= TEXT_WIDTH) {
			fprintf(out, "%s%s\n", head, line + 4);
		} else {
			/* No room beside the columns: on the next line(s), indented. */
			size_t end = strlen(head);

			while (end && head[end - 1] == ' ')
				end--;
			fprintf(out, "%.*s\n", (int)end, head);
			put_wrapped(out, line, TEXT_WIDTH, "    ");
		}
		if (!st->ok) {
			snprintf(line, sizeof(line), "  why: %s", st->reason);
			put_wrapped(out, line, TEXT_WIDTH, "       ");
		}
		if (!st->ok && st->hint[0]) {
			snprintf(line, sizeof(line), "  fix: %s", st->hint);
			put_wrapped(out, line, TEXT_WIDTH, "       ");
		}
	}
	return ferror(out) ? -1 : 0;
}

static void add_string_or_null(cJSON *obj, const char *name, const char *value)
{
	if (value && value[0])
		cJSON_AddStringToObject(obj, name, value);
	else
		cJSON_AddNullToObject(obj, name);
}

int report_counters_check_json(FILE *out, const struct counters_check *check)
{
	cJSON *root = cJSON_CreateObject(), *tool = cJSON_CreateObject();
	cJSON *events = cJSON_CreateArray();

	cJSON_AddStringToObject(tool, "name", "allocbench");
	cJSON_AddStringToObject(tool, "version", ALLOCBENCH_VERSION);
	cJSON_AddItemToObject(root, "tool", tool);
	add_string_or_null(root, "papi_version", check->papi_version);
	report_counters_json_status(root, check);
	for (size_t i = 0; i < check->list.n; i++) {
		const struct counter_status *st = &check->events[i];
		cJSON *event = cJSON_CreateObject();

		cJSON_AddStringToObject(event, "name", check->list.names[i]);
		cJSON_AddBoolToObject(event, "available", st->ok);
		cJSON_AddBoolToObject(event, "unknown", st->unknown);
		add_string_or_null(event, "component", st->component);
		add_string_or_null(event, "description", st->description);
		add_string_or_null(event, "reason", st->ok ? NULL : st->reason);
		add_string_or_null(event, "hint", st->ok ? NULL : st->hint);
		cJSON_AddItemToArray(events, event);
	}
	cJSON_AddItemToObject(root, "events", events);
	return json_write_document(out, root);
}
