/*
 * counters_list.c - the --counters lists and the program's own events' names
 * and descriptions (see counters.h). Pure C, without PAPI: the parser of
 * outside input that tests/fuzz/fuzz_counters.c runs, the same in both builds.
 */
#include "platform/counters_internal.h"
#include "platform/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- the lists */

const char *const counters_sde_names[] = {
	"allocs",
	"frees",
	"bytes_requested",
	"pool_blocks",
	"pool_bytes_reserved",
	"arena_bytes_reserved",
	NULL,
};

/* What each of counters_sde_names counts, in the same order. */
static const char *const sde_descriptions[] = {
	"chunks the allocation loop allocated (its own count, stored after the loop)",
	"chunks the free loop released (its own count, stored after the loop)",
	"bytes the allocation loop requested: chunks times size",
	"blocks the pool holds from the system when the loop ends (pool backend)",
	"bytes of the blocks the pool holds from the system when the loop ends (pool backend)",
	("bytes of the arena's region when the loop ends (arena backend; the same after the "
	 "free loop, whose teardown rewinds the region without unmapping it)"),
};


/*
 * Which of them a backend gives through a reader (counters_attach_reader()):
 * an INSTANT figure, its value when the loop ends. The others are the loop's
 * own counts, stored after it, whose change over the loop PAPI reports.
 */
static const unsigned char sde_attached[] = { 0, 0, 0, 1, 1, 1 };

_Static_assert(sizeof(sde_attached) == COUNTERS_SDE_COUNT,
	       "every event of the program's own says whether a reader gives it");
_Static_assert(sizeof(sde_descriptions) / sizeof(sde_descriptions[0]) == COUNTERS_SDE_COUNT,
	       "COUNTERS_SDE_COUNT counts the program's own events");
_Static_assert(sizeof(counters_sde_names) / sizeof(counters_sde_names[0]) == COUNTERS_SDE_COUNT + 1,
	       "every event of the program's own has a description");

int counters_sde_index(const char *name)
{
	for (size_t i = 0; counters_sde_names[i]; i++)
		if (!strcmp(name, counters_sde_names[i]))
			return (int)i;
	return -1;
}

int counters_sde_attached(size_t k)
{
	return k < COUNTERS_SDE_COUNT && sde_attached[k];
}

const char *counters_sde_description(const char *name)
{
	int k = counters_starts_with(name, COUNTERS_SDE_PREFIX) ?
		counters_sde_index(name + strlen(COUNTERS_SDE_PREFIX)) : -1;

	return k >= 0 ? sde_descriptions[k] : NULL;
}

static int list_add(struct counter_list *list, const char *name,
		    char *bad, size_t bad_size, const char **why)
{
	if (strlen(name) >= COUNTERS_NAME_MAX) {
		copy_string(bad, bad_size, name);
		*why = "event name too long (at most 127 bytes)";
		return -1;
	}
	for (size_t i = 0; i < list->n; i++)
		if (!strcmp(list->names[i], name))
			return 0;
	if (list->n == COUNTERS_MAX) {
		copy_string(bad, bad_size, name);
		*why = "too many events (at most 16)";
		return -1;
	}
	copy_string(list->names[list->n++], COUNTERS_NAME_MAX, name);
	return 0;
}

static int list_add_sde_all(struct counter_list *list, char *bad, size_t bad_size,
			    const char **why)
{
	char name[COUNTERS_NAME_MAX];

	for (size_t i = 0; counters_sde_names[i]; i++) {
		snprintf(name, sizeof(name), "%s%s", COUNTERS_SDE_PREFIX, counters_sde_names[i]);
		if (list_add(list, name, bad, bad_size, why))
			return -1;
	}
	return 0;
}

static int list_add_item(struct counter_list *list, const char *item,
			 char *bad, size_t bad_size, const char **why)
{
	char name[COUNTERS_NAME_MAX + 16];
	const char *presets = COUNTERS_DEFAULT_PRESETS;

	if (!strcmp(item, "default")) {
		while (*presets) {
			size_t n = strcspn(presets, ",");

			snprintf(name, sizeof(name), "%.*s", (int)n, presets);
			if (list_add(list, name, bad, bad_size, why))
				return -1;
			presets += n + (presets[n] == ',');
		}
		return list_add_sde_all(list, bad, bad_size, why);
	}
	if (!strcmp(item, COUNTERS_SDE_LIBRARY))
		return list_add_sde_all(list, bad, bad_size, why);
	if (counters_starts_with(item, COUNTERS_SDE_LIBRARY "::") &&
	    item[strlen(COUNTERS_SDE_LIBRARY "::")]) {
		if (snprintf(name, sizeof(name), "sde:::%s", item) >= COUNTERS_NAME_MAX) {
			copy_string(bad, bad_size, item);
			*why = "event name too long (at most 127 bytes)";
			return -1;
		}
		return list_add(list, name, bad, bad_size, why);
	}
	return list_add(list, item, bad, bad_size, why);
}

int counters_parse_list(const char *text, struct counter_list *list,
			char *bad, size_t bad_size, const char **why)
{
	char *copy, *item, *next;
	int none = 0, ret = 0;

	memset(list, 0, sizeof(*list));
	if (!*text) {
		copy_string(bad, bad_size, "");
		*why = "the list is empty";
		return -1;
	}
	copy = strdup(text);
	if (!copy) {
		copy_string(bad, bad_size, text);
		*why = "out of memory";
		return -1;
	}
	for (item = copy; item && !ret; item = next) {
		next = strchr(item, ',');
		if (next)
			*next++ = '\0';
		if (!*item) {
			copy_string(bad, bad_size, "");
			*why = "empty item";
			ret = -1;
		} else if (!strcmp(item, "none")) {
			none = 1;
		} else {
			ret = list_add_item(list, item, bad, bad_size, why);
		}
	}
	if (!ret && none && list->n) {
		copy_string(bad, bad_size, "none");
		*why = "'none' cannot be combined with events";
		ret = -1;
	}
	free(copy);
	if (ret)
		memset(list, 0, sizeof(*list));
	return ret;
}

void counters_default_list(struct counter_list *list)
{
	char bad[8];
	const char *why;

	/* The default list is fixed and fits: this cannot fail. */
	if (counters_parse_list("default", list, bad, sizeof(bad), &why))
		memset(list, 0, sizeof(*list));
}

int counters_list_format(const struct counter_list *list, char *buf, size_t size)
{
	size_t used = 0;

	if (!size)
		return -1;
	buf[0] = '\0';
	if (!list->n)
		return snprintf(buf, size, "none") < (int)size ? 0 : -1;
	for (size_t i = 0; i < list->n; i++) {
		int n = snprintf(buf + used, size - used, "%s%s", i ? "," : "", list->names[i]);

		if (n < 0 || (size_t)n >= size - used)
			return -1;
		used += (size_t)n;
	}
	return 0;
}

const char *counters_short_name(const char *name)
{
	return counters_starts_with(name, COUNTERS_SDE_PREFIX) ?
	       name + strlen(COUNTERS_SDE_PREFIX) : name;
}

void counters_reset(struct counters *counters, const struct counter_list *list)
{
	memset(counters, 0, sizeof(*counters));
	counters->list = *list;
	for (size_t i = 0; i < COUNTERS_MAX; i++) {
		counters->event_set[i] = -1;
		counters->event_component[i] = -1;
	}
}
