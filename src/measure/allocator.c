#include "measure/allocator.h"
#include "measure/backend.h"
#include "platform/heap.h"
#include "platform/util.h"

#include <ctype.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The architecture in compiler-rt's library names. */
#if defined(__x86_64__)
#define SCUDO_ARCH "x86_64"
#elif defined(__i386__)
#define SCUDO_ARCH "i386"
#elif defined(__aarch64__)
#define SCUDO_ARCH "aarch64"
#elif defined(__riscv) && __riscv_xlen == 64
#define SCUDO_ARCH "riscv64"
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SCUDO_ARCH "powerpc64le"
#else
#define SCUDO_ARCH "unknown"
#endif

const struct allocator_known allocator_known[] = {
	{
		.name = "jemalloc",
		.package = "libjemalloc2",
		.sonames = { "libjemalloc.so.2", NULL },
		.summary = "jemalloc, preloaded (Debian: libjemalloc2)",
	},
	{
		.name = "mimalloc",
		.package = "libmimalloc2.0",
		.sonames = { "libmimalloc.so.2", NULL },
		.summary = "mimalloc, preloaded (Debian: libmimalloc2.0)",
	},
	{
		.name = "tcmalloc",
		.package = "libtcmalloc-minimal4",
		.sonames = { "libtcmalloc_minimal.so.4", "libtcmalloc.so.4", NULL },
		.summary = "tcmalloc, preloaded (Debian: libtcmalloc-minimal4)",
	},
	{
		/* The proxy replaces malloc; libtbbmalloc.so.2 alone does not. */
		.name = "tbbmalloc",
		.package = "libtbbmalloc2",
		.sonames = { "libtbbmalloc_proxy.so.2", NULL },
		.summary = "oneTBB's scalable allocator, preloaded (Debian: libtbbmalloc2)",
	},
	{
		/* LLVM's; outside the linker's paths, in clang's resource directory. */
		.name = "scudo",
		.package = "libclang-rt-dev",
		.sonames = { "libclang_rt.scudo_standalone-" SCUDO_ARCH ".so", NULL },
		.soname32 = "libclang_rt.scudo_standalone-i386.so",
		.dirs = "/usr/lib/llvm-*/lib/clang/*/lib/linux",
		.summary = "LLVM's scudo, preloaded (Debian: libclang-rt-dev)",
	},
	{ .name = NULL },
};

/*
 * The settings a candidate may give (model/settings.h), under the names and
 * ranges of the versions Debian 12 ships: glibc 2.36's tunables
 * (glibc.malloc.NAME; it ignores a value out of range, so allocbench
 * refuses one), jemalloc 5.3's MALLOC_CONF options, mimalloc 2.0.9's
 * options (MIMALLOC_NAME, as MIMALLOC_VERBOSE=1 lists them; 2.1 renamed
 * the decommit ones "purge"),
 * gperftools 2.10's TCMALLOC_NAME variables.
 */
