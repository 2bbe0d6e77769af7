/*
 * backend_set.c - the backends one run measures (backend_set.h).
 */
#include "model/backend_set.h"
#include "model/figure.h"
#include "model/abi.h"
#include "platform/parse.h"
#include "model/preload.h"
#include "model/run.h"
#include "model/runner.h"
#include "model/settings.h"
#include "platform/util.h"
#include "measure/backend.h"
#include "measure/pool.h"
#include "measure/workloads.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The names --backend knows, "malloc, pool, ..., all, list", for messages. */
static void list_backends(char *buf, size_t size, const struct run_config *config)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; backend_table[i] && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : "",
					 backend_table[i]->name);
	for (size_t i = 0; allocator_known[i].name && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, ", %s", allocator_known[i].name);
	for (size_t i = 0; i < config->npreloads && used < size; i++)
		if (config->preloads[i]->from_option && !config->preloads[i]->known)
			used += (size_t)snprintf(buf + used, size - used, ", %s",
						 config->preloads[i]->name);
	if (used < size)
		snprintf(buf + used, size - used, ", all, list");
}

/* "; did you mean pool?" for WORD among the names of LIST ("a, b, c"), or "". */
static void did_you_mean(const char *word, const char *list, char *buf, size_t size)
{
	char copy[512], near[200], *save = NULL;
	const char *names[64];
	size_t n = 0;

	copy_string(copy, sizeof(copy), list);
	for (char *name = strtok_r(copy, ", ", &save); name && n < 64;
	     name = strtok_r(NULL, ", ", &save))
		names[n++] = name;
	*buf = '\0';
	if (nearest_names(word, names, n, 3, near, sizeof(near)))
		snprintf(buf, size, "; did you mean %s?", near);
}

static int add_preload(struct run_config *config, struct preload *p)
{
	if (ALLOC_GROW(config->preloads, config->npreloads, config->preloads_alloc)) {
		free(p);
		return error("out of memory");
	}
	config->preloads[config->npreloads++] = p;
	return 0;
}

/* The preloaded backend called NAME (from --preload or located before), or NULL. */
static struct preload *find_preload(const struct run_config *config, const char *name)
{
	for (size_t i = 0; i < config->npreloads; i++)
		if (!strcmp(config->preloads[i]->name, name))
			return config->preloads[i];
	return NULL;
}

int backend_set_preload(struct run_config *config, const char *spec)
{
	struct preload *p = preload_parse(spec);

	if (!p)
		return -1;
	if (find_preload(config, p->name)) {
		error("--preload '%s' appears more than once", p->name);
		free(p);
		return -1;
	}
	return add_preload(config, p);
}

/* Refuses the preloaded backend NAME when this build cannot preload. */
static int check_preload_supported(const char *name)
{
	if (preload_unsupported())
		return error("backend '%s' cannot run in this build: it preloads a library, and "
			     "AddressSanitizer (make SANITIZE=%s) must be the first library "
			     "loaded; rebuild without SANITIZE=address", name, ALLOCBENCH_SANITIZE);
	return 0;
}

/*
 * The known allocator KNOWN, located on this machine, or NULL after an
 * error naming the Debian package when it is not installed.
 */
static const struct backend *require_known(struct run_config *config,
					   const struct allocator_known *known)
{
	struct preload *p = find_preload(config, known->name);
	char where[512];

	if (check_preload_supported(known->name))
		return NULL;
	if (p)
		return &p->backend;
	p = preload_locate(known);
	if (!p) {
		preload_describe_search(where, sizeof(where), known);
		error("backend '%s' needs %s, which is not installed (searched %s); on "
		      "Debian: apt-get install %s", known->name, known->sonames[0], where,
		      known->package);
		return NULL;
	}
	if (add_preload(config, p))
		return NULL;
	return &p->backend;
}

static int add_backend(struct run_config *config, const struct backend *b)
{
	if (!b)
		return -1;
	for (size_t i = 0; i < config->nbackends; i++)
		if (config->backends[i] == b || !strcmp(config->backends[i]->name, b->name))
			return error("backend '%s' appears more than once in --backend", b->name);
	if (ALLOC_GROW(config->backends, config->nbackends, config->backends_alloc))
		return error("out of memory");
	config->backends[config->nbackends++] = b;
	return 0;
}

