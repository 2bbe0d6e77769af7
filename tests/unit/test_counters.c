/*
 * Unit tests for counters_*.c: the --counters list, and the program's own
 * events counted in this process through PAPI (or, built with PAPI=0,
 * reported as not built).
 */
#include "measure/arena.h"
#include "check.h"
#include "platform/counters.h"
#include "measure/pool.h"

#include <string.h>

#if defined(ALLOCBENCH_PAPI) && ALLOCBENCH_PAPI
#include "platform/papi_binding.h"

#include <stdio.h>

/*
 * The prerequisite of PAPI's words: 1 when its perf_event component is
 * disabled (WHY: its disabled reason), 0 when enabled (WHY: says so), -1
 * when that cannot be told (WHY: why not), asked of PAPI itself.
 */
static int perf_event_disabled(char *why, size_t size)
{
	const PAPI_component_info_t *info;
	int cidx;

	if (papi_binding_load()) {
		snprintf(why, size, "needs PAPI: %s", papi_binding_error());
		return -1;
	}
	if (papi.is_initialized() == PAPI_NOT_INITED &&
	    papi.library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT) {
		snprintf(why, size, "needs PAPI: it does not initialise");
		return -1;
	}
	cidx = papi.get_component_index("perf_event");
	info = cidx < 0 ? NULL : papi.get_component_info(cidx);
	if (!info) {
		snprintf(why, size, "needs PAPI's perf_event component: not built in");
		return -1;
	}
	if (info->disabled) {
		snprintf(why, size, "%s", info->disabled_reason);
		return 1;
	}
	snprintf(why, size, "needs perf_event enabled: it is disabled");
	return 0;
}
#endif

static int parses(const char *text, struct counter_list *list)
{
	char bad[COUNTERS_NAME_MAX];
	const char *why;

	return !counters_parse_list(text, list, bad, sizeof(bad), &why);
}

/* Fails with BAD_WANT as the offending item and a reason containing WHY_WANT. */
static int refuses(const char *text, const char *bad_want, const char *why_want)
{
	struct counter_list list;
	char bad[COUNTERS_NAME_MAX] = "unset";
	const char *why = "";

	return counters_parse_list(text, &list, bad, sizeof(bad), &why) == -1 &&
	       !strcmp(bad, bad_want) && strstr(why, why_want) && list.n == 0;
}

static void test_lists(void)
{
	struct counter_list list, again;
	char buf[COUNTERS_ARG_MAX], many[32 * 20] = "", longname[200];

	CHECK("none is an empty list", parses("none", &list) && list.n == 0);
	CHECK("default: presets, then the program's own",
	      parses("default", &list) && list.n == 10 && !strcmp(list.names[0], "PAPI_TOT_CYC") &&
	      !strcmp(list.names[3], "PAPI_TLB_DM") &&
	      !strcmp(list.names[4], "sde:::allocbench::allocs") &&
	      !strcmp(list.names[9], "sde:::allocbench::arena_bytes_reserved"));
	counters_default_list(&again);
	CHECK("counters_default_list is 'default'",
	      again.n == list.n && !memcmp(again.names, list.names, sizeof(list.names)));
	CHECK("allocbench: all six of the program's own", parses("allocbench", &list) && list.n == 6);
	CHECK("allocbench::NAME is sde:::allocbench::NAME",
	      parses("allocbench::frees", &list) && list.n == 1 &&
	      !strcmp(list.names[0], "sde:::allocbench::frees"));
	CHECK("full sde names kept", parses("sde:::allocbench::allocs", &list) &&
	      !strcmp(list.names[0], "sde:::allocbench::allocs"));
	CHECK("native names kept", parses("perf::PAGE-FAULTS,PAPI_TOT_CYC", &list) &&
	      list.n == 2 && !strcmp(list.names[0], "perf::PAGE-FAULTS"));
	CHECK("repeats kept once",
	      parses("PAPI_TOT_CYC,allocbench::allocs,PAPI_TOT_CYC,sde:::allocbench::allocs", &list) &&
	      list.n == 2);
	CHECK("default plus an event it has", parses("default,PAPI_TOT_CYC", &list) && list.n == 10);

	CHECK("empty list refused", refuses("", "", "empty"));
	CHECK("empty item refused", refuses("PAPI_TOT_CYC,,PAPI_TOT_INS", "", "empty item"));
	CHECK("trailing comma refused", refuses("PAPI_TOT_CYC,", "", "empty item"));
	CHECK("none with events refused", refuses("none,PAPI_TOT_CYC", "none", "cannot be combined"));
	for (int i = 0; i < 17; i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many), "%sE%d", i ? "," : "", i);
	CHECK("17 events refused at the 17th", refuses(many, "E16", "at most 16"));
	CHECK("default plus 7 more refused", refuses("default,a,b,c,d,e,f,g", "g", "at most 16"));
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	CHECK("long name refused", !parses(longname, &list));

	CHECK("format of none", parses("none", &list) && !counters_list_format(&list, buf, sizeof(buf)) &&
	      !strcmp(buf, "none"));
	CHECK("format reads back", parses("default,perf::PAGE-FAULTS", &list) &&
	      !counters_list_format(&list, buf, sizeof(buf)) && parses(buf, &again) &&
	      again.n == list.n && !memcmp(again.names, list.names, sizeof(list.names)));
	CHECK("format refuses a short buffer", counters_list_format(&list, buf, 16) == -1);
	CHECK("short name of the program's own", !strcmp(counters_short_name("sde:::allocbench::pool_blocks"),
							 "pool_blocks"));
	CHECK("short name of a preset", !strcmp(counters_short_name("PAPI_TOT_CYC"), "PAPI_TOT_CYC"));
}