#define NO_LIMIT ALLOCATOR_SETTING_NO_LIMIT
const struct allocator_setting allocator_settings[] = {
	{ "malloc", "arena_max", SETTING_NUMBER, 1, NO_LIMIT, NULL,
	  "arenas at most (default 8 per CPU)" },
	{ "malloc", "trim_threshold", SETTING_NUMBER, 0, NO_LIMIT, NULL,
	  "free bytes at the heap's top before it is given back" },
	{ "malloc", "mmap_threshold", SETTING_NUMBER, 0, 32 << 20, NULL,
	  "bytes from which a chunk is its own mapping (fixed, not dynamic)" },
	{ "malloc", "top_pad", SETTING_NUMBER, 0, NO_LIMIT, NULL,
	  "bytes more asked of the kernel each time the heap grows" },
	{ "malloc", "tcache_count", SETTING_NUMBER, 0, 65535, NULL,
	  "chunks per size in a thread's cache (0: no cache)" },
	{ "jemalloc", "narenas", SETTING_NUMBER, 1, 4094, "opt.narenas",
	  "arenas (default 4 per CPU)" },
	{ "jemalloc", "dirty_decay_ms", SETTING_NUMBER, -1, NO_LIMIT, "opt.dirty_decay_ms",
	  "ms before unused dirty pages are purged (-1: never)" },
	{ "jemalloc", "muzzy_decay_ms", SETTING_NUMBER, -1, NO_LIMIT, "opt.muzzy_decay_ms",
	  "ms before unused muzzy pages are given back (-1: never)" },
	{ "jemalloc", "background_thread", SETTING_BOOL, 0, 1, "opt.background_thread",
	  "purge in a thread of its own" },
	{ "jemalloc", "tcache", SETTING_BOOL, 0, 1, "opt.tcache", "a cache per thread" },
	{ "mimalloc", "eager_commit", SETTING_BOOL, 0, 1, NULL, "commit segments at once" },
	{ "mimalloc", "page_reset", SETTING_BOOL, 0, 1, NULL, "reset the pages freed" },
	{ "mimalloc", "allow_decommit", SETTING_BOOL, 0, 1, NULL, "give unused memory back" },
	{ "mimalloc", "decommit_delay", SETTING_NUMBER, 0, NO_LIMIT, NULL,
	  "ms before unused memory is given back" },
	{ "mimalloc", "segment_decommit_delay", SETTING_NUMBER, 0, NO_LIMIT, NULL,
	  "ms before an unused segment is given back" },
	{ "tcmalloc", "release_rate", SETTING_NUMBER, 0, 10000, NULL,
	  "how fast free pages are given back (default 1; 0: never)" },
	{ "tcmalloc", "aggressive_decommit", SETTING_BOOL, 0, 1,
	  "tcmalloc.aggressive_memory_decommit", "give every free page back at once" },
	{ "tcmalloc", "max_total_thread_cache_bytes", SETTING_NUMBER, 0, NO_LIMIT,
	  "tcmalloc.max_total_thread_cache_bytes", "bytes in all threads' caches" },
	{ .name = NULL },
};

const struct allocator_setting *allocator_setting_find(const char *allocator, const char *name)
{
	for (size_t i = 0; allocator_settings[i].name; i++)
		if (!strcmp(allocator_settings[i].allocator, allocator) &&
		    !strcmp(allocator_settings[i].name, name))
			return &allocator_settings[i];
	return NULL;
}

const struct allocator_known *allocator_known_find(const char *name)
{
	for (size_t i = 0; allocator_known[i].name; i++)
		if (!strcmp(allocator_known[i].name, name))
			return &allocator_known[i];
	return NULL;
}

/* ---- the shared object that serves malloc ---- */

/*
 * The object that defines the malloc this process calls, and its dynamic
 * symbol table. It is found with dl_iterate_phdr and searched by hand
 * rather than with dlopen and dlsym, because a dlsym that fails allocates
 * its error message: an allocation between the fill and the free loop
 * stops glibc from giving the heap back when the last chunk is freed, and
 * makes the timed free loop ten times faster than without it.
 */
struct malloc_owner {
	uintptr_t malloc_addr;         /* the measured malloc (heap_measured()) */
	const char *name;              /* as the dynamic linker knows it; "" for the program */
	ElfW(Addr) base;               /* load bias */
	const ElfW(Sym) *symtab;
	const char *strtab;
	const uint32_t *gnu_hash;      /* DT_GNU_HASH, or NULL */
	const uint32_t *sysv_hash;     /* DT_HASH, or NULL */
	const ElfW(Half) *versym;      /* DT_VERSYM, or NULL */
	int found;
};

static int find_owner(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct malloc_owner *owner = arg;
	const ElfW(Dyn) *dyn = NULL;
	int contains = 0;

	(void)size;
	for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && owner->malloc_addr >= start &&
		    owner->malloc_addr < start + ph->p_memsz)
			contains = 1;
		else if (ph->p_type == PT_DYNAMIC)
			dyn = (const ElfW(Dyn) *)start;
	}
	if (!contains)
		return 0;
	owner->name = info->dlpi_name ? info->dlpi_name : "";
	owner->base = info->dlpi_addr;
	for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
		ElfW(Addr) ptr = dyn->d_un.d_ptr;

		/* glibc relocates these entries when it loads an object, some ports do not. */
		if (ptr < info->dlpi_addr)
			ptr += info->dlpi_addr;
		switch (dyn->d_tag) {
		case DT_SYMTAB: owner->symtab = (const ElfW(Sym) *)ptr; break;
		case DT_STRTAB: owner->strtab = (const char *)ptr; break;
		case DT_GNU_HASH: owner->gnu_hash = (const uint32_t *)ptr; break;
		case DT_HASH: owner->sysv_hash = (const uint32_t *)ptr; break;
		case DT_VERSYM: owner->versym = (const ElfW(Half) *)ptr; break;
		}
	}
	owner->found = owner->symtab && owner->strtab && (owner->gnu_hash || owner->sysv_hash);
	return 1;
}

