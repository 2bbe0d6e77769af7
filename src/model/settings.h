/*
 * settings.h - a drop-in allocator with settings, as one candidate:
 * ALLOCATOR:NAME=VALUE[:NAME=VALUE...] wherever --backend names a backend
 * (malloc:arena_max=2, jemalloc:narenas=2:dirty_decay_ms=1000). Each
 * setting is one the installed allocator reads from its environment at
 * start: glibc's tunables (GLIBC_TUNABLES), jemalloc's MALLOC_CONF,
 * mimalloc's MIMALLOC_* and gperftools tcmalloc's TCMALLOC_* variables.
 * The measuring processes and advise's real runs get them in their
 * environment; the measuring process reads back those the allocator can
 * say (jemalloc's mallctl, tcmalloc's numeric properties) and fails the
 * row where one did not take effect; the others are said to be
 * unconfirmed.
 */
#ifndef ALLOCBENCH_SETTINGS_H
#define ALLOCBENCH_SETTINGS_H

#include <stddef.h>

struct backend;
struct run_config;

/* Most settings one candidate has. */
#define SETTINGS_MAX 8

/* Longest candidate name, "jemalloc:narenas=2:...". */
#define SETTINGS_NAME_MAX 159

/*
 * Room for settings_environment() and settings_describe()'s ENV: a
 * library's path (PATH_MAX) and SETTINGS_MAX variables of up to 320
 * bytes, with their spaces.
 */
#define SETTINGS_ENV_MAX (4096 + SETTINGS_MAX * 321 + 16)

/*
 * The candidate TEXT ("ALLOCATOR:NAME=VALUE..."), BASE the backend of its
 * allocator (malloc, or the preloaded one): a new backend in CONFIG (freed
 * by backend_set_release()) named TEXT, with BASE as its base and the
 * settings in its env (measure/allocator.h's allocator_settings lists them). Returns it, or NULL after an error naming the
 * setting: one the allocator does not have (with the nearest names), a
 * value that is not a number or out of the allocator's range, a setting
 * given twice, an allocator with no settings allocbench knows.
 */
const struct backend *settings_candidate(struct run_config *config, const char *text,
					 const struct backend *base);

/* The allocator part of TEXT ("jemalloc" of "jemalloc:narenas=2") into BUF; 1 when TEXT has settings. */
int settings_split(const char *text, char *buf, size_t size);

/*
 * A candidate as a saved report describes it (config.settings): a copy of
 * BASE, with the ENVIRONMENT ("NAME=VALUE ...") and HOW the report gives
 * and whether it was CONFIRMED, which settings_describe() then says as the
 * run said them. A new backend in CONFIG (freed as settings_candidate()'s),
 * or NULL when out of memory.
 */
const struct backend *settings_described(struct run_config *config, const struct backend *base,
					 const char *environment, int confirmed, const char *how);

/*
 * What the report says of candidate B's settings: the environment they
 * are given in, and whether the measuring process confirms them (and
 * how), or why not. 0 when B has no settings.
 */
int settings_describe(const struct backend *b, char *env, size_t env_size, int *confirmed,
		      char *how, size_t how_size);

/*
 * The environment that runs a program under B as measured, "LD_PRELOAD=PATH
 * MALLOC_CONF=narenas:2", into BUF: what to put before a command in
 * production. Returns 0 when B needs none (the C library's malloc).
 */
int settings_environment(const struct backend *b, char *buf, size_t size);

/*
 * The candidates with settings advise tries by default on a program of
 * several threads (where an allocator's per-thread memory is paid), each
 * where its allocator is a candidate: glibc with two arenas (Heroku's
 * MALLOC_ARENA_MAX=2 for every Ruby app), jemalloc with two, tcmalloc
 * with 4 MiB of thread caches in all (its default is 32).
 */
#define SETTINGS_CURATED "malloc:arena_max=2,jemalloc:narenas=2," \
	"tcmalloc:max_total_thread_cache_bytes=4194304"

/*
 * advise --tune: a grid of the settings that matter for memory, 10 at
 * most, so that with the five drop-in allocators and malloc no more than
 * RERUN_MAX_ROWS run for real.
 */
#define SETTINGS_GRID "malloc:arena_max=1,malloc:arena_max=2,malloc:arena_max=4," \
	"malloc:trim_threshold=0,jemalloc:narenas=1,jemalloc:narenas=2," \
	"jemalloc:dirty_decay_ms=0:muzzy_decay_ms=0,mimalloc:page_reset=true," \
	"tcmalloc:max_total_thread_cache_bytes=4194304,tcmalloc:aggressive_decommit=true"

/*
 * BUF (a --backend list, SIZE bytes: room for SET more) with each
 * candidate of SET (SETTINGS_CURATED or SETTINGS_GRID) whose allocator it
 * names, and that it does not name already, appended.
 */
void settings_add(char *buf, size_t size, const char *set);

#endif
