/*
 * replay_plan.c - a replay plan (trace.h) as a file the measuring
 * processes map: the parent reads and analyses the trace once, and no
 * replay reads it again (each did, a third of its time). The file is
 * unnamed (O_TMPFILE, or a name removed at once), its first PLAN_FILE_HEADER
 * bytes the plan's figures (struct plan_file), then its steps, struct
 * replay_op as both the 64-bit and the 32-bit measuring process lay it out
 * (24 bytes, no padding), in the byte order of the machine that runs both. A mapped plan's
 * pages are the page cache's: not in the anonymous memory a replay reads,
 * and not copied per replay.
 */
#include "trace/trace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PLAN_FILE_MAGIC 0x314e414c50424100ULL  /* "\0ABPLAN1" */
#define PLAN_FILE_HEADER 4096                   /* a page: the steps map from there */

_Static_assert(sizeof(struct replay_op) == 24, "a step is 24 bytes in both ABIs");

/* The header: the plan's figures. */
struct plan_file {
	uint64_t magic, nops, nslots, nthreads, peak_live_bytes, live_bytes_end, checksum,
		 skipped, alloc_bytes, nallocs, max_align;
};

/* A file of no name in $TMPDIR (or /tmp), open for reading and writing; -1 with errno. */
static int unnamed_file(void)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
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

int replay_plan_save(const struct replay_plan *plan, char *why, size_t why_size)
{
	struct plan_file h = {
		PLAN_FILE_MAGIC, plan->nops, plan->nslots, plan->nthreads, plan->peak_live_bytes,
		plan->live_bytes_end, plan->checksum, plan->skipped, plan->alloc_bytes,
		plan->nallocs, plan->max_align,
	};
	unsigned char page[PLAN_FILE_HEADER] = { 0 };
	int fd = unnamed_file();

	memcpy(page, &h, sizeof(h));
	if (fd < 0 || write_all(fd, page, sizeof(page), 0) ||
	    write_all(fd, plan->ops, plan->nops * sizeof(*plan->ops), PLAN_FILE_HEADER)) {
		snprintf(why, why_size, "cannot write the replay's steps to a file in %s: %s",
			 getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
			 strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

int replay_plan_map(int fd, struct replay_plan *plan, char *why, size_t why_size)
{
	struct plan_file h;
	size_t bytes;
	void *ops;

	memset(plan, 0, sizeof(*plan));
	if (pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) || h.magic != PLAN_FILE_MAGIC ||
	    h.nops > SIZE_MAX / sizeof(struct replay_op) || h.nslots > UINT32_MAX ||
	    h.nthreads > UINT32_MAX) {
		snprintf(why, why_size, "descriptor %d is no replay plan allocbench wrote", fd);
		return -1;
	}
	bytes = (size_t)h.nops * sizeof(struct replay_op);
	ops = bytes ? mmap(NULL, bytes, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, PLAN_FILE_HEADER) :
	      NULL;
	if (ops == MAP_FAILED) {
		snprintf(why, why_size, "cannot map the replay's %llu steps: %s",
			 (unsigned long long)h.nops, strerror(errno));
		return -1;
	}
	*plan = (struct replay_plan){
		.ops = ops, .nops = (size_t)h.nops, .nslots = (uint32_t)h.nslots,
		.nthreads = (uint32_t)h.nthreads, .peak_live_bytes = h.peak_live_bytes,
		.live_bytes_end = h.live_bytes_end, .checksum = h.checksum, .skipped = h.skipped,
		.alloc_bytes = h.alloc_bytes, .nallocs = h.nallocs, .max_align = h.max_align,
		.mapped_bytes = bytes,
	};
	return 0;
}

void replay_plan_release(struct replay_plan *plan)
{
	if (plan->mapped_bytes)
		munmap(plan->ops, plan->mapped_bytes);
	else
		free(plan->ops);
	memset(plan, 0, sizeof(*plan));
}
