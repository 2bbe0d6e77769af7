/*
 * report_ab_load.c - allocbench ab's JSON read back (report_ab.h), for
 * allocbench history: a file believed in nothing, each field checked.
 */
#include "report/report_ab.h"
#include "model/run.h"
#include "platform/util.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static int fail(struct ab_loaded *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct ab_loaded *a, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	error("'%s': %s", a->file.path, msg);
	ab_loaded_release(a);
	return -1;
}

/* The string NAME of OBJ, or NULL. */
static const char *string_of(const cJSON *obj, const char *name)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, name);

	return cJSON_IsString(item) ? item->valuestring : NULL;
}

/* The N values of ARRAY into OUT (each positive and finite); 0, or -1. */
static int load_pairs(const cJSON *array, size_t n, double *out)
{
	size_t i = 0;
	const cJSON *v;

	if (!cJSON_IsArray(array) || (size_t)cJSON_GetArraySize(array) != n)
		return -1;
	cJSON_ArrayForEach(v, array) {
		if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble <= 0)
			return -1;
		out[i++] = v->valuedouble;
	}
	return 0;
}

int ab_load(const char *path, struct ab_loaded *out)
{
	const cJSON *root, *series, *s, *pairs;
	enum workload workload;
	size_t n, k = 0;

	memset(out, 0, sizeof(*out));
	if (results_parse(path, &out->file))
		return -1;
	root = out->file.root;
	if (!cJSON_IsObject(root) || strcmp(out->file.schema, AB_SCHEMA))
		return fail(out, "not an allocbench ab comparison (schema \"%s\", expected \"%s\")",
			    out->file.schema, AB_SCHEMA);
	out->c.old = string_of(root, "old");
	out->c.new = string_of(root, "new");
	out->c.workload = string_of(root, "workload");
	out->c.label = string_of(root, "label");
	out->c.created = string_of(root, "created");
	if (!out->c.created)
		out->c.created = "";
	if (!out->c.old || !out->c.new)
		return fail(out, "\"old\" and \"new\" must name the variants");
	if (!out->c.workload || workload_parse(out->c.workload, &workload))
		return fail(out, "\"workload\" is not a workload");
	pairs = cJSON_GetObjectItemCaseSensitive(root, "pairs");
	if (!cJSON_IsNumber(pairs) || pairs->valuedouble < 2 || pairs->valuedouble > 64 ||
	    pairs->valuedouble != floor(pairs->valuedouble))
		return fail(out, "\"pairs\" is not a whole number from 2 to 64");
	out->c.pairs = (size_t)pairs->valuedouble;
	series = cJSON_GetObjectItemCaseSensitive(root, "series");
	if (!cJSON_IsArray(series) || !cJSON_GetArraySize(series))
		return fail(out, "\"series\" is not an array of series");
	n = (size_t)cJSON_GetArraySize(series);
	out->series = calloc(n, sizeof(*out->series));
	out->values = malloc(2 * n * out->c.pairs * sizeof(*out->values));
	if (!out->series || !out->values)
		return fail(out, "out of memory");
	cJSON_ArrayForEach(s, series) {
		struct ab_series *a = &out->series[k];
		const cJSON *size = cJSON_GetObjectItemCaseSensitive(s, "size");
		const char *figure = string_of(s, "figure");
		int metric = figure ? metric_find(figure) : -1;

		a->old_backend = string_of(s, "old_backend");
		a->new_backend = string_of(s, "new_backend");
		if (!a->old_backend || !a->new_backend || !*a->old_backend || !*a->new_backend)
			return fail(out, "series[%zu]: \"old_backend\" and \"new_backend\" must name "
				    "backends", k);
		if (!cJSON_IsNumber(size) || size->valuedouble < 0 || size->valuedouble > 0x1p53 ||
		    size->valuedouble != floor(size->valuedouble))
			return fail(out, "series[%zu].size is not a whole number of bytes", k);
		a->size = (size_t)size->valuedouble;
		if (metric < 0 || !metric_applies((enum metric)metric, workload) ||
		    (figure_get((enum metric)metric)->compare != FIGURE_COMPARE_TIME &&
		     figure_get((enum metric)metric)->compare != FIGURE_COMPARE_RATE))
			return fail(out, "series[%zu].figure \"%s\" is not a time or rate of the %s "
				    "workload", k, figure ? figure : "", out->c.workload);
		a->metric = (enum metric)metric;
		a->n = out->c.pairs;
		a->old = out->values + 2 * k * a->n;
		a->new = a->old + a->n;
		if (load_pairs(cJSON_GetObjectItemCaseSensitive(s, "old"), a->n, a->old) ||
		    load_pairs(cJSON_GetObjectItemCaseSensitive(s, "new"), a->n, a->new))
			return fail(out, "series[%zu]: \"old\" and \"new\" must each hold %zu positive "
				    "numbers, one per pair", k, a->n);
		k++;
	}
	out->c.series = out->series;
	out->c.nseries = n;
	return 0;
}

void ab_loaded_release(struct ab_loaded *a)
{
	if (a->file.path)
		results_release(&a->file);
	free(a->series);
	free(a->values);
	memset(a, 0, sizeof(*a));
}
