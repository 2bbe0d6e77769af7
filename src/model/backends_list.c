/*
 * backends_list.c - the list of backends (backends_list.h).
 */
#include "model/backends_list.h"
#include "model/preload.h"
#include "platform/util.h"

#include <stdlib.h>

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
	preload_describe_search(where, sizeof(where), known);
	snprintf(e->reason, sizeof(e->reason), "not installed: no %s in %s; on Debian: "
		 "apt-get install %s", known->sonames[0], where, known->package);
}

struct backend_entry *backends_list_collect(struct preload *const *extra, size_t nextra,
					    size_t *n)
{
	size_t nbuiltin = 0, nknown = 0, i = 0;
	struct backend_entry *e;

	while (backend_table[nbuiltin])
		nbuiltin++;
	while (allocator_known[nknown].name)
		nknown++;
	e = calloc(nbuiltin + nknown + nextra, sizeof(*e));
	if (!e) {
		error("out of memory");
		return NULL;
	}
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
