/*
 * report_backends.c - the list of backends as text or JSON (report_backends.h).
 */
#include "report/report_backends.h"
#include "model/backends_list.h"
#include "report/json_out.h"
#include "platform/util.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

/* "NAME  yes  what" per backend; the reason a backend cannot run on a line of its own. */
static int write_text(FILE *out, const struct backend_entry *e, size_t n)
{
	int width = 7;    /* "backend"; a name is at most PRELOAD_NAME_MAX */
	char indent[64];

	for (size_t i = 0; i < n; i++)
		if ((int)strlen(e[i].name) > width)
			width = (int)strlen(e[i].name);
	snprintf(indent, sizeof(indent), "%*s", width + 13, "");
	fprintf(out, "%-*s  available  what\n", width, "backend");
	for (size_t i = 0; i < n; i++) {
		char line[sizeof(e[i].reason) + 16];

		fprintf(out, "%-*s  %-9s  ", width, e[i].name, e[i].available ? "yes" : "no");
		put_wrapped_from(out, e[i].what, (size_t)width + 13, 80, indent);
		if (e[i].available)
			continue;
		snprintf(line, sizeof(line), "why not: %s", e[i].reason);
		fputs(indent, out);
		put_wrapped_from(out, line, (size_t)width + 13, 80, indent);
	}
	fputs("\n--backend all measures every available one\n", out);
	return ferror(out) ? -1 : 0;
}

static int write_json(FILE *out, const struct backend_entry *e, size_t n)
{
	cJSON *root = cJSON_CreateObject(), *array = cJSON_CreateArray();

	for (size_t i = 0; i < n; i++) {
		cJSON *obj = cJSON_CreateObject();

		cJSON_AddStringToObject(obj, "name", e[i].name);
		cJSON_AddStringToObject(obj, "kind", e[i].kind);
		cJSON_AddBoolToObject(obj, "available", e[i].available);
		cJSON_AddStringToObject(obj, "what", e[i].what);
		if (!e[i].available)
			cJSON_AddStringToObject(obj, "reason", e[i].reason);
		if (e[i].package)
			cJSON_AddStringToObject(obj, "package", e[i].package);
		cJSON_AddItemToArray(array, obj);
	}
	cJSON_AddItemToObject(root, "backends", array);
	return json_write_document(out, root);
}

int report_backends_write(FILE *out, int json, struct preload *const *extra, size_t n)
{
	struct backend_entry *e;
	size_t count;
	int ret;

	e = backends_list_collect(extra, n, &count);
	if (!e)
		return -1;
	ret = json ? write_json(out, e, count) : write_text(out, e, count);
	free(e);
	return ret;
}