static int add_skip(struct run_config *config, const char *name, const char *package,
		    const char *reason)
{
	struct backend_skip *skip;

	if (ALLOC_GROW(config->skipped, config->nskipped, config->skipped_alloc))
		return error("out of memory");
	skip = &config->skipped[config->nskipped++];
	copy_string(skip->name, sizeof(skip->name), name);
	copy_string(skip->package, sizeof(skip->package), package);
	copy_string(skip->reason, sizeof(skip->reason), reason);
	warning("--backend all skips %s: %s", name, reason);
	return 0;
}

/*
 * Why the built-in backend B cannot measure the workload of CONFIG (a
 * short reason), or NULL when it can.
 */
static const char *backend_set_cannot(const struct run_config *config, const struct backend *b)
{
	const struct workload_def *w = workload_def(config->workload);

	return w->cannot ? w->cannot(config, b) : NULL;
}

/* --backend all's known allocator KNOWN: added when installed, else skipped. */
static int add_known(struct run_config *config, const struct allocator_known *known)
{
	struct preload *p = find_preload(config, known->name);
	char reason[160];

	if (preload_unsupported())
		return add_skip(config, known->name, known->package,
				"this build uses AddressSanitizer, which must be the first "
				"library loaded");
	if (!p && (p = preload_locate(known)) && add_preload(config, p))
		return -1;
	if (p)
		return add_backend(config, &p->backend);
	snprintf(reason, sizeof(reason), "not installed (no %s; on Debian: apt-get "
		 "install %s)", known->sonames[0], known->package);
	return add_skip(config, known->name, known->package, reason);
}

/*
 * --backend all: every built-in backend that can do the workload, then
 * every known allocator that is installed (the others are listed in
 * config->skipped and on stderr), then every other --preload.
 */
static int add_all_backends(struct run_config *config)
{
	for (size_t i = 0; backend_table[i]; i++) {
		const char *why = backend_set_cannot(config, backend_table[i]);

		if (why ? add_skip(config, backend_table[i]->name, "", why) :
		    add_backend(config, backend_table[i]))
			return -1;
	}
	for (size_t i = 0; allocator_known[i].name; i++)
		if (add_known(config, &allocator_known[i]))
			return -1;
	for (size_t i = 0; i < config->npreloads; i++)
		if (config->preloads[i]->from_option && !config->preloads[i]->known &&
		    (check_preload_supported(config->preloads[i]->name) ||
		     add_backend(config, &config->preloads[i]->backend)))
			return -1;
	return 0;
}

/* The backend of one named item of --backend (not all, not list), or NULL after an error. */
static const struct backend *find_named(struct run_config *config, const char *item,
					const char *known)
{
	const struct backend *b;
	const struct allocator_known *k;
	struct preload *p;
	char near[256];

	if ((b = backend_find(item)))
		return b;
	if ((p = find_preload(config, item)))
		return check_preload_supported(item) ? NULL : &p->backend;
	if ((k = allocator_known_find(item)))
		return require_known(config, k);
	did_you_mean(item, known, near, sizeof(near));
	error("unknown backend '%s' in --backend%s (known backends: %s)", item, near, known);
	return NULL;
}

/*
 * One named item of --backend (not all, not list); KNOWN lists the names.
 * ALLOCATOR:NAME=VALUE... is that allocator with settings (settings.h).
 */
static int add_named(struct run_config *config, const char *item, const char *known)
{
	const struct backend *b;
	char base[64];

	if (!strcmp(item, RUNNER_FLOOR))
		return error("invalid backend '%s' in --backend: '%s' is reserved for the "
			     "floor (the loop without an allocator), not a backend (known "
			     "backends: %s)", item, item, known);
	if (!settings_split(item, base, sizeof(base)))
		return add_backend(config, find_named(config, item, known));
	if (!(b = find_named(config, base, known)))
		return -1;
	return add_backend(config, settings_candidate(config, item, b));
}

