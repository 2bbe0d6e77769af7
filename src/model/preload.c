#include "model/preload.h"
#include "model/runner.h"
#include "platform/util.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The multiarch directory Debian installs this machine's libraries into. */
#if defined(__x86_64__) && defined(__LP64__)
#define MULTIARCH "x86_64-linux-gnu"
#elif defined(__aarch64__)
#define MULTIARCH "aarch64-linux-gnu"
#elif defined(__i386__)
#define MULTIARCH "i386-linux-gnu"
#elif defined(__riscv) && __riscv_xlen == 64
#define MULTIARCH "riscv64-linux-gnu"
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define MULTIARCH "powerpc64le-linux-gnu"
#elif defined(__s390x__)
#define MULTIARCH "s390x-linux-gnu"
#endif

/* Where the dynamic linker looks when the cache does not name a library. */
static const char *const default_dirs[] = {
	"/usr/local/lib",
#ifdef MULTIARCH
	"/usr/local/lib/" MULTIARCH,
	"/usr/lib/" MULTIARCH,
	"/lib/" MULTIARCH,
#endif
	"/usr/lib64",
	"/lib64",
	"/usr/lib",
	"/lib",
	NULL,
};

/* Where Debian's multiarch puts i386 libraries (libjemalloc2:i386, ...), for run --abi 32. */
static const char *const dirs_32[] = {
	"/usr/local/lib/i386-linux-gnu",
	"/usr/lib/i386-linux-gnu",
	"/lib/i386-linux-gnu",
	"/usr/lib32",
	"/lib32",
	NULL,
};

#define LDCACHE_PATH "/etc/ld.so.cache"

int preload_unsupported(void)
{
	return strstr(ALLOCBENCH_SANITIZE, "address") != NULL;
}

void preload_with_installed(char *buf, size_t size, const char *base)
{
	size_t used = (size_t)snprintf(buf, size, "%s", base);

	for (size_t i = 0; allocator_known[i].name && !preload_unsupported() && used < size; i++) {
		struct preload *p = preload_locate(&allocator_known[i]);

		if (p)
			used += (size_t)snprintf(buf + used, size - used, ",%s", p->name);
		free(p);
	}
}

/* ---- ELF headers ---- */

/* The identifying bytes of an ELF header: class, byte order, machine. */
struct elf_id {
	unsigned char class;    /* ELFCLASS32 or ELFCLASS64 */
	unsigned char data;     /* ELFDATA2LSB or ELFDATA2MSB */
	uint16_t type;          /* e_type, in this machine's byte order when data matches */
	uint16_t machine;       /* e_machine, likewise */
};

/* Reads the ELF identification of PATH. Returns 0, 1 when not ELF, -1 with errno. */
static int read_elf_id(const char *path, struct elf_id *id)
{
	unsigned char head[EI_NIDENT + 4];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, head, sizeof(head));
	close(fd);
	if (n < 0)
		return -1;
	if ((size_t)n < sizeof(head) || memcmp(head, ELFMAG, SELFMAG))
		return 1;
	/* e_type and e_machine follow e_ident in both ELF classes. */
	id->class = head[EI_CLASS];
	id->data = head[EI_DATA];
	memcpy(&id->type, head + EI_NIDENT, 2);
	memcpy(&id->machine, head + EI_NIDENT + 2, 2);
	return 0;
}

