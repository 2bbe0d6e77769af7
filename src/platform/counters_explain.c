/*
 * counters_explain.c - whether each event can be counted on this machine,
 * and if not why, in PAPI's own words with a hint on how to fix it
 * (counters_check(), counters_check_merge(); see counters.h). Built with
 * PAPI=1 only: the reasons are PAPI's (its error texts, its components'
 * disabled reasons), and without PAPI there is one reason for every event,
 * which counters_nopapi.c gives.
 *
 * PAPI's functions are called through papi_binding.h: PAPI is loaded by
 * counters_open() (or here, when nothing is to be opened), never linked.
 *
 * Facts this file relies on, measured with PAPI 7.0 (Debian 12):
 * PAPI_strerror crashes before PAPI is initialised and returns NULL for
 * codes it does not know; a component's own reason for being disabled is
 * PAPI_get_component_info(cidx)->disabled_reason.
 */
#include "platform/counters_internal.h"
#include "platform/papi_binding.h"
#include "platform/util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------ reasons and hints */

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
		found = !strcmp(d->d_name, "cpu") || counters_starts_with(d->d_name, "cpu_") ||
			counters_starts_with(d->d_name, "armv") || counters_starts_with(d->d_name, "arm_");
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

static const PAPI_component_info_t *disabled_component(int cidx);

/*
 * Every event name PAPI knows here, for the nearest names to a typo: the
 * presets (known whether or not this machine counts them), the native events
 * of the enabled components and the program's own (as allocbench::NAME).
 * PAPI must be up. Listed once per process and kept for its life: PAPI 7.0
 * loses a copy of each perf_event name whenever its native events are
 * enumerated again (152 names, 15 KB each time on a host whose perf_event is
 * enabled). Sets *NAMES and returns how many, 0 when out of memory.
 */
static size_t known_names(const char *const **names)
{
	static char **list;
	static size_t n;
	char name[PAPI_MAX_STR_LEN];
	size_t alloc = 0;
	int code, ncomponents;

	*names = (const char *const *)list;
	if (list)
		return n;
	ncomponents = papi.num_components();
#define ADD_NAME(text) do { \
		char *copy = strdup(text); \
		if (!copy || ALLOC_GROW(list, n + 1, alloc)) { free(copy); goto done; } \
		list[n++] = copy; \
	} while (0)
	for (size_t i = 0; counters_sde_names[i]; i++) {
		snprintf(name, sizeof(name), COUNTERS_SDE_LIBRARY "::%s", counters_sde_names[i]);
		ADD_NAME(name);
	}
	code = PAPI_PRESET_MASK;
	if (papi.enum_event(&code, PAPI_ENUM_FIRST) == PAPI_OK) {
		do {
			if (papi.event_code_to_name(code, name) == PAPI_OK)
				ADD_NAME(name);
		} while (papi.enum_event(&code, PAPI_ENUM_EVENTS) == PAPI_OK);
	}
	for (int cidx = 0; cidx < ncomponents; cidx++) {
		if (disabled_component(cidx))
			continue;
		code = PAPI_NATIVE_MASK;
		if (papi.enum_cmp_event(&code, PAPI_ENUM_FIRST, cidx) != PAPI_OK)
			continue;
		do {
			if (papi.event_code_to_name(code, name) == PAPI_OK)
				ADD_NAME(name);
		} while (papi.enum_cmp_event(&code, PAPI_ENUM_EVENTS, cidx) == PAPI_OK);
	}
#undef ADD_NAME
done:
	*names = (const char *const *)list;
	return n;
}

/* "; nearest known names: A, B" after the hint of an unknown NAME, or PAPI's lists. */
static void hint_nearest(const char *name, struct counter_status *st)
{
	const char *const *names;
	char near[COUNTERS_HINT_MAX / 2];
	size_t n = known_names(&names);

	if (nearest_names(name, names, n, 3, near, sizeof(near))) {
		copy_string(st->nearest, sizeof(st->nearest), near);
		snprintf(st->hint, sizeof(st->hint), "nearest known names: %s (papi_avail and "
			 "papi_native_avail list the others)", near);
	} else {
		copy_string(st->hint, sizeof(st->hint), "papi_avail and papi_native_avail list "
			    "the events PAPI knows on this machine");
	}
}