/* Finds the object that serves malloc; returns 0, or -1 when it cannot be read. */
static int malloc_owner_find(struct malloc_owner *owner)
{
	const struct heap_functions *heap = heap_measured();

	memset(owner, 0, sizeof(*owner));
	if (!heap)
		return -1;
	owner->malloc_addr = (uintptr_t)heap->malloc;
	dl_iterate_phdr(find_owner, owner);
	return owner->found ? 0 : -1;
}

static uint32_t gnu_hash(const char *name)
{
	uint32_t h = 5381;

	for (; *name; name++)
		h = h * 33 + (unsigned char)*name;
	return h;
}

static uint32_t sysv_hash(const char *name)
{
	uint32_t h = 0, g;

	for (; *name; name++) {
		h = (h << 4) + (unsigned char)*name;
		g = h & 0xf0000000u;
		if (g)
			h ^= g >> 24;
		h &= ~g;
	}
	return h;
}

/* The address of symbol IDX when it is a function or object called NAME that the owner defines. */
static void *owner_symbol_at(const struct malloc_owner *owner, uint32_t idx, const char *name)
{
	const ElfW(Sym) *sym = &owner->symtab[idx];
	unsigned type = sym->st_info & 0xf;  /* ELF32_ST_TYPE and ELF64_ST_TYPE alike */

	if (sym->st_shndx == SHN_UNDEF || !sym->st_value || strcmp(owner->strtab + sym->st_name, name))
		return NULL;
	/* A hidden (non-default) version, or an IFUNC whose address is its resolver's. */
	if ((owner->versym && (owner->versym[idx] & 0x8000)) ||
	    (type != STT_FUNC && type != STT_OBJECT))
		return NULL;
	return (void *)(owner->base + sym->st_value);
}

/* The address of NAME when the object that serves malloc defines it itself, else NULL. */
static void *owner_symbol(const struct malloc_owner *owner, const char *name)
{
	void *found = NULL;

	if (owner->gnu_hash) {
		const uint32_t *h = owner->gnu_hash;
		uint32_t nbuckets = h[0], symoffset = h[1], bloom_words = h[2], hash = gnu_hash(name);
		const uint32_t *buckets = (const uint32_t *)(const void *)
					  ((const ElfW(Addr) *)(const void *)(h + 4) + bloom_words);
		const uint32_t *chain = buckets + nbuckets;

		if (!nbuckets)
			return NULL;
		for (uint32_t idx = buckets[hash % nbuckets]; idx >= symoffset && idx; idx++) {
			uint32_t h2 = chain[idx - symoffset];

			if ((h2 | 1) == (hash | 1) && (found = owner_symbol_at(owner, idx, name)))
				return found;
			if (h2 & 1)
				break;
		}
		return NULL;
	}
	if (owner->sysv_hash) {
		const uint32_t *h = owner->sysv_hash;
		uint32_t nbucket = h[0];
		const uint32_t *bucket = h + 2, *chain = bucket + nbucket;

		if (!nbucket)
			return NULL;
		for (uint32_t idx = bucket[sysv_hash(name) % nbucket]; idx; idx = chain[idx])
			if ((found = owner_symbol_at(owner, idx, name)))
				return found;
	}
	return NULL;
}

/* ---- identity and version ---- */

typedef int (*mallctl_fn)(const char *name, void *oldp, size_t *oldlenp, void *newp,
			  size_t newlen);
typedef int (*mi_version_fn)(void);
typedef const char *(*tc_version_fn)(int *major, int *minor, const char **patch);
typedef const char *(*libc_version_fn)(void);

/*
 * The version in the file name that PATH is or links to: "2.8" of
 * libtbbmalloc_proxy.so.2 -> libtbbmalloc_proxy.so.2.8. Leaves VERSION
 * alone when the name has none. readlink allocates nothing.
 */
