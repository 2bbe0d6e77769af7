/*
 * trace_set.c - the traces of one recording, the process advise replays,
 * and the runtimes that allocate past malloc (trace_set.h).
 */
#include "trace/trace_set.h"

#include "platform/util.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------ what bypasses malloc */

/*
 * The libraries the program's file names (its ELF DT_NEEDED entries),
 * NUL-separated into BUF (SIZE bytes, the last one cut short where they do
 * not fit). "" when the file is gone, or is not an ELF file of this
 * binary's class and byte order (read through its section headers).
 */
static void needed_libraries(const char *exe, char *buf, size_t size)
{
	Elf64_Ehdr eh;
	Elf64_Shdr dyn, str;
	Elf64_Dyn d;
	size_t used = 0;
	int fd = open(exe, O_RDONLY | O_CLOEXEC), found = 0;

	memset(buf, 0, size);
	if (fd < 0)
		return;
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr) ||
	    eh.e_ident[EI_DATA] != (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB))
		goto out;
	for (unsigned i = 0; i < eh.e_shnum && i < 4096 && !found; i++)
		if (pread(fd, &dyn, sizeof(dyn), (off_t)(eh.e_shoff + i * sizeof(dyn))) == (ssize_t)sizeof(dyn) &&
		    dyn.sh_type == SHT_DYNAMIC)
			found = 1;
	if (!found || pread(fd, &str, sizeof(str), (off_t)(eh.e_shoff + dyn.sh_link * sizeof(str))) !=
	    (ssize_t)sizeof(str))
		goto out;
	for (uint64_t at = 0; at + sizeof(d) <= dyn.sh_size && at < (1 << 20); at += sizeof(d)) {
		ssize_t n;

		if (pread(fd, &d, sizeof(d), (off_t)(dyn.sh_offset + at)) != (ssize_t)sizeof(d) ||
		    d.d_tag == DT_NULL || used + 1 >= size)
			break;
		if (d.d_tag != DT_NEEDED || d.d_un.d_val >= str.sh_size)
			continue;
		n = pread(fd, buf + used, size - used - 1, (off_t)(str.sh_offset + d.d_un.d_val));
		if (n <= 0)
			break;
		buf[used + (size_t)n] = '\0';
		used += strlen(buf + used) + 1;
	}
out:
	close(fd);
}

/* Whether a library in LIBS (needed_libraries()) starts with PREFIX. */
static int links(const char *libs, size_t size, const char *prefix)
{
	for (size_t at = 0; at < size && libs[at]; at += strlen(libs + at) + 1)
		if (!strncmp(libs + at, prefix, strlen(prefix)))
			return 1;
	return 0;
}

/* Allocating calls of at most 512 bytes, the most CPython's own allocator serves. */
static uint64_t small_allocations(const struct trace_stats *st)
{
	uint64_t n = 0;

	/* Bucket b holds sizes up to 2^(b-1): b = 10 ends at 512. */
	for (unsigned b = 0; b <= 10; b++)
		n += st->size_buckets[b];
	return n;
}

static uint64_t allocations(const struct trace_stats *st)
{
	uint64_t n = 0;

	for (unsigned b = 0; b < TRACE_SIZE_BUCKETS; b++)
		n += st->size_buckets[b];
	return n;
}

/*
 * CPython's pymalloc serves requests of up to 512 bytes from its own
 * arenas (mapped without malloc): under it, such requests are a minority
 * of the calls that reach malloc (31% for python3.11 -c pass), where with
 * PYTHONMALLOC=malloc they are nearly all (97%).
 */
static int cpython_bypassed(const struct trace_proc *p)
{
	return small_allocations(&p->stats) < allocations(&p->stats) * 4 / 5;
}

/*
 * GLib's slice allocator (before GLib 2.76) takes its slabs with
 * posix_memalign(); under G_SLICE=always-malloc, and from 2.76 on, it
 * makes none (gdbus help: 10 calls, none).
 */
static int glib_bypassed(const struct trace_proc *p)
{
	return p->stats.calls[TRACE_POSIX_MEMALIGN] > 0;
}

