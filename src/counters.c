/*
 * counters.c - PAPI presets, native events and the program's own Software
 * Defined Events around the measured loops (see counters.h).
 *
 * Facts this file relies on, measured with PAPI 7.0 (see NOTES.md):
 * PAPI_library_init returns PAPI_VER_CURRENT on success; PAPI_strerror
 * crashes before PAPI is initialised and returns NULL for codes it does not
 * know; a component's own reason for being disabled is
 * PAPI_get_component_info(cidx)->disabled_reason; adding an
 * sde:::allocbench::NAME that was never registered returns PAPI_OK and
 * leaves its slot unwritten, so names are checked against the registered
 * list here; events of different components need different event sets.
 */
#include "counters.h"
#include "child/arena.h"
#include "child/pool.h"
#include "util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(ALLOCBENCH_PAPI) && ALLOCBENCH_PAPI
#define HAVE_PAPI 1
#include <papi.h>
#include <sde_lib.h>
#else
#define HAVE_PAPI 0
#endif

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
	"bytes of the arena's region when the loop ends (arena backend; 0 after its teardown)",
};

#define SDE_COUNT (sizeof(sde_descriptions) / sizeof(sde_descriptions[0]))
_Static_assert(sizeof(counters_sde_names) / sizeof(counters_sde_names[0]) == SDE_COUNT + 1,
	       "every event of the program's own has a description");

