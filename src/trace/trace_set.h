/*
 * trace_set.h - the traces of one recording, and which of them advise
 * replays. `allocbench record -o FILE` writes a trace per process image,
 * FILE.PROGRAM.PID (record.h), each with the recording's session in its
 * header; a recording made before that wrote FILE for the first process and
 * FILE.PID[.N] for the others. Both are read the same way: the traces
 * beside FILE whose names start with "FILE." and whose session is FILE's.
 *
 * The process advise replays is the one with the most calls (the program
 * the user means: a wrapper script, a shell or env before it make few) of
 * those that ran to their end, not replaced by an exec (a launcher that
 * makes many calls, then execs its worker, is not the program); record,
 * report and advise all ask trace_set_choose(), defined once.
 *
 * Some runtimes serve small allocations without malloc, so that their
 * trace holds a small part of what the program allocated: trace_proc_hint()
 * names them and the setting that routes them through malloc.
 */
#ifndef ALLOCBENCH_TRACE_SET_H
#define ALLOCBENCH_TRACE_SET_H

#include "trace/trace.h"

#include <stddef.h>
#include <stdint.h>

/* A runtime known to serve small allocations without malloc (trace_set.c's table). */
struct trace_hint {
	const char *runtime;     /* "is CPython", "links GLib": what the program is, for a sentence */
	const char *what;        /* what it serves itself, for a sentence */
	const char *setting;     /* NAME=VALUE in the environment that routes them through malloc */
};

/* One process image's trace. */
struct trace_proc {
	char *path;                   /* the trace file, as named or found */
	char *alias;                  /* its other name beside it (record's FILE's FILE.PROGRAM.PID), or NULL */
	char *error;                  /* why it could not be read, cleaned (then t and stats are empty), or NULL */
	int named;                    /* named by the caller (not found beside it) */
	struct trace t;               /* its header and sizes (trace_stats_load()) */
	struct trace_stats stats;     /* what report prints */
	const struct trace_hint *hint; /* a runtime that served allocations without malloc, or NULL */
};

/* The processes of a recording, in the order they started. */
struct trace_set {
	struct trace_proc *procs;
	size_t n, alloc;
	size_t chosen;                /* trace_set_choose()'s, or n when none was readable */
};

/*
 * The recording FILE belongs to, into *SET (initialized here): FILE, when
 * it exists, and every regular file beside it named FILE.SOMETHING whose
 * header has the recording's session (SESSION; 0: FILE's own, or where
 * FILE does not exist the newest session found), one entry per file (a
 * second name of the same file is left out). Each is read
 * (trace_stats_load()); one found beside FILE that cannot be read is kept
 * with its error. Returns 0, or -1 with WHY (WHY_SIZE bytes) when FILE
 * itself cannot be read, or it does not exist and no trace is beside it.
 */
int trace_set_find(const char *file, uint64_t session, struct trace_set *set, char *why,
		   size_t why_size);

/*
 * The traces PATHS (N of them) as one set, into *SET: each read, a second
 * name of a file already in it left out. Returns 0, or -1 with WHY when one
 * cannot be read.
 */
int trace_set_paths(const char *const *paths, size_t n, struct trace_set *set, char *why,
		    size_t why_size);

/*
 * Removes the traces beside FILE of FILE's recording (FILE.SOMETHING with
 * its session; FILE itself stays), when FILE is a trace. Returns 0, or -1
 * with errno set when one could not be removed.
 */
int trace_set_remove(const char *file);

/*
 * The process advise replays: the one with the most calls of those read
 * that did not end by exec (else of all read; else the first read); of
 * equals, the first to start. Returns its index, or SET->n when none was
 * read. trace_set_find() and trace_set_paths() set SET->chosen with it.
 */
size_t trace_set_choose(const struct trace_set *set);

/* The calls of every process read. */
uint64_t trace_set_calls(const struct trace_set *set);

/*
 * The names below are the file's and the program's as they are, any bytes:
 * what prints them cleans them (text_clean()); the sentences are cleaned.
 */

/* The trace's file name, without its folder: FILE.PROGRAM.PID where it has one. */
const char *trace_proc_name(const struct trace_proc *p);

/* The program's name: the last part of the trace's command ("(unknown)" when empty). */
const char *trace_proc_program(const struct trace_proc *p);

/*
 * Why SET's chosen process is the one advise replays, a sentence into BUF
 * (SIZE bytes): "bash (pid 30755, py.trace.bash.30755), which has the most calls:
 * 6830 of the 40112 of 80 processes", cleaned (text_clean()). Returns BUF.
 */
const char *trace_set_choice_text(const struct trace_set *set, char *buf, size_t size);

/*
 * P's hint as a sentence into BUF (SIZE bytes): what was not recorded and
 * the setting that records it, cleaned. Returns BUF ("" when P has no hint).
 */
const char *trace_proc_hint_text(const struct trace_proc *p, char *buf, size_t size);

/*
 * The process image's own figures, as its trace keeps them (trace_format.h:
 * run_ns, hwm_kib, anon_peak_kib; 0 where not measured): "peak anonymous
 * memory 11256 KiB, peak resident set 14836 KiB, 0.239 s, 613642 calls"
 * into BUF (SIZE bytes), or where the trace has none the one line saying
 * why. Returns 1 when the peak anonymous memory is there, else 0.
 */
int trace_program_text(const struct trace_header *h, uint64_t calls, char *buf, size_t size);

void trace_set_release(struct trace_set *set);

#endif
