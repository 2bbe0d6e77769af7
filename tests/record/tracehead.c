/*
 * tracehead.c - the record tests' own look at a trace, independent of
 * allocbench's reader: `tracehead TRACE` reads it with read() (never a
 * mapping, so a damaged file cannot kill it) and prints one line of
 * name=value pairs: the header's version, state, chunks, lost, lost_why,
 * lost_errno, header (ok: its header_check is trace_header_checksum();
 * none: 0; bad), then over the chunks the file holds (at most the header's
 * chunks): sealed (check matches), unsealed (check 0) and bad (a check
 * that does not match, or used too large), size (the file's bytes), and
 * the process's own figures: run_ns, hwm_kib, anon_peak_kib.
 * Exits 0, or 2 when TRACE cannot be read or is no trace.
 */
#include "trace/trace_format.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Reads N bytes at AT (fewer at the end of the file); returns how many. */
static size_t read_at(int fd, void *buf, size_t n, off_t at)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = pread(fd, (char *)buf + got, n - got, at + (off_t)got);

		if (r <= 0)
			break;
		got += (size_t)r;
	}
	return got;
}

int main(int argc, char **argv)
{
	union {
		struct trace_header h;
		unsigned char bytes[TRACE_HEADER_BYTES];
	} head;
	union {
		struct trace_chunk c;
		unsigned char bytes[TRACE_CHUNK_BYTES];
	} chunk;
	uint64_t sealed = 0, unsealed = 0, bad = 0, k;
	const char *check;
	off_t size;
	int fd;

	if (argc != 2 || (fd = open(argv[1], O_RDONLY)) < 0) {
		fprintf(stderr, "usage: tracehead TRACE (a readable file)\n");
		return 2;
	}
	if (read_at(fd, &head, sizeof(head), 0) != sizeof(head) ||
	    memcmp(head.h.magic, TRACE_MAGIC, sizeof(head.h.magic))) {
		fprintf(stderr, "tracehead: '%s' is no trace\n", argv[1]);
		return 2;
	}
	size = lseek(fd, 0, SEEK_END);
	for (k = 0; k < head.h.chunks; k++) {
		off_t at = TRACE_HEADER_BYTES + (off_t)k * TRACE_CHUNK_BYTES;

		if (read_at(fd, &chunk, sizeof(chunk), at) != sizeof(chunk))
			break;
		if (chunk.c.used > TRACE_PAYLOAD_BYTES)
			bad++;
		else if (!chunk.c.check)
			unsealed++;
		else if (chunk.c.check == trace_chunk_checksum(&chunk.c))
			sealed++;
		else
			bad++;
	}
	check = !head.h.header_check ? "none" :
		head.h.header_check == trace_header_checksum(&head.h) ? "ok" : "bad";
	printf("version=%" PRIu32 " state=%" PRIu32 " chunks=%" PRIu64 " lost=%" PRIu64
	       " lost_why=%" PRIu32 " lost_errno=%" PRId32 " header=%s sealed=%" PRIu64
	       " unsealed=%" PRIu64 " bad=%" PRIu64 " size=%lld run_ns=%" PRIu64 " hwm_kib=%" PRIu32
	       " anon_peak_kib=%" PRIu32 "\n",
	       head.h.version, head.h.state, head.h.chunks, head.h.lost, head.h.lost_why,
	       head.h.lost_errno, check, sealed, unsealed, bad, (long long)size, head.h.run_ns,
	       head.h.hwm_kib, head.h.anon_peak_kib);
	close(fd);
	return 0;
}
