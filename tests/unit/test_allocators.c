/*
 * Unit tests for preload.c (the dynamic linker's cache, ELF checks,
 * --preload parsing), allocator.c (identifying glibc, usable sizes) and
 * breakdown.c (slack, metadata and their flags, and the text report that
 * marks them).
 */
#include "measure/allocator.h"
#include "model/breakdown.h"
#include "check.h"
#include "model/preload.h"
#include "model/run.h"
#include "model/runner.h"
#include "model/stats.h"
#include "platform/util.h"
#include "report/report_formats.h"

#include <dlfcn.h>
#include <gnu/libc-version.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a synthetic /etc/ld.so.cache ---- */

struct image {
	unsigned char bytes[1024];
	size_t size;
};

static void put32(unsigned char *at, uint32_t v)
{
	memcpy(at, &v, sizeof(v));
}

/*
 * Writes a "glibc-ld.so.cache1.1" image at OFFSET of IMAGE with the NLIBS
 * (soname, path) pairs of NAMES; string offsets are relative to OFFSET.
 */
static void build_new(struct image *image, size_t offset, const char *const *names, size_t nlibs)
{
	unsigned char *base = image->bytes + offset;
	size_t strings = 48 + nlibs * 24, at = strings;

	memcpy(base, "glibc-ld.so.cache1.1", 20);
	put32(base + 20, (uint32_t)nlibs);
	for (size_t i = 0; i < nlibs; i++) {
		unsigned char *entry = base + 48 + i * 24;

		put32(entry, 0x0303);  /* FLAG_ELF_LIBC6 | FLAG_X8664_LIB64 */
		for (int k = 0; k < 2; k++) {
			const char *s = names[2 * i + (size_t)k];

			put32(entry + 4 + 4 * k, (uint32_t)at);
			memcpy(base + at, s, strlen(s) + 1);
			at += strlen(s) + 1;
		}
	}
	put32(base + 24, (uint32_t)(at - strings));
	image->size = offset + at;
}

struct seen {
	char paths[4][64];
	int n;
	const char *want;   /* the path to accept, or NULL for none */
};

static int accept_want(const char *path, void *arg)
{
	struct seen *seen = arg;

	if (seen->n < 4)
		copy_string(seen->paths[seen->n++], sizeof(seen->paths[0]), path);
	return seen->want && !strcmp(path, seen->want) ? 0 : -1;
}

static void test_ldcache(void)
{
	static const char *const names[] = {
		"libfoo.so.1", "/a/libfoo.so.1",
		"libbar.so.2", "/32/libbar.so.2",
		"libbar.so.2", "/64/libbar.so.2",
	};
	struct image image = { .size = 0 };
	struct seen seen = { .n = 0 };
	size_t old;

	build_new(&image, 0, names, 3);
	seen.want = "/a/libfoo.so.1";
	CHECK("ld.so.cache: finds a name", !preload_ldcache_lookup(image.bytes, image.size,
			"libfoo.so.1", accept_want, &seen) && seen.n == 1);
	memset(&seen, 0, sizeof(seen));
	seen.want = "/64/libbar.so.2";
	CHECK("ld.so.cache: offers every entry of a name in order until one is accepted",
	      !preload_ldcache_lookup(image.bytes, image.size, "libbar.so.2", accept_want, &seen) &&
	      seen.n == 2 && !strcmp(seen.paths[0], "/32/libbar.so.2"));
	memset(&seen, 0, sizeof(seen));
	CHECK("ld.so.cache: -1 when nothing is accepted",
	      preload_ldcache_lookup(image.bytes, image.size, "libbar.so.2", accept_want, &seen) == -1 &&
	      seen.n == 2);
	CHECK("ld.so.cache: -1 for an absent name",
	      preload_ldcache_lookup(image.bytes, image.size, "libnone.so", accept_want, &seen) == -1);
	CHECK("ld.so.cache: a truncated image is refused",
	      preload_ldcache_lookup(image.bytes, 60, "libfoo.so.1", accept_want, &seen) == -1);
	CHECK("ld.so.cache: not a cache",
	      preload_ldcache_lookup((const unsigned char *)"hello, world, this is not a cache at all......",
				     48, "libfoo.so.1", accept_want, &seen) == -1);

	/* A string offset past the end is skipped, not read. */
	put32(image.bytes + 48 + 8, 5000);
	memset(&seen, 0, sizeof(seen));
	seen.want = "/a/libfoo.so.1";
	CHECK("ld.so.cache: an entry with a bad offset is skipped",
	      preload_ldcache_lookup(image.bytes, image.size, "libfoo.so.1", accept_want, &seen) == -1 &&
	      seen.n == 0);

	/* The old format, then the new one aligned to 8, strings relative to the new header. */
	memset(&image, 0, sizeof(image));
	memcpy(image.bytes, "ld.so-1.7.0", 11);
	put32(image.bytes + 12, 2);
	old = (16 + 2 * 12 + 7) & ~(size_t)7;
	build_new(&image, old, names, 3);
	memset(&seen, 0, sizeof(seen));
	seen.want = "/a/libfoo.so.1";
	CHECK("ld.so.cache: the new format after the old one",
	      !preload_ldcache_lookup(image.bytes, image.size, "libfoo.so.1", accept_want, &seen));
}

