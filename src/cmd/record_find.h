/*
 * record_find.h - what record runs, found and checked before anything
 * starts: COMMAND's program, the recording library, whether the library
 * loads in that program, and the trace's file.
 */
#ifndef ALLOCBENCH_RECORD_FIND_H
#define ALLOCBENCH_RECORD_FIND_H

#include <stddef.h>

/*
 * Finds the recording library, without configuration: beside the running
 * binary (/proc/self/exe), in ../lib/allocbench from it (an installed
 * binary), in the build folder it was built in, then in the install
 * libdir it was built for. Writes its path into BUF (SIZE bytes).
 * Returns 0, or -1 after saying where it looked.
 */
int record_library_find(char *buf, size_t size);

/* The file execvp() would run for NAME, into BUF; -1 when there is none. */
int command_find(const char *name, char *buf, size_t size);

/*
 * The trace's absolute path for -o OUTPUT into FILE (SIZE bytes), its
 * symbolic links followed: the target is written, the link kept. A
 * regular file there is removed (the library creates FILE itself, with
 * O_EXCL); a new one must be creatable. Anything else (a device, a FIFO, a
 * directory, a path too long for the library) is refused untouched.
 * Returns 0, or -1 after printing why.
 */
int trace_file_for(const char *output, char *file, size_t size);

/*
 * Whether the dynamic loader would skip the library for the program EXE:
 * an ELF file of another class or machine than this binary's (a 32-bit
 * program). Writes why into WHY. A file that is not ELF (a script) passes.
 */
int elf_foreign(const char *exe, char *why, size_t size);

#endif