static void file_version(const char *path, char *version, size_t size)
{
	char target[PATH_MAX];
	ssize_t n = readlink(path, target, sizeof(target) - 1);
	const char *name = path, *so;

	if (n > 0) {
		target[n] = '\0';
		name = target;
	}
	if ((so = strstr(name, ".so.")) && so[4])
		copy_string(version, size, so + 4);
}

/* The version of clang's resource directory that PATH is in: "14.0.6" of .../clang/14.0.6/lib/... */
static void clang_version(const char *path, char *version, size_t size)
{
	const char *dir = strstr(path, "/clang/");
	size_t len;

	if (!dir)
		return;
	dir += strlen("/clang/");
	len = strcspn(dir, "/");
	if (len && len < size && dir[len] == '/')
		snprintf(version, size, "%.*s", (int)len, dir);
}

static void identify_with(const struct malloc_owner *owner, struct allocator_info *info)
{
	void *sym;

	copy_string(info->name, sizeof(info->name), "unknown");
	copy_string(info->version, sizeof(info->version), "unknown");
	if (*owner->name) {
		copy_string(info->path, sizeof(info->path), owner->name);
	} else {
		/* The program itself (a sanitizer's runtime linked in). */
		ssize_t n = readlink("/proc/self/exe", info->path, sizeof(info->path) - 1);

		info->path[n > 0 ? n : 0] = '\0';
	}
	if ((sym = owner_symbol(owner, "mallctl"))) {
		const char *version = NULL;
		size_t len = sizeof(version);

		copy_string(info->name, sizeof(info->name), "jemalloc");
		if (!((mallctl_fn)sym)("version", &version, &len, NULL, 0) && version)
			copy_string(info->version, sizeof(info->version), version);
	} else if ((sym = owner_symbol(owner, "mi_version"))) {
		int v = ((mi_version_fn)sym)();

		/* mimalloc encodes 2.0.9 as 209. */
		copy_string(info->name, sizeof(info->name), "mimalloc");
		snprintf(info->version, sizeof(info->version), "%d.%d.%d",
			 v / 100, v / 10 % 10, v % 10);
	} else if ((sym = owner_symbol(owner, "tc_version"))) {
		int major = 0, minor = 0;
		const char *patch = NULL;

		copy_string(info->name, sizeof(info->name), "tcmalloc");
		((tc_version_fn)sym)(&major, &minor, &patch);
		snprintf(info->version, sizeof(info->version), "%d.%d%s", major, minor,
			 patch ? patch : "");
	} else if (owner_symbol(owner, "__TBB_malloc_proxy")) {
		copy_string(info->name, sizeof(info->name), "tbbmalloc");
		file_version(info->path, info->version, sizeof(info->version));
	} else if (owner_symbol(owner, "__scudo_print_stats")) {
		copy_string(info->name, sizeof(info->name), "scudo");
		clang_version(info->path, info->version, sizeof(info->version));
	} else if (owner_symbol(owner, "__asan_init")) {
		copy_string(info->name, sizeof(info->name), "asan");
	} else if ((sym = owner_symbol(owner, "gnu_get_libc_version"))) {
		copy_string(info->name, sizeof(info->name), "glibc");
		copy_string(info->version, sizeof(info->version), ((libc_version_fn)sym)());
	}
}

void allocator_identify(struct allocator_info *info)
{
	struct malloc_owner owner;

	if (malloc_owner_find(&owner)) {
		copy_string(info->name, sizeof(info->name), "unknown");
		copy_string(info->version, sizeof(info->version), "unknown");
		info->path[0] = '\0';
		return;
	}
	identify_with(&owner, info);
}

/* ---- statistics ---- */

static void add_stat(struct allocator_info *info, const char *name, uint64_t bytes)
{
	struct allocator_stat *stat;

	if (info->nstats >= ALLOCINFO_MAX_STATS)
		return;
	stat = &info->stats[info->nstats++];
	copy_string(stat->name, sizeof(stat->name), name);
	stat->bytes = bytes;
}

typedef struct mallinfo2 (*mallinfo2_fn)(void);
typedef int (*numeric_property_fn)(const char *property, size_t *value);
typedef void (*mi_process_info_fn)(size_t *elapsed_msecs, size_t *user_msecs,
				   size_t *system_msecs, size_t *current_rss,
				   size_t *peak_rss, size_t *current_commit,
				   size_t *peak_commit, size_t *page_faults);

