/*
 * runner.h - one isolated child process per measurement.
 *
 * Each measurement runs in a freshly executed copy of this program
 * (fork + exec of /proc/self/exe): a heap that has served an earlier
 * measurement holds freed memory the next one would reuse, and an allocator
 * loaded with LD_PRELOAD needs a new process anyway. The request travels as
 * named arguments (measure/request.h); the child (measure/child.h) sends its
 * struct sample back over a pipe in fixed-width little-endian fields
 * (measure/sample_wire.h), so that the child may be the 32-bit program of
 * run --abi 32 (abi.h) as well as this one.
 */
#ifndef ALLOCBENCH_RUNNER_H
#define ALLOCBENCH_RUNNER_H

#include "measure/request.h"

#include <sys/types.h>

/*
 * The name the floor's rows and progress carry (measure_floor()). It is not
 * a backend and travels as a field of its own (child_request.floor), but
 * --backend and --preload refuse it so that a row named "floor" is always
 * the floor.
 */
#define RUNNER_FLOOR "floor"

/* Most runner_measure() calls at once (from as many threads). */
#define RUNNER_MAX_CHILDREN 256

/* Default of run --timeout: seconds one measuring process may take. */
#define RUNNER_DEFAULT_TIMEOUT 600

/*
 * Runs REQ in a fresh child and fills *SAMPLE. For a request with a
 * preload_path, the child's environment is the parent's with LD_PRELOAD
 * replaced by exactly that path (the parent's own environment is never
 * changed), and the child checks that the library serves malloc
 * (backend_malloc_run_preloaded()). Always fills SAMPLE: when the child crashes,
 * is killed or sends nothing, SAMPLE->ok is 0 and SAMPLE->error says why
 * (the signal's name, the exit status). A child still running after
 * TIMEOUT_S seconds (0: no limit) is killed with SIGKILL and reaped ("timed
 * out after N s"). After a terminating signal (with runner_signals_install())
 * the child is killed and reaped at once and no new one is started
 * (runner_interrupted()). The child runs in its own process group, which is
 * killed when it is done: no child, nor anything it started in its group,
 * outlives the call; and the child is killed when this process dies
 * (PR_SET_PDEATHSIG). Its standard output and error are read into
 * SAMPLE->child_stdout and child_stderr, never passed on. Returns 0 when the
 * child reported a successful measurement, -1 otherwise. Thread-safe: up to
 * RUNNER_MAX_CHILDREN threads may each run one child at once (run --jobs);
 * a terminating signal kills every one of them.
 */
int runner_measure(const struct child_request *req, unsigned timeout_s, struct sample *sample);

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

/*
 * For a child the caller started itself, in a process group of its own
 * (advise's real runs, rerun.h): a terminating signal kills PID's group
 * as it kills the measuring children. Returns the slot to give back with
 * runner_untrack(), or -1 when every slot is taken (the signal then
 * misses it: the caller checks runner_interrupted()).
 */
int runner_track(pid_t pid);
void runner_untrack(int slot);

/* A pidfd of the child PID (readable once it ends), or -1 where the kernel has none. */
int runner_pidfd(pid_t pid);

/* The first signal received since runner_signals_install(), or 0. */
int runner_interrupted(void);

/*
 * Ends the process by SIG, as its default action would (the status a shell
 * sees is 128 + SIG), without a core file: restores the default action,
 * unblocks SIG and raises it. Call it after cleaning up. Does not return.
 */
_Noreturn void runner_signal_exit(int sig);

#endif
