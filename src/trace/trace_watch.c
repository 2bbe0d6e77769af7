/*
 * trace_watch.c - each recorded process's peak anonymous memory, sampled
 * by `allocbench record` from outside the program (trace_watch.h).
 */
#include "trace/trace_watch.h"
#include "trace/trace_format.h"
#include "platform/probe.h"
#include "platform/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

/* Without inotify, the folder is read every this many rounds. */
#define TRACE_WATCH_SCAN_ROUNDS 16
/* Rounds a trace's header may take to name its process and recording. */
#define TRACE_WATCH_TRIES 1000
/* The wait between rounds: at least this, and three times a round's own time. */
#define TRACE_WATCH_INTERVAL_NS 1000000u

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

int trace_watch_start(struct trace_watch *w, const char *file, uint64_t session)
{
	const char *slash = strrchr(file, '/');

	memset(w, 0, sizeof(*w));
	w->inotify_fd = -1;
	if (!slash || (size_t)(slash - file) >= sizeof(w->dir) || strlen(slash + 1) >= sizeof(w->base))
		return -1;
	memcpy(w->dir, file, (size_t)(slash - file));
	w->dir[slash == file ? 1 : slash - file] = '\0';
	if (slash == file)
		w->dir[0] = '/';
	copy_string(w->base, sizeof(w->base), slash + 1);
	w->session = session;
	w->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (w->inotify_fd >= 0 && inotify_add_watch(w->inotify_fd, w->dir, IN_CREATE | IN_ONLYDIR) < 0) {
		close(w->inotify_fd);
		w->inotify_fd = -1;
	}
	w->rescan = 1;
	return 0;
}

/* Follows the trace NAME in the folder, unless it is followed already or is no trace's name. */
static void watch_add(struct trace_watch *w, const char *name)
{
	size_t len = strlen(w->base);
	struct trace_watched *t;
	char *path;
	int fd;

	if (strncmp(name, w->base, len) || name[len] != '.' || !name[len + 1])
		return;
	if (asprintf(&path, "%s%s%s", w->dir, strcmp(w->dir, "/") ? "/" : "", name) < 0)
		return;
	for (size_t i = 0; i < w->n; i++)
		if (!strcmp(w->w[i].path, path)) {
			free(path);
			return;
		}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || ALLOC_GROW(w->w, w->n + 1, w->alloc)) {
		if (fd >= 0)
			close(fd);
		free(path);
		return;
	}
	t = &w->w[w->n++];
	memset(t, 0, sizeof(*t));
	t->path = path;
	t->trace_fd = fd;
	t->status_fd = -1;
}

