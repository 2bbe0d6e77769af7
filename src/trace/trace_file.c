/*
 * trace_file.c - a trace file (trace_read.h): where its bytes come from,
 * read with pread() and never mapped, how a reader says what is wrong, and
 * the names the header's fields are said by (trace.h).
 */
#include "trace/trace.h"
#include "trace/trace_read.h"
#include "platform/util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const kind_names[TRACE_KINDS] = {
	[TRACE_MALLOC] = "malloc",
	[TRACE_CALLOC] = "calloc",
	[TRACE_REALLOC] = "realloc",
	[TRACE_FREE] = "free",
	[TRACE_POSIX_MEMALIGN] = "posix_memalign",
	[TRACE_ALIGNED_ALLOC] = "aligned_alloc",
	[TRACE_MEMALIGN] = "memalign",
	[TRACE_VALLOC] = "valloc",
	[TRACE_PVALLOC] = "pvalloc",
};

const char *trace_kind_name(unsigned kind)
{
	return kind < TRACE_KINDS ? kind_names[kind] : NULL;
}

const char *trace_state_name(uint32_t state)
{
	switch (state) {
	case TRACE_STATE_EXIT: return "complete (exit)";
	case TRACE_STATE_EXEC: return "ended by exec";
	case TRACE_STATE__EXIT: return "ended by _exit";
	default: return "cut short";
	}
}

const char *trace_lost_reason(const struct trace_header *h, char *buf, size_t size)
{
	switch (h->lost_why) {
	case TRACE_LOST_FULL:
		/* ENOMEM: the address-space limit (ulimit -v) left a smaller mapping. */
		return h->lost_errno == ENOMEM ? "the trace reached the largest size the "
			"process's address-space limit (ulimit -v) left it" :
			"the trace reached its largest size";
	case TRACE_LOST_WRITE:
		snprintf(buf, size, "the file could not be written: %s",
			 h->lost_errno > 0 ? strerror(h->lost_errno) : "error unknown");
		return buf;
	case TRACE_LOST_NESTED:
		return "signal handlers nested deeper than the recorder's queue";
	default:
		return h->version < 2 ? "the trace could not grow, or signal handlers nested too "
			"deep: a version 1 trace does not say which" : "reason not recorded";
	}
}


int reader_fail(struct reader *r, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(r->why, r->why_size, "trace '%s' ", r->name);

	if (n < 0 || (size_t)n >= r->why_size)
		return -1;
	va_start(ap, fmt);
	vsnprintf(r->why + n, r->why_size - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

int reader_read_at(struct reader *r, uint64_t at, void *dst, size_t n)
{
	size_t done = 0;

	/* A signal ends the command: every read (1 MiB at most, or a block) asks. */
	if (signal_caught)
		return reader_fail(r, "was not read to its end: interrupted by SIG%s",
				   sigabbrev_np(signal_caught));
	if (r->fd < 0) {
		if (at > r->size || n > r->size - at)
			return reader_fail(r, "changed while it was read: %" PRIu64 " bytes, none at byte %" PRIu64,
				    r->size, at + n);
		memcpy(dst, r->buf + at, n);
		return 0;
	}
	while (done < n) {
		ssize_t got = pread(r->fd, (char *)dst + done, n - done, (off_t)(at + done));

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return reader_fail(r, "cannot be read at byte %" PRIu64 ": %s", at + done, strerror(errno));
		if (!got)
			return reader_fail(r, "changed while it was read: it was %" PRIu64 " bytes, it ends "
				    "at byte %" PRIu64 " now", r->size, at + done);
		done += (size_t)got;
	}
	return 0;
}
int reader_open(struct reader *r, const char *path, char *why, size_t why_size)
{
	struct stat st;

	*r = (struct reader){ .name = path, .fd = -1, .why = why, .why_size = why_size };
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0 || fstat(r->fd, &st)) {
		snprintf(why, why_size, "cannot read trace '%s': %s", path, strerror(errno));
		if (r->fd >= 0)
			close(r->fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		close(r->fd);
		snprintf(why, why_size, "cannot read trace '%s': not a regular file", path);
		return -1;
	}
	r->size = (uint64_t)st.st_size;
	return 0;
}