/* Refuses a --preload that --backend does not measure. */
static int check_preloads_used(const struct run_config *config)
{
	for (size_t i = 0; i < config->npreloads; i++) {
		const struct preload *p = config->preloads[i];
		int used = 0;

		for (size_t b = 0; b < config->nbackends; b++)
			used |= config->backends[b] == &p->backend;
		if (p->from_option && !used)
			return error("--preload '%s' is not measured: add '%s' to --backend (or "
				     "use --backend all)", p->name, p->name);
	}
	return 0;
}

int backend_set_parse(struct run_config *config, const char *text)
{
	struct parse_list list;
	char known[512], hint[560];
	char *item;
	int ret = 0;

	list_backends(known, sizeof(known), config);
	free(config->backends);
	config->backends = NULL;
	config->nbackends = config->backends_alloc = 0;
	if (!*text)
		return error("empty --backend list (known backends: %s)", known);
	snprintf(hint, sizeof(hint), " (known backends: %s)", known);
	parse_list_init(&list, text, "--backend", hint);
	while (!ret && (item = parse_list_next(&list))) {
		if (!strcmp(item, "list") || !strcmp(item, "all")) {
			if (strcmp(text, item))
				ret = error("--backend %s cannot be combined with other backends "
					    "('%s')", item, text);
			else
				ret = !strcmp(item, "list") ? 1 : add_all_backends(config);
			break;
		}
		ret = add_named(config, item, known);
	}
	if (parse_list_release(&list))
		ret = -1;
	return ret ? ret : check_preloads_used(config);
}

/* A 32-bit row's backend (abi.h): one allocation, its name and library inside. */
struct abi_row {
	struct backend backend;                  /* first: config->abi_rows frees it */
	char name[PRELOAD_NAME_MAX + 4];         /* "NAME/32" */
	char path[PATH_MAX];                     /* its i386 library, for a preloaded backend */
};

/* A new 32-bit row of B, in CONFIG's abi_rows, with the i386 library FOUND (taken). */
static const struct backend *new_abi_row(struct run_config *config, const struct backend *b,
					 struct preload *found)
{
	struct abi_row *row = calloc(1, sizeof(*row));

	if (!row || ALLOC_GROW(config->abi_rows, config->nabi_rows, config->abi_rows_alloc)) {
		free(row);
		free(found);
		error("out of memory");
		return NULL;
	}
	config->abi_rows[config->nabi_rows++] = &row->backend;
	row->backend = *b;
	snprintf(row->name, sizeof(row->name), "%s/32", b->name);
	row->backend.name = row->name;
	row->backend.abi = 32;
	row->backend.base = b;
	if (found) {
		copy_string(row->path, sizeof(row->path), found->path);
		row->backend.preload_path = row->path;
		free(found);
	}
	return &row->backend;
}

/*
 * Sets *ROW to the 32-bit row of B, or to NULL when B has none (a
 * preloaded allocator without its i386 library, a --preload: a library of
 * this program's word size): skipped when ALL, else an error. Returns 0 or
 * -1 after an error.
 */
static int abi32_row(struct run_config *config, const struct backend *b, int all,
		     const struct backend **row)
{
	const struct preload *p = NULL;
	struct preload *found = NULL;
	char reason[160], package[48], name[PRELOAD_NAME_MAX + 4];

	*row = NULL;
	if (b->env)
		return error("backend '%s' cannot be measured with --abi 32: settings are measured "
			     "in %u-bit rows only", b->name, abi_native());
	for (size_t i = 0; i < config->npreloads; i++)
		if (&config->preloads[i]->backend == b)
			p = config->preloads[i];
	snprintf(name, sizeof(name), "%s/32", b->name);
	if (p && !p->known) {
		if (!all)
			return error("backend '%s' cannot be measured with --abi 32: its --preload "
				     "library '%s' is a %u-bit one", b->name, p->path, abi_native());
		snprintf(reason, sizeof(reason), "a --preload library is %u-bit", abi_native());
		return add_skip(config, name, "", reason);
	}
	if (p && !(found = preload_locate_abi(p->known, 32))) {
		preload_package(package, sizeof(package), p->known, 32);
		snprintf(reason, sizeof(reason), "not installed for 32-bit (no i386 %s; on Debian: "
			 "%sapt-get install %s)", preload_soname(p->known, 32),
			 p->known->soname32 ? "" : "dpkg --add-architecture i386, ", package);
		if (!all)
			return error("backend '%s' cannot be measured with --abi 32: %s", b->name,
				     reason);
		return add_skip(config, name, package, reason);
	}
	*row = new_abi_row(config, b, found);
	return *row ? 0 : -1;
}

