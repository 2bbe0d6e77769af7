/*
 * Unit tests for allocator.c (identifying glibc, usable sizes) and
 * breakdown.c (slack, metadata and their flags).
 */
#include "allocator.h"
#include "breakdown.h"
#include "check.h"
#include "util.h"

#include <dlfcn.h>
#include <gnu/libc-version.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	const struct backend b = { .name = "x" };
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

	samples[1].allocator.has_usable = 0;
	CHECK("no usable size in a run: no breakdown",
	      breakdown_summary(&cell, BREAKDOWN_SLACK, &s, NULL) == -1 &&
	      breakdown_slack_exceeds_overhead(&report, &cell) == -1);
	cell.ok = 0;
	CHECK("a failed cell has no flags", breakdown_overhead_varies(&report, &cell) == -1);
}

int main(void)
{
	test_identify();
	test_breakdown();
	return check_exit();
}