static const struct hint_rule {
	struct trace_hint hint;
	const char *program;    /* the program's name starts with it, then digits and dots; or NULL */
	const char *library;    /* a library it names starts with it, or NULL */
	int (*bypassed)(const struct trace_proc *p);  /* the trace shows it */
} hint_rules[] = {
	{ { "is CPython", "objects of up to 512 bytes from its own arenas (pymalloc)",
	    "PYTHONMALLOC=malloc" }, "python", "libpython", cpython_bypassed },
	{ { "links GLib", "g_slice blocks from slabs of its own (its slice allocator, before GLib 2.76)",
	    "G_SLICE=always-malloc" }, NULL, "libglib-2.0.so", glib_bypassed },
};

/* The rule P's program matches, by its name or a library it links, whose bypass its trace shows. */
static const struct trace_hint *proc_hint(const struct trace_proc *p)
{
	const char *prog = trace_proc_program(p);
	char libs[4096];
	int read_libs = 0;

	for (size_t i = 0; i < sizeof(hint_rules) / sizeof(hint_rules[0]); i++) {
		const struct hint_rule *r = &hint_rules[i];
		size_t len = r->program ? strlen(r->program) : 0;
		int match = r->program && !strncmp(prog, r->program, len) &&
			    strspn(prog + len, "0123456789.") == strlen(prog + len);

		if (!match && r->library) {
			if (!read_libs++)
				needed_libraries(p->t.header.command, libs, sizeof(libs));
			match = links(libs, sizeof(libs), r->library);
		}
		if (match && r->bypassed(p))
			return &r->hint;
	}
	return NULL;
}

const char *trace_proc_hint_text(const struct trace_proc *p, char *buf, size_t size)
{
	if (!p->hint)
		copy_string(buf, size, "");
	else
		snprintf(buf, size, "%s (pid %" PRIu32 ") %s, which serves %s without malloc: "
			 "its trace has %" PRIu64 " calls, not those; record it with %s in its "
			 "environment (allocbench record -o FILE env %s COMMAND...) to have them too",
			 trace_proc_program(p), p->t.header.pid, p->hint->runtime, p->hint->what,
			 p->stats.calls[0], p->hint->setting, p->hint->setting);
	text_clean_in_place(buf, size);
	return buf;
}

/* ------------------------------------------------------------ the set */

const char *trace_proc_program(const struct trace_proc *p)
{
	const char *c = p->t.header.command, *slash = strrchr(c, '/');

	if (slash)
		c = slash + 1;
	return *c ? c : "(unknown)";
}

