/*
 * allocator.h - the allocators behind the malloc family of backends: the
 * third-party ones allocbench knows by name, and, in the measuring child,
 * which allocator really serves malloc, the usable size of its chunks and
 * its own statistics.
 *
 * Nothing here links to an allocator: every allocator-specific function
 * (mallctl, mi_version, tc_version, mallinfo2, ...) is looked up at run time
 * in the dynamic symbol table of the shared object that serves malloc, so a
 * symbol of the same name elsewhere (glibc's mallinfo2 under a preloaded
 * jemalloc) is never mistaken for the allocator's.
 */
#ifndef ALLOCBENCH_ALLOCATOR_H
#define ALLOCBENCH_ALLOCATOR_H

#include "measure/measure.h"

#include <stddef.h>

/* A third-party allocator that --backend knows by name. */
struct allocator_known {
	const char *name;          /* backend name, and what allocator_identify() calls it */
	const char *package;       /* the Debian package that installs the library */
	const char *sonames[3];    /* library file names, preferred first; NULL-terminated */
	const char *soname32;      /* the i386 library, installed by PACKAGE itself; NULL: the
				      sonames, installed by PACKAGE:i386 (Debian multiarch) */
	const char *dirs;          /* a glob(7) of directories searched after the linker's, or NULL */
	const char *summary;       /* one line for --help */
};

/* jemalloc, mimalloc, tcmalloc, tbbmalloc and scudo, in the order --backend all runs them; ends with a NULL name. */
extern const struct allocator_known allocator_known[];

/* The known allocator called NAME, or NULL. */
const struct allocator_known *allocator_known_find(const char *name);

/* A setting's largest value where the allocator sets none. */
#define ALLOCATOR_SETTING_NO_LIMIT ((long long)1 << 62)

/* How a setting's value is written (settings.h). */
enum setting_type { SETTING_NUMBER, SETTING_BOOL };

/* A setting an allocator reads from its environment at start (model/settings.h). */
struct allocator_setting {
	const char *allocator;     /* its backend: "malloc" (glibc), "jemalloc", ... */
	const char *name;          /* as a candidate writes it, malloc:NAME=VALUE */
	enum setting_type type;
	long long min, max;        /* a number's range */
	const char *reads;         /* how the measuring process reads it back (jemalloc's
				      mallctl name, tcmalloc's property), or NULL: it cannot */
	const char *what;          /* a few words for --help and the man page */
};

/* The settings allocbench knows, by allocator; ends with a NULL name. */
extern const struct allocator_setting allocator_settings[];

/* The setting NAME of ALLOCATOR, or NULL. */
const struct allocator_setting *allocator_setting_find(const char *allocator, const char *name);

/*
 * In the measuring process, once ALLOCATOR (allocator_identify()'s name)
 * has served malloc: each setting that its environment gives it
 * (MALLOC_CONF for jemalloc, TCMALLOC_* for tcmalloc) and that it can
 * report is read back. Returns 0, or -1 with SAMPLE failed naming a
 * setting whose value is not the one asked for.
 */
int allocator_settings_confirm(const char *allocator, struct sample *sample);

/*
 * Fills INFO's name, version and path with the allocator that serves malloc
 * in this process: the shared object malloc resolves into (dladdr), and the
 * symbols only that object has (mallctl: jemalloc, mi_version: mimalloc,
 * tc_version: tcmalloc, __TBB_malloc_proxy: tbbmalloc, __scudo_print_stats:
 * scudo, __asan_init: AddressSanitizer, gnu_get_libc_version: glibc). An
 * object it does not recognise is "unknown". tbbmalloc and scudo have no
 * version call: theirs is read from the library's file name or directory. Does not allocate:
 * the symbols are looked up in that object's own symbol table.
 */
void allocator_identify(struct allocator_info *info);

/*
 * The inspection of measure_fill_inspect() for the malloc family: identifies
 * the allocator, stores the mean malloc_usable_size of the COUNT CHUNKS
 * (when the allocator exports malloc_usable_size) and reads the allocator's
 * own statistics where they are cheap: glibc mallinfo2, jemalloc stats.*
 * through mallctl after an epoch refresh, tcmalloc's numeric properties,
 * mimalloc's committed bytes. CTX is unused. Allocates nothing through
 * malloc: an allocation between the fill and the free loop changes what
 * the free loop costs (glibc could no longer give the heap back).
 */
void allocator_inspect(void *ctx, void *const *chunks, size_t count, struct sample *sample);

/*
 * In the measuring child of a backend that preloads the library at PATH
 * (LD_PRELOAD, set by the runner), before measuring: checks that malloc
 * resolves into that very file, without allocating, so the allocator's
 * first allocation still happens in the measured loop. Returns 0, or -1
 * with SAMPLE failed saying which file serves malloc instead.
 */
int allocator_check_preloaded(const char *backend_name, const char *path, struct sample *sample);

#endif