static void describe_unknown_sde(const char *name, struct counter_status *st)
{
	const char *shown = counters_short_name(name);
	char near[COUNTERS_HINT_MAX / 2], full[COUNTERS_NAME_MAX + 16];
	const char *names[COUNTERS_SDE_COUNT];
	size_t used;

	st->unknown = 1;
	used = (size_t)snprintf(st->reason, sizeof(st->reason),
				"unknown event: allocbench exports no event '%s'; its events are",
				shown);
	for (size_t i = 0; counters_sde_names[i] && used < sizeof(st->reason); i++)
		used += (size_t)snprintf(st->reason + used, sizeof(st->reason) - used, "%s %s",
					 i ? "," : "", counters_sde_names[i]);
	for (size_t i = 0; i < COUNTERS_SDE_COUNT; i++)
		names[i] = counters_sde_names[i];
	if (nearest_names(shown, names, COUNTERS_SDE_COUNT, 3, near, sizeof(near))) {
		/* As --counters takes them: allocbench::allocs. */
		char *p = near;

		used = (size_t)snprintf(st->hint, sizeof(st->hint), "nearest known names:");
		while (p && *p && used < sizeof(st->hint)) {
			char *comma = strstr(p, ", ");

			snprintf(full, sizeof(full), "%.*s", comma ? (int)(comma - p) : (int)strlen(p), p);
			used += (size_t)snprintf(st->hint + used, sizeof(st->hint) - used, "%s "
						 COUNTERS_SDE_LIBRARY "::%s",
						 p == near ? "" : ",", full);
			p = comma ? comma + 2 : NULL;
		}
		copy_string(st->nearest, sizeof(st->nearest), st->hint + strlen("nearest known names: "));
	}
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
	const char *text = papi.strerror(code);

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
		return papi.get_component_index(component) >= 0 ?
		       papi.get_component_index(component) : -1;
	}
	/* Presets and pmu::event names are the CPU component's. */
	cidx = papi.get_component_index("perf_event");
	return cidx >= 0 ? cidx : 0;
}