const char *trace_proc_name(const struct trace_proc *p)
{
	const char *path = p->alias ? p->alias : p->path, *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* Adds PATH to SET, read; a second name of a file in it is left out. Returns 0, or -1 with WHY. */
static int set_add(struct trace_set *set, const char *path, int named, char *why, size_t why_size)
{
	struct trace_proc *p;
	struct stat st, other;

	if (!stat(path, &st))
		for (size_t i = 0; i < set->n; i++)
			if (!stat(set->procs[i].path, &other) && other.st_dev == st.st_dev &&
			    other.st_ino == st.st_ino) {
				/* record's FILE: its other name is the process's own. */
				if (!named && !set->procs[i].alias && !(set->procs[i].alias = strdup(path)))
					goto oom;
				return 0;
			}
	if (ALLOC_GROW(set->procs, set->n + 1, set->alloc))
		goto oom;
	p = &set->procs[set->n];
	memset(p, 0, sizeof(*p));
	p->named = named;
	if (!(p->path = strdup(path)))
		goto oom;
	set->n++;
	if (trace_stats_load(path, &p->t, &p->stats, NULL, why, why_size)) {
		/* It names a file found beside FILE, whose name the program chose. */
		text_clean_in_place(why, why_size);
		trace_stats_release(&p->stats);
		if (named)
			return -1;
		if (!(p->error = strdup(why)))
			goto oom;
		return 0;
	}
	p->hint = proc_hint(p);
	return 0;
oom:
	snprintf(why, why_size, "out of memory reading the traces of '%s'", path);
	return -1;
}

/* The session in the header of the trace at PATH; 0 when it is not a trace. */
static uint64_t session_of(const char *path, uint64_t *start_ns)
{
	struct trace_header h;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = pread(fd, &h, sizeof(h), 0);
	close(fd);
	if (n != (ssize_t)sizeof(h) || memcmp(h.magic, TRACE_MAGIC, sizeof(h.magic)))
		return 0;
	if (start_ns)
		*start_ns = h.start_ns;
	return h.session;
}

static int proc_cmp(const void *a, const void *b)
{
	const struct trace_proc *x = a, *y = b;

	if (x->t.header.start_ns != y->t.header.start_ns)
		return x->t.header.start_ns < y->t.header.start_ns ? -1 : 1;
	return strcmp(x->path, y->path);
}

static int path_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The files beside FILE named FILE.SOMETHING with a trace's header, into
 * *NAMES (*N of them, sorted); the newest session among them in *NEWEST.
 * Returns 0, or -1 when out of memory.
 */
static int siblings(const char *file, char ***names, size_t *n, uint64_t *newest)
{
	char dir[4096], *slash;
	const char *base;
	size_t alloc = 0, baselen;
	uint64_t newest_ns = 0, start_ns;
	struct dirent *d;
	DIR *dp;

	*names = NULL;
	*n = 0;
	*newest = 0;
	copy_string(dir, sizeof(dir), file);
	slash = strrchr(dir, '/');
	base = slash ? file + (slash - dir) + 1 : file;
	if (slash)
		*slash = '\0';
	baselen = strlen(base);
	if (!(dp = opendir(!slash ? "." : dir[0] ? dir : "/")))
		return 0;
	while ((d = readdir(dp))) {
		char *path;
		uint64_t session;

		if (strncmp(d->d_name, base, baselen) || d->d_name[baselen] != '.' || !d->d_name[baselen + 1])
			continue;
		if (asprintf(&path, "%s%s%s", slash ? dir : "", slash ? "/" : "", d->d_name) < 0)
			goto oom;
		start_ns = 0;
		if (!(session = session_of(path, &start_ns)) || ALLOC_GROW(*names, *n + 1, alloc)) {
			free(path);
			if (session)
				goto oom;
			continue;
		}
		(*names)[(*n)++] = path;
		if (start_ns >= newest_ns) {
			newest_ns = start_ns;
			*newest = session;
		}
	}
	closedir(dp);
	if (*n)
		qsort(*names, *n, sizeof(**names), path_cmp);
	return 0;
oom:
	closedir(dp);
	return -1;
}

static void set_done(struct trace_set *set)
{
	if (set->n > 1)
		qsort(set->procs, set->n, sizeof(*set->procs), proc_cmp);
	set->chosen = trace_set_choose(set);
}

int trace_set_find(const char *file, uint64_t session, struct trace_set *set, char *why,
		   size_t why_size)
{
	char **names;
	size_t n;
	uint64_t newest;
	int exists = !access(file, F_OK) && (!session || session_of(file, NULL) == session), ret = 0;

	memset(set, 0, sizeof(*set));
	if (exists && set_add(set, file, 1, why, why_size))
		return -1;
	if (!session)
		session = exists ? session_of(file, NULL) : 0;
	if (siblings(file, &names, &n, &newest)) {
		snprintf(why, why_size, "out of memory reading the traces of '%s'", file);
		return -1;
	}
	if (!exists && !session)
		session = newest;
	for (size_t i = 0; i < n; i++) {
		if (!ret && session && session_of(names[i], NULL) == session)
			ret = set_add(set, names[i], 0, why, why_size);
		free(names[i]);
	}
	free(names);
	if (!ret && !set->n) {
		snprintf(why, why_size, "cannot read trace '%s': %s", file, strerror(ENOENT));
		ret = -1;
	}
	set_done(set);
	return ret;
}

int trace_set_paths(const char *const *paths, size_t n, struct trace_set *set, char *why,
		    size_t why_size)
{
	memset(set, 0, sizeof(*set));
	for (size_t i = 0; i < n; i++)
		if (set_add(set, paths[i], 1, why, why_size))
			return -1;
	set_done(set);
	return 0;
}

int trace_set_remove(const char *file)
{
	uint64_t session = session_of(file, NULL), newest;
	char **names;
	size_t n;
	int ret = 0;

	if (!session)
		return 0;
	if (siblings(file, &names, &n, &newest))
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (session_of(names[i], NULL) == session && unlink(names[i]) && errno != ENOENT)
			ret = -1;
		free(names[i]);
	}
	free(names);
	return ret;
}

