/*
 * rerun.h - advise's real runs: the recorded program run again under each
 * drop-in candidate (the C library's malloc, and each allocator the replay
 * preloads), in interleaved rounds (round r runs every candidate once,
 * starting at a different one), each in a process group of its own. The
 * figures of a run, measured, not replayed: the peak anonymous memory
 * (RssAnon, polled from /proc about every half millisecond, as record's
 * watcher does) of the process whose trace the replay replays, found in
 * the command's process tree by its executable; what it kept after that
 * peak (the lowest reading since, and the last before it ended: what an
 * allocator gives back); and the wall time of the whole command. The replay answers for the candidates a program cannot
 * take without code changes (pool, arena), and for programs that cannot
 * be run again; these runs answer for the drop-in ones, threads, pages
 * never touched and contention included.
 *
 * A run's standard output and error go to /dev/null (the recorded run
 * gave the program's output once); its standard input is the recorded
 * run's when that is a regular file (read again from where it started),
 * /dev/null when it is a terminal. A pipe cannot be read twice: then
 * there are no real runs, and rerun.why says so.
 */
#ifndef ALLOCBENCH_RERUN_H
#define ALLOCBENCH_RERUN_H

#include "measure/backend.h"
#include "model/run.h"
#include "model/stats.h"

#include <stddef.h>
#include <sys/types.h>

#define RERUN_DEFAULT_ROUNDS 3
#define RERUN_MAX_ROUNDS 100
#define RERUN_MAX_ROWS 16
/*
 * After each round, a candidate other than malloc that is behind on every
 * figure (its least peak, its least after the peak and its least wall time
 * so far) runs no more: it cannot be the answer. Behind: its least over the
 * least of every candidate's by more than these (peaks repeat within a few
 * per cent; wall times, on a shared machine, within tens of per cent), or,
 * from the second round on and where its peaks agree (RERUN_PEAK_AGREE),
 * its range above that of the candidate with the least median. And from
 * the second round on, once every candidate still running has a wall time
 * range that overlaps malloc's and peaks that agree, none runs again: no
 * further round can find one faster beyond the noise, since ranges only
 * widen. A candidate with settings (settings.h) whose least peak and least
 * after the peak lie within RERUN_PEAK_AGREE of its allocator's without
 * them, and its least time within RERUN_TIME_MARGIN, runs no more either:
 * for this program the setting changes nothing that can be measured.
 */
#define RERUN_MEMORY_MARGIN 0.10
#define RERUN_TIME_MARGIN 0.25
/*
 * Two runs' peaks that agree within this stand for the row (t1409's 2%); a
 * memory figure (peak, or what is kept after it) whose median lies within
 * it of the best's is among the best (rerun_best()).
 */
#define RERUN_PEAK_AGREE 0.02

/* The figures of a run. */
enum rerun_figure {
	RERUN_WALL,      /* the whole command's wall time, ns */
	RERUN_PEAK,      /* the program's highest RssAnon, bytes */
	RERUN_LOW,       /* its lowest RssAnon after that peak, as polled, bytes */
	RERUN_END,       /* its last RssAnon reading before it ended, bytes */
	RERUN_FIGURES
};

/* One candidate's runs. */
struct rerun_row {
	const struct backend *backend;          /* malloc, or a preloaded allocator */
	double value[RERUN_FIGURES][RERUN_MAX_ROUNDS]; /* each figure per run */
	unsigned runs;                          /* runs measured */
	int ok;                                 /* every run so far measured */
	char error[256];                        /* why not, when !ok */
	char stopped[224];                      /* why it ran no more, or "" */
	int no_effect;                          /* stopped as its allocator without its
						   settings: never the best (rerun_best()) */
};

struct rerun {
	unsigned rounds;                        /* runs per candidate asked for; 0: none */
	char why[256];                          /* why there are none (rounds 0), or "" */
	char program[128];                      /* the executable measured (the trace's) */
	int status;                             /* the recorded run's exit status */
	off_t stdin_offset;                     /* where its standard input started; -1: not a file */
	struct rerun_row rows[RERUN_MAX_ROWS];
	size_t nrows;
	int interrupted;                        /* the signal that stopped them, or 0 */
};

/* 1 when the backend BE is run for real: malloc, a preloaded allocator, either with settings. */
int rerun_runs(const struct backend *be);

/*
 * Sets up *R for ROUNDS runs of the drop-in backends of CONFIG (malloc and
 * the preloaded ones, in CONFIG's order) of the program PROGRAM (an
 * executable's path, as a trace's header keeps it), recorded with exit
 * status STATUS. STDIN_OFFSET is where the recorded run's standard input
 * started (-1: not a regular file). Where the runs cannot be made
 * (ROUNDS 0, standard input a pipe, no drop-in backend), R->rounds is 0
 * and R->why says why.
 */
void rerun_init(struct rerun *r, const struct run_config *config, unsigned rounds,
		const char *program, int status, off_t stdin_offset);

/*
 * Runs ARGV (a NULL-terminated command, found in PATH as a shell would)
 * R->rounds times under each row, in rounds, fewer where the answer is
 * settled (RERUN_MEMORY_MARGIN). A run that fails (not started, another
 * exit status than the recorded run's, killed) fails its row, which runs
 * no more. One that ends well without the program seen is made again, 10
 * times at most; then, where no run was measured yet, R runs none
 * (rounds 0, R->why says why: the replays answer), else that row fails.
 * After a terminating signal (runner_signals_install()) the run is killed
 * and R->interrupted set.
 * Progress on standard error as a run's (run_progress.h) unless QUIET;
 * LINES: where standard error is no terminal, a line per row as it ends.
 */
void rerun_measure(struct rerun *r, char *const *argv, int quiet, int lines);

/* 1 when R measured a row: its runs, not the replays, answer for the drop-in choice. */
int rerun_answers(const struct rerun *r);

/* 1 when a row of R failed (R may be NULL). */
int rerun_failed(const struct rerun *r);

/* The summary of a row's FIGURE: -1 when it has no run. */
int rerun_summary(const struct rerun_row *row, enum rerun_figure figure, struct stat_summary *out);

/*
 * The best of R's rows for memory or time, as a verdict judges (verdict.h),
 * save that a memory figure (the peak, and what is kept after it) whose
 * median lies within RERUN_PEAK_AGREE of the best's is among the best too.
 */
struct rerun_best {
	size_t row[RERUN_MAX_ROWS];   /* the best first, then each whose range overlaps it
					 (or, for memory, whose median lies within
					 RERUN_PEAK_AGREE of its) */
	size_t n;                     /* 0: no row measured */
	int have_malloc;              /* the malloc row measured */
	size_t malloc_row;
	int malloc_among;             /* malloc is among row[] */
	double saves;                 /* malloc's median minus the best's, in the unit */
	double percent;               /* ... per cent of malloc's median (NAN: 0) */
	int clear;                    /* malloc is not among the best (row[]'s rule) */
};

/*
 * R's best (the least) for FIGURE into *OUT; a row that stopped as its
 * allocator without its settings (no_effect) is never among them.
 */
void rerun_best(const struct rerun *r, enum rerun_figure figure, struct rerun_best *out);

/*
 * rerun_best() among the C library's malloc and its candidates with
 * settings alone: what the program saves keeping its allocator.
 */
void rerun_best_libc(const struct rerun *r, enum rerun_figure figure, struct rerun_best *out);

#endif