/* A disabled component's name and reason, or NULL when it is enabled. */
static const PAPI_component_info_t *disabled_component(int cidx)
{
	const PAPI_component_info_t *info = cidx >= 0 ? papi.get_component_info(cidx) : NULL;

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
 * Writes that PAPI's shared libraries cannot be loaded, WHY in the dynamic
 * loader's words (papi_binding_error(); "": said elsewhere), and how to fix it.
 */
static void explain_not_loaded(const char *why, struct counter_status *st)
{
	int major = PAPI_VERSION_MAJOR(PAPI_VERSION), minor = PAPI_VERSION_MINOR(PAPI_VERSION);

	if (why[0])
		snprintf(st->reason, sizeof(st->reason), "PAPI cannot be loaded: %s", why);
	else
		snprintf(st->reason, sizeof(st->reason), "PAPI cannot be loaded (libpapi.so.%d.%d "
			 "and " PAPI_BINDING_LIBSDE ")", major, minor);
	snprintf(st->hint, sizeof(st->hint), "install PAPI %d.%d's shared libraries, libpapi.so.%d.%d "
		 "and " PAPI_BINDING_LIBSDE " (Debian: apt-get install libpapi%d.%d libsde1)",
		 major, minor, major, minor, major, minor);
}

/*
 * Writes that OFF, the event's component, is disabled (PERF: 1 when OFF
 * is perf_event, the CPU's), and how to enable it. At COUNTERS_STAGE_NAME,
 * PAPI did not resolve the name: it may belong to the disabled component,
 * or to none.
 */
static void explain_disabled(const PAPI_component_info_t *off, int stage, int perf,
			     struct counter_status *st)
{
	snprintf(st->reason, sizeof(st->reason), "%sthe %s component%s is disabled: %s",
		 stage == COUNTERS_STAGE_NAME ? "PAPI knows no event of this name; " : "",
		 off->name, stage == COUNTERS_STAGE_NAME ? ", which would count it," : "",
		 off->disabled_reason[0] ? off->disabled_reason : "no reason given");
	if (strstr(off->disabled_reason, "paranoid"))
		hint_paranoid(st);
	else if (strstr(off->disabled_reason, "PMU") && perf)
		copy_string(st->hint, sizeof(st->hint), no_pmu_hint);
	else if (!strcmp(off->name, "sde"))
		copy_string(st->hint, sizeof(st->hint),
			    "link allocbench with the shared libsde (-lsde)");
}

/* Adds to ST's reason that preset NAME, which PAPI knows, maps to no event of this CPU. */
static void note_unmapped_preset(const char *name, struct counter_status *st)
{
	PAPI_event_info_t info;
	int code = PAPI_NULL;

	if (papi.event_name_to_code(name, &code) != PAPI_OK)
		return;
	memset(&info, 0, sizeof(info));
	if (papi.get_event_info(code, &info) == PAPI_OK && !info.count) {
		size_t used = strlen(st->reason);

		snprintf(st->reason + used, sizeof(st->reason) - used,
			 "; PAPI maps this preset to no native event of this CPU");
	}
}

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
	int perf = papi.get_component_index("perf_event");

	if (status == COUNTERS_E_UNKNOWN_SDE) {
		describe_unknown_sde(name, st);
		return;
	}
	/*
	 * A name PAPI cannot resolve is unknown, a typo, where PAPI would know
	 * it: a preset (PAPI knows every preset, counted here or not), a
	 * component PAPI does not have, or an enabled component's event. In a
	 * disabled component PAPI cannot tell.
	 */
	if (stage == COUNTERS_STAGE_NAME &&
	    (counters_starts_with(name, "PAPI_") || cidx < 0 || !off)) {
		st->unknown = 1;
		if (cidx < 0)
			snprintf(st->reason, sizeof(st->reason), "unknown event: PAPI has no "
				 "component '%.*s'", (int)(strstr(name, ":::") ?
				 strstr(name, ":::") - name : 0), name);
		else
			snprintf(st->reason, sizeof(st->reason), "unknown event: PAPI knows no "
				 "%s of this name", counters_starts_with(name, "PAPI_") ?
				 "preset" : "event");
		hint_nearest(name, st);
		return;
	}
	if (off) {
		explain_disabled(off, stage, cidx == perf, st);
		return;
	}
	papi_error_text(status, text, sizeof(text));
	switch (stage) {
	case COUNTERS_STAGE_INIT:
		what = counters_starts_with(name, COUNTERS_SDE_PREFIX) ? "libsde could not export it" :
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
	if (counters_starts_with(name, "PAPI_") && status == PAPI_ENOEVNT)
		note_unmapped_preset(name, st);

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
	const char *own = counters_sde_description(name);
	PAPI_event_info_t info;
	int code = PAPI_NULL;

	if (counters_starts_with(name, COUNTERS_SDE_PREFIX)) {
		if (own)
			copy_string(st->description, sizeof(st->description), own);
		return;
	}
	memset(&info, 0, sizeof(info));
	if (!papi.is_initialized || papi.is_initialized() == PAPI_NOT_INITED ||
	    papi.event_name_to_code(name, &code) != PAPI_OK ||
	    papi.get_event_info(code, &info) != PAPI_OK)
		return;
	copy_string(st->description, sizeof(st->description),
		    info.long_descr[0] ? info.long_descr : info.short_descr);
}

static void component_name(int cidx, struct counter_status *st)
{
	const PAPI_component_info_t *info = cidx >= 0 ? papi.get_component_info(cidx) : NULL;

	if (info)
		copy_string(st->component, sizeof(st->component), info->name);
}

/* "7.0.0.0": the version of the PAPI library PAPI is initialised with. */
static void papi_version_string(char *buf, size_t size)
{
	int version = papi.get_opt(PAPI_LIB_VERSION, NULL);

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
		if (!papi_binding_load() && papi.library_init(PAPI_VER_CURRENT) == PAPI_VER_CURRENT) {
			papi_version_string(check->papi_version, sizeof(check->papi_version));
			papi.shutdown();
		}
		return;
	}
	counters_open(&counters, list);
	if (!counters.papi_ready) {
		int status = counters.status[0];

		for (size_t i = 0; i < list->n; i++) {
			struct counter_status *st = &check->events[i];

			describe_event(list->names[i], st);
			if (status == COUNTERS_E_NOT_LOADED) {
				explain_not_loaded(papi_binding_error(), st);
				continue;
			}
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
		if (values->status[i] == COUNTERS_E_NOT_LOADED) {
			st->ok = 0;
			explain_not_loaded("", st);
		} else {
			if (papi_binding_load())
				return;
			if (!initialised && papi.is_initialized() == PAPI_NOT_INITED) {
				if (papi.library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
					return;
				initialised = 1;
			}
			cidx = papi.event_name_to_code(name, &code) == PAPI_OK ?
			       papi.get_event_component(code) : guess_component(name);
			st->ok = 0;
			explain(name, values->status[i], values->stage[i], cidx, st);
		}
		used = strlen(st->reason);
		snprintf(st->reason + used, sizeof(st->reason) - used, " (in the measuring process)");
	}
	if (initialised)
		papi.shutdown();
}
