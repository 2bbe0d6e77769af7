/* Unit tests for results.c: reading reports back, and refusing what is not one. */
#include "check.h"
#include "report/results.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char path[] = "/tmp/allocbench-test-results-XXXXXX";

static int load_text(const char *text, struct result_file *file)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -2;
	fputs(text, f);
	fclose(f);
	return results_load(path, file);
}

static const char good[] =
	"{\"schema\":\"allocbench/1\",\"tool\":{\"name\":\"allocbench\",\"version\":\"0.1.0\"},"
	"\"host\":{\"hostname\":\"h\"},\"config\":{\"workload\":\"fill\",\"total_bytes\":1048576,"
	"\"touch\":\"pages\",\"repeat\":2},\"results\":["
	"{\"backend\":\"pool\",\"size\":40,\"count\":26214,\"status\":\"ok\",\"resolution_bytes\":0.15,"
	"\"overhead_bytes\":{\"median\":1.5,\"min\":1,\"max\":2,\"runs\":[1,2]},"
	"\"counters\":{\"sde\":{\"alloc\":7}}},"
	"{\"backend\":\"malloc\",\"size\":4,\"status\":\"failed\",\"error\":\"boom\",\"overhead_bytes\":null}]}";

int main(void)
{
	struct result_file file;
	struct result_stat s;
	int fd = mkstemp(path);

	if (fd < 0)
		return 2;
	close(fd);

	CHECK("a good report loads", !load_text(good, &file));
	CHECK("schema read", !strcmp(file.schema, "allocbench/1"));
	CHECK("config read", file.total_bytes == 1048576 && file.repeat == 2 && !strcmp(file.touch, "pages"));
	CHECK("two rows", file.nrows == 2);
	CHECK("row fields", !strcmp(file.rows[0].backend, "pool") && file.rows[0].size == 40 &&
	      file.rows[0].count == 26214 && file.rows[0].ok);
	CHECK("workload defaults to the file's", !strcmp(file.rows[0].workload, "fill"));
	CHECK("failed row", !file.rows[1].ok && !strcmp(file.rows[1].error, "boom"));
	CHECK("stat read", !results_row_stat(&file, &file.rows[0], "overhead_bytes", &s) &&
	      s.median == 1.5 && s.min == 1 && s.max == 2 && s.nruns == 2 && s.runs[1] == 2);
	CHECK("dotted number as a stat", !results_row_stat(&file, &file.rows[0], "counters.sde.alloc", &s) &&
	      s.median == 7 && s.nruns == 0);
	CHECK("null stat absent", results_row_stat(&file, &file.rows[1], "overhead_bytes", &s) == -1);
	CHECK("missing stat absent", results_row_stat(&file, &file.rows[0], "alloc_ns", &s) == -1);
	CHECK("file string", !strcmp(results_file_string(&file, "host.hostname"), "h"));
	results_release(&file);

	fprintf(stderr, "(the errors below are expected)\n");
	CHECK("not JSON refused", load_text("hello", &file) == -1);
	CHECK("truncated refused", load_text("{\"schema\":\"allocbench/1\",\"results\":[", &file) == -1);
	CHECK("empty refused", load_text("", &file) == -1);
	CHECK("another tool refused", load_text("{\"benchmarks\":[]}", &file) == -1);
	CHECK("another schema refused", load_text("{\"schema\":\"other/1\",\"results\":[]}", &file) == -1);
	CHECK("another major refused", load_text("{\"schema\":\"allocbench/3\",\"results\":[]}", &file) == -1);
	CHECK("results not an array refused", load_text("{\"schema\":\"allocbench/1\",\"results\":{}}", &file) == -1);
	CHECK("row without backend refused",
	      load_text("{\"schema\":\"allocbench/1\",\"results\":[{\"size\":4,\"status\":\"ok\"}]}", &file) == -1);
	CHECK("row without size refused",
	      load_text("{\"schema\":\"allocbench/1\",\"results\":[{\"backend\":\"pool\",\"status\":\"ok\"}]}", &file) == -1);
	CHECK("missing file refused", results_load("/nonexistent/allocbench.json", &file) == -1);
	CHECK("empty results accepted by the reader",
	      !load_text("{\"schema\":\"allocbench/1\",\"results\":[]}", &file) && file.nrows == 0);
	results_release(&file);
	unlink(path);
	return check_exit();
}
