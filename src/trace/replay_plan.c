/*
 * replay_plan.c - a replay plan (trace.h) as a file: the parent reads and
 * analyses the trace once, writing the steps as it makes them
 * (replay_plan.h), and the measuring processes map a window of them at a
 * time (struct plan_view). The file is unnamed (O_TMPFILE, or a name
 * removed at once), its first PLAN_FILE_HEADER bytes the plan's figures
 * (struct plan_file), then its steps, struct replay_op as both the 64-bit
 * and the 32-bit measuring process lay it out (24 bytes, no padding), in
 * the byte order of the machine that runs both. A mapped plan's pages are
 * the page cache's: not in the anonymous memory a replay reads, and not
 * copied per replay; neither the parent nor a replay holds more than a
 * window of them, whatever the number of calls (a billion calls make a
 * plan of 24 GB).
 */
#include "trace/replay_plan.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define PLAN_FILE_MAGIC 0x314e414c50424100ULL  /* "\0ABPLAN1" */
#define PLAN_FILE_HEADER 4096                   /* a page: the steps map from there */
#define PLAN_WRITER_STEPS ((size_t)1 << 16)     /* the analysis's buffer: 1.5 MiB */

_Static_assert(sizeof(struct replay_op) == 24, "a step is 24 bytes in both ABIs");
_Static_assert(PLAN_VIEW_STEPS * sizeof(struct replay_op) % PLAN_FILE_HEADER == 0,
	       "a window starts at a page of the file");

/* The header: the plan's figures. */
struct plan_file {
	uint64_t magic, nops, nslots, nthreads, peak_live_bytes, live_bytes_end, checksum,
		 skipped, alloc_bytes, nallocs, max_align;
};

const char *plan_writer_dir(void)
{
	const char *dir = getenv("TMPDIR");

	return dir && *dir ? dir : "/tmp";
}