static void jemalloc_stats(mallctl_fn ctl, struct allocator_info *info)
{
	static const char *const names[] = {
		"stats.allocated", "stats.active", "stats.metadata", "stats.resident",
	};
	uint64_t epoch = 1;
	size_t len = sizeof(epoch);

	/* jemalloc caches its statistics; writing "epoch" refreshes them. */
	if (ctl("epoch", &epoch, &len, &epoch, sizeof(epoch)))
		return;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t value;

		len = sizeof(value);
		if (!ctl(names[i], &value, &len, NULL, 0))
			add_stat(info, names[i], value);
	}
}

static void tcmalloc_stats(numeric_property_fn get, struct allocator_info *info)
{
	static const char *const names[] = {
		"generic.current_allocated_bytes", "generic.heap_size",
		"generic.total_physical_bytes", "tcmalloc.pageheap_free_bytes",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t value;

		if (get(names[i], &value))
			add_stat(info, names[i], value);
	}
}

static void read_stats(const struct malloc_owner *owner, struct allocator_info *info)
{
	void *sym;

	if (!strcmp(info->name, "jemalloc") && (sym = owner_symbol(owner, "mallctl"))) {
		jemalloc_stats((mallctl_fn)sym, info);
	} else if (!strcmp(info->name, "tcmalloc") &&
		   (sym = owner_symbol(owner, "MallocExtension_GetNumericProperty"))) {
		tcmalloc_stats((numeric_property_fn)sym, info);
	} else if (!strcmp(info->name, "mimalloc") &&
		   (sym = owner_symbol(owner, "mi_process_info"))) {
		size_t elapsed, user, sys, rss, peak_rss, commit, peak_commit, faults;

		((mi_process_info_fn)sym)(&elapsed, &user, &sys, &rss, &peak_rss, &commit,
					  &peak_commit, &faults);
		add_stat(info, "process_info.current_commit", commit);
	} else if (!strcmp(info->name, "glibc") && (sym = owner_symbol(owner, "mallinfo2"))) {
		struct mallinfo2 mi = ((mallinfo2_fn)sym)();

		add_stat(info, "mallinfo2.uordblks", mi.uordblks);
		add_stat(info, "mallinfo2.arena", mi.arena);
		add_stat(info, "mallinfo2.hblkhd", mi.hblkhd);
	}
}

typedef size_t (*usable_size_fn)(void *chunk);

void allocator_inspect(void *ctx, void *const *chunks, size_t count, struct sample *sample)
{
	struct allocator_info *info = &sample->allocator;
	struct malloc_owner owner;
	usable_size_fn usable;

	(void)ctx;
	if (malloc_owner_find(&owner)) {
		allocator_identify(info);
		return;
	}
	identify_with(&owner, info);
	/*
	 * Only the allocator's own malloc_usable_size can read its chunks:
	 * glibc's, called on a pointer another allocator returned, would read
	 * a header that is not there.
	 */
	usable = (usable_size_fn)owner_symbol(&owner, "malloc_usable_size");
	if (usable && count) {
		uint64_t total = 0;

		for (size_t i = 0; i < count; i++)
			total += usable(chunks[i]);
		info->usable_bytes = (double)total / (double)count;
		info->has_usable = 1;
	}
	read_stats(&owner, info);
}

/* ---- the child of a preloaded backend ---- */

/* Only dlsym of a symbol that exists, dladdr and stat: nothing that allocates. */
int allocator_check_preloaded(const char *backend_name, const char *path, struct sample *sample)
{
	const struct heap_functions *heap = heap_measured();
	void *fn = heap ? *(void **)&heap->malloc : NULL;
	struct stat want, got;
	Dl_info dl;

	if (stat(path, &want))
		return sample_fail(sample, "cannot read '%s': %s", path, strerror(errno));
	if (!fn || !dladdr(fn, &dl) || !dl.dli_fname)
		return sample_fail(sample, "%s is not active: cannot tell which library serves malloc",
				   backend_name);
	if (stat(dl.dli_fname, &got) || got.st_dev != want.st_dev || got.st_ino != want.st_ino)
		return sample_fail(sample, "%s is not active: malloc is served by '%s', not by "
				   "the preloaded '%s'", backend_name,
				   *dl.dli_fname ? dl.dli_fname : "the program itself", path);
	return 0;
}