static int starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* Index of NAME (without the prefix) among the program's own events, or -1. */
static int sde_index(const char *name)
{
	for (size_t i = 0; counters_sde_names[i]; i++)
		if (!strcmp(name, counters_sde_names[i]))
			return (int)i;
	return -1;
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
	if (starts_with(item, COUNTERS_SDE_LIBRARY "::") &&
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
	return starts_with(name, COUNTERS_SDE_PREFIX) ? name + strlen(COUNTERS_SDE_PREFIX) : name;
}

/* ------------------------------------------------ the program's own events */

/*
 * The registered variables: libsde keeps their addresses, PAPI reads them at
 * PAPI_start and PAPI_stop. allocs, frees and bytes_requested are DELTA
 * counters (PAPI reports the change over a loop); the reserved figures are
 * INSTANT (their value when the loop ends), read through callbacks from the
 * attached pool's and arena's own fields.
 */
static long long sde_allocs;
static long long sde_frees;
static long long sde_bytes_requested;
static const struct pool *sde_pool;
static const struct arena *sde_arena;

void counters_note_allocs(size_t chunks, size_t size)
{
	sde_allocs += (long long)chunks;
	sde_bytes_requested += (long long)(chunks * size);
}

void counters_note_frees(size_t chunks)
{
	sde_frees += (long long)chunks;
}

void counters_attach_pool(const struct pool *pool)
{
	sde_pool = pool;
}

void counters_attach_arena(const struct arena *arena)
{
	sde_arena = arena;
}

/* ------------------------------------------------------------ child's side */

static void counters_reset(struct counters *counters, const struct counter_list *list)
{
	memset(counters, 0, sizeof(*counters));
	counters->list = *list;
	for (size_t i = 0; i < COUNTERS_MAX; i++) {
		counters->event_set[i] = -1;
		counters->event_component[i] = -1;
	}
}

static void fail_event(struct counters *counters, size_t i, int status, enum counters_stage stage)
{
	counters->status[i] = status;
	counters->stage[i] = (uint8_t)stage;
	counters->event_set[i] = -1;
}

#if HAVE_PAPI

static long long read_pool_blocks(void *unused)
{
	(void)unused;
	return sde_pool ? (long long)sde_pool->blocks : 0;
}

static long long read_pool_bytes_reserved(void *unused)
{
	(void)unused;
	return sde_pool ? (long long)(sde_pool->blocks * sde_pool->block_bytes) : 0;
}

static long long read_arena_bytes_reserved(void *unused)
{
	(void)unused;
	return sde_arena ? (long long)sde_arena->capacity_bytes : 0;
}

/* Result of registering each of the program's own events (0 or an SDE error). */
static int sde_registered[SDE_COUNT];

/*
 * Exports the program's own events, once per process: libsde crashes in
 * papi_sde_init() after papi_sde_shutdown() (libsde 7.0), so the events stay
 * registered until the process exits. They are not given to
 * papi_sde_describe_counter(), which loses libsde's own copy of each name
 * (valgrind: 154 bytes definitely lost for six events): `allocbench counters`
 * takes their descriptions from sde_descriptions.
 */
static void *sde_register(void)
{
	static papi_handle_t registered;
	long long *const vars[SDE_COUNT] = { &sde_allocs, &sde_frees, &sde_bytes_requested };
	const papi_sde_fptr_t reads[SDE_COUNT] = {
		[3] = read_pool_blocks,
		[4] = read_pool_bytes_reserved,
		[5] = read_arena_bytes_reserved,
	};
	papi_handle_t handle;

	if (registered)
		return registered;
	handle = papi_sde_init(COUNTERS_SDE_LIBRARY);
	for (size_t i = 0; i < SDE_COUNT; i++) {
		const char *name = counters_sde_names[i];

		if (!handle)
			sde_registered[i] = PAPI_ECMP;
		else if (vars[i])
			sde_registered[i] = papi_sde_register_counter(handle, name,
				PAPI_SDE_RO | PAPI_SDE_DELTA, PAPI_SDE_long_long, vars[i]);
		else
			sde_registered[i] = papi_sde_register_counter_cb(handle, name,
				PAPI_SDE_RO | PAPI_SDE_INSTANT, PAPI_SDE_long_long, reads[i], NULL);
	}
	registered = handle;
	return handle;
}

/* The set of COMPONENT, created when first needed; -1 when PAPI refuses. */
static int set_for(struct counters *counters, int component, int *status)
{
	for (size_t s = 0; s < counters->nsets; s++)
		if (counters->set_component[s] == component)
			return (int)s;
	counters->sets[counters->nsets] = PAPI_NULL;
	*status = PAPI_create_eventset(&counters->sets[counters->nsets]);
	if (*status != PAPI_OK)
		return -1;
	counters->set_component[counters->nsets] = component;
	counters->set_size[counters->nsets] = 0;
	return (int)counters->nsets++;
}

/* Adds event I to the set of its component, or records why not. Returns 1 when live. */
static int open_event(struct counters *counters, size_t i)
{
	const char *name = counters->list.names[i];
	long long scratch[COUNTERS_MAX + 1];
	int code = PAPI_NULL, component, status, s, set;

	if (starts_with(name, COUNTERS_SDE_PREFIX)) {
		int k = sde_index(name + strlen(COUNTERS_SDE_PREFIX));

		counters->event_component[i] = PAPI_get_component_index("sde");
		if (k < 0) {
			fail_event(counters, i, COUNTERS_E_UNKNOWN_SDE, COUNTERS_STAGE_NAME);
			return 0;
		}
		if (sde_registered[k]) {
			fail_event(counters, i, sde_registered[k], COUNTERS_STAGE_INIT);
			return 0;
		}
	}
	status = PAPI_event_name_to_code(name, &code);
	if (status != PAPI_OK) {
		fail_event(counters, i, status, COUNTERS_STAGE_NAME);
		return 0;
	}
	component = PAPI_get_event_component(code);
	counters->event_component[i] = component;
	s = set_for(counters, component, &status);
	if (s < 0) {
		fail_event(counters, i, status, COUNTERS_STAGE_ADD);
		return 0;
	}
	set = counters->sets[s];
	status = PAPI_add_event(set, code);
	if (status != PAPI_OK) {
		fail_event(counters, i, status, COUNTERS_STAGE_ADD);
		return 0;
	}
	/* A trial start: perf_event refuses some events only here (permissions, counters in use). */
	status = PAPI_start(set);
	if (status != PAPI_OK) {
		PAPI_remove_event(set, code);
		fail_event(counters, i, status, COUNTERS_STAGE_START);
		return 0;
	}
	PAPI_stop(set, scratch);
	counters->event_set[i] = s;
	counters->event_slot[i] = (int)counters->set_size[s]++;
	return 1;
}

int counters_open(struct counters *counters, const struct counter_list *list)
{
	int ret, live = 0;

	counters_reset(counters, list);
	if (!list->n)
		return 0;
	/* Registered before PAPI_library_init, so the sde component finds them. */
	counters->sde = sde_register();
	ret = PAPI_library_init(PAPI_VER_CURRENT);
	if (ret != PAPI_VER_CURRENT) {
		/* A positive return is another version of the library: a mismatch. */
		for (size_t i = 0; i < list->n; i++)
			fail_event(counters, i, ret < 0 ? ret : PAPI_EINVAL, COUNTERS_STAGE_INIT);
		return 0;
	}
	counters->papi_ready = 1;
	for (size_t i = 0; i < list->n; i++)
		live += open_event(counters, i);
	return live;
}

void counters_start(struct counters *counters)
{
	if (!counters)
		return;
	for (size_t s = 0; s < counters->nsets; s++) {
		int status;

		if (!counters->set_size[s])
			continue;
		status = PAPI_start(counters->sets[s]);
		if (status == PAPI_OK)
			continue;
		for (size_t i = 0; i < counters->list.n; i++)
			if (counters->event_set[i] == (int)s)
				fail_event(counters, i, status, COUNTERS_STAGE_START);
		counters->set_size[s] = 0;
	}
}

static void stop_sets(struct counters *counters, enum counters_loop loop,
		      struct counter_values *out)
{
	/* Stopped in reverse: the sets started last stop first, closest to the loop. */
	for (size_t s = counters->nsets; s-- > 0;) {
		long long values[COUNTERS_MAX + 1];
		int status;

		if (!counters->set_size[s])
			continue;
		memset(values, 0, sizeof(values));
		status = PAPI_stop(counters->sets[s], values);
		for (size_t i = 0; i < counters->list.n; i++) {
			long long v;

			if (counters->event_set[i] != (int)s)
				continue;
			if (status != PAPI_OK) {
				fail_event(counters, i, status, COUNTERS_STAGE_STOP);
				continue;
			}
			v = values[counters->event_slot[i]];
			if (loop == COUNTERS_ALLOC_LOOP)
				out->alloc_loop[i] = v > 0 ? (uint64_t)v : 0;
			else
				out->free_loop[i] = v > 0 ? (uint64_t)v : 0;
		}
		if (status != PAPI_OK)
			counters->set_size[s] = 0;
	}
}

void counters_close(struct counters *counters)
{
	for (size_t s = 0; s < counters->nsets; s++) {
		PAPI_cleanup_eventset(counters->sets[s]);
		PAPI_destroy_eventset(&counters->sets[s]);
	}
	counters->nsets = 0;
	if (counters->papi_ready)
		PAPI_shutdown();
	counters->papi_ready = 0;
	/* The program's own events stay registered: see sde_register(). */
	counters->sde = NULL;
	sde_pool = NULL;
	sde_arena = NULL;
}

#else /* !HAVE_PAPI */

int counters_open(struct counters *counters, const struct counter_list *list)
{
	counters_reset(counters, list);
	for (size_t i = 0; i < list->n; i++)
		fail_event(counters, i, COUNTERS_E_NOT_BUILT, COUNTERS_STAGE_INIT);
	return 0;
}

void counters_start(struct counters *counters)
{
	(void)counters;
}

static void stop_sets(struct counters *counters, enum counters_loop loop,
		      struct counter_values *out)
{
	(void)counters;
	(void)loop;
	(void)out;
}

void counters_close(struct counters *counters)
{
	sde_pool = NULL;
	sde_arena = NULL;
	(void)counters;
}

#endif /* HAVE_PAPI */

void counters_stop(struct counters *counters, enum counters_loop loop,
		   struct counter_values *out)
{
	if (!counters)
		return;
	stop_sets(counters, loop, out);
	out->n = (uint32_t)counters->list.n;
	for (size_t i = 0; i < counters->list.n; i++) {
		out->status[i] = counters->status[i];
		out->stage[i] = counters->stage[i];
	}
}

/* ------------------------------------------------------ reasons and hints */

#if HAVE_PAPI

/*
 * 1 when the kernel has a CPU PMU (perf's "cpu" device or an ARM one), 0
 * when it has none (a VM without a virtual PMU: only software events), -1
 * when this cannot be told.
 */
static int kernel_has_cpu_pmu(void)
{
	DIR *dir = opendir("/sys/bus/event_source/devices");
	struct dirent *d;
	int found = 0;

	if (!dir)
		return -1;
	while (!found && (d = readdir(dir)))
		found = !strcmp(d->d_name, "cpu") || starts_with(d->d_name, "cpu_") ||
			starts_with(d->d_name, "armv") || starts_with(d->d_name, "arm_");
	closedir(dir);
	return found;
}

static int perf_event_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	int level = -100;

	if (f) {
		if (fscanf(f, "%d", &level) != 1)
			level = -100;
		fclose(f);
	}
	return level;
}

