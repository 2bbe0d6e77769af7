/*
 * preload.h - backends measured by preloading an allocator's shared library
 * into the measuring child (LD_PRELOAD): the known third-party allocators
 * (jemalloc, mimalloc, tcmalloc, tbbmalloc, scudo), found where the dynamic
 * linker would find them, and any library the user names with --preload
 * NAME=PATH.
 *
 * This is the parent's side: everything is checked before anything runs, so
 * that a missing or unusable library is a usage error (exit 2), never a row
 * of glibc's figures under another allocator's name. The child's side, which
 * checks that the library really serves malloc, is allocator.h.
 */
#ifndef ALLOCBENCH_PRELOAD_H
#define ALLOCBENCH_PRELOAD_H

#include "measure/allocator.h"
#include "measure/backend.h"

#include <limits.h>
#include <stddef.h>

/* Environment variable: colon-separated directories searched instead of the defaults. */
#define PRELOAD_PATH_ENV "ALLOCBENCH_LIBRARY_PATH"

/* Longest backend name --preload accepts. */
#define PRELOAD_NAME_MAX 31

/* A backend that runs the malloc loop with a library preloaded. */
struct preload {
	char name[PRELOAD_NAME_MAX + 1];       /* as given to --backend */
	char path[PATH_MAX];                   /* the library, as put into LD_PRELOAD */
	const struct allocator_known *known;   /* jemalloc, ... or NULL for a --preload name */
	int from_option;                       /* 1: given with --preload */
	struct backend backend;                /* the malloc backend with preload_path = path */
};

/* A backend that --backend all left out, and why. */
struct backend_skip {
	char name[PRELOAD_NAME_MAX + 1];
	char reason[160];   /* "not installed (Debian package libtcmalloc-minimal4)" */
	char package[32];   /* the Debian package that would provide it, or "" */
};

/*
 * Parses SPEC, the value of --preload: NAME=PATH. NAME is 1 to
 * PRELOAD_NAME_MAX letters, digits, '_', '-', '.' or '+' (not starting with
 * '-'), not "all" and not a built-in backend; PATH must be an ELF shared
 * library for this machine and contain no ':' or space (LD_PRELOAD's
 * separators); it is made absolute. Returns a new preload (free() it), or
 * NULL after printing an error that names SPEC and the problem.
 */
struct preload *preload_parse(const char *spec);

/*
 * Looks for KNOWN's library: in the directories of $ALLOCBENCH_LIBRARY_PATH
 * when it is set and not empty, otherwise in the dynamic linker's cache
 * (/etc/ld.so.cache), the usual library directories, and then KNOWN's own
 * directories (scudo's: clang's resource directories, newest first).
 * Returns a new preload (free() it), or NULL when no usable file is found
 * (no message).
 */
struct preload *preload_locate(const struct allocator_known *known);

/*
 * preload_locate() for the measuring process of ABI: 0 (this program's) as
 * preload_locate(), or 32, an i386 library for allocbench-child32 (Debian
 * multiarch: libjemalloc2:i386 installs /usr/lib/i386-linux-gnu/...), in the
 * cache, the i386 library directories and KNOWN's own; KNOWN's soname32
 * where it has one (scudo's libclang_rt.scudo_standalone-i386.so).
 */
struct preload *preload_locate_abi(const struct allocator_known *known, unsigned abi);

/* Describes where preload_locate() looks for KNOWN, for messages. */
void preload_describe_search(char *buf, size_t size, const struct allocator_known *known);

/* The file name of KNOWN's library for ABI (0 or 32), for messages. */
const char *preload_soname(const struct allocator_known *known, unsigned abi);

/* The Debian package that installs KNOWN's library for ABI (0 or 32) into BUF. */
void preload_package(char *buf, size_t size, const struct allocator_known *known, unsigned abi);

/*
 * Checks that PATH is an ELF shared object of the class and machine of the
 * measuring process of ABI: 0 (this program's) or 32 (i386). Returns 0, or
 * -1 after copying the reason into WHY (WHY_SIZE bytes): cannot be opened,
 * not an ELF file, an executable, another machine.
 */
int preload_check_library(const char *path, unsigned abi, char *why, size_t why_size);

/*
 * Looks up SONAME in the image of /etc/ld.so.cache (DATA, SIZE bytes, in
 * glibc's "glibc-ld.so.cache1.1" format, alone or after the old format) and
 * calls ACCEPT(path, ARG) for each entry with that name, in the cache's
 * order, until ACCEPT returns 0. Returns 0 when ACCEPT accepted one, -1 when
 * none or the image is not a cache (truncated, bad offsets).
 */
int preload_ldcache_lookup(const unsigned char *data, size_t size, const char *soname,
			   int (*accept)(const char *path, void *arg), void *arg);

/* 1 when this build cannot preload an allocator (AddressSanitizer must come first). */
int preload_unsupported(void);

/*
 * BASE, then ",NAME" for each known allocator installed here (found by
 * preload_locate()), in allocator_known's order, into BUF (SIZE bytes):
 * the drop-in candidates a replay measures by default. BASE alone when this
 * build cannot preload.
 */
void preload_with_installed(char *buf, size_t size, const char *base);

#endif