/* Readers as the backends attach them (backend_pool.c, backend_arena.c). */
static long long read_pool_blocks(const void *ctx)
{
	const struct pool *pool = ctx;

	return (long long)pool->blocks;
}

static long long read_pool_bytes_reserved(const void *ctx)
{
	const struct pool *pool = ctx;

	return (long long)(pool->blocks * pool->block_bytes);
}

static long long read_arena_bytes_reserved(const void *ctx)
{
	const struct arena *arena = ctx;

	return (long long)arena->capacity_bytes;
}

/* Only the figures a backend gives take a reader, by their short names. */
static void test_attach(void)
{
	struct pool pool;

	memset(&pool, 0, sizeof(pool));
	CHECK("attach: pool_blocks takes a reader",
	      !counters_attach_reader("pool_blocks", read_pool_blocks, &pool));
	CHECK("attach: and lets it go", !counters_attach_reader("pool_blocks", NULL, NULL));
	CHECK("attach: pool_bytes_reserved takes a reader",
	      !counters_attach_reader("pool_bytes_reserved", read_pool_bytes_reserved, &pool) &&
	      !counters_attach_reader("pool_bytes_reserved", NULL, NULL));
	CHECK("attach: arena_bytes_reserved takes a reader",
	      !counters_attach_reader("arena_bytes_reserved", read_arena_bytes_reserved, &pool) &&
	      !counters_attach_reader("arena_bytes_reserved", NULL, NULL));
	CHECK("attach: not a loop's own count",
	      counters_attach_reader("allocs", read_pool_blocks, &pool) == -1);
	CHECK("attach: not an unknown event",
	      counters_attach_reader("nosuch", read_pool_blocks, &pool) == -1);
	CHECK("attach: not a full name",
	      counters_attach_reader("sde:::allocbench::pool_blocks", read_pool_blocks, &pool) == -1);
}

/* Index of NAME in LIST. */
static size_t slot(const struct counter_list *list, const char *name)
{
	for (size_t i = 0; i < list->n; i++)
		if (!strcmp(list->names[i], name))
			return i;
	return COUNTERS_MAX;
}