static void describe_unknown_sde(const char *name, struct counter_status *st)
{
	size_t used;

	used = (size_t)snprintf(st->reason, sizeof(st->reason),
				"allocbench exports no event '%s'; its events are",
				counters_short_name(name));
	for (size_t i = 0; counters_sde_names[i] && used < sizeof(st->reason); i++)
		used += (size_t)snprintf(st->reason + used, sizeof(st->reason) - used, "%s %s",
					 i ? "," : "", counters_sde_names[i]);
}

static const char *papi_code_name(int code)
{
	switch (code) {
#define CODE(x) case x: return #x;
	CODE(PAPI_EINVAL) CODE(PAPI_ENOMEM) CODE(PAPI_ESYS) CODE(PAPI_ECMP)
	CODE(PAPI_ECLOST) CODE(PAPI_EBUG) CODE(PAPI_ENOEVNT) CODE(PAPI_ECNFLCT)
	CODE(PAPI_ENOTRUN) CODE(PAPI_EISRUN) CODE(PAPI_ENOEVST) CODE(PAPI_ENOTPRESET)
	CODE(PAPI_ENOCNTR) CODE(PAPI_EMISC) CODE(PAPI_EPERM) CODE(PAPI_ENOINIT)
	CODE(PAPI_ENOCMP) CODE(PAPI_ENOSUPP) CODE(PAPI_ENOIMPL) CODE(PAPI_EBUF)
	CODE(PAPI_EINVAL_DOM) CODE(PAPI_EATTR) CODE(PAPI_ECOUNT) CODE(PAPI_ECOMBO)
	CODE(PAPI_ECMP_DISABLED) CODE(PAPI_EDELAY_INIT) CODE(PAPI_EMULPASS)
#undef CODE
	}
	return "unknown PAPI error";
}