/* ---- ELF checks and --preload ---- */

static const char *libc_path(void)
{
	static Dl_info dl;

	if (!dladdr((void *)gnu_get_libc_version, &dl))
		return NULL;
	return dl.dli_fname;
}

static void test_check_library(void)
{
	char why[512];
	const char *libc = libc_path();

	CHECK("libc is a shared library", libc && !preload_check_library(libc, 0, why, sizeof(why)));
	CHECK("a text file is not", preload_check_library("/etc/passwd", 0, why, sizeof(why)) == -1 &&
	      strstr(why, "not an ELF file") && strstr(why, "'/etc/passwd'"));
	CHECK("a directory is not", preload_check_library("/", 0, why, sizeof(why)) == -1 &&
	      strstr(why, "not a regular file"));
	CHECK("a missing file is named", preload_check_library("/nonexistent.so", 0, why, sizeof(why)) == -1 &&
	      strstr(why, "cannot open '/nonexistent.so'"));
}

static void test_parse(void)
{
	const char *libc = libc_path();
	char spec[600], buf[600];
	struct preload *p;

	CHECK("--preload without '=' refused", !preload_parse("hoard"));
	CHECK("--preload without a name refused", !preload_parse("=/x.so"));
	CHECK("--preload without a path refused", !preload_parse("hoard="));
	CHECK("--preload named after a built-in refused", !preload_parse("pool=/x.so"));
	CHECK("--preload named all refused", !preload_parse("all=/x.so"));
	CHECK("--preload name with a comma refused", !preload_parse("a,b=/x.so"));
	CHECK("--preload name starting with '-' refused", !preload_parse("-x=/x.so"));
	CHECK("--preload of a text file refused", !preload_parse("text=/etc/passwd"));
	if (!libc)
		return;
	snprintf(spec, sizeof(spec), "mylibc=%s", libc);
	p = preload_parse(spec);
	CHECK("--preload NAME=PATH parsed", p && !strcmp(p->name, "mylibc") && p->path[0] == '/');
	CHECK("--preload runs the malloc backend's loop", p && p->backend.run == backend_malloc.run &&
	      !strcmp(p->backend.name, "mylibc") && p->backend.preload_path == p->path &&
	      !p->backend.uses_align);
	CHECK("--preload of an unknown name has no known allocator", p && !p->known && p->from_option);
	free(p);
	snprintf(spec, sizeof(spec), "jemalloc=%s", libc);
	p = preload_parse(spec);
	CHECK("--preload may give a known allocator's path", p && p->known &&
	      !strcmp(p->known->package, "libjemalloc2"));
	free(p);
	snprintf(spec, sizeof(spec), "%s=%s", RUNNER_FLOOR, libc);
	p = preload_parse(spec);
	CHECK("--preload named after the floor refused", !p);
	free(p);
	CHECK("known allocators", allocator_known_find("mimalloc") &&
	      !strcmp(allocator_known_find("tcmalloc")->package, "libtcmalloc-minimal4") &&
	      !allocator_known_find("malloc"));
	buf[0] = '\0';
	preload_package(buf, sizeof(buf), allocator_known_find("tbbmalloc"), 32);
	CHECK("tbbmalloc/32 comes from Debian's i386 package", !strcmp(buf, "libtbbmalloc2:i386"));
	preload_package(buf, sizeof(buf), allocator_known_find("scudo"), 32);
	CHECK("scudo/32 comes with the native package", !strcmp(buf, "libclang-rt-dev"));
	CHECK("scudo/32's library is the i386 one",
	      !strcmp(preload_soname(allocator_known_find("scudo"), 32),
		      "libclang_rt.scudo_standalone-i386.so") &&
	      !strcmp(preload_soname(allocator_known_find("jemalloc"), 32), "libjemalloc.so.2"));
	preload_describe_search(buf, sizeof(buf), allocator_known_find("scudo"));
	CHECK("scudo is searched for in clang's resource directories too",
	      getenv(PRELOAD_PATH_ENV) ||
	      strstr(buf, ", /lib and /usr/lib/llvm-*/lib/clang/*/lib/linux"));
}

