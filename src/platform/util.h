/*
 * util.h - diagnostics shared by every module.
 *
 * Only the command layer (main.c, cli.c and the cmd_*.c files) and the
 * measuring process's entry (runner.c) may exit; everything else reports
 * with error() and returns -1 so that the caller decides what a failure
 * means.
 */
#ifndef ALLOCBENCH_UTIL_H
#define ALLOCBENCH_UTIL_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define ALLOCBENCH_VERSION "0.1.0"

/*
 * The sanitizers this binary was built with (make SANITIZE=...), "" for
 * none. Reported with every result: under AddressSanitizer, malloc is the
 * sanitizer's allocator, with its red zones, not the C library's.
 */
#define ALLOCBENCH_STRING_(...) #__VA_ARGS__
#define ALLOCBENCH_STRING(...) ALLOCBENCH_STRING_(__VA_ARGS__)
#ifdef ALLOCBENCH_SANITIZE_LIST
#define ALLOCBENCH_SANITIZE ALLOCBENCH_STRING(ALLOCBENCH_SANITIZE_LIST)
#else
#define ALLOCBENCH_SANITIZE ""
#endif

/* Prints "allocbench: error: MESSAGE" to stderr; always returns -1. */
int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Flushes standard output and checks it for write errors (a full device,
 * a closed pipe). Returns 0, or -1 after printing an error with the reason
 * (nothing for a closed pipe: broken_pipe()):
 * the errno of the first write that failed (call it right after writing,
 * while errno is still that write's), else fflush's, else EIO.
 */
int stdout_flush_check(void);

/*
 * 1 when ERR, the errno of a failed write, is EPIPE: the reader of a pipe
 * went away, which is no error to print (cat prints nothing) but the end:
 * the command layer ends the process by SIGPIPE, status 141, once
 * broken_pipe_seen() says so. 0 for any other ERR.
 */
int broken_pipe(int err);

/* 1 once broken_pipe() has seen EPIPE. */
int broken_pipe_seen(void);

/* Prints "allocbench: warning: MESSAGE" to stderr. */
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints "allocbench: error: MESSAGE" and exits with status 2 (bad usage). */
_Noreturn void usage_die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints "allocbench: error: MESSAGE" and exits with STATUS. */
_Noreturn void die(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * The command layer's one way out when memory runs out: prints
 * "allocbench: error: out of memory" and exits with status 1, a failure
 * (allocbench(1), EXIT STATUS), not bad usage: nothing was wrong with the
 * input.
 */
_Noreturn void die_out_of_memory(void);

/*
 * Reallocates the array *ARRAYP points to (malloc'ed or NULL) to N
 * elements of ELEM bytes, and updates *ARRAYP. Returns 0, or -1 with it
 * unchanged when the size overflows or memory runs out; prints nothing.
 */
int resize_array(void *arrayp, uint64_t n, size_t elem);

/*
 * Makes room for one more element after the NR in use in the array
 * *ARRAYP points to (malloc'ed or NULL, of ELEM-byte elements, room for
 * *ALLOC): when it is full, reallocates it half as large again plus 16
 * (git's alloc_nr()) and updates *ARRAYP and *ALLOC. Returns 0, or -1
 * with both unchanged when the size overflows or memory runs out; prints
 * nothing.
 */
int grow_array(void *arrayp, size_t *alloc, size_t nr, size_t elem);

/*
 * grow_array() for ARRAY, a pointer variable, with NR elements in use and
 * room for ALLOC (as git's ALLOC_GROW): 0, or -1 when out of memory.
 */
#define ALLOC_GROW(array, nr, alloc) grow_array(&(array), &(alloc), (nr), sizeof(*(array)))

/* "100 MiB" when BYTES is a whole number of a binary unit, else "123456 B". */
void format_bytes(char *buf, size_t size, uint64_t bytes);

/* SGR sequences for a terminal: regressions and failures in red. */
#define COLOR_RED "\033[31m"
#define COLOR_BOLD_RED "\033[1;31m"
#define COLOR_RESET "\033[0m"

/*
 * 1 when text written to OUT may carry colour: OUT is a terminal and the
 * NO_COLOR environment variable is unset or empty (https://no-color.org).
 */
int color_enabled(FILE *out);

/* Copies SRC into DST of DST_SIZE bytes, always terminated, truncating. */
void copy_string(char *dst, size_t dst_size, const char *src);

/*
 * The edit distance between A and B, ignoring case: insertions, deletions,
 * substitutions and swaps of two neighbours count one each (names of at
 * most 127 bytes; longer ones are compared on their first 127).
 */
size_t name_distance(const char *a, const char *b);

/*
 * The names among the N of NAMES nearest to WORD, for "did you mean": up to
 * MAX of them, the nearest first, each within a third of WORD's length (at
 * least 2) and none further than the nearest plus one, written to BUF of
 * SIZE bytes as "a, b, c" ("" when none is near). Returns how many.
 */
size_t nearest_names(const char *word, const char *const *names, size_t n, size_t max,
		     char *buf, size_t size);

/*
 * Text that came from outside (a report read back, the host name, an
 * allocator's version string) is made printable and valid UTF-8 before it
 * reaches a report, as the chart does: tab, newline and carriage return
 * become a space; other control characters (C0, DEL and C1, U+0080 to
 * U+009F) and every byte that is not part of a valid UTF-8 character become
 * U+FFFD. A terminal shown such text takes none of it as a command.
 */

/*
 * The character at *TEXT as text_clean() writes it: *TEXT itself, " " or
 * U+FFFD, *LEN bytes of it; moves *TEXT past the character (one byte when
 * it is not valid UTF-8).
 */
const char *text_clean_next(const char **text, size_t *len);

/* 1 when S needs no replacement. */
int text_is_clean(const char *s);

/*
 * Writes SRC cleaned into DST (DST_SIZE bytes; none with 0), always
 * terminated, truncating at a whole character. Returns the length of the
 * whole cleaned text, without its terminator.
 */
size_t text_clean(char *dst, size_t dst_size, const char *src);

/* Cleans the string S in its array of SIZE bytes, truncating at a whole character. */
void text_clean_in_place(char *s, size_t size);

/*
 * Writes TEXT (one logical line, no newline) to OUT broken at spaces into
 * lines of at most WIDTH characters, each continuation line starting with
 * INDENT; a word longer than a whole line is cut at WIDTH. Ends with a
 * newline. Every line fits WIDTH when INDENT is shorter than WIDTH.
 */
void put_wrapped(FILE *out, const char *text, size_t width, const char *indent);

/*
 * put_wrapped() for TEXT that continues a line already COL characters long:
 * its first word stays on that line when it fits, else starts the next.
 */
void put_wrapped_from(FILE *out, const char *text, size_t col, size_t width, const char *indent);

/* put_wrapped() of a formatted line (at most 4095 bytes). */
void put_wrappedf(FILE *out, size_t width, const char *indent, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The time now, ISO 8601 in UTC ("2026-12-02T13:00:00Z"), into BUF; returns BUF. */
char *now_utc(char buf[32]);

/*
 * The first terminating signal the handler of runner_signals_install()
 * caught, 0 before (runner_interrupted() in the model): the loops that
 * can take long without a child to wait for (a trace's reads) stop at it.
 */
extern volatile sig_atomic_t signal_caught;

#endif
