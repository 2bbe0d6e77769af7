/*
 * commands.h - the subcommands, one file each (cmd_*.c), dispatched from
 * the table in main.c. Each takes its own argv (argv[0] is the command's
 * name), parses its options and returns the process's exit status; like
 * main.c, a command file may exit on bad usage (status 2) and after --help
 * (status 0).
 */
#ifndef ALLOCBENCH_COMMANDS_H
#define ALLOCBENCH_COMMANDS_H

/*
 * allocbench [run]: measures (cmd_run.c). 0 every measurement succeeded,
 * 1 one failed or --baseline found a regression, 2 bad usage, 128+N after
 * signal N.
 */
int cmd_run(int argc, char **argv);
/* allocbench compare BASELINE CURRENT: 0 no regression, 1 regression, 2 unusable input. */
int cmd_compare(int argc, char **argv);
/* allocbench plot: reports to an SVG chart (cmd_plot.c). */
int cmd_plot(int argc, char **argv);
/* allocbench backends: every backend, whether it runs here, and why not (cmd_backends.c). */
int cmd_backends(int argc, char **argv);
/* allocbench show: the tables of saved JSON reports (cmd_show.c). */
int cmd_show(int argc, char **argv);
/* allocbench counters: which events this machine counts (cmd_counters.c). */
int cmd_counters(int argc, char **argv);
/* allocbench record COMMAND: runs it with the recording library (src/cmd/cmd_record.c). */
int cmd_record(int argc, char **argv);
/*
 * What `allocbench record -o OUTPUT -- ARGV...` does, for record and
 * advise: records the command ARGV, each process image into
 * OUTPUT.PROGRAM.PID, waits for it, makes OUTPUT the trace of the process
 * with the most calls (trace_set_choose()), and summarizes the traces on
 * standard error (unless QUIET; errors and record_notes() are always
 * said). With CONVERT, each trace whose process is gone is converted to
 * format version 3 (trace_v3.h) in place first. Returns record's exit
 * status: the command's (128 + N after signal N), 127 not found, 2
 * refused, 1 its trace missing. *ENDED_BY is the signal record passed on
 * that ended the command, or one that came once it had ended (stopping
 * the conversion), or 0: the caller ends by it once done.
 */
int record_command(const char *output, char *const *argv, int quiet, int convert, int *ended_by);

struct trace_set;
/*
 * What SET's traces may lack, on standard error (whatever -q says: the
 * answer depends on it): each process whose runtime allocated past malloc,
 * with the setting that records it (trace_set.h); else, where the run took
 * CPU_S seconds of CPU time (negative: not known), too few calls for it.
 */
void record_notes(const struct trace_set *set, double cpu_s);
/* allocbench advise COMMAND: records it, replays it on every backend, answers (cmd_advise.c). */
int cmd_advise(int argc, char **argv);
/* allocbench report TRACE: a recorded program's allocations (src/cmd/cmd_report.c). */
int cmd_report(int argc, char **argv);
/* allocbench history REPORTS: where each gated figure stepped over a series (cmd_history.c). */
int cmd_history(int argc, char **argv);
/* allocbench ab OLD NEW: two variants side by side, times gated pair by pair (cmd_ab.c). */
int cmd_ab(int argc, char **argv);

#endif
