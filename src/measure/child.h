/*
 * child.h - the measuring process: what runs after the exec of
 * `allocbench __measure protocol=3 key=value...` (runner.c starts it), or
 * of `allocbench-child32 __measure ...`, the same code built with -m32 for
 * run --abi 32 (abi.h).
 *
 * Everything under src/measure/ runs here, and one rule holds for all of it:
 * nothing allocates from the measured allocator between the first and the
 * last RSS reading of a measurement (the fill reads at each quarter too) but
 * the measured loop itself. The process's own
 * allocations (PAPI's, stdio's) go to the private heap (heap.h), and the
 * work that needs memory (the random workload's plan, the pointer array, the
 * counters' event sets) is done before the first reading.
 */
#ifndef ALLOCBENCH_CHILD_H
#define ALLOCBENCH_CHILD_H

/* argv[1] of a measuring child (runner.c execs it); not a user command. */
#define CHILD_COMMAND "__measure"

/* The descriptor the child writes its sample to, as sample_wire.h encodes it (runner.c sets it up). */
#define CHILD_RESULT_FD 3

/* The descriptor of a replay's plan (replay_plan_save()), mapped by the child (runner.c sets it up). */
#define CHILD_PLAN_FD 4

/* Environment variable of the tests' fault hook (child_main()). */
#define CHILD_TEST_FAULT_ENV "ALLOCBENCH_TEST_FAULT"

/* Environment variable of the tests' pre-loop hook (child.c: a 1 MiB malloc and free). */
#define CHILD_TEST_PRELOOP_ENV "ALLOCBENCH_TEST_PRELOOP"

/*
 * The child's side: decodes ARGV (ARGV[0] is CHILD_COMMAND, then
 * the request as child_request_encode() wrote it), measures in this
 * process, and writes the sample to CHILD_RESULT_FD. Returns the exit
 * status: 0 when the sample was sent (a failed measurement says so in it),
 * 1 when it could not be, 2 for arguments that are not a request.
 *
 * For the tests only, the environment variable CHILD_TEST_FAULT_ENV makes
 * the child fail on purpose before it measures: "crash" (SIGSEGV), "abort"
 * (SIGABRT), "kill" (SIGKILL, as the OOM killer does), "hang" (waits
 * forever, for --timeout) or "nomem" (its address space limited to what it
 * maps plus the array of chunk pointers: the backend's allocations fail, as
 * in a child out of memory, on any machine); "KIND:NAME" affects only the
 * children of backend NAME ("floor" for the floor's).
 */
int child_main(int argc, char **argv);

#endif