/* "Event does not exist (PAPI_ENOEVNT)": PAPI's words and the code's name. PAPI must be up. */
static void papi_error_text(int code, char *buf, size_t size)
{
	const char *text = PAPI_strerror(code);

	snprintf(buf, size, "%s (%s)", text ? text : "error", papi_code_name(code));
}

/*
 * The component an event belongs to by its name, for names PAPI could not
 * resolve; -1 when it names a component PAPI does not have.
 */
static int guess_component(const char *name)
{
	const char *colons = strstr(name, ":::");
	char component[PAPI_MAX_STR_LEN];
	int cidx;

	if (colons) {
		/* COMPONENT:::EVENT names its component; none when PAPI has no such one. */
		if ((size_t)(colons - name) >= sizeof(component))
			return -1;
		snprintf(component, sizeof(component), "%.*s", (int)(colons - name), name);
		return PAPI_get_component_index(component) >= 0 ?
		       PAPI_get_component_index(component) : -1;
	}
	/* Presets and pmu::event names are the CPU component's. */
	cidx = PAPI_get_component_index("perf_event");
	return cidx >= 0 ? cidx : 0;
}

/* A disabled component's name and reason, or NULL when it is enabled. */
static const PAPI_component_info_t *disabled_component(int cidx)
{
	const PAPI_component_info_t *info = cidx >= 0 ? PAPI_get_component_info(cidx) : NULL;

	if (!info || !info->disabled || info->disabled == PAPI_EDELAY_INIT)
		return NULL;
	return info;
}

static void hint_paranoid(struct counter_status *st)
{
	int level = perf_event_paranoid();

	if (level > -100)
		snprintf(st->hint, sizeof(st->hint), "kernel.perf_event_paranoid is %d here; "
			 "allow counting with: sysctl kernel.perf_event_paranoid=2 (as root), "
			 "or run as root", level);
	else
		copy_string(st->hint, sizeof(st->hint), "allow counting with: sysctl "
			    "kernel.perf_event_paranoid=2 (as root), or run as root");
}

static const char *const no_pmu_hint =
	"run on a machine with a PMU: bare metal, or a VM whose host exposes a virtual PMU";

/*
 * Writes why event NAME, with STATUS at STAGE in component CIDX, cannot be
 * counted, and how to fix it. PAPI must be initialised (PAPI_strerror).
 */
