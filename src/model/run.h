/*
 * run.h - the run command: what the user asked for (struct run_config) and
 * the driver that measures every (backend, size, repetition) in a fresh
 * child into a struct run_report (report.h).
 */
#ifndef ALLOCBENCH_RUN_H
#define ALLOCBENCH_RUN_H

#include "platform/counters.h"
#include "measure/measure.h"

#include <stddef.h>
#include <stdint.h>

/* Most measuring processes --jobs runs at once. */
#define RUN_MAX_JOBS 256

#define RUN_DEFAULT_SIZES "4,40,400,4000,40000"
#define RUN_DEFAULT_BACKENDS "malloc,pool,pool-locked,arena"
#define RUN_DEFAULT_SEED 20120528
#define RUN_DEFAULT_TOTAL ((uint64_t)100 << 20)
#define RUN_DEFAULT_REPEAT 3
#define RUN_DEFAULT_POOL_BLOCK ((size_t)1 << 20)
#define RUN_MAX_REPEAT 1000

struct cell;
struct backend;
struct backend_skip;
struct preload;
struct report_writer;
struct run_report;

/* A report written to a file besides the one on standard output (--export-json). */
struct run_export {
	const char *option;                /* "--export-json", for messages */
	const struct report_writer *writer;
	const char *path;                  /* the file, NULL when not given */
};

/* Every option of the run command, as in effect. */
/* How far off its real runs a preloaded_once replay is made again, per cent. */
#define RUN_AGAIN_PERCENT 5

struct run_config {
	size_t *sizes;                     /* chunk sizes in bytes, owned */
	size_t nsizes;
	unsigned *weights;                 /* random: each size's weight in the mix
					      (--sizes 24:70,48:30), owned; NULL:
					      every size as likely */
	const struct backend **backends;   /* owned array of table entries */
	size_t nbackends;
	size_t backends_alloc;           /* room in backends (ALLOC_GROW) */
	uint64_t total_bytes;              /* bytes allocated per measurement */
	unsigned repeat;                   /* fresh-process repetitions per cell */
	int preloaded_once;                /* advise, where its real runs answer for the
					      drop-in allocators: a preloaded one's cells,
					      and one with settings',
					      are measured once, and again (--repeat in
					      all, run_measure_again()) where that one's
					      peak is RUN_AGAIN_PERCENT off them */
	enum touch_policy touch;
	size_t align;                      /* pool/arena alignment; 0 = natural */
	size_t pool_block_bytes;           /* bytes per pool block */
	const struct report_writer *writer;  /* --format: how the report is written */
	const char *output_path;           /* -o FILE, or NULL for stdout */
	const char *baseline_path;         /* --baseline FILE to compare with, or NULL */
	int quiet;                         /* -q: no progress on stderr */
	int progress_lines;                /* and where stderr is no terminal, a line
					      per backend whose runs are done (advise) */
	enum workload workload;            /* --workload */
	unsigned rounds;                   /* churn, threads: --rounds; 0 = by size */
	uint64_t seed;                     /* random: --seed */
	unsigned threads;                  /* threads: --threads */
	struct counter_list counters;      /* --counters: events counted around the loops */
	int counters_given;                /* --counters was given (not the default list) */
	struct preload **preloads;         /* owned: backends run under LD_PRELOAD (preload.h) */
	size_t npreloads;
	size_t preloads_alloc;           /* room in preloads (ALLOC_GROW) */
	struct backend_skip *skipped;      /* owned: what --backend all left out, and why */
	size_t nskipped;
	size_t skipped_alloc;            /* room in skipped (ALLOC_GROW) */
	unsigned timeout_s;                /* --timeout: seconds per measuring process */
	unsigned jobs;                     /* --jobs: measuring processes at once, 1 to
					      RUN_MAX_JOBS (0 read as 1) */
	int force;                         /* --force: run even above MemAvailable */
	const char *label;                 /* --label: what the report is of, or NULL */
	char **argv;                       /* the command line, for the report: argv[0] */
	int argc;                          /*   is "allocbench" or "run", not owned */
	unsigned abis[2];                  /* --abi: the word sizes measured, bits (32, 64),
					      in the order given; default 64 alone */
	size_t nabis;
	struct backend **abi_rows;         /* owned: the 32-bit rows' backends ("NAME/32",
					      abi 32), each one allocation */
	size_t nabi_rows;
	size_t abi_rows_alloc;             /* room in abi_rows (ALLOC_GROW) */
	int tune;                          /* advise: 1, a trace of several threads gets
					      SETTINGS_CURATED as candidates where
					      --backend is not given; 2 (--tune),
					      SETTINGS_GRID, whatever --backend
					      (settings.h) */
	struct backend **candidates;       /* owned: the backends with settings (settings.h) */
	size_t ncandidates;
	size_t candidates_alloc;           /* room in candidates (ALLOC_GROW) */
	const char *trace_path;            /* replay: --trace, as given */
	int replay_per_thread;             /* replay: --replay-threads per-thread */
	struct run_replay {                /* replay: the trace, as the parent read it */
		uint64_t calls;            /* calls recorded */
		uint64_t steps;            /* of them, steps replayed */
		uint64_t checksum;         /* the steps' (replay_plan) */
		int plan_fd;               /* the steps in a file each measuring process maps
					      (replay_plan_save()) */
		uint32_t slots;            /* slots (about the most chunks alive at once) */
		uint32_t threads;          /* recorded threads */
		uint64_t peak_live_bytes;  /* most bytes alive at once */
		uint64_t alloc_bytes;      /* bytes of every allocating step */
		uint64_t allocs;           /* allocating steps */
		uint64_t max_align;        /* largest alignment asked for */
		int cut_short;             /* the recorded process did not end cleanly */
		/* The recorded process's own figures (trace_format.h), 0 where not kept. */
		uint32_t program_anon_kib; /* its peak anonymous memory, KiB */
		uint32_t program_hwm_kib;  /* its peak resident set (VmHWM), KiB */
		uint64_t program_run_ns;   /* from its first call to its end, ns */
		char program[128];         /* its executable (trace_format.h's command) */
	} replay;
};

