/*
 * sample_wire.h - a struct sample as the measuring process sends it to the
 * parent (CHILD_RESULT_FD): bytes whose meaning does not depend on either
 * side's word size, alignment or byte order.
 *
 * The parent may be a 64-bit program and the child a 32-bit one (run
 * --abi 32): the raw struct differs between them (on i386 a uint64_t or a
 * double in a struct is aligned to 4, not 8), so it never travels as it is.
 * The encoding is a header, "ABSAMPLE", the protocol version
 * (CHILD_PROTOCOL_VERSION) and the length of the body, then every field of
 * struct sample the child fills, in one fixed order: integers as unsigned
 * little-endian of a fixed width (4 or 8 bytes, whatever the C type), a
 * double as the 8 bytes of its IEEE 754 binary64 representation, little
 * endian, a string as its fixed-size array, NUL-padded. The parent's own
 * fields (child_stdout, ...) are not sent. One function lists the fields
 * and walks them for both directions, so the two cannot disagree.
 *
 * Adding a field to struct sample (or to what it holds) means adding it to
 * sample_wire.c's walk; a static assertion there on the struct's size fails
 * the build until it is.
 */
#ifndef ALLOCBENCH_SAMPLE_WIRE_H
#define ALLOCBENCH_SAMPLE_WIRE_H

#include "measure/measure.h"

#include <stddef.h>

/* The first bytes of an encoded sample. */
#define SAMPLE_WIRE_MAGIC "ABSAMPLE"

/* Bytes of the header: the magic, the protocol version and the body's length, 4 bytes each. */
#define SAMPLE_WIRE_HEADER 16

/* Bytes of an encoded sample: the header and the body. */
size_t sample_wire_size(void);

/*
 * Encodes SAMPLE into BUF, which holds sample_wire_size() bytes. Returns the
 * bytes written (sample_wire_size()).
 */
size_t sample_wire_encode(const struct sample *sample, unsigned char *buf);

/*
 * Decodes the LEN bytes at BUF into *SAMPLE: the fields the child sends
 * (the parent's own are zeroed). Every string is terminated. Returns 0, or
 * -1 with WHY (WHY_SIZE bytes) saying what is wrong: too short, another
 * magic, another protocol version, another length.
 */
int sample_wire_decode(const unsigned char *buf, size_t len, struct sample *sample, char *why,
		       size_t why_size);

#endif
