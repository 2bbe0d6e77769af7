/*
 * plain - the reference of tests/cli/t0017-exact.sh: the fill a careful
 * person would measure by hand, with nothing of allocbench's measuring
 * process in it (no private heap, no counters, no readings in between).
 *
 *   plain malloc|pool|arena SIZE TOTAL_BYTES
 *
 * Maps and touches the array of COUNT = TOTAL / SIZE pointers, reads
 * Anonymous: of /proc/self/smaps_rollup, allocates COUNT chunks of SIZE
 * bytes writing one byte in every page each overlaps and its last byte,
 * reads Anonymous: again and prints (after - before) / COUNT - SIZE, the
 * overhead in bytes per chunk, with 6 decimals.
 *
 * Nothing allocates through malloc before the first reading (the file is
 * read with open and read, not stdio): the measured allocator is as a fresh
 * program finds it, its own set-up (glibc's tcache, the heap's first page)
 * paid inside the window, as allocbench measures it. pool and arena are the
 * project's own sources (src/measure/pool.c, arena.c), set up as allocbench's
 * fill sets them up: natural alignment, pool blocks of 1 MiB, an arena of
 * COUNT strides plus one alignment.
 */
#include "measure/arena.h"
#include "measure/pool.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static char buf[1 << 22];

/* Reads PATH whole into buf; exits on failure. */
static void slurp(const char *path)
{
	int fd = open(path, O_RDONLY);
	size_t got = 0;
	ssize_t n = 1;

	if (fd < 0)
		exit(2);
	while (n > 0 && got < sizeof(buf) - 1) {
		n = read(fd, buf + got, sizeof(buf) - 1 - got);
		got += n > 0 ? (size_t)n : 0;
	}
	close(fd);
	if (n < 0 || got == sizeof(buf) - 1)
		exit(2);
	buf[got] = '\0';
}

/*
 * The process's anonymous memory, bytes: Anonymous: of smaps_rollup; in a
 * 32-bit program, the sum of Anonymous: over the areas of /proc/self/smaps
 * below 4 GiB, so that under qemu-user (which runs the program in the low
 * 4 GiB of its own 64-bit process) the emulator's pages are left out.
 */
static unsigned long long anonymous_bytes(void)
{
	unsigned long long sum = 0;
	int below = 1;

	if (sizeof(void *) == 8) {
		const char *at;

		slurp("/proc/self/smaps_rollup");
		at = strstr(buf, "\nAnonymous:");
		if (!at)
			exit(2);
		return strtoull(at + sizeof("\nAnonymous:") - 1, NULL, 10) * 1024;
	}
	slurp("/proc/self/smaps");
	for (char *line = buf, *next; *line; line = next ? next + 1 : line + strlen(line)) {
		char *end;
		unsigned long long start = strtoull(line, &end, 16);

		if (end != line && *end == '-')
			below = strtoull(end + 1, NULL, 16) <= (1ULL << 32) && start < (1ULL << 32);
		else if (below && !strncmp(line, "Anonymous:", 10))
			sum += strtoull(line + 10, NULL, 10) * 1024;
		next = strchr(line, '\n');
	}
	return sum;
}

static size_t natural(size_t size)
{
	size_t align = size & -size;

	return align > 16 || !align ? 16 : align;
}

int main(int argc, char **argv)
{
	size_t size, count, align, i, page = (size_t)sysconf(_SC_PAGESIZE);
	unsigned long long before, after;
	struct arena arena;
	struct pool pool;
	unsigned char **ptrs;
	int kind;

	if (argc != 4)
		return 2;
	kind = !strcmp(argv[1], "malloc") ? 0 : !strcmp(argv[1], "pool") ? 1 :
	       !strcmp(argv[1], "arena") ? 2 : -1;
	size = strtoull(argv[2], NULL, 10);
	if (kind < 0 || !size)
		return 2;
	count = strtoull(argv[3], NULL, 10) / size;
	align = natural(size);
	if ((kind == 1 && pool_init(&pool, size, align, (size_t)1 << 20)) ||
	    (kind == 2 && arena_init(&arena, count * ((size + align - 1) / align * align) + align)))
		return 1;
	ptrs = mmap(NULL, count * sizeof(*ptrs), PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ptrs == MAP_FAILED)
		return 1;
	memset(ptrs, 0, count * sizeof(*ptrs));
	/* Resident before the first reading: smaps is written into it as it is read. */
	memset(buf, 1, sizeof(buf));
	before = anonymous_bytes();
	for (i = 0; i < count; i++) {
		unsigned char *p = kind == 0 ? malloc(size) : kind == 1 ? pool_alloc(&pool) :
				   arena_alloc(&arena, size, align);
		size_t at;

		if (!p)
			return 1;
		p[0] = 1;
		for (at = ((size_t)p | (page - 1)) + 1; at < (size_t)p + size; at += page)
			*(volatile unsigned char *)at = 1;
		*(volatile unsigned char *)(p + size - 1) = 1;
		ptrs[i] = p;
	}
	after = anonymous_bytes();
	printf("%.6f\n", (double)(after - before) / (double)count - (double)size);
	return 0;
}
