/*
 * probe.h - what the measuring child reads from the system: a clock, the
 * resident set size, page faults, and a description of the host.
 *
 * None of these may be called inside a measured loop; they exist to be read
 * once before and once after it.
 */
#ifndef ALLOCBENCH_PROBE_H
#define ALLOCBENCH_PROBE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* An opaque point in time; only the difference of two is meaningful. */
struct probe_time {
	struct timespec ts;
};

/* Reads CLOCK_MONOTONIC. */
struct probe_time probe_now(void);

/* Reads CLOCK_THREAD_CPUTIME_ID: the calling thread's CPU time, user and system. */
struct probe_time probe_thread_cpu(void);

/* Nanoseconds from START to END. */
double probe_elapsed_ns(struct probe_time start, struct probe_time end);

/*
 * Opens /proc/self/smaps_rollup and keeps the descriptor for probe_rss_read().
 * Returns the descriptor, or -1 after printing why.
 *
 * Why not /proc/self/statm, which is ten times cheaper: since Linux 6.2 the
 * kernel keeps RSS in per-CPU counters and statm (like status) reads them
 * without folding the per-CPU parts, so it is off by up to the counters'
 * batch per CPU, max(32, 2 x CPUs) pages (seen here: a 1 MiB fill read as
 * 1332 to 1368 KiB); kernels that sum them for statm (seen on 6.18) are
 * exact. smaps_rollup walks the
 * page tables and is exact. It costs about 10 us per MiB of RSS, which is
 * why it is read once before and once after a loop; inside one, only as
 * often as a replay's series can afford (replay_series.h).
 */
int probe_rss_open(void);
/*
 * In a 32-bit process that an emulator runs at the same addresses inside
 * its own 64-bit process (qemu-i386, run --abi 32 where the kernel runs no
 * 32-bit program), smaps_rollup would count the emulator's memory too:
 * probe_rss_open() then opens /proc/self/smaps, and probe_rss_read() and
 * probe_rss_total_read() sum the areas below 4 GiB, the 32-bit process's own.
 */

/*
 * /proc/self/statm, read by probe_statm_anon(), where it counts this
 * process's own memory (-1 in an emulated 32-bit one, whose statm is the
 * emulator's too): a descriptor, or -1. Call after probe_rss_open().
 */
int probe_statm_open(void);
/*
 * Its resident anonymous memory (resident less shared pages) into *BYTES:
 * 0 or -1. A third of a microsecond, whatever the size; exact or off by
 * the counters' batch per CPU, as above.
 */
int probe_statm_anon(int fd, uint64_t *bytes);

/*
 * probe_rss_open() on PATH instead of /proc/self/smaps_rollup (the tests
 * point it at a missing file, as on a machine without /proc). Returns the
 * descriptor, or -1 after printing an error that names PATH.
 */
int probe_rss_open_path(const char *path);

/*
 * Resets this process's peak resident set (VmHWM in /proc/self/status) to
 * its resident set now, by writing "5" to /proc/self/clear_refs (Linux 4.0
 * and later). Allocates nothing. Returns 0, or -1 when the kernel refuses.
 *
 * Why not getrusage's ru_maxrss: after an exec it is also the peak of the
 * image that exec replaced (the forked copy of the parent), so a measuring
 * process's ru_maxrss can be the parent's size, not its own.
 */
int probe_peak_reset(void);

/*
 * The process's anonymous memory when main() began (smaps_rollup's exact
 * Anonymous): probe_entry_record() reads it as main()'s first step, before
 * the process allocates anything of its own; a preloaded allocator's
 * constructors, and the libraries it brings, have run by then.
 * probe_entry_anon_bytes() returns it, 0 when it could not be read.
 */
void probe_entry_record(void);
uint64_t probe_entry_anon_bytes(void);

/*
 * Reads the "FIELD: N kB" line of the /proc file open at FD (smaps_rollup,
 * status; read from its start) into *BYTES. Returns 0, -1 when FD cannot be
 * read (a /proc/PID file of a process gone), 1 when it has no such line (a
 * zombie's status has no memory lines).
 */
int probe_field_read(int fd, const char *field, uint64_t *bytes);

/*
 * Reads the "FIELD: N kB" line of the /proc/meminfo-like file PATH (e.g.
 * "MemAvailable") into *BYTES. Returns 0, or -1 when PATH cannot be read
 * or has no such line (it prints nothing: the caller decides).
 */
int probe_meminfo_read(const char *path, const char *field, uint64_t *bytes);

/*
 * Stores the resident anonymous memory in bytes (smaps_rollup's "Anonymous",
 * the anonymous part of Rss) into *RSS_BYTES. Returns 0, or -1 if the file
 * cannot be read or parsed. Does not allocate.
 *
 * Why the anonymous part: every allocator's memory is anonymous, while the
 * file-backed part of Rss grows when a loop first runs a function of the
 * program or of libc (the kernel maps 64 KiB of code around each such fault),
 * which is not a cost of the chunks (seen here: +64 to +128 KiB on a 1 MiB
 * fill).
 */
int probe_rss_read(int fd, uint64_t *rss_bytes);

/*
 * Stores the whole resident set in bytes (smaps_rollup's Rss, file-backed
 * pages included) into *RSS_BYTES: the quantity getrusage's ru_maxrss peaks
 * on. Returns 0, or -1 if the file cannot be read or parsed.
 */
int probe_rss_total_read(int fd, uint64_t *rss_bytes);

/* Minor page faults of this process so far (getrusage); 0 if unavailable. */
uint64_t probe_minor_faults(void);

/* The system page size in bytes. */
long probe_page_size(void);

/*
 * Asks the kernel to make the pages under [START, START + LEN) resident and
 * writable, all in one call (madvise MADV_POPULATE_WRITE, Linux 5.14), as a
 * write to each would; the parts of the range that are not mapped are left.
 * Only a request: an older kernel refuses it and an emulator (qemu-user)
 * may ignore it, so a caller that needs the pages still writes each one.
 * Why: on this project's VMs 255 pages cost 2.4 ms written one by one, and
 * 0.2 ms for this call plus 1.3 ms for the writes after it (a first access
 * still costs the VM something, but no longer the kernel's fault).
 */
void probe_populate(void *start, size_t len);

/* What the report's header says about the machine; every string terminated. */
struct host_info {
	char kernel[128];      /* "Linux 6.1.0-13-amd64" */
	char machine[32];      /* uname -m: "x86_64" */
	char hostname[64];     /* uname -n */
	char cpu_model[128];   /* /proc/cpuinfo "model name", or "unknown" */
	int cpus;              /* online CPUs */
	char libc[16];         /* "glibc" or "unknown" */
	char libc_version[32]; /* "2.36" */
	long page_size;        /* bytes */
	char thp[16];          /* transparent huge pages: always, madvise, never, unknown */
	uint64_t mem_available_bytes; /* /proc/meminfo MemAvailable, 0 if unknown */
};

/* Fills *HOST; fields that cannot be read say "unknown". Never fails. */
void probe_host(struct host_info *host);

#endif
