/*
 * fuzz_results.c - libFuzzer target for results_load_buffer(), the reader
 * of the JSON reports compare and plot consume. An accepted report is
 * walked the way they walk it: every row's strings and statistics.
 */
#include "report/results.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What the walk adds up: kept, so that the compiler keeps the walk. */
static volatile size_t walked;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const stats[] = { "overhead_bytes", "alloc_ns", "free_ns",
		"counters.PAPI_TOT_CYC.alloc", "x_floor", "" };
	struct result_file file;
	size_t sum = 0;

	if (results_load_buffer("fuzz.json", (const char *)data, size, &file))
		return 0;
	for (size_t i = 0; i < file.nrows; i++) {
		const struct result_row *row = &file.rows[i];
		struct result_stat st;
		double d;

		sum += strlen(row->backend) + strlen(row->status) + strlen(row->workload);
		if (row->error)
			sum += strlen(row->error);
		for (size_t s = 0; s < sizeof(stats) / sizeof(stats[0]); s++)
			if (!results_row_stat(&file, row, stats[s], &st))
				for (size_t r = 0; r < st.nruns; r++)
					sum += st.runs[r] > st.max;
		sum += !results_row_number(row, "rss_before_bytes", &d);
		sum += results_row_string(row, "allocator.library") != NULL;
	}
	sum += results_file_string(&file, "host.hostname") != NULL;
	walked = walked + sum;
	results_release(&file);
	return 0;
}
