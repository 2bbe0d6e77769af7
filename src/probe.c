#include "probe.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <gnu/libc-version.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

struct probe_time probe_now(void)
{
	struct probe_time t;

	clock_gettime(CLOCK_MONOTONIC, &t.ts);
	return t;
}

double probe_elapsed_ns(struct probe_time start, struct probe_time end)
{
	return (double)(end.ts.tv_sec - start.ts.tv_sec) * 1e9 +
	       (double)(end.ts.tv_nsec - start.ts.tv_nsec);
}

int probe_rss_open(void)
{
	return probe_rss_open_path("/proc/self/smaps_rollup");
}

int probe_rss_open_path(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return error("cannot open '%s': %s (is /proc mounted?)", path, strerror(errno));
	return fd;
}

/* Reads the "FIELD: N kB" line of smaps_rollup into *BYTES. */
static int read_rollup_field(int fd, const char *field, uint64_t *bytes)
{
	char buf[4096];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	unsigned long long kib;
	const char *line;
	size_t len = strlen(field);

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	for (line = buf; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		if (!strncmp(line, field, len) && line[len] == ':')
			break;
	}
	if (!line || sscanf(line + len + 1, "%llu kB", &kib) != 1)
		return -1;
	*bytes = (uint64_t)kib * 1024;
	return 0;
}

int probe_meminfo_read(const char *path, const char *field, uint64_t *bytes)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -1;
	ret = read_rollup_field(fd, field, bytes);
	close(fd);
	return ret;
}

int probe_peak_reset(void)
{
	int fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -1;
	ret = write(fd, "5", 1) == 1 ? 0 : -1;
	close(fd);
	return ret;
}

int probe_rss_read(int fd, uint64_t *rss_bytes)
{
	return read_rollup_field(fd, "Anonymous", rss_bytes);
}

int probe_rss_total_read(int fd, uint64_t *rss_bytes)
{
	return read_rollup_field(fd, "Rss", rss_bytes);
}

uint64_t probe_minor_faults(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return (uint64_t)ru.ru_minflt;
}

long probe_page_size(void)
{
	static long page;

	if (!page)
		page = sysconf(_SC_PAGESIZE);
	return page;
}

/* Reads the first line of PATH into BUF; returns 0 or -1. */
static int read_first_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	int ret = -1;

	if (!f)
		return -1;
	if (fgets(buf, (int)size, f)) {
		buf[strcspn(buf, "\n")] = '\0';
		ret = 0;
	}
	fclose(f);
	return ret;
}

static void read_cpu_model(char *out, size_t size)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[512];

	copy_string(out, size, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon;

		if (strncmp(line, "model name", 10))
			continue;
		colon = strchr(line, ':');
		if (!colon)
			break;
		colon++;
		colon += strspn(colon, " \t");
		colon[strcspn(colon, "\n")] = '\0';
		copy_string(out, size, colon);
		break;
	}
	fclose(f);
}

/* The bracketed word of "always [madvise] never". */
static void read_thp_mode(char *out, size_t size)
{
	char line[128];
	char *open, *close;

	copy_string(out, size, "unknown");
	if (read_first_line("/sys/kernel/mm/transparent_hugepage/enabled",
			    line, sizeof(line)))
		return;
	open = strchr(line, '[');
	close = open ? strchr(open, ']') : NULL;
	if (!open || !close)
		return;
	*close = '\0';
	copy_string(out, size, open + 1);
}

void probe_host(struct host_info *host)
{
	struct utsname u;
	long cpus;

	memset(host, 0, sizeof(*host));
	if (!uname(&u)) {
		snprintf(host->kernel, sizeof(host->kernel), "%.40s %.80s", u.sysname, u.release);
		copy_string(host->machine, sizeof(host->machine), u.machine);
		copy_string(host->hostname, sizeof(host->hostname), u.nodename);
	} else {
		copy_string(host->kernel, sizeof(host->kernel), "unknown");
		copy_string(host->machine, sizeof(host->machine), "unknown");
		copy_string(host->hostname, sizeof(host->hostname), "unknown");
	}
	read_cpu_model(host->cpu_model, sizeof(host->cpu_model));
	cpus = sysconf(_SC_NPROCESSORS_ONLN);
	host->cpus = cpus > 0 ? (int)cpus : 1;
	copy_string(host->libc, sizeof(host->libc), "glibc");
	copy_string(host->libc_version, sizeof(host->libc_version), gnu_get_libc_version());
	host->page_size = probe_page_size();
	read_thp_mode(host->thp, sizeof(host->thp));
	if (probe_meminfo_read("/proc/meminfo", "MemAvailable", &host->mem_available_bytes))
		host->mem_available_bytes = 0;
}
