/*
 * request.h - what the parent asks of one measuring process, and the one
 * pair of functions that carries it across the exec.
 *
 * A request travels as the child's arguments after CHILD_COMMAND:
 * "protocol=N" first, then one "key=value" per field of struct
 * child_request, every value as decimal text or a name. Both ends are the
 * same executable for 64-bit rows, and a 32-bit build of the child's code
 * (allocbench-child32) for --abi 32 ones: nothing in the encoding depends on
 * the word size (no raw struct), and the request names the ABI it is for,
 * which the child checks against its own. A field added on one side and not
 * the other is an unknown key or a missing one, refused with its name, never
 * a shifted argument. The result comes back as sample_wire.h encodes it,
 * with the same protocol version (version 1 sent the raw struct sample).
 * Adding a parameter is one field in struct measure_params (or here) and
 * one line in request.c's field table, which both the encoder and the
 * decoder read.
 */
#ifndef ALLOCBENCH_CHILD_REQUEST_H
#define ALLOCBENCH_CHILD_REQUEST_H

#include "measure/measure.h"
#include "platform/counters.h"

#include <stddef.h>

/* The version of the encoding; the child refuses any other. */
#define CHILD_PROTOCOL_VERSION 4

/* The word size of this build's measuring process, bits: 32 (-m32) or 64. */
#define CHILD_ABI ((int)sizeof(void *) * 8)

/* Most arguments an encoded request takes, its terminating NULL included. */
#define CHILD_REQUEST_ARGS 24

/* Bytes of text an encoded request takes at most. */
#define CHILD_REQUEST_TEXT (COUNTERS_ARG_MAX + MEASURE_MAX_MIX * 21 + 4096)

/* One measurement, as the parent asks for it. */
struct child_request {
	const char *backend;          /* a name backend_find() knows, or a preloaded
					 backend's name; NULL for the floor */
	int floor;                    /* 1: measure the floor (measure_floor()),
					 not a backend */
	const char *preload_path;     /* the library LD_PRELOAD names in the child,
					 which checks that it serves malloc; or NULL */
	const char *trace_path;       /* replay: the trace, named in messages; else NULL */
	int plan_fd;                  /* replay: the parent's descriptor of its plan
					 (trace_stats_load()), the child's CHILD_PLAN_FD;
					 0 for none; never sent */
	const char *const *env;       /* a candidate's settings (backend.h): KEY=VALUE
					 strings put into the child's environment, or
					 NULL; never sent */
	struct measure_params params; /* what the measured loop needs; its
					 child-side pointers (plan, counters) are
					 never sent */
	struct counter_list counters; /* events the child counts; n = 0 for none */
	unsigned abi;                 /* the measuring process's word size, bits: 32 or
					 64 (CHILD_ABI of the build that runs it) */
};

/* An encoded request: argv[] points into text[]. */
struct child_args {
	char *argv[CHILD_REQUEST_ARGS];  /* "protocol=N", "key=value"..., NULL */
	char text[CHILD_REQUEST_TEXT];
};

/*
 * Encodes REQ into *OUT. Returns 0, or -1 when a field does not fit (a
 * counter list longer than COUNTERS_ARG_MAX), with nothing printed.
 */
int child_request_encode(const struct child_request *req, struct child_args *out);

/*
 * Decodes the ARGC arguments ARGV (as child_request_encode() wrote them)
 * into *REQ, whose string fields then point into ARGV. Every field must be
 * there exactly once, with a valid value: a size, count and alignment that
 * are not 0 (the random workload's alignment may be 0: natural), a mix only
 * for the random workload. Returns 0, or -1 with WHY (WHY_SIZE bytes)
 * naming the argument that is wrong.
 */
int child_request_decode(int argc, char **argv, struct child_request *req, char *why,
			 size_t why_size);

/* The name a request's rows and the tests' fault hook use: the backend, or "floor". */
const char *child_request_name(const struct child_request *req);

#endif