static void explain(const char *name, int status, int stage, int cidx,
		    struct counter_status *st)
{
	const PAPI_component_info_t *off = disabled_component(cidx);
	const char *what;
	char text[PAPI_MAX_STR_LEN + 64];
	int code = PAPI_NULL, perf = PAPI_get_component_index("perf_event");

	if (status == COUNTERS_E_UNKNOWN_SDE) {
		describe_unknown_sde(name, st);
		return;
	}
	if (off) {
		/* A name PAPI could not resolve may belong to the disabled component, or to none. */
		snprintf(st->reason, sizeof(st->reason), "%sthe %s component%s is disabled: %s",
			 stage == COUNTERS_STAGE_NAME ? "PAPI knows no event of this name; " : "",
			 off->name, stage == COUNTERS_STAGE_NAME ? ", which would count it," : "",
			 off->disabled_reason[0] ? off->disabled_reason : "no reason given");
		if (strstr(off->disabled_reason, "paranoid"))
			hint_paranoid(st);
		else if (strstr(off->disabled_reason, "PMU") && cidx == perf)
			copy_string(st->hint, sizeof(st->hint), no_pmu_hint);
		else if (!strcmp(off->name, "sde"))
			copy_string(st->hint, sizeof(st->hint),
				    "link allocbench with the shared libsde (-lsde)");
		return;
	}
	papi_error_text(status, text, sizeof(text));
	switch (stage) {
	case COUNTERS_STAGE_INIT:
		what = starts_with(name, COUNTERS_SDE_PREFIX) ? "libsde could not export it" :
			"PAPI could not set up";
		break;
	case COUNTERS_STAGE_NAME:
		what = "PAPI knows no event of this name";
		break;
	case COUNTERS_STAGE_ADD:
		what = "PAPI cannot add it to an event set";
		break;
	case COUNTERS_STAGE_START:
		what = "PAPI cannot start counting it";
		break;
	default:
		what = "PAPI cannot read it";
		break;
	}
	snprintf(st->reason, sizeof(st->reason), "%s: %s", what, text);
	if (starts_with(name, "PAPI_") && status == PAPI_ENOEVNT &&
	    PAPI_event_name_to_code(name, &code) == PAPI_OK) {
		PAPI_event_info_t info;

		memset(&info, 0, sizeof(info));
		if (PAPI_get_event_info(code, &info) == PAPI_OK && !info.count) {
			size_t used = strlen(st->reason);

			snprintf(st->reason + used, sizeof(st->reason) - used,
				 "; PAPI maps this preset to no native event of this CPU");
		}
	}

	if (status == PAPI_EPERM)
		hint_paranoid(st);
	else if (cidx == perf && stage != COUNTERS_STAGE_NAME &&
		 (status == PAPI_ENOEVNT || status == PAPI_ECNFLCT) && kernel_has_cpu_pmu() == 0)
		snprintf(st->hint, sizeof(st->hint), "this kernel has no hardware PMU (no CPU "
			 "device in /sys/bus/event_source/devices; only software events such as "
			 "perf::PAGE-FAULTS work): %s", no_pmu_hint);
	else if (status == PAPI_ECNFLCT || status == PAPI_ECOUNT || status == PAPI_EMULPASS)
		copy_string(st->hint, sizeof(st->hint), "count fewer hardware events at once");
	else if (stage == COUNTERS_STAGE_NAME)
		copy_string(st->hint, sizeof(st->hint), "papi_avail and papi_native_avail list "
			    "the events PAPI knows on this machine");
}

/* What an event counts, in PAPI's words (the program's own: their description). */
static void describe_event(const char *name, struct counter_status *st)
{
	PAPI_event_info_t info;
	int code = PAPI_NULL, k;

	if (starts_with(name, COUNTERS_SDE_PREFIX)) {
		k = sde_index(name + strlen(COUNTERS_SDE_PREFIX));
		if (k >= 0)
			copy_string(st->description, sizeof(st->description), sde_descriptions[k]);
		return;
	}
	memset(&info, 0, sizeof(info));
	if (PAPI_is_initialized() == PAPI_NOT_INITED ||
	    PAPI_event_name_to_code(name, &code) != PAPI_OK ||
	    PAPI_get_event_info(code, &info) != PAPI_OK)
		return;
	copy_string(st->description, sizeof(st->description),
		    info.long_descr[0] ? info.long_descr : info.short_descr);
}