/* ---- identifying glibc in this (not preloaded) process ---- */

static void test_identify(void)
{
	struct sample sample;
	struct mallinfo2 before, after;
	void *chunks[3];
	int asan = strstr(ALLOCBENCH_SANITIZE, "address") != NULL;

	memset(&sample, 0, sizeof(sample));
	allocator_identify(&sample.allocator);
	if (asan) {
		CHECK("under AddressSanitizer malloc is the sanitizer's",
		      !strcmp(sample.allocator.name, "asan"));
		return;
	}
	CHECK("this process's malloc is glibc's", !strcmp(sample.allocator.name, "glibc"));
	CHECK("glibc's version", !strcmp(sample.allocator.version, gnu_get_libc_version()));
	CHECK("glibc's path", strstr(sample.allocator.path, "libc.so"));

	for (int i = 0; i < 3; i++)
		chunks[i] = malloc(4 + (size_t)i * 20);  /* 4, 24, 44: usable 24, 24, 56 */
	memset(&sample, 0, sizeof(sample));
	before = mallinfo2();
	allocator_inspect(NULL, chunks, 3, &sample);
	after = mallinfo2();
	/* An allocation here would change what the timed free loop costs (measure.h). */
	CHECK("inspecting allocates nothing", before.uordblks == after.uordblks &&
	      before.keepcost == after.keepcost && before.fordblks == after.fordblks);
	/* Under valgrind (.ci/run) malloc is valgrind's: glibc's chunk sizes do not hold. */
	if (getenv("LD_PRELOAD") && strstr(getenv("LD_PRELOAD"), "vgpreload")) {
		SKIP("glibc's usable sizes and mallinfo2", "malloc is valgrind's");
		for (int i = 0; i < 3; i++)
			free(chunks[i]);
		return;
	}
	CHECK("usable size is the mean of malloc_usable_size", sample.allocator.has_usable &&
	      sample.allocator.usable_bytes == (24.0 + 24 + 56) / 3);
	CHECK("glibc's mallinfo2 read", sample.allocator.nstats == 3 &&
	      !strcmp(sample.allocator.stats[0].name, "mallinfo2.uordblks") &&
	      sample.allocator.stats[0].bytes >= 24 + 24 + 56);
	for (int i = 0; i < 3; i++)
		free(chunks[i]);
}

/* ---- slack and metadata ---- */

