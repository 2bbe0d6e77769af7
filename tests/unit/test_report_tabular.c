/*
 * Unit tests for report_csv.c, report_markdown.c and report_text.c on a
 * report built by hand: RFC 4180 quoting of a failure reason that holds
 * commas, quotes and a line break, the escaping of '|' in a Markdown table
 * cell, and a text report within 80 columns on a host whose names are long.
 */
#include "measure/backend.h"
#include "check.h"
#include "render.h"
#include "model/report.h"
#include "model/run.h"
#include "report/report_formats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
	size_t sizes[] = { 40 };
	const struct backend *backends[] = { &backend_pool, &backend_arena };
	struct run_config config = {
		.sizes = sizes, .nsizes = 1, .backends = backends, .nbackends = 2,
		.total_bytes = 5120, .repeat = 1, .touch = TOUCH_PAGES, .pool_block_bytes = 4096,
	};
	struct sample ok_sample = {
		.ok = 1, .rss_before_bytes = 8192, .rss_after_bytes = 16384,
		.alloc_ns = 12.5, .free_ns = 1.25, .alloc_faults = 1, .reserved_bytes = 4096,
		.warm_alloc_ns = 2.5, .warm_free_ns = 0.5,
		/* 2048 bytes once, then 48 a chunk: marginal 8, one-time 2048, on the line. */
		.nreadings = 4, .reading_chunks = { 32, 64, 96, 128 },
		.reading_bytes = { 8192 + 3584, 8192 + 5120, 8192 + 6656, 16384 },
	};
	struct sample floor_sample = { .ok = 1, .alloc_ns = 10 };
	struct cell cells[2] = {
		{ .backend = &backend_pool, .size = 40, .count = 128, .align = 8, .ok = 1,
		  .samples = &ok_sample, .runs = 1 },
		{ .backend = &backend_arena, .size = 40, .count = 128, .align = 8, .ok = 0,
		  .error = "boom, \"quoted\"\nand | piped" },
	};
	struct floor_cell floors[1] = {
		{ .size = 40, .count = 128, .ok = 1, .samples = &floor_sample, .runs = 1 },
	};
	struct run_report report = {
		.config = &config, .cells = cells, .ncells = 2, .floors = floors, .nfloors = 1,
		.failed = 1,
	};
	char *csv, *md, *line;

	report.host.page_size = 4096;
	strcpy(report.host.hostname, "h|ost");
	csv = render_report(report_csv_write, &report);
	CHECK("csv written", csv != NULL);
	if (!csv)
		return check_exit();
	CHECK("csv header first", !strncmp(csv, "workload,backend,size_bytes,count,align_bytes,status,", 53));
	line = strstr(csv, "\nfill,pool,40,128,8,ok,32,");
	CHECK("csv ok row: identity and resolution (4096 / 128)", line != NULL);
	/* (16384 - 8192) / 128 - 40 = 24 bytes of overhead, one run. */
	CHECK("csv ok row: overhead median, min, max", line && strstr(line, ",32,24,24,24,8,8,8,2048,2048,2048,0,0,0,12.5,12.5,12.5,1.25,"));
	/* Then pool's empty split of the overhead (12) and allocator (1), then rss. */
	CHECK("csv ok row: x_floor 12.5 / 10, warm, no split, rss",
	      line && strstr(line, ",1.25,1.25,1.25,2.5,2.5,2.5,0.5,0.5,0.5,0,0,0,,,,,,,,,,,,,,"
			     "8192,16384,4096,\n"));
	/* 36 empty figures (12 metrics), 12 empty parts of the split, the allocator,
	 * 3 empty rss columns, then the reason. */
	CHECK("csv failed row: empty figures, reason quoted with doubled quotes",
	      strstr(csv, "\nfill,arena,40,128,8,failed,32,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,"
		     ",,,,,,,,,,,,,"
		     "\"boom, \"\"quoted\"\"\nand | piped\"\n") != NULL);
	free(csv);

	md = render_report(report_markdown_write, &report);
	CHECK("markdown written", md != NULL);
	if (!md)
		return check_exit();
	CHECK("markdown host name escaped", strstr(md, "Host: h\\|ost,") != NULL);
	CHECK("markdown ok row", strstr(md, "\n| pool | 40 | 128 | 8 | 24.00 | 8.00 | 2048 | 0 | 12.5 | 1.25 | 1 | 1.25 | 2.50 |\n") != NULL);
	CHECK("markdown failed row: reason on one line, '|' escaped, cells kept",
	      strstr(md, "\n| arena | 40 | 128 | failed: boom, \"quoted\" and \\| piped | | | | | | | | | |\n") != NULL);
	free(md);

	/*
	 * The text report on a host with the longest names the probe keeps (the
	 * second machine's "Intel(R) Xeon(R) Processor" made its host line 86
	 * columns), a long failure and many sizes: every line within 80 columns,
	 * nothing lost.
	 */
	{
		size_t many[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
		struct floor_cell more[12];
		char *text, *at, model[sizeof(report.host.cpu_model)];
		size_t longest = 0, joined_ok;

		memset(model, 'x', sizeof(model) - 1);
		model[sizeof(model) - 1] = '\0';
		memcpy(model, "Intel(R) Xeon(R) Processor @ 2.10GHz ", 37);
		strcpy(report.host.cpu_model, model);
		memset(report.host.hostname, 'h', sizeof(report.host.hostname) - 1);
		report.host.hostname[sizeof(report.host.hostname) - 1] = '\0';
		strcpy(report.host.kernel, "Linux 6.1.0-28-cloud-amd64-with-a-very-long-local-version-string");
		strcpy(report.host.machine, "x86_64");
		strcpy(report.host.libc, "glibc");
		strcpy(report.host.libc_version, "2.36");
		strcpy(report.host.thp, "madvise");
		report.host.cpus = 128;
		for (size_t i = 0; i < 12; i++)
			more[i] = (struct floor_cell){ .size = many[i], .count = 5120 / many[i], .ok = 1,
						       .samples = &floor_sample, .runs = 1 };
		more[5].ok = 0;
		memset(more[5].error, 'e', sizeof(more[5].error) - 1);
		more[5].error[sizeof(more[5].error) - 1] = '\0';
		report.floors = more;
		report.nfloors = 12;
		/* A failed row whose reason is long: wrapped under itself. */
		for (size_t i = 0; i + 6 < sizeof(cells[1].error); i += 6)
			memcpy(cells[1].error + i, "cause ", 6);
		cells[1].error[sizeof(cells[1].error) - 1] = '\0';
		text = render_report(report_text_write, &report);
		CHECK("text written", text != NULL);
		if (!text)
			return check_exit();
		for (at = text; *at; ) {
			size_t len = strcspn(at, "\n");

			if (len > longest)
				longest = len;
			at += len + (at[len] == '\n');
		}
		CHECK("text: every line within 80 columns", longest <= 80);
		CHECK("text: the host line begins with the host", strstr(text, "\nhost: hhhh") != NULL);
		/* The model, split over lines, is all there: 90 x then the end of the line. */
		joined_ok = 0;
		for (at = text; (at = strchr(at, 'x')); at++)
			joined_ok++;
		CHECK("text: no character of the model lost", joined_ok >= sizeof(model) - 1 - 37);
		CHECK("text: the processor's name", strstr(text, "Intel(R) Xeon(R) Processor") != NULL);
		CHECK("text: the failed row's reason begins on its row, continues under itself",
		      strstr(text, "\narena      40    128  failed: cause cause") &&
		      strstr(text, "\n                      cause cause"));
		CHECK("text: every floor", strstr(text, "  1 B 10.00, 2 B 10.00,") &&
		      strstr(text, "12 B 10.00\n"));
		free(text);
	}
	return check_exit();
}