/* Reads --abi TEXT into config->abis, each made ready. */
static int read_abis(struct run_config *config, const char *text, int *with32)
{
	struct parse_list list;
	const char *item;
	char why[PATH_MAX + 512];
	int with64 = 0, ret = 0;

	*with32 = 0;
	if (!*text)
		return error("empty --abi list (expected 64, 32 or 32,64)");
	parse_list_init(&list, text, "--abi", " (expected 64, 32 or 32,64)");
	while (!ret && (item = parse_list_next(&list))) {
		unsigned abi = !strcmp(item, "32") ? 32 : !strcmp(item, "64") ? 64 : 0;

		if (!abi)
			ret = error("invalid ABI '%s' in --abi (expected 64, 32 or 32,64)", item);
		else if ((abi == 32 && (*with32)++) || (abi == 64 && with64++))
			ret = error("ABI '%s' appears more than once in --abi", item);
		else
			config->abis[config->nabis++] = abi;
	}
	if (parse_list_release(&list))
		ret = -1;
	for (size_t i = 0; !ret && i < config->nabis; i++)
		if (abi_prepare(config->abis[i], why, sizeof(why)))
			ret = error("--abi %u cannot be measured here: %s", config->abis[i], why);
	return ret;
}

int backend_set_abis(struct run_config *config, const char *text, int all)
{
	const struct backend **rows;
	size_t nrows = 0;
	int with32;

	config->nabis = 0;
	if (!text) {
		config->abis[config->nabis++] = 64;
		return 0;
	}
	if (read_abis(config, text, &with32))
		return -1;
	if (!with32)
		return 0;
	rows = calloc(config->nbackends * 2, sizeof(*rows));
	if (!rows)
		return error("out of memory");
	for (size_t b = 0; b < config->nbackends; b++)
		for (size_t i = 0; i < config->nabis; i++) {
			const struct backend *row = config->backends[b];

			if (config->abis[i] == 32 && abi32_row(config, config->backends[b], all, &row)) {
				free(rows);
				return -1;
			}
			if (row)
				rows[nrows++] = row;
		}
	free(config->backends);
	config->backends = rows;
	config->nbackends = nrows;
	config->backends_alloc = config->nbackends * 2;
	if (!nrows)
		return error("--abi %s leaves no backend to measure", text);
	return 0;
}

int backend_set_check_pool_block(const struct run_config *config)
{
	int pooled = 0;

	for (size_t b = 0; b < config->nbackends; b++)
		pooled |= backend_base(config->backends[b]) == &backend_pool ||
			  backend_base(config->backends[b]) == &backend_pool_locked;
	for (size_t i = 0; pooled && i < config->nsizes; i++) {
		size_t align = config->align ? config->align : natural_alignment(config->sizes[i]);
		size_t limit = pool_block_limit(align);

		if (config->pool_block_bytes > limit)
			return error("invalid --pool-block: %zu bytes is more than a pool of %zu-byte "
				     "chunks aligned to %zu B can address, %zu bytes (%zu MiB): its "
				     "links count alignments in 32 bits; use a smaller --pool-block%s",
				     config->pool_block_bytes, config->sizes[i], align, limit,
				     limit >> 20, config->align ? "" : " or a larger --align");
	}
	return 0;
}

void backend_set_release(struct run_config *config)
{
	for (size_t i = 0; i < config->npreloads; i++)
		free(config->preloads[i]);
	free(config->preloads);
	free(config->skipped);
	free(config->backends);
	for (size_t i = 0; i < config->nabi_rows; i++)
		free(config->abi_rows[i]);
	free(config->abi_rows);
	for (size_t i = 0; i < config->ncandidates; i++)
		free(config->candidates[i]);
	free(config->candidates);
}
