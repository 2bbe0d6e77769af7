/*
 * runner.h - one isolated child process per measurement.
 *
 * Each measurement runs in a freshly executed copy of this program
 * (fork + exec of /proc/self/exe): a heap that has served an earlier
 * measurement holds freed memory the next one would reuse, and an allocator
 * loaded with LD_PRELOAD needs a new process anyway. The child sends its
 * struct sample back over a pipe; both ends are the same executable, so the
 * struct travels as raw bytes.
 */
#ifndef ALLOCBENCH_RUNNER_H
#define ALLOCBENCH_RUNNER_H

#include "measure.h"

/* argv[1] of a measuring child; not a user command. */
#define RUNNER_CHILD_COMMAND "__measure"

/* Name of the pseudo-backend that measures the floor (measure_floor()). */
#define RUNNER_FLOOR "floor"

/* Default of run --timeout: seconds one measuring process may take. */
#define RUNNER_DEFAULT_TIMEOUT 600

/* Environment variable of the tests' fault hook (runner_child_main()). */
#define RUNNER_TEST_FAULT_ENV "ALLOCBENCH_TEST_FAULT"

/*
 * Runs BACKEND_NAME (a name backend_find() knows, or RUNNER_FLOOR) with
 * PARAMS in a fresh child and fills *SAMPLE; the child counts the events of
 * PARAMS->counter_list (NULL: none), passed as one more argument. Always
 * fills it: when the child crashes, is killed or sends nothing, SAMPLE->ok is
 * 0 and SAMPLE->error says why (the signal's name, the exit status). A child
 * still running after TIMEOUT_S seconds (0: no limit) is killed with SIGKILL
 * and reaped ("timed out after N s"). After a terminating signal (with
 * runner_signals_install()) the child is killed and reaped at once and no
 * new one is started (runner_interrupted()). The child runs in its own
 * process group, which is killed when it is done: no child, nor anything it
 * started in its group, outlives the call; and the child is killed when this
 * process dies (PR_SET_PDEATHSIG). Its standard output and error are read
 * into SAMPLE->child_stdout and child_stderr, never passed on.
 * Returns 0 when the child reported a successful measurement, -1 otherwise.
 */
int runner_measure(const char *backend_name, const struct measure_params *params,
		   unsigned timeout_s, struct sample *sample);

/*
 * runner_measure() for a backend that runs with the shared library
 * PRELOAD_PATH preloaded: the child's environment is the parent's with
 * LD_PRELOAD replaced by exactly PRELOAD_PATH (the parent's own environment
 * is never changed), and the child checks that the library serves malloc
 * (allocator_run_preloaded()). PRELOAD_PATH NULL is runner_measure().
 */
int runner_measure_preloaded(const char *backend_name, const char *preload_path,
			     const struct measure_params *params, unsigned timeout_s,
			     struct sample *sample);

/*
 * Installs the parent's handlers of every signal whose default action ends
 * the process and that is not a crash (SIGHUP, SIGINT, SIGQUIT, SIGPIPE,
 * SIGALRM, SIGTERM, SIGUSR1, SIGUSR2, SIGVTALRM, SIGXCPU, SIGXFSZ, SIGIO,
 * SIGPWR, SIGSTKFLT and the real-time signals; not SIGPROF, which is
 * PAPI's), with sigaction and no SA_RESTART: they only record the first
 * signal and kill the running child's process group with SIGKILL, which is
 * async-signal-safe; blocking calls return EINTR. A signal that is ignored
 * stays ignored (nohup), except SIGINT and SIGQUIT, which shells ignore for
 * background commands. Children are exec'd, so they start with the default
 * actions. The caller cleans up when runner_interrupted() says so, then
 * calls runner_signal_exit(). Returns 0, or -1 after printing why.
 */
int runner_signals_install(void);

/* The first signal received since runner_signals_install(), or 0. */
int runner_interrupted(void);

/*
 * Ends the process by SIG, as its default action would (the status a shell
 * sees is 128 + SIG), without a core file: restores the default action,
 * unblocks SIG and raises it. Call it after cleaning up. Does not return.
 */
_Noreturn void runner_signal_exit(int sig);

/*
 * The child's side: parses ARGV (as built by runner_measure(), from
 * RUNNER_CHILD_COMMAND on), measures in this process, and
 * writes the sample to the result descriptor. Returns the exit status.
 *
 * For the tests only, the environment variable RUNNER_TEST_FAULT_ENV makes
 * the child fail on purpose before it measures: "crash" (SIGSEGV), "abort"
 * (SIGABRT), "kill" (SIGKILL, as the OOM killer does), "hang" (waits
 * forever, for --timeout) or "nomem" (its address space limited to what it
 * maps plus the array of chunk pointers: the backend's allocations fail, as
 * in a child out of memory, on any machine); "KIND:BACKEND" affects only
 * BACKEND's children.
 */
int runner_child_main(int argc, char **argv);

#endif
