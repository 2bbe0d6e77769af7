/*
 * parse.h - strict parsing of the numbers and lists users type.
 *
 * Every function rejects what strtoul would quietly accept: signs, empty
 * strings, trailing garbage, overflow, and "0x": numbers are decimal, the
 * same rules for every command. On failure it returns -1 and points
 * *WHY at a short reason ("not a number", "too large") for the caller to put
 * into a message that also names the option and the bad value. A
 * parse_list knows its option and says what is wrong itself (error()).
 * Nothing here exits: the command decides what a failure means.
 */
#ifndef ALLOCBENCH_PARSE_H
#define ALLOCBENCH_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* The reason a parser gives when memory ran out (compare the pointer). */
extern const char parse_out_of_memory[];

/* Largest chunk size --sizes accepts: 1 GiB. */
#define PARSE_MAX_SIZE ((uint64_t)1 << 30)

/* Most sizes one --sizes list may expand to. */
#define PARSE_MAX_SIZES 4096

/*
 * Parses a decimal integer from 0 to MAX into *OUT. Returns 0, or -1 with
 * *WHY set.
 */
int parse_unsigned(const char *text, uint64_t max, uint64_t *out, const char **why);

/*
 * Parses a non-negative decimal number: digits, optionally a '.' and more
 * digits ("0.5", "12"); no sign, exponent, "0x", "inf" or white space.
 * Returns 0, or -1 with *WHY set.
 */
int parse_decimal(const char *text, double *out, const char **why);

/*
 * Parses a byte count: a decimal integer with an optional suffix. K, M, G, T
 * and KiB, MiB, GiB, TiB are binary (1024); KB, MB, GB, TB are decimal
 * (1000); B is bytes. Suffixes are case-insensitive except that "kb" etc.
 * stay decimal. Returns 0, or -1 with *WHY set (including on overflow).
 */
int parse_bytes(const char *text, uint64_t *out, const char **why);

/*
 * Parses a --sizes list: comma-separated items, each a byte count (as
 * parse_bytes) or a range: LO..HI (LO, 2LO, 4LO, ... up to HI), LO..HI:xF
 * (multiply by F each step), LO..HI:+S (add S each step). Every size must be
 * from 1 to PARSE_MAX_SIZE, appear once, and the list must expand to at most
 * PARSE_MAX_SIZES sizes.
 *
 * On success stores a malloc'ed array in *SIZES (the caller frees it) and
 * its length in *COUNT and returns 0. On failure returns -1, copies the
 * offending item into BAD (BAD_SIZE bytes) and sets *WHY: to
 * parse_out_of_memory when memory ran out, which is not the input's fault.
 */
int parse_size_list(const char *text, size_t **sizes, size_t *count,
		    char *bad, size_t bad_size, const char **why);

/* The largest power of two that divides SIZE (> 0), at most 16. */
size_t natural_alignment(size_t size);

/* 1 when N is a power of two (N > 0). */
int is_power_of_two(uint64_t n);

/* A comma-separated list, read one item at a time. */
struct parse_list {
	char *copy;          /* the value, owned, split in place as it is read */
	char *next;          /* the unread rest, NULL after the last item */
	const char *text;    /* the value as given, for messages */
	const char *option;  /* "--backend", for messages */
	const char *hint;    /* appended to the message about an empty item */
	int failed;          /* 1 after an error(): out of memory, an empty item */
};

/*
 * Starts reading TEXT, the value of OPTION, at its commas. An empty TEXT is
 * one empty item. HINT ("" or " (expected ...)") ends the message about an
 * empty item. Out of memory, it says so with error() and sets failed.
 */
void parse_list_init(struct parse_list *list, const char *text, const char *option,
		     const char *hint);

/*
 * The next item (pointing into LIST's copy, valid until parse_list_release()),
 * or NULL after the last. On an empty item, error() says "empty item in
 * OPTION 'TEXT'" and the hint, sets failed and returns NULL.
 */
char *parse_list_next(struct parse_list *list);

/* Frees LIST's copy. Returns -1 when reading it failed (failed set), else 0. */
int parse_list_release(struct parse_list *list);

#endif