int preload_check_library(const char *path, unsigned abi, char *why, size_t why_size)
{
	static struct elf_id native;
	static int have_native;
	struct elf_id self, id;
	int have_self;
	struct stat st;
	int ret;

	if (!have_native && read_elf_id("/proc/self/exe", &native) == 0)
		have_native = 1;
	self = native;
	have_self = have_native;
	if (abi == 32) {
		/* allocbench-child32: i386. */
		self = (struct elf_id){ .class = ELFCLASS32, .data = ELFDATA2LSB, .machine = EM_386 };
		have_self = 1;
	}
	if (stat(path, &st)) {
		snprintf(why, why_size, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, why_size, "'%s' is not a shared library (not a regular file)", path);
		return -1;
	}
	ret = read_elf_id(path, &id);
	if (ret < 0) {
		snprintf(why, why_size, "cannot read '%s': %s", path, strerror(errno));
		return -1;
	}
	if (ret > 0) {
		snprintf(why, why_size, "'%s' is not a shared library (not an ELF file)", path);
		return -1;
	}
	if (have_self && (id.class != self.class || id.data != self.data ||
			  id.machine != self.machine)) {
		snprintf(why, why_size, "'%s' is built for another machine (ELF class %u, "
			 "machine %u; this program: class %u, machine %u)", path,
			 id.class, id.machine, self.class, self.machine);
		return -1;
	}
	if (id.type != ET_DYN) {
		snprintf(why, why_size, "'%s' is not a shared library (ELF type %u, not ET_DYN)",
			 path, id.type);
		return -1;
	}
	return 0;
}

/* ---- the dynamic linker's cache ---- */

#define LDCACHE_OLD_MAGIC "ld.so-1.7.0"
#define LDCACHE_NEW_MAGIC "glibc-ld.so.cache1.1"
#define LDCACHE_OLD_HEADER 16   /* magic[11], padding, uint32 nlibs */
#define LDCACHE_OLD_ENTRY 12    /* int32 flags, uint32 key, uint32 value */
#define LDCACHE_NEW_HEADER 48   /* magic and version[20], nlibs, len_strings, flags, ... */
#define LDCACHE_NEW_ENTRY 24    /* flags, key, value, osversion, uint64 hwcap */

static uint32_t read_u32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* The string at OFFSET of the SIZE bytes at BASE, or NULL when it runs off the end. */
static const char *cache_string(const unsigned char *base, size_t size, uint32_t offset)
{
	if (offset >= size || !memchr(base + offset, '\0', size - offset))
		return NULL;
	return (const char *)base + offset;
}

int preload_ldcache_lookup(const unsigned char *data, size_t size, const char *soname,
			   int (*accept)(const char *path, void *arg), void *arg)
{
	const unsigned char *cache = data;
	size_t cache_size = size, nlibs;

	if (size >= LDCACHE_OLD_HEADER && !memcmp(data, LDCACHE_OLD_MAGIC,
						   sizeof(LDCACHE_OLD_MAGIC) - 1)) {
		/* The old format comes first; the new one follows, aligned to 8. */
		size_t offset = LDCACHE_OLD_HEADER + (size_t)read_u32(data + 12) * LDCACHE_OLD_ENTRY;

		offset = (offset + 7) & ~(size_t)7;
		if (offset > size)
			return -1;
		cache = data + offset;
		cache_size = size - offset;
	}
	if (cache_size < LDCACHE_NEW_HEADER ||
	    memcmp(cache, LDCACHE_NEW_MAGIC, sizeof(LDCACHE_NEW_MAGIC) - 1))
		return -1;
	nlibs = read_u32(cache + 20);
	if (nlibs > (cache_size - LDCACHE_NEW_HEADER) / LDCACHE_NEW_ENTRY)
		return -1;
	/* Offsets of the names are relative to the new format's header. */
	for (size_t i = 0; i < nlibs; i++) {
		const unsigned char *entry = cache + LDCACHE_NEW_HEADER + i * LDCACHE_NEW_ENTRY;
		const char *key = cache_string(cache, cache_size, read_u32(entry + 4));
		const char *value = cache_string(cache, cache_size, read_u32(entry + 8));

		if (key && value && !strcmp(key, soname) && !accept(value, arg))
			return 0;
	}
	return -1;
}

