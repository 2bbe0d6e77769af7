/*
 * output.h - where a report goes: stdout, or -o FILE written to a temporary
 * file beside FILE and renamed into place, so that a reader never sees half
 * a report and a failed run leaves FILE as it was.
 */
#ifndef ALLOCBENCH_OUTPUT_H
#define ALLOCBENCH_OUTPUT_H

#include <stdio.h>

struct output {
	FILE *file;       /* where to write */
	char *path;       /* -o FILE, or NULL for stdout */
	char *target;     /* FILE with its symbolic links followed: what is replaced */
	char *tmp_path;   /* the temporary file beside the target */
	int direct;       /* FILE is a device or pipe, written in place */
};

/*
 * Opens PATH's temporary file (PATH NULL or "-": stdout). Call it before
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
 * Flushes and checks for write errors (a full disk, /dev/full), then renames
 * the temporary file into place. Returns 0, or -1 after printing why; the
 * temporary file is removed on failure.
 */
int output_commit(struct output *out);

/*
 * Refuses an output PATH (-o; NULL or "-" is standard output, never refused)
 * that is one of the N files of INPUTS ("-" for standard input): the same
 * file (device and inode, through links) would be overwritten by what is
 * read from it. Call it before reading anything. Returns 0, or -1 after
 * printing an error that names the file.
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
