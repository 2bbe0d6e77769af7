#include "platform/probe.h"
#include "platform/util.h"

#include <errno.h>
#include <fcntl.h>
#include <gnu/libc-version.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

struct probe_time probe_now(void)
{
	struct probe_time t;

	clock_gettime(CLOCK_MONOTONIC, &t.ts);
	return t;
}

struct probe_time probe_thread_cpu(void)
{
	struct probe_time t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t.ts);
	return t;
}

double probe_elapsed_ns(struct probe_time start, struct probe_time end)
{
	return (double)(end.ts.tv_sec - start.ts.tv_sec) * 1e9 +
	       (double)(end.ts.tv_nsec - start.ts.tv_nsec);
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  /* Linux 5.14; glibc's headers name it from 2.35 */
#endif

void probe_populate(void *start, size_t len)
{
	uintptr_t page = (uintptr_t)probe_page_size();
	uintptr_t from = (uintptr_t)start & ~(page - 1);
	uintptr_t to = ((uintptr_t)start + len + page - 1) & ~(page - 1);

	(void)madvise((void *)from, to - from, MADV_POPULATE_WRITE);
}

/* ---- a 32-bit process under an emulator (run --abi 32 under qemu-i386) ---- */

/*
 * The descriptor of /proc/self/smaps when this process is a 32-bit one
 * whose memory an emulator maps at the same addresses of its own 64-bit
 * process (qemu-i386 with guest_base 0), else -1. There smaps_rollup sums
 * the emulator's own memory too: its page descriptors grow by about 24
 * bytes per 4 KiB page that the heap's brk adds, which would read as the
 * allocator's. The mappings below 4 GiB are the 32-bit process's alone.
 */
static int guest_fd = -1;

/*
 * What smaps holds, read at once: a static buffer, touched when the
 * descriptor is opened, so that reading never allocates or faults in the
 * measured region's time. An emulated process maps a few hundred areas.
 * Only a 32-bit process reads it: in a 64-bit one it is a byte, not the
 * 256 pages that the measuring process's start makes resident with its
 * other statics (child.c's statics_prefault(): 3.8 ms of a 7.4 ms set-up).
 */
static char smaps_buf[sizeof(void *) == 4 ? 1 << 20 : 1];

/* Reads all of FD into smaps_buf, terminated; its length, or -1. */
static ssize_t read_smaps(int fd)
{
	size_t got = 0;

	for (;;) {
		ssize_t n = pread(fd, smaps_buf + got, sizeof(smaps_buf) - 1 - got, (off_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (!n)
			break;
		got += (size_t)n;
		if (got == sizeof(smaps_buf) - 1)
			return -1;
	}
	smaps_buf[got] = '\0';
	return (ssize_t)got;
}

/*
 * Walks smaps_buf: sums FIELD ("Anonymous:") of the areas that end at or
 * below 4 GiB into *BELOW, bytes (NULL: not summed), says in *ABOVE whether
 * any area lies above, and in *HOLDS whether an area holds the address AT.
 */
static void walk_smaps(const char *field, uint64_t *below, int *above, int *holds,
		       uintptr_t at)
{
	size_t len = field ? strlen(field) : 0;

	int in_guest = 0;

	/*
	 * By hand, not sscanf: an emulated process parses a few thousand lines
	 * per reading. An area's first line starts with its address in
	 * lower-case hex; its fields start with a capital letter.
	 */
	for (const char *line = smaps_buf; *line; ) {
		const char *next = strchr(line, '\n');
		char *end;

		if ((*line >= '0' && *line <= '9') || (*line >= 'a' && *line <= 'f')) {
			unsigned long long start = strtoull(line, &end, 16), stop = 0;

			if (*end == '-')
				stop = strtoull(end + 1, NULL, 16);
			in_guest = stop <= ((unsigned long long)1 << 32);
			*above |= !in_guest;
			*holds |= start <= at && at < stop;
		} else if (below && in_guest && *line == *field && !strncmp(line, field, len)) {
			*below += (uint64_t)strtoull(line + len, NULL, 10) * 1024;
		}
		if (!next)
			break;
		line = next + 1;
	}
}

/* Opens /proc/self/smaps when this is an emulated 32-bit process (guest_fd); 0 or -1. */
static int open_guest(void)
{
	int fd, above = 0, holds = 0, here = 0;

	if (sizeof(void *) != 4 || guest_fd >= 0)
		return guest_fd >= 0 ? 0 : -1;
	memset(smaps_buf, 0, sizeof(smaps_buf));
	fd = open("/proc/self/smaps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	/* Areas above 4 GiB in a 32-bit process: the emulator's; ours at our own addresses. */
	if (read_smaps(fd) < 0 || (walk_smaps(NULL, NULL, &above, &holds, (uintptr_t)&here),
				   !above || !holds)) {
		close(fd);
		return -1;
	}
	guest_fd = fd;
	return 0;
}

/* FIELD of the guest's areas in the smaps at FD, into *BYTES; 0 or -1. */
static int read_guest(int fd, const char *field, uint64_t *bytes)
{
	int above = 0, holds = 0;

	*bytes = 0;
	if (read_smaps(fd) < 0)
		return -1;
	walk_smaps(field, bytes, &above, &holds, 0);
	return 0;
}

int probe_rss_open(void)
{
	if (!open_guest())
		return dup(guest_fd);
	return probe_rss_open_path("/proc/self/smaps_rollup");
}

int probe_statm_open(void)
{
	return guest_fd >= 0 ? -1 : open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
}

int probe_statm_anon(int fd, uint64_t *bytes)
{
	char buf[256];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	unsigned long long size, resident, shared;

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (sscanf(buf, "%llu %llu %llu", &size, &resident, &shared) != 3 || shared > resident)
		return -1;
	*bytes = (uint64_t)(resident - shared) * (uint64_t)probe_page_size();
	return 0;
}

int probe_rss_open_path(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return error("cannot open '%s': %s (is /proc mounted?)", path, strerror(errno));
	return fd;
}

int probe_field_read(int fd, const char *field, uint64_t *bytes)
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
		return 1;
	*bytes = (uint64_t)kib * 1024;
	return 0;
}

int probe_meminfo_read(const char *path, const char *field, uint64_t *bytes)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -1;
	ret = probe_field_read(fd, field, bytes) ? -1 : 0;
	close(fd);
	return ret;
}

static uint64_t entry_anon_bytes;

void probe_entry_record(void)
{
	if (probe_meminfo_read("/proc/self/smaps_rollup", "Anonymous", &entry_anon_bytes))
		entry_anon_bytes = 0;
}

uint64_t probe_entry_anon_bytes(void)
{
	return entry_anon_bytes;
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
	if (guest_fd >= 0)
		return read_guest(fd, "Anonymous:", rss_bytes);
	return probe_field_read(fd, "Anonymous", rss_bytes) ? -1 : 0;
}

int probe_rss_total_read(int fd, uint64_t *rss_bytes)
{
	if (guest_fd >= 0)
		return read_guest(fd, "Rss:", rss_bytes);
	return probe_field_read(fd, "Rss", rss_bytes) ? -1 : 0;
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