/* ---- the settings an allocator was given ---- */

/* VALUE, as its environment gave it, is WANT (a number, or a boolean as 0 or 1). */
static int value_is(const char *value, long long want)
{
	char *end;
	long long v;

	if (!strcmp(value, "true"))
		return want == 1;
	if (!strcmp(value, "false"))
		return want == 0;
	v = strtoll(value, &end, 10);
	return end != value && !*end && v == want;
}

/* jemalloc's opt.NAME into *GOT. Returns 0, or -1. */
static int jemalloc_opt(mallctl_fn ctl, const struct allocator_setting *s, long long *got)
{
	size_t len;

	if (s->type == SETTING_BOOL) {
		_Bool b;

		len = sizeof(b);
		if (ctl(s->reads, &b, &len, NULL, 0))
			return -1;
		*got = b;
	} else if (!strcmp(s->name, "narenas")) {
		unsigned u;

		len = sizeof(u);
		if (ctl(s->reads, &u, &len, NULL, 0))
			return -1;
		*got = u;
	} else {
		ssize_t v;

		len = sizeof(v);
		if (ctl(s->reads, &v, &len, NULL, 0))
			return -1;
		*got = v;
	}
	return 0;
}

/* Each NAME:VALUE of jemalloc's MALLOC_CONF that allocbench knows, read back. */
static int confirm_jemalloc(const struct malloc_owner *owner, struct sample *sample)
{
	const char *conf = getenv("MALLOC_CONF");
	mallctl_fn ctl = (mallctl_fn)owner_symbol(owner, "mallctl");
	char copy[512], *save = NULL;

	if (!conf)
		return 0;
	copy_string(copy, sizeof(copy), conf);
	for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char *value = strchr(item, ':');
		const struct allocator_setting *s;
		long long got;

		if (!value)
			continue;
		*value++ = '\0';
		if (!(s = allocator_setting_find("jemalloc", item)) || !s->reads)
			continue;
		if (!ctl || jemalloc_opt(ctl, s, &got))
			return sample_fail(sample, "jemalloc:%s=%s: jemalloc cannot read %s back",
					   item, value, s->reads);
		if (!value_is(value, got))
			return sample_fail(sample, "jemalloc:%s=%s did not take effect: %s is %lld",
					   item, value, s->reads, got);
	}
	return 0;
}

/* Each TCMALLOC_NAME that allocbench knows and tcmalloc reports, read back. */
static int confirm_tcmalloc(const struct malloc_owner *owner, struct sample *sample)
{
	numeric_property_fn get =
		(numeric_property_fn)owner_symbol(owner, "MallocExtension_GetNumericProperty");

	for (size_t i = 0; allocator_settings[i].name; i++) {
		const struct allocator_setting *s = &allocator_settings[i];
		char var[64];
		const char *value;
		size_t got;

		if (strcmp(s->allocator, "tcmalloc") || !s->reads)
			continue;
		snprintf(var, sizeof(var), "TCMALLOC_%s", s->name);
		for (char *c = var; *c; c++)
			*c = (char)toupper((unsigned char)*c);
		if (!(value = getenv(var)))
			continue;
		if (!get || !get(s->reads, &got))
			return sample_fail(sample, "tcmalloc:%s=%s: tcmalloc cannot read %s back",
					   s->name, value, s->reads);
		if (!value_is(value, (long long)got))
			return sample_fail(sample, "tcmalloc:%s=%s did not take effect: %s is %zu",
					   s->name, value, s->reads, got);
	}
	return 0;
}

int allocator_settings_confirm(const char *allocator, struct sample *sample)
{
	struct malloc_owner owner;

	if (strcmp(allocator, "jemalloc") && strcmp(allocator, "tcmalloc"))
		return 0;
	/* No symbol table to read from: each setting then fails as not read back. */
	if (malloc_owner_find(&owner))
		memset(&owner, 0, sizeof(owner));
	return !strcmp(allocator, "jemalloc") ? confirm_jemalloc(&owner, sample) :
	       confirm_tcmalloc(&owner, sample);
}
