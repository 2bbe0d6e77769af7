/*
 * counters_nopapi.c - the counters of a build without PAPI (make PAPI=0):
 * the twin of counters_papi.c and counters_explain.c, with the same
 * functions (see counters.h). Nothing can be counted, so every event's status
 * is COUNTERS_E_NOT_BUILT and counters_check() says so for each.
 */
#include "platform/counters_internal.h"
#include "platform/util.h"

#include <stdio.h>
#include <string.h>

/* ------------------------------------------------ the program's own events */

/* Nothing reads the program's own events without PAPI: nothing is kept. */
void counters_note_allocs(size_t chunks, size_t size)
{
	(void)chunks;
	(void)size;
}

void counters_note_frees(size_t chunks)
{
	(void)chunks;
}

/* Refuses the names counters_papi.c refuses, so a wrong one fails in both builds. */
int counters_attach_reader(const char *name, long long (*reader)(const void *ctx),
			   const void *ctx)
{
	int k = counters_sde_index(name);

	(void)reader;
	(void)ctx;
	if (k < 0 || !counters_sde_attached((size_t)k))
		return error("cannot attach a reader to '%s': not an event of allocbench "
			     "that a backend gives", name);
	return 0;
}

/* ------------------------------------------------------------ child's side */

int counters_open(struct counters *counters, const struct counter_list *list)
{
	counters_reset(counters, list);
	for (size_t i = 0; i < list->n; i++) {
		counters->status[i] = COUNTERS_E_NOT_BUILT;
		counters->stage[i] = COUNTERS_STAGE_INIT;
	}
	return 0;
}

void counters_start(struct counters *counters)
{
	(void)counters;
}

void counters_stop(struct counters *counters, enum counters_loop loop,
		   struct counter_values *out)
{
	(void)loop;
	if (!counters)
		return;
	out->n = (uint32_t)counters->list.n;
	for (size_t i = 0; i < counters->list.n; i++) {
		out->status[i] = counters->status[i];
		out->stage[i] = counters->stage[i];
	}
}

void counters_close(struct counters *counters)
{
	(void)counters;
}

/* ------------------------------------------------------ reasons and hints */

void counters_check(const struct counter_list *list, struct counters_check *check)
{
	memset(check, 0, sizeof(*check));
	check->list = *list;
	for (size_t i = 0; i < list->n; i++) {
		struct counter_status *st = &check->events[i];
		const char *own = counters_sde_description(list->names[i]);

		if (own)
			copy_string(st->description, sizeof(st->description), own);
		/* Without PAPI only allocbench's own names can be told unknown. */
		if (counters_starts_with(list->names[i], COUNTERS_SDE_PREFIX) &&
		    counters_sde_index(counters_short_name(list->names[i])) < 0) {
			const char *names[COUNTERS_SDE_COUNT];
			char near[COUNTERS_HINT_MAX / 2];

			for (size_t k = 0; k < COUNTERS_SDE_COUNT; k++)
				names[k] = counters_sde_names[k];
			st->unknown = 1;
			snprintf(st->reason, sizeof(st->reason), "unknown event: allocbench exports "
				 "no event '%s'", counters_short_name(list->names[i]));
			if (nearest_names(counters_short_name(list->names[i]), names,
					  COUNTERS_SDE_COUNT, 1, near, sizeof(near)))
				snprintf(st->nearest, sizeof(st->nearest),
					 COUNTERS_SDE_LIBRARY "::%s", near);
			continue;
		}
		copy_string(st->reason, sizeof(st->reason),
			    "not built with PAPI (this allocbench was built with make PAPI=0)");
		copy_string(st->hint, sizeof(st->hint),
			    "install libpapi-dev and rebuild with make PAPI=1");
	}
}

void counters_check_merge(struct counters_check *check, const struct counter_values *values)
{
	/* Nothing is countable, so nothing a child reports can change the check. */
	(void)check;
	(void)values;
}
