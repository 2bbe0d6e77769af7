/*
 * counters_papi.c - counting through PAPI in the measuring child: the event
 * sets around the loops, and the program's own events exported with libsde
 * (see counters.h). Built with PAPI=1 only; counters_nopapi.c is its twin.
 * PAPI is loaded, not linked: the binding (papi_binding.h) is the first
 * section, and counters_open() loads it when it has an event to open.
 *
 * Facts this file relies on, measured with PAPI 7.0 (Debian 12):
 * PAPI_library_init returns PAPI_VER_CURRENT on success; adding an
 * sde:::allocbench::NAME that was never registered returns PAPI_OK and
 * leaves its slot unwritten, so names are checked against the registered
 * list here; events of different components need different event sets.
 */
#include "platform/counters_internal.h"
#include "platform/papi_binding.h"
#include "platform/util.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------- binding */

struct papi_binding papi;

/* Each function of struct papi_binding by its name in the libraries. */
static const struct {
	const char *name;
	size_t offset;
} papi_functions[] = {
#define FN(field, symbol) { #symbol, offsetof(struct papi_binding, field) }
	FN(library_init, PAPI_library_init),
	FN(is_initialized, PAPI_is_initialized),
	FN(shutdown, PAPI_shutdown),
	FN(create_eventset, PAPI_create_eventset),
	FN(cleanup_eventset, PAPI_cleanup_eventset),
	FN(destroy_eventset, PAPI_destroy_eventset),
	FN(add_event, PAPI_add_event),
	FN(remove_event, PAPI_remove_event),
	FN(start, PAPI_start),
	FN(stop, PAPI_stop),
	FN(event_name_to_code, PAPI_event_name_to_code),
	FN(event_code_to_name, PAPI_event_code_to_name),
	FN(get_event_component, PAPI_get_event_component),
	FN(get_event_info, PAPI_get_event_info),
	FN(get_component_index, PAPI_get_component_index),
	FN(get_component_info, PAPI_get_component_info),
	FN(num_components, PAPI_num_components),
	FN(enum_event, PAPI_enum_event),
	FN(enum_cmp_event, PAPI_enum_cmp_event),
	FN(get_opt, PAPI_get_opt),
	FN(strerror, PAPI_strerror),
	FN(sde_init, papi_sde_init),
	FN(sde_register_counter, papi_sde_register_counter),
	FN(sde_register_counter_cb, papi_sde_register_counter_cb),
#undef FN
};

_Static_assert(sizeof(papi_functions) / sizeof(papi_functions[0]) ==
	       sizeof(struct papi_binding) / sizeof(void (*)(void)),
	       "every function of struct papi_binding is looked up by name");
_Static_assert(sizeof(void *) == sizeof(void (*)(void)),
	       "dlsym's pointers hold functions (POSIX)");

static char binding_error[512];

const char *papi_binding_error(void)
{
	return binding_error;
}

/* dlopen()s NAME into the global scope; -1 with the loader's reason kept. */
static int load_global(const char *name)
{
	const char *why;

	if (dlopen(name, RTLD_NOW | RTLD_GLOBAL))
		return 0;
	why = dlerror();
	/* glibc's reason starts with the name it could not load; say it if not. */
	if (why && counters_starts_with(why, name))
		copy_string(binding_error, sizeof(binding_error), why);
	else
		snprintf(binding_error, sizeof(binding_error), "%s: %s", name,
			 why ? why : "cannot be loaded");
	return -1;
}

int papi_binding_load(void)
{
	static int loaded; /* 0: not tried, 1: loaded, -1: failed */
	char libpapi[32];

	if (loaded)
		return loaded > 0 ? 0 : -1;
	loaded = -1;
	/* PAPI's soname is libpapi.so.MAJOR.MINOR: the library papi.h was written for. */
	snprintf(libpapi, sizeof(libpapi), "libpapi.so.%d.%d",
		 PAPI_VERSION_MAJOR(PAPI_VERSION), PAPI_VERSION_MINOR(PAPI_VERSION));
	/* libsde first: PAPI's sde component looks for it when PAPI initialises. */
	if (load_global(PAPI_BINDING_LIBSDE) || load_global(libpapi))
		return -1;
	for (size_t i = 0; i < sizeof(papi_functions) / sizeof(papi_functions[0]); i++) {
		void *fn = dlsym(RTLD_DEFAULT, papi_functions[i].name);

		if (!fn) {
			snprintf(binding_error, sizeof(binding_error), "%s: %s not found",
				 counters_starts_with(papi_functions[i].name, "papi_sde_") ?
				 PAPI_BINDING_LIBSDE : libpapi, papi_functions[i].name);
			memset(&papi, 0, sizeof(papi));
			return -1;
		}
		memcpy((char *)&papi + papi_functions[i].offset, &fn, sizeof(fn));
	}
	loaded = 1;
	return 0;
}

/* ------------------------------------------------ the program's own events */

/*
 * The registered variables: libsde keeps their addresses, PAPI reads them at
 * PAPI_start and PAPI_stop. allocs, frees and bytes_requested are DELTA
 * counters (PAPI reports the change over a loop); the backends' figures are
 * INSTANT (their value when the loop ends), read through the readers the
 * backends attach, so this file knows nothing of a pool or an arena.
 */
static long long sde_allocs;
static long long sde_frees;
static long long sde_bytes_requested;

/* What a backend attached to one of the program's own INSTANT events. */
struct sde_reader {
	long long (*reader)(const void *ctx);  /* NULL: nothing attached, reads 0 */
	const void *ctx;                       /* the backend's, given back to READER */
};