/* A file of no name in plan_writer_dir(), open for reading and writing; -1 with errno. */
static int unnamed_file(void)
{
	const char *dir = plan_writer_dir();
	char path[4096];
	int fd;

	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		return fd;
	/* A file system without O_TMPFILE: a name, removed at once. */
	if ((size_t)snprintf(path, sizeof(path), "%s/allocbench-plan.XXXXXX", dir) >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
	return fd;
}

static int write_all(int fd, const void *data, size_t n, off_t at)
{
	const char *p = data;

	while (n) {
		ssize_t w = pwrite(fd, p, n, at);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
		at += w;
	}
	return 0;
}

/* The step at K of the file: its offset. */
static off_t step_offset(size_t k)
{
	return PLAN_FILE_HEADER + (off_t)k * (off_t)sizeof(struct replay_op);
}

int plan_writer_open(struct plan_writer *w)
{
	*w = (struct plan_writer){ .fd = unnamed_file() };
	if (w->fd < 0) {
		w->err = errno;
		return -1;
	}
	w->buf = malloc(PLAN_WRITER_STEPS * sizeof(*w->buf));
	if (!w->buf) {
		w->err = ENOMEM;
		return -1;
	}
	return 0;
}

/* W's buffer written out. Returns 0, or -1 with W->err. */
static int writer_flush(struct plan_writer *w)
{
	if (w->err)
		return -1;
	if (w->n && write_all(w->fd, w->buf, w->n * sizeof(*w->buf), step_offset(w->base))) {
		w->err = errno ? errno : EIO;
		return -1;
	}
	w->base += w->n;
	w->n = 0;
	return 0;
}

struct replay_op *plan_writer_add(struct plan_writer *w)
{
	struct replay_op *op;

	if (w->n == PLAN_WRITER_STEPS && writer_flush(w))
		return NULL;
	op = &w->buf[w->n++];
	memset(op, 0, sizeof(*op));
	return op;
}

int plan_writer_unwritten(struct plan_writer *w, size_t step, uint16_t share)
{
	if (step >= w->base) {
		w->buf[step - w->base].unwritten = share;
		return 0;
	}
	if (write_all(w->fd, &share, sizeof(share),
		      step_offset(step) + (off_t)offsetof(struct replay_op, unwritten))) {
		w->err = errno ? errno : EIO;
		return -1;
	}
	return 0;
}

int plan_writer_finish(struct plan_writer *w, struct replay_plan *plan)
{
	struct plan_file h = {
		PLAN_FILE_MAGIC, plan->nops, plan->nslots, plan->nthreads, plan->peak_live_bytes,
		plan->live_bytes_end, plan->checksum, plan->skipped, plan->alloc_bytes,
		plan->nallocs, plan->max_align,
	};

	if (writer_flush(w))
		return -1;
	/*
	 * A plan of more than a window is padded to a whole number of
	 * windows: each a replay maps is then as large as the first, which is
	 * mapped before its resident set is first read, and the peak it reads
	 * is the allocator's, not the plan's (loop_peak_stop()).
	 */
	if (plan->nops > PLAN_VIEW_STEPS && plan->nops % PLAN_VIEW_STEPS) {
		memset(w->buf, 0, PLAN_WRITER_STEPS * sizeof(*w->buf));
		while (w->base % PLAN_VIEW_STEPS) {
			w->n = PLAN_VIEW_STEPS - w->base % PLAN_VIEW_STEPS;
			if (w->n > PLAN_WRITER_STEPS)
				w->n = PLAN_WRITER_STEPS;
			if (writer_flush(w))
				return -1;
		}
	}
	if (write_all(w->fd, &h, sizeof(h), 0)) {
		w->err = errno ? errno : EIO;
		return -1;
	}
	plan->fd = w->fd;
	w->fd = -1;
	return 0;
}

void plan_writer_close(struct plan_writer *w)
{
	free(w->buf);
	if (w->fd >= 0)
		close(w->fd);
	*w = (struct plan_writer){ .fd = -1 };
}

int replay_plan_map(int fd, struct replay_plan *plan, char *why, size_t why_size)
{
	struct plan_file h;
	struct stat st;

	memset(plan, 0, sizeof(*plan));
	plan->fd = -1;
	if (pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) || h.magic != PLAN_FILE_MAGIC ||
	    h.nops > SIZE_MAX || h.nslots > UINT32_MAX || h.nthreads > UINT32_MAX ||
	    fstat(fd, &st) || st.st_size < step_offset((size_t)h.nops)) {
		snprintf(why, why_size, "descriptor %d is no replay plan allocbench wrote", fd);
		return -1;
	}
	*plan = (struct replay_plan){
		.nops = (size_t)h.nops, .nslots = (uint32_t)h.nslots,
		.nthreads = (uint32_t)h.nthreads, .peak_live_bytes = h.peak_live_bytes,
		.live_bytes_end = h.live_bytes_end, .checksum = h.checksum, .skipped = h.skipped,
		.alloc_bytes = h.alloc_bytes, .nallocs = h.nallocs, .max_align = h.max_align,
		.fd = fd,
	};
	return 0;
}

void replay_plan_release(struct replay_plan *plan)
{
	if (plan->fd >= 0)
		close(plan->fd);
	memset(plan, 0, sizeof(*plan));
	plan->fd = -1;
}

const struct replay_op *plan_view_move(struct plan_view *v, const struct replay_plan *plan,
				       size_t k)
{
	size_t base = k / PLAN_VIEW_STEPS * PLAN_VIEW_STEPS, n, bytes;
	void *map;

	plan_view_close(v);
	n = plan->nops - base < PLAN_VIEW_STEPS ? plan->nops - base : PLAN_VIEW_STEPS;
	/* A whole window where the plan has more (plan_writer_finish() padded the last). */
	bytes = (plan->nops > PLAN_VIEW_STEPS ? PLAN_VIEW_STEPS : n) * sizeof(struct replay_op);
	map = mmap(NULL, bytes, PROT_READ, MAP_PRIVATE | MAP_POPULATE, plan->fd, step_offset(base));
	if (map == MAP_FAILED)
		return NULL;
	*v = (struct plan_view){ .ops = map, .base = base, .n = n, .map = map, .map_bytes = bytes };
	return &v->ops[k - base];
}

void plan_view_close(struct plan_view *v)
{
	if (v->map)
		munmap(v->map, v->map_bytes);
	*v = (struct plan_view){ 0 };
}