/* Reads /etc/ld.so.cache into a new buffer; NULL when there is none. */
static unsigned char *read_ldcache(size_t *size)
{
	int fd = open(LDCACHE_PATH, O_RDONLY | O_CLOEXEC);
	unsigned char *buf = NULL;
	struct stat st;
	size_t got = 0;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || st.st_size <= 0 || st.st_size > (64 << 20) ||
	    !(buf = malloc((size_t)st.st_size))) {
		close(fd);
		return NULL;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	*size = got;
	return buf;
}

/* ---- backends ---- */

static struct preload *preload_new(const char *name, const char *path,
				   const struct allocator_known *known, int from_option)
{
	struct preload *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	copy_string(p->name, sizeof(p->name), name);
	copy_string(p->path, sizeof(p->path), path);
	p->known = known;
	p->from_option = from_option;
	/* The malloc backend's loop and run function; only the environment differs. */
	p->backend = backend_malloc;
	p->backend.name = p->name;
	p->backend.summary = known ? known->summary : "a library given with --preload";
	p->backend.preload_path = p->path;
	return p;
}

/* What a search looks for: a library of ABI (0: this program's), found into PATH. */
struct wanted {
	unsigned abi;
	char path[PATH_MAX];
};

/* Accepts a candidate file when it is an ELF shared library for the wanted ABI. */
static int accept_library(const char *path, void *arg)
{
	struct wanted *want = arg;
	char why[PATH_MAX + 128];

	if (preload_check_library(path, want->abi, why, sizeof(why)))
		return -1;
	copy_string(want->path, PATH_MAX, path);
	return 0;
}

/* Tries DIR/SONAME; returns 0 and fills FOUND when usable. */
static int try_dir(const char *dir, size_t dir_len, const char *soname, struct wanted *found)
{
	char path[PATH_MAX];

	if (!dir_len || snprintf(path, sizeof(path), "%.*s/%s", (int)dir_len, dir, soname) >=
			(int)sizeof(path))
		return -1;
	return accept_library(path, found);
}

struct preload *preload_locate(const struct allocator_known *known)
{
	return preload_locate_abi(known, 0);
}

static int by_version_down(const void *a, const void *b)
{
	return strverscmp(*(const char *const *)b, *(const char *const *)a);
}

/* Tries SONAME in each directory that PATTERN (a glob) matches, newest version first. */
static int try_glob(const char *pattern, const char *soname, struct wanted *found)
{
	glob_t g;
	int ok = -1;

	if (glob(pattern, GLOB_ONLYDIR | GLOB_NOSORT, NULL, &g))
		return -1;
	qsort(g.gl_pathv, g.gl_pathc, sizeof(*g.gl_pathv), by_version_down);
	for (size_t i = 0; ok && i < g.gl_pathc; i++)
		ok = try_dir(g.gl_pathv[i], strlen(g.gl_pathv[i]), soname, found);
	globfree(&g);
	return ok;
}

struct preload *preload_locate_abi(const struct allocator_known *known, unsigned abi)
{
	const char *const *dirs = abi == 32 ? dirs_32 : default_dirs;
	const char *const only32[] = { known->soname32, NULL };
	const char *const *sonames = abi == 32 && known->soname32 ? only32 : known->sonames;
	const char *env = getenv(PRELOAD_PATH_ENV);
	unsigned char *cache = NULL;
	size_t cache_size = 0;
	struct wanted found = { .abi = abi };
	int ok = -1;

	if (!env || !*env)
		cache = read_ldcache(&cache_size);
	for (size_t s = 0; ok && sonames[s]; s++) {
		const char *soname = sonames[s];

		if (env && *env) {
			for (const char *dir = env; ok && *dir; ) {
				size_t len = strcspn(dir, ":");

				ok = try_dir(dir, len, soname, &found);
				dir += len;
				dir += *dir == ':';
			}
			continue;
		}
		if (cache)
			ok = preload_ldcache_lookup(cache, cache_size, soname, accept_library, &found);
		for (size_t d = 0; ok && dirs[d]; d++)
			ok = try_dir(dirs[d], strlen(dirs[d]), soname, &found);
		if (ok && known->dirs)
			ok = try_glob(known->dirs, soname, &found);
	}
	free(cache);
	return ok ? NULL : preload_new(known->name, found.path, known, 0);
}