/* Indexed like counters_sde_names; libsde holds a pointer to each slot. */
static struct sde_reader sde_readers[COUNTERS_SDE_COUNT];

void counters_note_allocs(size_t chunks, size_t size)
{
	sde_allocs += (long long)chunks;
	sde_bytes_requested += (long long)(chunks * size);
}

void counters_note_frees(size_t chunks)
{
	sde_frees += (long long)chunks;
}

int counters_attach_reader(const char *name, long long (*reader)(const void *ctx),
			   const void *ctx)
{
	int k = counters_sde_index(name);

	if (k < 0 || !counters_sde_attached((size_t)k))
		return error("cannot attach a reader to '%s': not an event of allocbench "
			     "that a backend gives", name);
	sde_readers[k].reader = reader;
	sde_readers[k].ctx = reader ? ctx : NULL;
	return 0;
}

/* libsde's callback for an INSTANT event; SLOT is its struct sde_reader. */
static long long read_attached(void *slot)
{
	const struct sde_reader *r = slot;

	return r->reader ? r->reader(r->ctx) : 0;
}

/* ------------------------------------------------------------ child's side */

static void fail_event(struct counters *counters, size_t i, int status, enum counters_stage stage)
{
	counters->status[i] = status;
	counters->stage[i] = (uint8_t)stage;
	counters->event_set[i] = -1;
}

/* Result of registering each of the program's own events (0 or an SDE error). */
static int sde_registered[COUNTERS_SDE_COUNT];

/*
 * Exports the program's own events, once per process: libsde crashes in
 * papi_sde_init() after papi_sde_shutdown() (libsde 7.0), so the events stay
 * registered until the process exits. They are not given to
 * papi_sde_describe_counter(), which loses libsde's own copy of each name
 * (valgrind: 154 bytes definitely lost for six events): `allocbench counters`
 * takes their descriptions from counters_list.c.
 */
static void *sde_register(void)
{
	static papi_handle_t registered;
	long long *const vars[COUNTERS_SDE_COUNT] = { &sde_allocs, &sde_frees, &sde_bytes_requested };
	papi_handle_t handle;

	if (registered)
		return registered;
	handle = papi.sde_init(COUNTERS_SDE_LIBRARY);
	for (size_t i = 0; i < COUNTERS_SDE_COUNT; i++) {
		const char *name = counters_sde_names[i];

		if (!handle)
			sde_registered[i] = PAPI_ECMP;
		else if (counters_sde_attached(i))
			sde_registered[i] = papi.sde_register_counter_cb(handle, name,
				PAPI_SDE_RO | PAPI_SDE_INSTANT, PAPI_SDE_long_long, read_attached,
				&sde_readers[i]);
		else
			sde_registered[i] = papi.sde_register_counter(handle, name,
				PAPI_SDE_RO | PAPI_SDE_DELTA, PAPI_SDE_long_long, vars[i]);
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
	*status = papi.create_eventset(&counters->sets[counters->nsets]);
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

	if (counters_starts_with(name, COUNTERS_SDE_PREFIX)) {
		int k = counters_sde_index(name + strlen(COUNTERS_SDE_PREFIX));

		counters->event_component[i] = papi.get_component_index("sde");
		if (k < 0) {
			fail_event(counters, i, COUNTERS_E_UNKNOWN_SDE, COUNTERS_STAGE_NAME);
			return 0;
		}
		if (sde_registered[k]) {
			fail_event(counters, i, sde_registered[k], COUNTERS_STAGE_INIT);
			return 0;
		}
	}
	status = papi.event_name_to_code(name, &code);
	if (status != PAPI_OK) {
		fail_event(counters, i, status, COUNTERS_STAGE_NAME);
		return 0;
	}
	component = papi.get_event_component(code);
	counters->event_component[i] = component;
	s = set_for(counters, component, &status);
	if (s < 0) {
		fail_event(counters, i, status, COUNTERS_STAGE_ADD);
		return 0;
	}
	set = counters->sets[s];
	status = papi.add_event(set, code);
	if (status != PAPI_OK) {
		fail_event(counters, i, status, COUNTERS_STAGE_ADD);
		return 0;
	}
	/* A trial start: perf_event refuses some events only here (permissions, counters in use). */
	status = papi.start(set);
	if (status != PAPI_OK) {
		papi.remove_event(set, code);
		fail_event(counters, i, status, COUNTERS_STAGE_START);
		return 0;
	}
	papi.stop(set, scratch);
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
	if (papi_binding_load()) {
		/* papi_binding_error() says why; counters_check() gives it. */
		for (size_t i = 0; i < list->n; i++)
			fail_event(counters, i, COUNTERS_E_NOT_LOADED, COUNTERS_STAGE_INIT);
		return 0;
	}
	/* Registered before PAPI_library_init, so the sde component finds them. */
	counters->sde = sde_register();
	ret = papi.library_init(PAPI_VER_CURRENT);
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
		status = papi.start(counters->sets[s]);
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
		status = papi.stop(counters->sets[s], values);
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
		papi.cleanup_eventset(counters->sets[s]);
		papi.destroy_eventset(&counters->sets[s]);
	}
	counters->nsets = 0;
	if (counters->papi_ready)
		papi.shutdown();
	counters->papi_ready = 0;
	/* The program's own events stay registered: see sde_register(). */
	counters->sde = NULL;
	memset(sde_readers, 0, sizeof(sde_readers));
}

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
