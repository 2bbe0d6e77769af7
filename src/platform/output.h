/*
 * output.h - where a report goes: stdout, or -o FILE written to a temporary
 * file without a name in FILE's directory (O_TMPFILE) and linked into place
 * when done, so that a reader never sees half a report, and a failed or
 * killed run (SIGKILL too) leaves FILE as it was and nothing beside it.
 */
#ifndef ALLOCBENCH_OUTPUT_H
#define ALLOCBENCH_OUTPUT_H

#include <stdio.h>

struct output {
	FILE *file;       /* where to write */
	char *path;       /* -o FILE, or NULL for stdout */
	char *target;     /* FILE with its symbolic links followed: what is replaced */
	char *tmp_path;   /* the named temporary file beside the target, where the
			     file system has no O_TMPFILE; NULL: the file has no name */
	int direct;       /* FILE is a device or pipe, written in place */
};

/*
 * Opens PATH's temporary file (PATH NULL or "-": stdout): a nameless one in
 * the target's directory, or where the file system cannot make those, a
 * named one beside the target (removed by output_abort(), which the
 * commands call on a catchable signal). Call it before
 * measuring, so that an unwritable path is refused before anything runs.
 * A symbolic link is followed to its target (created when the link dangles),
 * which output_commit() replaces: the link stays a link. An existing target
 * keeps its mode, and its owner where this process may give it. A target
 * that is not a regular file (a device, a FIFO, /dev/stdout and the other
 * links of /proc) is written in place, never replaced.
 * Returns 0, or -1 after printing why; or -1 with errno EINTR and nothing
 * printed when a signal interrupted the wait of a FIFO for its reader.
 */
int output_open(struct output *out, const char *path);

/*
 * Flushes and checks for write errors (a full disk, /dev/full), then puts
 * the temporary file in place of the target atomically: linked there when
 * the target does not exist, otherwise linked under a unique name beside it
 * and renamed over it (signals held between the two). Returns 0, or -1
 * after printing why; the temporary file is removed on failure.
 */
int output_commit(struct output *out);

/* A file a command reads or writes, for output_refuse_same(). */
struct output_use {
	const char *path;    /* as given; "-": standard input or output; NULL: unused */
	const char *option;  /* how it was given ("-o", "--trace"); NULL: an operand */
	int output;          /* 1: written, 0: read */
};

/*
 * Refuses an output of USES (N of them) that is one of the inputs, or
 * another of the outputs: writing it would destroy what is read, or what
 * the other wrote. Files are compared by device and inode with their links
 * followed (symbolic and hard links, /dev/stdout), an output that does not
 * exist yet by the path it will be created at; a character device (a
 * terminal, a null device) or a socket takes any number of writers. Call it before
 * reading or writing anything. Returns 0, or -1 after printing an error
 * that names both.
 */
int output_refuse_same(const struct output_use *uses, size_t n);

/*
 * output_refuse_same() for the output PATH (-o; NULL or "-": standard
 * output) and the N files of INPUTS ("-" for standard input).
 */
int output_refuse_input(const char *path, const char *const *inputs, size_t n);

/*
 * Follows PATH's symbolic links to the file they lead to, existing or not,
 * and stores it in *OUT (malloc'd) with its directory resolved by realpath().
 * Sets *MAGIC when a link lives in /proc (/dev/stdout -> /proc/self/fd/1):
 * such a link names an open file, not a path, and is written in place.
 * Returns 0, or -1 with errno set.
 */
int output_resolve_links(const char *path, char **out, int *magic);

/* Removes the temporary file without touching PATH. */
void output_abort(struct output *out);

#endif