void preload_describe_search(char *buf, size_t size, const struct allocator_known *known)
{
	const char *env = getenv(PRELOAD_PATH_ENV);
	size_t used;

	if (env && *env) {
		snprintf(buf, size, "$" PRELOAD_PATH_ENV " (%s)", env);
		return;
	}
	used = (size_t)snprintf(buf, size, "the dynamic linker's cache (" LDCACHE_PATH ")");
	for (size_t d = 0; default_dirs[d] && used < size; d++)
		used += (size_t)snprintf(buf + used, size - used, "%s%s",
					 d ? ", " : known && known->dirs ? ", " : " and ",
					 default_dirs[d]);
	if (known && known->dirs && used < size)
		snprintf(buf + used, size - used, " and %s", known->dirs);
}

const char *preload_soname(const struct allocator_known *known, unsigned abi)
{
	return abi == 32 && known->soname32 ? known->soname32 : known->sonames[0];
}

void preload_package(char *buf, size_t size, const struct allocator_known *known, unsigned abi)
{
	snprintf(buf, size, "%s%s", known->package, abi == 32 && !known->soname32 ? ":i386" : "");
}

/* 1 when NAME can name a backend: letters, digits, '_', '-', '.', '+'. */
static int valid_name(const char *name, size_t len)
{
	if (!len || len > PRELOAD_NAME_MAX || name[0] == '-')
		return 0;
	for (size_t i = 0; i < len; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-' || c == '.' || c == '+'))
			return 0;
	}
	return 1;
}

struct preload *preload_parse(const char *spec)
{
	const char *eq = strchr(spec, '=');
	char name[PRELOAD_NAME_MAX + 1], resolved[PATH_MAX], why[PATH_MAX + 128];
	struct preload *p;
	size_t len;

	if (!eq || eq == spec || !eq[1]) {
		error("invalid --preload '%s' (expected NAME=PATH, e.g. "
		      "hoard=/usr/local/lib/libhoard.so)", spec);
		return NULL;
	}
	len = (size_t)(eq - spec);
	if (!valid_name(spec, len)) {
		error("invalid name '%.*s' in --preload '%s' (expected 1 to %d letters, digits, "
		      "'_', '-', '.' or '+')", (int)len, spec, spec, PRELOAD_NAME_MAX);
		return NULL;
	}
	memcpy(name, spec, len);
	name[len] = '\0';
	if (!strcmp(name, "all")) {
		error("invalid name 'all' in --preload '%s': --backend all means every backend",
		      spec);
		return NULL;
	}
	if (!strcmp(name, RUNNER_FLOOR)) {
		error("invalid name '%s' in --preload '%s': '%s' is reserved for the floor "
		      "(the loop without an allocator), not a backend (choose another name)",
		      name, spec, name);
		return NULL;
	}
	if (backend_find(name)) {
		error("invalid name '%s' in --preload '%s': '%s' is a built-in backend "
		      "(choose another name)", name, spec, name);
		return NULL;
	}
	if (!realpath(eq + 1, resolved)) {
		error("invalid --preload '%s': cannot open '%s': %s", spec, eq + 1, strerror(errno));
		return NULL;
	}
	if (strpbrk(resolved, ": \t\n")) {
		error("invalid --preload '%s': LD_PRELOAD cannot hold the path '%s' "
		      "(it contains ':' or white space)", spec, resolved);
		return NULL;
	}
	if (preload_check_library(resolved, 0, why, sizeof(why))) {
		error("invalid --preload '%s': %s", spec, why);
		return NULL;
	}
	p = preload_new(name, resolved, allocator_known_find(name), 1);
	if (!p)
		error("out of memory");
	return p;
}