/* New traces: inotify's events, or the folder read when there are none to trust. */
static void watch_discover(struct trace_watch *w)
{
	char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;

	while (w->inotify_fd >= 0 && (n = read(w->inotify_fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *e = (const struct inotify_event *)(void *)p;

			if (e->mask & IN_Q_OVERFLOW)
				w->rescan = 1;
			else if (e->len)
				watch_add(w, e->name);
			p += sizeof(*e) + e->len;
		}
	}
	if (w->rescan || (w->inotify_fd < 0 && w->rounds % TRACE_WATCH_SCAN_ROUNDS == 0)) {
		DIR *dp = opendir(w->dir);
		struct dirent *d;

		w->rescan = 0;
		while (dp && (d = readdir(dp)))
			watch_add(w, d->d_name);
		if (dp)
			closedir(dp);
	}
}

/*
 * T is followed no more: its descriptors closed (a recording of thousands
 * of processes would otherwise run out of them). trace_watch_store()
 * opens the trace again by its path.
 */
static void watch_done(struct trace_watched *t)
{
	t->done = 1;
	if (t->trace_fd >= 0)
		close(t->trace_fd);
	if (t->status_fd >= 0)
		close(t->status_fd);
	t->trace_fd = t->status_fd = -1;
}

/* A field of T's header, read now (SIZE bytes at OFFSET). Returns 0, or -1. */
static int header_field(const struct trace_watched *t, size_t offset, void *out, size_t size)
{
	return pread(t->trace_fd, out, size, (off_t)offset) == (ssize_t)size ? 0 : -1;
}

/* T's header names its process: its status opened. 0 when T is followed, -1 when not yet. */
static int watch_identify(struct trace_watch *w, struct trace_watched *t)
{
	struct trace_header h;
	char path[64];

	/*
	 * The library fills the header field by field as the trace opens
	 * (start_ns among the last): until it has, asked again next round. One
	 * that stays another recording's is let go.
	 */
	if (header_field(t, 0, &h, sizeof(h)) || memcmp(h.magic, TRACE_MAGIC, sizeof(h.magic)) ||
	    !h.pid || !h.start_ns || h.session != w->session || h.version != TRACE_VERSION) {
		if (++t->tries >= TRACE_WATCH_TRIES)
			watch_done(t);
		return -1;
	}
	t->pid = h.pid;
	t->start_ns = h.start_ns;
	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/status", h.pid);
	t->status_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (t->status_fd < 0) {
		watch_done(t);  /* gone already */
		return -1;
	}
	return 0;
}

/* One reading of T's process, counted when T was still being written after it. */
static void watch_sample(struct trace_watched *t)
{
	uint64_t bytes = 0;
	int got = probe_field_read(t->status_fd, "RssAnon", &bytes);
	uint32_t state;

	if (got < 0) {
		watch_done(t);  /* the process is gone */
		return;
	}
	if (header_field(t, offsetof(struct trace_header, state), &state, sizeof(state)) ||
	    state != TRACE_STATE_WRITING) {
		watch_done(t);  /* ended: what was read may be the next image's */
		return;
	}
	if (got > 0)
		return;  /* a zombie's status has no memory */
	if (bytes / 1024 > t->peak_kib)
		t->peak_kib = bytes / 1024 < UINT32_MAX ? (uint32_t)(bytes / 1024) : UINT32_MAX - 1;
	t->readings++;
}

uint64_t trace_watch_poll(struct trace_watch *w)
{
	uint64_t started = now_ns(), took;

	w->rounds++;
	watch_discover(w);
	for (size_t i = 0; i < w->n; i++) {
		struct trace_watched *t = &w->w[i];

		if (t->done || (t->status_fd < 0 && watch_identify(w, t)))
			continue;
		watch_sample(t);
	}
	took = now_ns() - started;
	return took * 3 > TRACE_WATCH_INTERVAL_NS ? took * 3 : TRACE_WATCH_INTERVAL_NS;
}

/*
 * Whether T's trace, which says it ended by exec, stays ended: a later
 * image of its pid wrote a trace, or the process is gone (an exec that
 * fails takes the trace up again).
 */
static int exec_final(const struct trace_watch *w, const struct trace_watched *t)
{
	for (size_t i = 0; i < w->n; i++)
		if (w->w[i].pid == t->pid && w->w[i].start_ns > t->start_ns)
			return 1;
	return kill((pid_t)t->pid, 0) && errno == ESRCH;
}

/* Writes T's peak into its header, resealed. Returns 1 when written. */
static int watch_write(const struct trace_watch *w, const struct trace_watched *t)
{
	union {
		struct trace_header h;
		unsigned char raw[TRACE_HEADER_BYTES];
	} head;
	int fd, ok;

	if (!t->readings || !t->pid)
		return 0;
	fd = open(t->path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ok = pread(fd, head.raw, sizeof(head.raw), 0) == (ssize_t)sizeof(head.raw) &&
	     !memcmp(head.h.magic, TRACE_MAGIC, sizeof(head.h.magic)) &&
	     head.h.version == TRACE_VERSION && head.h.pid == t->pid &&
	     head.h.start_ns == t->start_ns && head.h.session == w->session &&
	     head.h.header_check && head.h.header_check == trace_header_checksum(&head.h) &&
	     (head.h.state == TRACE_STATE_EXIT || head.h.state == TRACE_STATE__EXIT ||
	      (head.h.state == TRACE_STATE_EXEC && exec_final(w, t)));
	if (ok) {
		head.h.anon_peak_kib = t->peak_kib;
		head.h.header_check = trace_header_checksum(&head.h);
		ok = pwrite(fd, head.raw, sizeof(head.raw), 0) == (ssize_t)sizeof(head.raw);
	}
	close(fd);
	return ok;
}

size_t trace_watch_store(struct trace_watch *w)
{
	size_t written = 0;

	trace_watch_poll(w);
	for (size_t i = 0; i < w->n; i++)
		written += (size_t)watch_write(w, &w->w[i]);
	return written;
}

void trace_watch_release(struct trace_watch *w)
{
	for (size_t i = 0; i < w->n; i++) {
		if (w->w[i].trace_fd >= 0)
			close(w->w[i].trace_fd);
		if (w->w[i].status_fd >= 0)
			close(w->w[i].status_fd);
		free(w->w[i].path);
	}
	free(w->w);
	if (w->inotify_fd >= 0)
		close(w->inotify_fd);
	memset(w, 0, sizeof(*w));
	w->inotify_fd = -1;
}
