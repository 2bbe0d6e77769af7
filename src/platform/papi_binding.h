/*
 * papi_binding.h - PAPI and libsde, loaded with dlopen when something is
 * counted (counters_papi.c, counters_explain.c; PAPI=1 builds only). The
 * binding itself is in counters_papi.c, which only PAPI=1 builds compile.
 *
 * Why not linked: every measurement runs in a freshly executed process, and
 * linking PAPI made each one pay for loading libpapi, libsde and libpfm
 * (libpfm's tens of thousands of relocations were most of the dynamic
 * loader's time, some 10 ms a process on our VMs) even with --counters none,
 * which uses none of them. The headers still give the types and constants;
 * the functions are called through the pointers of `papi`, which
 * papi_binding_load() fills.
 *
 * Both libraries are loaded RTLD_GLOBAL, libsde first: PAPI's sde component
 * finds libsde's functions (sde_ti_*) with dlsym on the program's own handle,
 * that is in the global scope, when PAPI_library_init() initialises it, and
 * libsde finds PAPI's the same way. The functions are then looked up in the
 * global scope too (RTLD_DEFAULT), as the dynamic linker bound them when
 * allocbench was linked with PAPI, so a library preloaded in front of PAPI
 * (tests/tools/papi_shim.c) still interposes.
 */
#ifndef ALLOCBENCH_PAPI_BINDING_H
#define ALLOCBENCH_PAPI_BINDING_H

#include <papi.h>
#include <sde_lib.h>

/* libsde's soname; PAPI's is libpapi.so.MAJOR.MINOR of papi.h's PAPI_VERSION ("libpapi.so.7.0"). */
#define PAPI_BINDING_LIBSDE "libsde.so.1"

/* The functions allocbench calls, each with the type papi.h or sde_lib.h declares. */
struct papi_binding {
	__typeof__(&PAPI_library_init) library_init;
	__typeof__(&PAPI_is_initialized) is_initialized;
	__typeof__(&PAPI_shutdown) shutdown;
	__typeof__(&PAPI_create_eventset) create_eventset;
	__typeof__(&PAPI_cleanup_eventset) cleanup_eventset;
	__typeof__(&PAPI_destroy_eventset) destroy_eventset;
	__typeof__(&PAPI_add_event) add_event;
	__typeof__(&PAPI_remove_event) remove_event;
	__typeof__(&PAPI_start) start;
	__typeof__(&PAPI_stop) stop;
	__typeof__(&PAPI_event_name_to_code) event_name_to_code;
	__typeof__(&PAPI_event_code_to_name) event_code_to_name;
	__typeof__(&PAPI_get_event_component) get_event_component;
	__typeof__(&PAPI_get_event_info) get_event_info;
	__typeof__(&PAPI_get_component_index) get_component_index;
	__typeof__(&PAPI_get_component_info) get_component_info;
	__typeof__(&PAPI_num_components) num_components;
	__typeof__(&PAPI_enum_event) enum_event;
	__typeof__(&PAPI_enum_cmp_event) enum_cmp_event;
	__typeof__(&PAPI_get_opt) get_opt;
	__typeof__(&PAPI_strerror) strerror;
	__typeof__(&papi_sde_init) sde_init;
	__typeof__(&papi_sde_register_counter) sde_register_counter;
	__typeof__(&papi_sde_register_counter_cb) sde_register_counter_cb;
};

/* Filled by papi_binding_load(); every pointer is NULL before it succeeds. */
extern struct papi_binding papi;

/*
 * Loads libsde and PAPI and fills `papi`, once per process: later calls
 * return what the first returned. Returns 0, or -1 when a library cannot be
 * loaded or lacks a function; papi_binding_error() then says which, in the
 * dynamic loader's words.
 */
int papi_binding_load(void);

/*
 * Why papi_binding_load() failed, naming the library: "libpapi.so.7.0:
 * cannot open shared object file: No such file or directory"; "" before.
 */
const char *papi_binding_error(void);

#endif
