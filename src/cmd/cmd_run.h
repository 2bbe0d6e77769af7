/*
 * cmd_run.h - what the files of the run command share (cmd_run.c,
 * cmd_run_options.c, cmd_run_check.c): the values its option table fills,
 * and the two steps that read and check them. Command layer: these exit 2
 * on bad usage, 0 after --help or --version.
 */
#ifndef ALLOCBENCH_CMD_RUN_H
#define ALLOCBENCH_CMD_RUN_H

#include "report/report_formats.h"
#include "model/run.h"

/* The values of the options checked once all are read, as given; NULL when not given. */
struct run_args {
	const char *sizes;     /* --sizes */
	const char *backends;  /* --backend */
	const char *total;     /* --total */
	const char *rounds;
	const char *seed;
	const char *threads;
	const char *counters;
	const char *abi;       /* --abi, or NULL for 64 */
	const char *replay_threads;  /* --replay-threads */
	const char *jobs;      /* --jobs */
};

/* What the run command's options fill: the context of its option table. */
struct run_cmd {
	struct run_config config;
	struct run_args args;
	struct run_export exports[REPORT_FORMATS];  /* --export FORMAT=FILE, one per format */
	int gate_time;          /* --gate-time: --baseline gates times and rates too */
	int allow_host_change;  /* --allow-host-change: ... across hosts too */
};

/*
 * Fills *CMD with the defaults (run_cmd_defaults()), then with the options
 * of ARGV (ARGV[0] is the command's name), each parsed and bounded by its
 * entry of the table (cmd_run_options.c). Exits 2 naming a bad value, 0
 * after --help.
 */
void run_options_read(int argc, char **argv, struct run_cmd *cmd);

/* Fills *CMD with the run command's defaults: what a command that runs one (advise) starts from. */
void run_cmd_defaults(struct run_cmd *cmd);

/* --replay-threads ARG (global or per-thread) into *PER_THREAD; -1 after an error naming it. */
int run_replay_threads_parse(const char *arg, int *per_thread);

/*
 * What only the options together say (cmd_run_check.c): an option the
 * workload ignores, the sizes, the backends (backend_set.h), the trace of
 * the replay workload, sizes larger than --total, what a process cannot
 * hold. Fills the rest of CONFIG from ARGS; exits 2 naming the problem.
 */
void run_options_check(struct run_config *config, struct run_args *args);

/* Frees what run_options_read() and run_options_check() allocated in CONFIG. */
void run_options_release(struct run_config *config);

/*
 * Refuses (-1 after an error) a run that cannot measure here: no /proc, or
 * (without --force) more memory than is available.
 */
int run_refuse_early(const struct run_config *config);

/*
 * What decides how much is alive, as a message names it: "--total N", or
 * the replayed trace and its peak (the user gave no --total then). Points
 * into a static buffer, overwritten by the next call.
 */
const char *run_total_subject(const struct run_config *config);

#endif
