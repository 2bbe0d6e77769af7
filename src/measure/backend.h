/*
 * backend.h - the allocators allocbench measures, found by name in one table.
 *
 * A backend's unit of work is one whole measurement (struct backend.run),
 * never one allocation: its allocate and release functions are static inline
 * and instantiated into the loop of measure.h, one copy per backend file.
 */
#ifndef ALLOCBENCH_BACKEND_H
#define ALLOCBENCH_BACKEND_H

#include "measure/measure.h"

struct backend {
	const char *name;     /* as given to --backend */
	const char *summary;  /* one line for --help */
	int uses_align;       /* 1 when --align decides where chunks go */
	/*
	 * Runs one measurement in the calling (fresh) process. Returns 0 with
	 * SAMPLE filled, or -1 with SAMPLE->ok cleared and SAMPLE->error set.
	 */
	int (*run)(const struct measure_params *params, struct sample *sample);
	/*
	 * The shared library the runner puts into the measuring child's
	 * LD_PRELOAD (replacing the user's), or NULL to pass the environment
	 * on as it is. Set for jemalloc, mimalloc, tcmalloc and --preload.
	 */
	const char *preload_path;
	/*
	 * The parent's rows of run --abi 32 (abi.h): a copy of a backend named
	 * "NAME/32", measured in the 32-bit measuring process; abi is 32 and
	 * base the backend it copies (base is also a candidate's, below). 0
	 * and NULL for every other backend, measured in a process of this
	 * program's word size.
	 */
	unsigned abi;
	const struct backend *base;
	/*
	 * A candidate with settings (model/settings.h: "malloc:arena_max=2"):
	 * the KEY=VALUE strings its measuring processes and real runs get in
	 * their environment, NULL-terminated; base is the backend without
	 * them. NULL for every other backend.
	 */
	const char *const *env;
};

/* The backend B measures: B's base for a 32-bit row, else B itself. */
static inline const struct backend *backend_base(const struct backend *b)
{
	return b->base ? b->base : b;
}

extern const struct backend backend_malloc;
extern const struct backend backend_pool;
extern const struct backend backend_pool_locked;
extern const struct backend backend_arena;

/* Every built-in backend, in the order --help lists them; NULL-terminated. */
extern const struct backend *const backend_table[];

/* The backend called NAME, or NULL. */
const struct backend *backend_find(const char *name);

/*
 * The malloc backend for a backend that preloads the library at PATH:
 * checks that the library serves malloc (allocator_check_preloaded()),
 * measures, then checks that a backend named after a known allocator
 * measured that allocator. Returns 0 with SAMPLE filled, or -1 with SAMPLE
 * failed saying which allocator served malloc instead: glibc's figures are
 * never reported under another allocator's name.
 */
int backend_malloc_run_preloaded(const char *backend_name, const char *path,
				 const struct measure_params *params, struct sample *sample);

/* Alignment malloc guarantees (alignof(max_align_t)), reported for malloc rows. */
size_t backend_malloc_alignment(void);

#endif