/* The readable image with the most calls; with EXEC 0, of those not replaced by an exec. */
static size_t most_calls(const struct trace_set *set, int exec)
{
	size_t best = set->n;

	/* In the order they started: of equals, the first stays. */
	for (size_t i = 0; i < set->n; i++)
		if (!set->procs[i].error && set->procs[i].stats.calls[0] &&
		    (exec || set->procs[i].t.header.state != TRACE_STATE_EXEC) &&
		    (best == set->n || set->procs[i].stats.calls[0] > set->procs[best].stats.calls[0]))
			best = i;
	return best;
}

size_t trace_set_choose(const struct trace_set *set)
{
	size_t best = most_calls(set, 0);

	if (best < set->n)
		return best;
	best = most_calls(set, 1);
	/* None with a call: the first readable. */
	for (size_t i = 0; best == set->n && i < set->n; i++)
		if (!set->procs[i].error)
			best = i;
	return best;
}

uint64_t trace_set_calls(const struct trace_set *set)
{
	uint64_t n = 0;

	for (size_t i = 0; i < set->n; i++)
		n += set->procs[i].stats.calls[0];
	return n;
}

const char *trace_set_choice_text(const struct trace_set *set, char *buf, size_t size)
{
	const struct trace_proc *p;
	const char *name;

	if (set->chosen >= set->n) {
		snprintf(buf, size, "no process's trace could be read");
		return buf;
	}
	p = &set->procs[set->chosen];
	name = trace_proc_name(p);
	if (set->n == 1)
		snprintf(buf, size, "%s (pid %" PRIu32 ", %s), the only process recorded",
			 trace_proc_program(p), p->t.header.pid, name);
	else
		snprintf(buf, size, "%s (pid %" PRIu32 ", %s), which has the most calls%s: %" PRIu64
			 " of the %" PRIu64 " of %zu processes", trace_proc_program(p), p->t.header.pid,
			 name, most_calls(set, 1) != set->chosen ? " of those that ran to their "
			 "end (a launcher that execs its worker is not the program)" : "",
			 p->stats.calls[0], trace_set_calls(set), set->n);
	text_clean_in_place(buf, size);
	return buf;
}

void trace_set_release(struct trace_set *set)
{
	for (size_t i = 0; i < set->n; i++) {
		free(set->procs[i].path);
		free(set->procs[i].alias);
		free(set->procs[i].error);
		trace_stats_release(&set->procs[i].stats);
	}
	free(set->procs);
	memset(set, 0, sizeof(*set));
}

int trace_program_text(const struct trace_header *h, uint64_t calls, char *buf, size_t size)
{
	size_t used = 0;

	if (h->state == TRACE_STATE_WRITING) {
		snprintf(buf, size, "the program's own figures are not kept: it ended without exit, "
			 "exec or _exit (killed or crashed)");
		return 0;
	}
	if (!h->run_ns && !h->hwm_kib && !h->anon_peak_kib) {
		snprintf(buf, size, "the program's own figures are not in this trace (recorded by an "
			 "allocbench that did not keep them)");
		return 0;
	}
	buf[0] = '\0';
	if (h->anon_peak_kib)
		used += (size_t)snprintf(buf + used, size - used, "peak anonymous memory %" PRIu32
					 " KiB, ", h->anon_peak_kib);
	else
		used += (size_t)snprintf(buf + used, size - used, "peak anonymous memory not "
					 "sampled (record never read it while it ran: it ended at once, or "
					 "outlived record), ");
	if (used < size && h->hwm_kib)
		used += (size_t)snprintf(buf + used, size - used, "peak resident set %" PRIu32 " KiB, ",
					 h->hwm_kib);
	if (used < size && h->run_ns)
		used += (size_t)snprintf(buf + used, size - used, "%.3f s, ", (double)h->run_ns / 1e9);
	if (used < size)
		snprintf(buf + used, size - used, "%" PRIu64 " calls", calls);
	return h->anon_peak_kib != 0;
}
