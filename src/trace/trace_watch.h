/*
 * trace_watch.h - what `allocbench record` reads of each recorded process
 * while it runs: its peak anonymous memory. The kernel keeps a process's
 * peak resident set (VmHWM, which the recording library reads at the
 * image's end) but no peak of RssAnon, so record samples it from outside,
 * never from a thread of the program: every trace of the recording that
 * appears beside FILE (inotify; the folder read again when events were
 * lost) is followed, and while its header says it is being written its
 * process's /proc/PID/status is read, about once a millisecond. A reading
 * counts for a trace only when the trace still said "being written" after
 * it (an exec marks the trace ended before the new image runs), so that a
 * process image's peak is its own. When the recording is over,
 * trace_watch_store() writes each peak into its trace's header
 * (anon_peak_kib, trace_format.h) and seals the header again.
 */
#ifndef ALLOCBENCH_TRACE_WATCH_H
#define ALLOCBENCH_TRACE_WATCH_H

#include <stddef.h>
#include <stdint.h>

/* One trace of the recording, followed. */
struct trace_watched {
	char *path;              /* FILE.PROGRAM.PID */
	int trace_fd;            /* the trace, read only; -1 once done */
	int status_fd;           /* /proc/PID/status; -1 before the header names its pid, and once done */
	uint32_t pid;            /* from its header; 0 until written */
	uint64_t start_ns;       /* its header's start_ns: which image of PID */
	uint32_t peak_kib;       /* highest RssAnon read while it was being written, KiB; 0 none */
	uint64_t readings;       /* readings that counted */
	unsigned tries;          /* rounds its header did not yet name its process */
	int done;                /* ended, its process gone, or not of this recording */
};

struct trace_watch {
	char dir[4096];          /* FILE's folder */
	char base[256];          /* FILE's last part: traces are BASE.SOMETHING */
	uint64_t session;        /* the recording's (trace headers) */
	int inotify_fd;          /* -1: the folder is read every TRACE_WATCH_SCAN_ROUNDS */
	int rescan;              /* read the folder at the next round */
	unsigned rounds;
	struct trace_watched *w;
	size_t n, alloc;
};

/*
 * Starts watching for the traces of the recording SESSION whose prefix is
 * FILE (an absolute path), before its program starts. Returns 0, or -1
 * (nothing will be sampled: the figures are left out, nothing else changes).
 */
int trace_watch_start(struct trace_watch *w, const char *file, uint64_t session);

/*
 * One round: new traces found, each live one's process sampled. Returns
 * the nanoseconds to wait before the next round (about a millisecond, more
 * when a round took long: the watcher keeps to a fraction of one CPU).
 */
uint64_t trace_watch_poll(struct trace_watch *w);

/*
 * Once the program has ended: a last round, then each peak written into
 * its trace's header, where the trace ended cleanly (exit, _exit, or an
 * exec that a later image of its pid or its end confirms) and is intact.
 * Returns the traces written.
 */
size_t trace_watch_store(struct trace_watch *w);

void trace_watch_release(struct trace_watch *w);

#endif