static void test_breakdown(void)
{
	const struct backend b = { .name = "x" }, mim = { .name = "mimalloc" };
	char notes[BREAKDOWN_MAX_NOTES][BREAKDOWN_NOTE_BYTES];
	struct run_config config = { .repeat = 3 };
	struct sample samples[3];
	struct cell cell = {
		.backend = &b, .size = 40, .count = 1000, .ok = 1, .samples = samples, .runs = 3,
	};
	struct run_report report = { .config = &config, .cells = &cell, .ncells = 1 };
	struct stat_summary s;
	double v;

	report.host.page_size = 4096;
	memset(samples, 0, sizeof(samples));
	for (int r = 0; r < 3; r++) {
		samples[r].ok = 1;
		samples[r].rss_before_bytes = 1 << 20;
		/* 56 bytes per 40-byte chunk: overhead 16 = slack 8 + metadata 8. */
		samples[r].rss_after_bytes = samples[r].rss_before_bytes + 1000 * 56;
		samples[r].allocator.has_usable = 1;
		samples[r].allocator.usable_bytes = 48;
	}
	CHECK("usable", !breakdown_value(&cell, &samples[0], BREAKDOWN_USABLE, &v) && v == 48);
	CHECK("slack = usable - size", !breakdown_value(&cell, &samples[0], BREAKDOWN_SLACK, &v) && v == 8);
	CHECK("metadata = overhead - slack",
	      !breakdown_value(&cell, &samples[0], BREAKDOWN_METADATA, &v) && v == 8);
	CHECK("summary over runs", !breakdown_summary(&cell, BREAKDOWN_METADATA, &s, NULL) &&
	      s.median == 8 && s.min == 8);
	CHECK("slack within overhead: no flag", breakdown_slack_exceeds_overhead(&report, &cell) == 0);
	CHECK("equal runs do not vary", breakdown_overhead_varies(&report, &cell) == 0);

	/* 4.096 B (one page over 1000 chunks) apart: within the resolution. */
	samples[2].rss_after_bytes += 4096;
	CHECK("a page apart is within the resolution", breakdown_overhead_varies(&report, &cell) == 0);
	/* Two pages: 8.2 B, more than both the resolution and 1% of 16. */
	samples[2].rss_after_bytes += 4096;
	CHECK("more than 1% and the resolution varies", breakdown_overhead_varies(&report, &cell) == 1);

	/* A 33000-byte chunk in a 40960-byte class, 4000 bytes resident beyond it. */
	cell.size = 33000;
	for (int r = 0; r < 3; r++) {
		samples[r].rss_after_bytes = samples[r].rss_before_bytes + 1000 * 37000;
		samples[r].allocator.usable_bytes = 40960;
	}
	CHECK("slack beyond the overhead is flagged", breakdown_slack_exceeds_overhead(&report, &cell) == 1);
	CHECK("and metadata is negative", !breakdown_value(&cell, &samples[0], BREAKDOWN_METADATA, &v) &&
	      v == 4000 - 7960);

	/*
	 * mimalloc's 64-byte class, 1 MiB: one page less resident than the
	 * chunks (the page granularity), metadata -0.25 B, within the resolution:
	 * still marked and explained.
	 */
	cell.size = 64;
	cell.count = 16384;
	cell.backend = &mim;
	for (int r = 0; r < 3; r++) {
		samples[r].rss_after_bytes = samples[r].rss_before_bytes + 16384 * 64 - 4096;
		samples[r].allocator.usable_bytes = 64;
	}
	CHECK("metadata -0.25: negative", breakdown_metadata_negative(&cell) == 1);
	CHECK("metadata -0.25: slack not beyond the resolution",
	      breakdown_slack_exceeds_overhead(&report, &cell) == 0);
	CHECK("metadata -0.25: a note says it is within the resolution",
	      breakdown_notes(&report, &cell, notes) == 1 &&
	      strstr(notes[0], "-0.25 B is within the resolution") != NULL);
	{
		char *text = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&text, &len);

		CHECK("metadata -0.25: the text table marks it",
		      out && !report_text_write(out, &report) && !fclose(out) &&
		      strstr(text, "-0.25*") != NULL && strstr(text, "within the resolution"));
		free(text);
	}
	/* Exactly the chunks' size: metadata 0, no mark. */
	for (int r = 0; r < 3; r++)
		samples[r].rss_after_bytes = samples[r].rss_before_bytes + 16384 * 64;
	CHECK("metadata 0: not negative, no note", breakdown_metadata_negative(&cell) == 0 &&
	      breakdown_notes(&report, &cell, notes) == 0);

	samples[1].allocator.has_usable = 0;
	CHECK("no usable size in a run: no breakdown",
	      breakdown_summary(&cell, BREAKDOWN_SLACK, &s, NULL) == -1 &&
	      breakdown_slack_exceeds_overhead(&report, &cell) == -1 &&
	      breakdown_metadata_negative(&cell) == -1);
	cell.ok = 0;
	CHECK("a failed cell has no flags", breakdown_overhead_varies(&report, &cell) == -1);
}

int main(void)
{
	test_ldcache();
	test_check_library();
	test_parse();
	test_identify();
	test_breakdown();
	return check_exit();
}
