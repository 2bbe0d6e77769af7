/*
 * backends_list.c - the list of backends (backends_list.h).
 */
#include "model/backends_list.h"
#include "report/json_out.h"
#include "model/preload.h"
#include "platform/util.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

/* One line of the list. */
struct backend_entry {
	const char *name;
	const char *kind;       /* "built-in", "preload" (a known allocator) or "--preload" */
	int available;          /* 1: --backend NAME measures it here */
	char what[PATH_MAX + 64]; /* the summary, or the library preloaded */
	char reason[768];       /* why not, when not available */
	const char *package;    /* the Debian package of a known allocator, or NULL */
};

/* Fills E for the known allocator KNOWN, looked up as --backend does. */
static void known_entry(struct backend_entry *e, const struct allocator_known *known)
{
	struct preload *p;
	char where[512];

	e->name = known->name;
	e->kind = "preload";
	e->package = known->package;
	if (preload_unsupported()) {
		snprintf(e->what, sizeof(e->what), "%s", known->summary);
		snprintf(e->reason, sizeof(e->reason), "this build uses AddressSanitizer "
			 "(make SANITIZE=%s), which must be the first library loaded",
			 ALLOCBENCH_SANITIZE);
		return;
	}
	p = preload_locate(known);
	if (p) {
		e->available = 1;
		snprintf(e->what, sizeof(e->what), "%s; library %s", known->summary, p->path);
		free(p);
		return;
	}
	snprintf(e->what, sizeof(e->what), "%s", known->summary);
	preload_describe_search(where, sizeof(where));
	snprintf(e->reason, sizeof(e->reason), "not installed: no %s in %s; on Debian: "
		 "apt-get install %s", known->sonames[0], where, known->package);
}

/* Every backend, in --backend all's order; *N entries, owned by the caller. */
static struct backend_entry *entries_collect(struct preload *const *extra, size_t nextra,
					     size_t *n)
{
	size_t nbuiltin = 0, nknown = 0, i = 0;
	struct backend_entry *e;

	while (backend_table[nbuiltin])
		nbuiltin++;
	while (allocator_known[nknown].name)
		nknown++;
	e = calloc(nbuiltin + nknown + nextra, sizeof(*e));
	if (!e)
		return NULL;
	for (size_t b = 0; b < nbuiltin; b++, i++) {
		e[i].name = backend_table[b]->name;
		e[i].kind = "built-in";
		e[i].available = 1;
		snprintf(e[i].what, sizeof(e[i].what), "%s", backend_table[b]->summary);
	}
	for (size_t k = 0; k < nknown; k++, i++)
		known_entry(&e[i], &allocator_known[k]);
	for (size_t k = 0; k < nextra; k++, i++) {
		e[i].name = extra[k]->name;
		e[i].kind = "--preload";
		e[i].available = !preload_unsupported();
		snprintf(e[i].what, sizeof(e[i].what), "preloads %s", extra[k]->path);
		if (!e[i].available)
			snprintf(e[i].reason, sizeof(e[i].reason), "this build uses "
				 "AddressSanitizer, which must be the first library loaded");
	}
	*n = i;
	return e;
}

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

int backends_list_write(FILE *out, int json, struct preload *const *extra, size_t n)
{
	struct backend_entry *e;
	size_t count;
	int ret;

	e = entries_collect(extra, n, &count);
	if (!e)
		return error("out of memory");
	ret = json ? write_json(out, e, count) : write_text(out, e, count);
	free(e);
	return ret;
}