/*
 * Runs every measurement CONFIG asks for and fills *REPORT. A failed
 * measurement is recorded in its cell (REPORT->failed set) and the others
 * still run. After SIGINT or SIGTERM (runner_signals_install()) it stops at
 * once, sets REPORT->interrupted to the signal and returns 0: the report is
 * incomplete and must not be written. The counters are checked first (counters_check()); one that
 * cannot be counted only gets its reason in REPORT->counters. Returns 0, or
 * -1 when nothing could be measured (no memory).
 */
int run_measure_all(const struct run_config *config, struct run_report *report);

/*
 * Measures CELL of REPORT (run_measure_all()'s) again, up to CONFIG's
 * repeat runs in all, as run_measure_all() measured it; on a terminal its
 * progress says so, and in a log the caller says when it ended. Returns 0,
 * or -1 out of memory.
 */
int run_measure_again(const struct run_config *config, struct run_report *report,
		      struct cell *cell);

/*
 * The default --backend of the replay workload, before the installed drop-in
 * allocators (preload_with_installed()): pool-locked does not replay.
 */
#define RUN_DEFAULT_REPLAY_BACKENDS "malloc,pool,arena"

/* What the replay does with the pool and the arena, said in every report (measure/replay.c). */
#define RUN_REPLAY_POLICY \
	"pool: one pool per 16-byte size class up to 1024 B, larger or over-aligned " \
	"requests to the C library; arena: one region, frees do nothing, realloc copies"

/* The mean of the random workload's sizes, rounded up: the budget per live chunk. */
size_t run_mix_mean_size(const struct run_config *config);

/*
 * What the measuring process itself may hold besides the measurement: the
 * program and its libraries, PAPI's set-up, the private heap (heap.h). Its
 * peak resident set at --total 4K reads 5 to 7 MiB here.
 */
#define RUN_PROCESS_BYTES ((uint64_t)32 << 20)

/*
 * An upper bound of the memory one measuring process of CONFIG with BACKEND
 * at SIZE (random: any; the whole mix is used) holds at its peak, in bytes,
 * itself included (run.c says how); UINT64_MAX when it cannot be represented
 * in 64 bits. Reported per row as memory_bound_bytes beside the process's
 * real peak, and tested against it for every backend and workload.
 */
uint64_t run_bound_bytes(const struct run_config *config, const struct backend *backend,
			 size_t size);

/* The largest bound a measurement may have: x86-64's 47-bit user address space. */
#define RUN_MAX_BOUND_BYTES ((uint64_t)1 << 47)

/* The same for a 32-bit measuring process (--abi 32): 3 GiB of its 4 GiB address space. */
#define RUN_MAX_BOUND_BYTES_32 ((uint64_t)3 << 30)

/*
 * The largest run_bound_bytes() of CONFIG. run_measure_all() does not check
 * it; the run command compares it with MemAvailable before measuring.
 * Stores the size that needs it in *SIZE (0 for the random workload's mix).
 */
uint64_t run_estimate_bytes(const struct run_config *config, size_t *size);

/* Frees what run_measure_all() allocated. */
void run_report_release(struct run_report *report);

#endif
