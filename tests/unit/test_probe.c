/*
 * test_probe.c - the readers of /proc fail cleanly when it is missing (a
 * container without /proc), and read MemAvailable as the kernel writes it.
 */
#include "check.h"
#include "platform/probe.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(void)
{
	char path[] = "/tmp/allocbench-test-meminfo-XXXXXX";
	uint64_t bytes = 7;
	FILE *f;
	int fd;

	CHECK("rss reader: a missing smaps_rollup is an error, not a crash",
	      probe_rss_open_path("/nonexistent/proc/self/smaps_rollup") == -1);
	CHECK("meminfo: a missing file is an error",
	      probe_meminfo_read("/nonexistent/proc/meminfo", "MemAvailable", &bytes) == -1);
	CHECK("meminfo: *bytes untouched on error", bytes == 7);
	CHECK("meminfo: the real one has MemAvailable",
	      probe_meminfo_read("/proc/meminfo", "MemAvailable", &bytes) == 0 && bytes > 0);

	fd = mkstemp(path);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	CHECK("meminfo: temporary file", f != NULL);
	if (!f)
		return check_exit();
	fputs("MemTotal:       16384 kB\nMemFree:  100 kB\nMemAvailable:    2048 kB\n", f);
	fclose(f);
	CHECK("meminfo: MemAvailable in bytes",
	      probe_meminfo_read(path, "MemAvailable", &bytes) == 0 && bytes == 2048 * 1024);
	CHECK("meminfo: a prefix is not the field",
	      probe_meminfo_read(path, "Mem", &bytes) == -1);
	CHECK("meminfo: a missing field is an error",
	      probe_meminfo_read(path, "SwapFree", &bytes) == -1);
	CHECK("rss reader: opens an existing file", (fd = probe_rss_open_path(path)) >= 0);
	if (fd >= 0)
		close(fd);
	unlink(path);
	return check_exit();
}