static void component_name(int cidx, struct counter_status *st)
{
	const PAPI_component_info_t *info = cidx >= 0 ? PAPI_get_component_info(cidx) : NULL;

	if (info)
		copy_string(st->component, sizeof(st->component), info->name);
}

/* "7.0.0.0": the version of the PAPI library PAPI is initialised with. */
static void papi_version_string(char *buf, size_t size)
{
	int version = PAPI_get_opt(PAPI_LIB_VERSION, NULL);

	snprintf(buf, size, "%d.%d.%d.%d",
		 PAPI_VERSION_MAJOR(version), PAPI_VERSION_MINOR(version),
		 PAPI_VERSION_REVISION(version), PAPI_VERSION_INCREMENT(version));
}

void counters_check(const struct counter_list *list, struct counters_check *check)
{
	struct counters counters;

	memset(check, 0, sizeof(*check));
	check->list = *list;
	if (!list->n) {
		/* No event asked for, but PAPI is there all the same: say which. */
		if (PAPI_library_init(PAPI_VER_CURRENT) == PAPI_VER_CURRENT) {
			papi_version_string(check->papi_version, sizeof(check->papi_version));
			PAPI_shutdown();
		}
		return;
	}
	counters_open(&counters, list);
	if (!counters.papi_ready) {
		int status = counters.status[0];

		for (size_t i = 0; i < list->n; i++) {
			struct counter_status *st = &check->events[i];

			describe_event(list->names[i], st);
			snprintf(st->reason, sizeof(st->reason), "PAPI failed to initialise: "
				 "PAPI_library_init returned %s (%d)", papi_code_name(status), status);
			copy_string(st->hint, sizeof(st->hint), "papi_component_avail shows "
				    "what PAPI finds on this machine");
		}
		counters_close(&counters);
		return;
	}
	papi_version_string(check->papi_version, sizeof(check->papi_version));
	for (size_t i = 0; i < list->n; i++) {
		struct counter_status *st = &check->events[i];
		const char *name = list->names[i];
		int cidx = counters.event_component[i];

		if (cidx < 0) {
			/* Unresolved: the component it would belong to matters only if disabled. */
			cidx = guess_component(name);
			if (disabled_component(cidx))
				component_name(cidx, st);
		} else {
			component_name(cidx, st);
		}
		describe_event(name, st);
		st->ok = counters.status[i] == COUNTERS_OK;
		if (!st->ok)
			explain(name, counters.status[i], counters.stage[i], cidx, st);
	}
	counters_close(&counters);
}

void counters_check_merge(struct counters_check *check, const struct counter_values *values)
{
	int initialised = 0;

	for (size_t i = 0; i < values->n && i < check->list.n; i++) {
		struct counter_status *st = &check->events[i];
		const char *name = check->list.names[i];
		int cidx, code = PAPI_NULL;
		size_t used;

		if (!st->ok || values->status[i] == COUNTERS_OK)
			continue;
		/* Only now is PAPI needed again: for PAPI_strerror and the component. */
		if (!initialised && PAPI_is_initialized() == PAPI_NOT_INITED) {
			if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
				return;
			initialised = 1;
		}
		cidx = PAPI_event_name_to_code(name, &code) == PAPI_OK ?
		       PAPI_get_event_component(code) : guess_component(name);
		st->ok = 0;
		explain(name, values->status[i], values->stage[i], cidx, st);
		used = strlen(st->reason);
		snprintf(st->reason + used, sizeof(st->reason) - used, " (in the measuring process)");
	}
	if (initialised)
		PAPI_shutdown();
}

#else /* !HAVE_PAPI */

void counters_check(const struct counter_list *list, struct counters_check *check)
{
	memset(check, 0, sizeof(*check));
	check->list = *list;
	for (size_t i = 0; i < list->n; i++) {
		struct counter_status *st = &check->events[i];
		const char *name = list->names[i];
		int k = starts_with(name, COUNTERS_SDE_PREFIX) ?
			sde_index(name + strlen(COUNTERS_SDE_PREFIX)) : -1;

		if (k >= 0)
			copy_string(st->description, sizeof(st->description), sde_descriptions[k]);
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

#endif /* HAVE_PAPI */