static void test_counting(void)
{
	struct counter_list list;
	struct counters counters;
	struct counter_values v;
	struct counters_check check;
	struct pool pool;
	struct arena arena;
	size_t allocs, frees, bytes, blocks, pool_bytes, arena_bytes, nosuch;
	int live;
#if defined(ALLOCBENCH_PAPI) && ALLOCBENCH_PAPI
	char why[1024], skip_why[1100];
	int disabled;
#endif

	parses("allocbench,allocbench::nosuch", &list);
	allocs = slot(&list, "sde:::allocbench::allocs");
	frees = slot(&list, "sde:::allocbench::frees");
	bytes = slot(&list, "sde:::allocbench::bytes_requested");
	blocks = slot(&list, "sde:::allocbench::pool_blocks");
	pool_bytes = slot(&list, "sde:::allocbench::pool_bytes_reserved");
	arena_bytes = slot(&list, "sde:::allocbench::arena_bytes_reserved");
	nosuch = slot(&list, "sde:::allocbench::nosuch");
	memset(&v, 0, sizeof(v));
	live = counters_open(&counters, &list);

#if defined(ALLOCBENCH_PAPI) && ALLOCBENCH_PAPI
	CHECK("six of the program's own events are live", live == 6);
	CHECK("an unknown event of allocbench is refused by name",
	      counters.status[nosuch] == COUNTERS_E_UNKNOWN_SDE);
	CHECK("pool init", !pool_init(&pool, 16, 16, 4096));
	CHECK("arena init", !arena_init(&arena, 8192));
	CHECK("attach the pool's and the arena's readers",
	      !counters_attach_reader("pool_blocks", read_pool_blocks, &pool) &&
	      !counters_attach_reader("pool_bytes_reserved", read_pool_bytes_reserved, &pool) &&
	      !counters_attach_reader("arena_bytes_reserved", read_arena_bytes_reserved, &arena));

	/* The first "loop": 300 chunks of 16 bytes take two 4 KiB blocks. */
	counters_note_allocs(7, 1); /* before the start: not part of the loop */
	counters_start(&counters);
	for (int i = 0; i < 300; i++)
		pool_alloc(&pool);
	counters_note_allocs(300, 16);
	counters_stop(&counters, COUNTERS_ALLOC_LOOP, &v);
	CHECK("values report every event", v.n == list.n);
	CHECK("allocs counted over the loop only", v.status[allocs] == COUNTERS_OK &&
	      v.alloc_loop[allocs] == 300);
	CHECK("bytes_requested = chunks * size", v.alloc_loop[bytes] == 300 * 16);
	CHECK("no frees in the allocation loop", v.alloc_loop[frees] == 0);
	CHECK("pool_blocks is the pool's own count", v.alloc_loop[blocks] == 2 && pool.blocks == 2);
	CHECK("pool_bytes_reserved = blocks * block", v.alloc_loop[pool_bytes] == 8192);
	CHECK("arena_bytes_reserved is its region", v.alloc_loop[arena_bytes] == 8192);
	CHECK("the unknown event keeps its status", v.status[nosuch] == COUNTERS_E_UNKNOWN_SDE &&
	      v.alloc_loop[nosuch] == 0);

	/* The second: frees, and the arena released (0 reserved at the end). */
	counters_start(&counters);
	arena_release(&arena);
	counters_note_frees(300);
	counters_stop(&counters, COUNTERS_FREE_LOOP, &v);
	CHECK("frees counted over the free loop", v.free_loop[frees] == 300 &&
	      v.free_loop[allocs] == 0 && v.free_loop[bytes] == 0);
	CHECK("the pool still holds its blocks", v.free_loop[blocks] == 2);
	CHECK("the released arena reads 0", v.free_loop[arena_bytes] == 0);
	counters_close(&counters);
	pool_release(&pool);

	counters_check(&list, &check);
	CHECK("check: the program's own events are countable",
	      check.events[allocs].ok && !strcmp(check.events[allocs].component, "sde") &&
	      check.events[allocs].description[0]);
	CHECK("check: the unknown one says which exist", !check.events[nosuch].ok &&
	      strstr(check.events[nosuch].reason, "exports no event 'nosuch'") &&
	      strstr(check.events[nosuch].reason, "pool_bytes_reserved"));
	CHECK("check: PAPI's version", check.papi_version[0] != '\0');
	parses("bogus_event_name", &list);
	counters_check(&list, &check);
	/*
	 * What holds on every host: not countable, and a reason. PAPI's own
	 * words depend on its perf_event component (disabled where libpfm4
	 * finds no PMU, enabled without one elsewhere): a prerequisite.
	 */
	CHECK("check: an unknown name is not countable, with PAPI's reason", !check.events[0].ok &&
	      strstr(check.events[0].reason, "PAPI knows no event of this name") &&
	      strlen(check.events[0].reason) > 40);
	disabled = perf_event_disabled(why, sizeof(why));
	if (disabled < 0) {
		SKIP("check: an unknown name, with perf_event enabled: an unknown event (a typo)", why);
		SKIP("check: an unknown name, the disabled component's reason", why);
	} else if (!disabled) {
		CHECK("check: an unknown name, with perf_event enabled: an unknown event (a typo)",
		      check.events[0].unknown &&
		      !strncmp(check.events[0].reason, "unknown event: PAPI knows no event of this name",
			       47));
		SKIP("check: an unknown name, the disabled component's reason",
		     "needs perf_event disabled: it is enabled");
	} else {
		const char *said = strstr(check.events[0].reason,
					  "; the perf_event component, which would count it, is disabled: ");

		snprintf(skip_why, sizeof(skip_why), "needs perf_event enabled: it is disabled: %s", why);
		SKIP("check: an unknown name, with perf_event enabled: an unknown event (a typo)", skip_why);
		CHECK("check: an unknown name, the disabled component's reason",
		      said && strstr(said, why) && *why);
	}

	/* A child that could not count what the check could: the reason is the child's. */
	parses("allocbench::allocs", &list);
	counters_check(&list, &check);
	memset(&v, 0, sizeof(v));
	v.n = 1;
	v.status[0] = -8; /* PAPI_ECNFLCT */
	v.stage[0] = COUNTERS_STAGE_START;
	counters_check_merge(&check, &v);
	CHECK("merge: a child's failure wins", !check.events[0].ok &&
	      strstr(check.events[0].reason, "cannot start counting it") &&
	      strstr(check.events[0].reason, "PAPI_ECNFLCT") &&
	      strstr(check.events[0].reason, "in the measuring process"));
#else
	(void)allocs, (void)frees, (void)bytes, (void)blocks, (void)pool_bytes, (void)arena_bytes;
	(void)pool, (void)arena;
	CHECK("nothing is live without PAPI", live == 0);
	CHECK("every event is not built", counters.status[0] == COUNTERS_E_NOT_BUILT &&
	      counters.status[nosuch] == COUNTERS_E_NOT_BUILT);
	counters_start(&counters);
	counters_stop(&counters, COUNTERS_ALLOC_LOOP, &v);
	CHECK("values say not built", v.n == list.n && v.status[0] == COUNTERS_E_NOT_BUILT);
	counters_close(&counters);
	counters_check(&list, &check);
	CHECK("check says not built with PAPI", !check.events[0].ok &&
	      strstr(check.events[0].reason, "not built with PAPI") && !check.papi_version[0]);
#endif
}

int main(void)
{
	test_lists();
	test_attach();
	test_counting();
	return check_exit();
}
