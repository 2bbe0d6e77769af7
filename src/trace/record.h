/*
 * record.h - what `allocbench record` and the recording library agree on:
 * the library's name and where the binary finds it, and the environment
 * that tells the library where to write.
 */
#ifndef ALLOCBENCH_RECORD_H
#define ALLOCBENCH_RECORD_H

#include <stddef.h>

/* The trace `allocbench record` writes without -o. */
#define RECORD_DEFAULT_FILE "allocbench.trace"

/* The recording library's file name (built from src/trace/recorder.c). */
#define RECORD_LIBRARY_NAME "liballocbench-record.so"

/* The environment the library reads (recorder.c's trace_open()). */
#define RECORD_FILE_ENV "ALLOCBENCH_RECORD_FILE"       /* the traces' prefix, an absolute path */
#define RECORD_SESSION_ENV "ALLOCBENCH_RECORD_SESSION" /* written into every trace's header */

/*
 * Each process image writes FILE.PROGRAM.PID (FILE.PROGRAM.PID.N, N from
 * 2, when the same process execs the same program again): PROGRAM is the
 * last part of its executable's path, cut to RECORD_PROGRAM_MAX bytes, any
 * byte but a letter, digit, '.', '_', '+' or '-' written as '_'. After the
 * run, record makes FILE a second name (a hard link) of the trace of the
 * process with the most calls (trace_set.h).
 *
 * The library keeps a trace's path in RECORD_PATH_MAX bytes, that suffix
 * included: FILE (absolute) may have at most RECORD_FILE_MAX bytes, its last
 * part RECORD_NAME_MAX, or nothing would be recorded.
 */
#define RECORD_PATH_MAX 4096
#define RECORD_PROGRAM_MAX 32
#define RECORD_SUFFIX_MAX (1 + RECORD_PROGRAM_MAX + 1 + 10 + 2)
#define RECORD_FILE_MAX (RECORD_PATH_MAX - 48)
#define RECORD_NAME_MAX (255 - RECORD_SUFFIX_MAX)

#endif
