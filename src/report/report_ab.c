/*
 * report_ab.c - allocbench ab's comparison as text and JSON (report_ab.h).
 */
#include "report/report_ab.h"
#include "report/json_out.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const verdict_names[] = { "same", "slower", "faster" };

/* "malloc 40 B", or "malloc -> jemalloc 40 B" where the variants are backends. */
static void row_label(char *buf, size_t size, const struct ab_series *s)
{
	if (!strcmp(s->old_backend, s->new_backend))
		snprintf(buf, size, "%s %zu B", s->old_backend, s->size);
	else
		snprintf(buf, size, "%s -> %s %zu B", s->old_backend, s->new_backend, s->size);
}

int ab_write_text(FILE *out, const struct ab_comparison *c)
{
	fprintf(out, "ab: %s (old) against %s (new), %s workload, %zu pairs of runs "
		"(old new, new old, ...)\n\n", c->old, c->new, c->workload, c->pairs);
	fprintf(out, "%-28s %-10s %18s %15s %8s  %s\n", "row", "figure", "new/old (median)",
		"range", "Holm's p", "verdict");
	for (size_t i = 0; i < c->nseries; i++) {
		const struct ab_series *s = &c->series[i];
		const struct figure *f = figure_get(s->metric);
		char label[96];

		row_label(label, sizeof(label), s);
		fprintf(out, "%-28s %-10s %8.3fx (%+6.1f%%) %6.3f-%-7.3f %8.4f  %s\n", label,
			f->compare_label ? f->compare_label : f->name, s->slowdown,
			(s->slowdown - 1) * 100, s->slowdown_min, s->slowdown_max,
			s->slowdown < 1 ? s->q_faster : s->q_slower,
			verdict_names[s->verdict]);
	}
	fprintf(out, "\nnew/old is the slowdown of each pair (a rate: old/new), above 1 worse. "
		"%zu tests, one-sided Wilcoxon signed-rank on the pairs, Holm-corrected: "
		"family-wise alpha %g; slower only beyond %g%%.\n", c->nseries,
		c->options.alpha, c->options.max_time);
	fprintf(out, "verdict: %s (%zu of %zu slower)\n", c->slower ? "REGRESSION" : "ok",
		c->slower, c->nseries);
	return ferror(out) ? -1 : 0;
}

int ab_write_json(FILE *out, const struct ab_comparison *c)
{
	cJSON *root = cJSON_CreateObject(), *series;

	cJSON_AddStringToObject(root, "schema", AB_SCHEMA);
	cJSON_AddStringToObject(root, "old", c->old);
	cJSON_AddStringToObject(root, "new", c->new);
	if (c->label)
		cJSON_AddStringToObject(root, "label", c->label);
	else
		cJSON_AddNullToObject(root, "label");
	cJSON_AddStringToObject(root, "created", c->created);
	cJSON_AddStringToObject(root, "workload", c->workload);
	cJSON_AddNumberToObject(root, "pairs", (double)c->pairs);
	cJSON_AddNumberToObject(root, "alpha", c->options.alpha);
	cJSON_AddNumberToObject(root, "max_time_percent", c->options.max_time);
	cJSON_AddNumberToObject(root, "tests", (double)c->nseries);
	cJSON_AddNumberToObject(root, "least_p", ab_min_p(c->pairs));
	series = cJSON_AddArrayToObject(root, "series");
	for (size_t i = 0; i < c->nseries; i++) {
		const struct ab_series *s = &c->series[i];
		cJSON *o = cJSON_CreateObject(), *slow = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "old_backend", s->old_backend);
		cJSON_AddStringToObject(o, "new_backend", s->new_backend);
		cJSON_AddNumberToObject(o, "size", (double)s->size);
		cJSON_AddStringToObject(o, "figure", metric_name(s->metric));
		cJSON_AddItemToObject(o, "old", cJSON_CreateDoubleArray(s->old, (int)s->n));
		cJSON_AddItemToObject(o, "new", cJSON_CreateDoubleArray(s->new, (int)s->n));
		cJSON_AddNumberToObject(slow, "median", s->slowdown);
		cJSON_AddNumberToObject(slow, "min", s->slowdown_min);
		cJSON_AddNumberToObject(slow, "max", s->slowdown_max);
		cJSON_AddItemToObject(o, "slowdown", slow);
		cJSON_AddNumberToObject(o, "p_slower", s->p_slower);
		cJSON_AddNumberToObject(o, "p_faster", s->p_faster);
		cJSON_AddNumberToObject(o, "q_slower", s->q_slower);
		cJSON_AddNumberToObject(o, "q_faster", s->q_faster);
		cJSON_AddStringToObject(o, "verdict", verdict_names[s->verdict]);
		cJSON_AddItemToArray(series, o);
	}
	cJSON_AddBoolToObject(root, "regression", c->slower > 0);
	return json_write_document(out, root);
}
