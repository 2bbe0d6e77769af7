/*
 * cmd_run.c - `allocbench [run]`, the default command: parses the options,
 * refuses what cannot run (no /proc, more memory than is available, an
 * unusable --baseline), measures (run.h), writes the report in its format
 * and, with --baseline, compares it with the baseline as compare does.
 * Exit status: 0, 1 a measurement failed or a regression, 2 bad usage,
 * 128+N after signal N. Like every command file, it may exit.
 */
#include "backend_set.h"
#include "backends_list.h"
#include "run_baseline.h"
#include "cli.h"
#include "commands.h"
#include "compare.h"
#include "output.h"
#include "report.h"
#include "report_compare.h"
#include "report_formats.h"
#include "parse_options.h"
#include "parse.h"
#include "child/pool.h"
#include "preload.h"
#include "probe.h"
#include "results.h"
#include "run.h"
#include "runner.h"
#include "util.h"
#include "abi.h"
#include "child/workloads.h"
#include "record/trace.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the command line ---- */

enum {
	OPT_TOUCH = 256,
	OPT_ALIGN,
	OPT_POOL_BLOCK,
	OPT_BASELINE,
	OPT_ROUNDS,
	OPT_SEED,
	OPT_THREADS,
	OPT_COUNTERS,
	OPT_PRELOAD,
	OPT_TIMEOUT,
	OPT_FORCE,
	OPT_EXPORT,
	OPT_EXPORT_JSON,
	OPT_EXPORT_CSV,
	OPT_EXPORT_MARKDOWN,
	OPT_LABEL,
	OPT_ABI,
	OPT_TRACE,
	OPT_REPLAY_THREADS,
};

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
};

/* The workloads --workload knows, after its help. */
static void help_workloads(FILE *out)
{
	fputs(
"    fill         allocate total in chunks, free, fill again warm\n"
"    churn        create and destroy count objects, --rounds times\n"
"    random       a seeded random live set mixing all --sizes\n"
"    threads      --threads threads swap array elements through a temporary\n"
"    replay       a program's calls, recorded with allocbench record (--trace);\n"
"                 default backends malloc,pool,arena\n", out);
}

/* ---- the options' parsers: each stores into the struct run_cmd CTX ---- */

static int opt_touch(const struct cli_option *o, const char *arg, void *ctx)
{
	(void)o;
	if (touch_parse(arg, &((struct run_cmd *)ctx)->config.touch))
		return error("invalid --touch '%s' (expected none, first, pages or full)", arg);
	return 0;
}

static int opt_align(const struct cli_option *o, const char *arg, void *ctx)
{
	const char *why = "";
	uint64_t v;

	(void)o;
	if (parse_unsigned(arg, 4096, &v, &why) || !is_power_of_two(v))
		return error("invalid --align '%s' (expected a power of two from 1 to 4096)", arg);
	((struct run_cmd *)ctx)->config.align = (size_t)v;
	return 0;
}

static int opt_workload(const struct cli_option *o, const char *arg, void *ctx)
{
	(void)o;
	if (workload_parse(arg, &((struct run_cmd *)ctx)->config.workload))
		return error("unknown workload '%s' (expected fill, churn, random, threads or "
			     "replay)", arg);
	return 0;
}

static int opt_replay_threads(const struct cli_option *o, const char *arg, void *ctx)
{
	(void)o;
	if (strcmp(arg, "global") && strcmp(arg, "per-thread"))
		return error("invalid --replay-threads '%s' (expected global or per-thread)", arg);
	((struct run_cmd *)ctx)->config.replay_per_thread = !strcmp(arg, "per-thread");
	return 0;
}

static int opt_counters(const struct cli_option *o, const char *arg, void *ctx)
{
	struct run_config *config = &((struct run_cmd *)ctx)->config;

	(void)o;
	cli_parse_counters(arg, &config->counters);
	config->counters_given = 1;
	return 0;
}

static int opt_preload(const struct cli_option *o, const char *arg, void *ctx)
{
	(void)o;
	return backend_set_preload(&((struct run_cmd *)ctx)->config, arg);
}

static int opt_format(const struct cli_option *o, const char *arg, void *ctx)
{
	(void)o;
	((struct run_cmd *)ctx)->config.writer = CLI_FORMAT(report_formats, arg, "");
	return 0;
}

static int opt_label(const struct cli_option *o, const char *arg, void *ctx)
{
	(void)o;
	if (!*arg)
		return error("empty --label (give what this run is of, e.g. --label 'before "
			     "the fix')");
	((struct run_cmd *)ctx)->config.label = arg;
	return 0;
}

/* Sets the file of the export in FORMAT, named OPTION in messages; once per format. */
static int set_export(struct run_cmd *cmd, const struct report_writer *format,
		      const char *option, const char *path)
{
	struct run_export *e = &cmd->exports[format - report_formats];

	if (e->path)
		return error("%s is given twice ('%s' and '%s')", e->option, e->path, path);
	if (!*path)
		return error("empty file name for %s", option);
	*e = (struct run_export){ option, format, path };
	return 0;
}

/* --export FORMAT=FILE. */
static int opt_export(const struct cli_option *o, const char *arg, void *ctx)
{
	static char option[REPORT_FORMATS][32];
	const struct report_writer *format;
	const char *eq = strchr(arg, '=');
	char name[32], names[64];

	(void)o;
	if (!eq)
		return error("invalid --export '%s' (expected FORMAT=FILE, e.g. json=run.json)",
			     arg);
	snprintf(name, sizeof(name), "%.*s", (int)(eq - arg), arg);
	format = report_format_find(name);
	if (!format) {
		report_formats_names(names, sizeof(names));
		return error("invalid format '%s' in --export '%s' (expected %s)", name, arg,
			     names);
	}
	snprintf(option[format - report_formats], sizeof(option[0]), "--export %s",
		 format->name);
	return set_export(ctx, format, option[format - report_formats], eq + 1);
}

/* --export-json FILE, --export-csv FILE, --export-markdown FILE: --export FORMAT=FILE. */
static int opt_export_alias(const struct cli_option *o, const char *arg, void *ctx)
{
	const char *format = o->name + strlen("export-");

	return set_export(ctx, report_format_find(format),
			  o->id == OPT_EXPORT_JSON ? "--export-json" : o->id == OPT_EXPORT_CSV ?
			  "--export-csv" : "--export-markdown", arg);
}

static int opt_version(const struct cli_option *o, const char *arg, void *ctx)
{
	(void)o;
	(void)arg;
	(void)ctx;
	printf("allocbench %s\n", ALLOCBENCH_VERSION);
	cli_exit_printed();
}

#define STR_(x) #x
#define STR(x) STR_(x)

static const struct cli_option run_options[] = {
	{ OPT_STRING('s', "sizes", "LIST", run_cmd, args.sizes,
	  "chunk sizes in bytes, comma-separated (default\n"
	  RUN_DEFAULT_SIZES "); a range LO..HI doubles from\n"
	  "LO up to HI, LO..HI:xF multiplies by F, LO..HI:+S\n"
	  "adds S; random: SIZE:WEIGHT items weigh the mix\n"
	  "(24:70,48:30: 70% of the allocations are 24 B)") },
	{ OPT_STRING('b', "backend", "LIST", run_cmd, args.backends,
	  "backends, comma-separated (default\n"
	  RUN_DEFAULT_BACKENDS "):"), .more = backend_set_help },
	{ OPT_SIZE('t', "total", "BYTES", run_cmd, config.total_bytes, 1, UINT64_MAX, NULL,
	  "bytes allocated per measurement (default 100M);\n"
	  "count = total / size; K, M, G, T and KiB, MiB, GiB,\n"
	  "TiB are binary (1024), KB, MB, GB, TB decimal (1000)"),
	  OPT_GIVEN(run_cmd, args.total) },
	{ OPT_UNSIGNED('r', "repeat", "N", run_cmd, config.repeat, 1, RUN_MAX_REPEAT,
	  "(expected a whole number from 1 to " STR(RUN_MAX_REPEAT) ")",
	  "fresh-process repetitions per measurement (default 3);\n"
	  "the report gives their median, min and max") },
	{ OPT_CALLBACK(OPT_TOUCH, "touch", "POLICY", opt_touch,
	  "what is written into each chunk after allocation:\n"
	  "none, first (its first byte), pages (first byte, one\n"
	  "byte in every page it overlaps, last byte; default),\n"
	  "full (every byte)") },
	{ OPT_CALLBACK(OPT_ALIGN, "align", "N", opt_align,
	  "alignment of pool and arena chunks in bytes, a power\n"
	  "of two up to 4096 (default: the size's natural\n"
	  "alignment, its largest power-of-two divisor up to 16)") },
	{ OPT_SIZE(OPT_POOL_BLOCK, "pool-block", "BYTES", run_cmd, config.pool_block_bytes,
	  1, (uint64_t)1 << 40, "(expected from 1 byte to 1T)",
	  "bytes the pool takes from the system at a time\n"
	  "(default 1M, rounded up to whole pages; at most\n"
	  "4 GiB times the alignment, and 64 GiB)") },
	{ OPT_CALLBACK('w', "workload", "NAME", opt_workload,
	  "what is measured (default fill):"), .more = help_workloads },
	{ OPT_UNSIGNED(OPT_ROUNDS, "rounds", "N", run_cmd, config.rounds, 1, 1000000,
	  "(expected a whole number from 1 to 1000000)",
	  "churn, threads: rounds (default: about 16 million\n"
	  "operations in all, 2 to 1000 rounds)"), OPT_GIVEN(run_cmd, args.rounds) },
	{ OPT_UNSIGNED(OPT_SEED, "seed", "N", run_cmd, config.seed, 0, UINT64_MAX,
	  "(expected a whole number)",
	  "random: the generator's seed (default 20120528)"), OPT_GIVEN(run_cmd, args.seed) },
	{ OPT_UNSIGNED(OPT_THREADS, "threads", "N", run_cmd, config.threads, 1,
	  MEASURE_MAX_THREADS, "(expected a whole number from 1 to " STR(MEASURE_MAX_THREADS) ")",
	  "threads: threads at once, 1 to 256 (default: CPUs)"),
	  OPT_GIVEN(run_cmd, args.threads) },
	{ OPT_FILENAME(OPT_TRACE, "trace", "FILE", run_cmd, config.trace_path,
	  "replay: the trace allocbench record wrote") },
	{ OPT_CALLBACK(OPT_REPLAY_THREADS, "replay-threads", "MODE", opt_replay_threads,
	  "replay: global (default: every call in one thread in\n"
	  "the recorded order, the same sequence on every\n"
	  "backend, pool and arena included) or per-thread (each\n"
	  "recorded thread in a thread of its own, a free from\n"
	  "another thread after its allocation; malloc family\n"
	  "only)"), OPT_GIVEN(run_cmd, args.replay_threads) },
	{ OPT_CALLBACK(OPT_COUNTERS, "counters", "LIST", opt_counters,
	  "events counted through PAPI around the allocation loop\n"
	  "and the free loop, comma-separated: presets\n"
	  "(PAPI_TOT_CYC), native events (perf::PAGE-FAULTS),\n"
	  "allocbench's own (allocbench::allocs; allocbench for\n"
	  "all of them), default, or none; default:\n"
	  COUNTERS_DEFAULT_PRESETS ",\n"
	  "allocbench.\n"
	  "'allocbench counters' says which this machine counts;\n"
	  "an unknown name (a typo) is refused; fill workload only"),
	  OPT_GIVEN(run_cmd, args.counters) },
	{ OPT_STRING(OPT_ABI, "abi", "LIST", run_cmd, args.abi,
	  "word sizes to measure in, bits: 64 (default), 32, or\n"
	  "32,64 for both; 32-bit rows are named NAME/32 and run\n"
	  "in allocbench-child32, built with -m32 where the\n"
	  "compiler can (gcc-multilib, libc6-dev-i386)") },
	{ OPT_CALLBACK(OPT_PRELOAD, "preload", "NAME=PATH", opt_preload,
	  "measure the allocator library PATH as backend NAME\n"
	  "(LD_PRELOAD in the measuring process); repeatable"),
	  .help_under = "backend" },
	{ OPT_CALLBACK('f', "format", "FORMAT", opt_format,
	  "text (default), json, csv (one line per result,\n"
	  "units in the column names) or markdown (a GitHub\n"
	  "table)") },
	{ OPT_FILENAME('o', "output", "FILE", run_cmd, config.output_path,
	  "write the report to FILE (via a temporary file that\n"
	  "is linked into place; through a link, its target)\n"
	  "instead of standard output; not an input's file") },
	{ OPT_CALLBACK('l', "label", "TEXT", opt_label,
	  "what this run is of (\"before the fix\"): kept in the\n"
	  "report, shown by show, compare and plot") },
	{ OPT_CALLBACK(OPT_EXPORT, "export", "FORMAT=FILE", opt_export,
	  "also write the report in FORMAT (text, json, csv or\n"
	  "markdown) to FILE, whatever the format on standard\n"
	  "output or -o; repeatable, once per format") },
	{ OPT_CALLBACK(OPT_EXPORT_JSON, "export-json", "FILE", opt_export_alias,
	  "also write the report as JSON to FILE, whatever\n"
	  "the format on standard output or -o") },
	{ OPT_CALLBACK(OPT_EXPORT_CSV, "export-csv", "FILE", opt_export_alias,
	  "also write the report as CSV to FILE") },
	{ OPT_CALLBACK(OPT_EXPORT_MARKDOWN, "export-markdown", "FILE", opt_export_alias,
	  "also write the report as Markdown to FILE") },
	{ OPT_FILENAME(OPT_BASELINE, "baseline", "FILE", run_cmd, config.baseline_path,
	  "after measuring, compare with the JSON report FILE\n"
	  "as allocbench compare does (its default limits),\n"
	  "print the comparison on standard error, exit 1 on\n"
	  "a regression; FILE is checked before measuring") },
	{ OPT_UNSIGNED(OPT_TIMEOUT, "timeout", "SEC", run_cmd, config.timeout_s, 1, 86400,
	  "(expected whole seconds from 1 to 86400)",
	  "kill a measuring process still running after SEC\n"
	  "seconds, 1 to 86400 (default 600); its row fails") },
	{ OPT_UNSIGNED('j', "jobs", "N", run_cmd, config.jobs, 0, RUN_MAX_JOBS,
	  "(expected a whole number from 0, one per CPU, to " STR(RUN_MAX_JOBS) ")",
	  "measuring processes at once, 1 to 256, or 0 for one\n"
	  "per CPU (default 1): overhead figures are the same,\n"
	  "times are measured N at a time (compare does not\n"
	  "gate times between reports of different --jobs)"), OPT_GIVEN(run_cmd, args.jobs) },
	{ OPT_BOOL(OPT_FORCE, "force", run_cmd, config.force,
	  "measure even when the largest measurement needs more\n"
	  "memory than MemAvailable (refused by default)") },
	{ OPT_BOOL('q', "quiet", run_cmd, config.quiet, "no progress on standard error") },
	CLI_OPT_HELP,
	{ OPT_CALLBACK('V', "version", NULL, opt_version, "print the version and exit") },
	CLI_OPTIONS_END,
};

/* The run command's help, the tool's main help. */
static void run_help(FILE *out)
{
	fputs(
"usage: allocbench [run] [options]\n"
"       allocbench compare BASELINE.json CURRENT.json [options]\n"
"       allocbench plot [--metric LIST] [-o FILE] [FILE...]\n"
"       allocbench show [--format FORMAT] [-o FILE] REPORT.json...\n"
"       allocbench counters [--counters LIST] [--format FORMAT]\n"
"       allocbench backends [--format FORMAT]\n"
"       allocbench record [-o FILE] [--] COMMAND [ARG...]\n"
"       allocbench report TRACE [--format FORMAT]\n"
"       allocbench --help | --version | COMMAND --help\n"
"\n"
"Measures what one allocation really costs: resident bytes and nanoseconds per\n"
"chunk, allocating --total bytes in chunks of one size at a time, each\n"
"measurement in a freshly executed process.\n"
"\n"
"Options:\n", out);
	cli_help_options(out, run_options, 25);
	fputs(
"\n"
"Exit status: 0 every measurement succeeded, 1 one failed (its row says why)\n"
"or --baseline found a regression, 2 bad usage, an unusable --baseline or a\n"
"--total larger than the memory available, 128+N after signal N (130 SIGINT,\n"
"143 SIGTERM, 129 SIGHUP...: the measuring process is killed, no report is\n"
"written, -o FILE is left as it was).\n"
"See allocbench(1) for the method and every output field.\n", out);
}

/*
 * A weighted mix, --sizes 24:70,48:30: every item SIZE:WEIGHT (a whole
 * number from 1 to MEASURE_MAX_WEIGHT, the size's share of the random
 * workload's allocations), none a range. Returns 0 when TEXT has no weight
 * (an ordinary list); exits 2 on a bad one.
 */
static int parse_weighted_sizes(const char *text, struct run_config *config)
{
	char *copy, *item, *save = NULL;
	size_t n = 0;

	if (!strchr(text, ':') || strstr(text, ".."))
		return 0;
	copy = strdup(text);
	if (!copy)
		die_out_of_memory();
	free(config->sizes);
	free(config->weights);
	config->sizes = calloc(MEASURE_MAX_MIX + 1, sizeof(*config->sizes));
	config->weights = calloc(MEASURE_MAX_MIX + 1, sizeof(*config->weights));
	if (!config->sizes || !config->weights)
		die_out_of_memory();
	for (item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(item, ':');
		const char *why = "";
		uint64_t size, weight;

		if (n == MEASURE_MAX_MIX)
			usage_die("the random workload mixes at most %d sizes; --sizes '%s' has more",
				  MEASURE_MAX_MIX, text);
		if (!colon)
			usage_die("invalid size '%s' in --sizes: a weighted mix gives every size its "
				  "weight (expected SIZE:WEIGHT, e.g. 24:70,48:30)", item);
		*colon = '\0';
		if (parse_bytes(item, &size, &why) || !size || size > PARSE_MAX_SIZE)
			usage_die("invalid size '%s' in --sizes: %s (expected SIZE:WEIGHT, e.g. "
				  "24:70,48:30)", item, *why ? why : "out of range");
		if (parse_unsigned(colon + 1, MEASURE_MAX_WEIGHT, &weight, &why) || !weight)
			usage_die("invalid weight '%s' of size %s in --sizes: %s (expected a whole "
				  "number from 1 to %d, e.g. 24:70,48:30)", colon + 1, item,
				  *why ? why : "zero", MEASURE_MAX_WEIGHT);
		for (size_t k = 0; k < n; k++)
			if (config->sizes[k] == size)
				usage_die("size %s given twice in --sizes '%s'", item, text);
		config->sizes[n] = (size_t)size;
		config->weights[n++] = (unsigned)weight;
	}
	free(copy);
	if (!n)
		usage_die("empty --sizes list");
	config->nsizes = n;
	return 1;
}

static void parse_sizes(const char *text, struct run_config *config)
{
	char bad[64];
	const char *why = "";

	if (parse_weighted_sizes(text, config))
		return;
	free(config->sizes);
	free(config->weights);
	config->weights = NULL;
	if (parse_size_list(text, &config->sizes, &config->nsizes, bad, sizeof(bad), &why)) {
		if (why == parse_out_of_memory)
			die_out_of_memory();
		usage_die("invalid size '%s' in --sizes: %s (expected positive byte counts "
			  "or ranges, e.g. 4,40,400 or 8..4096)", bad, why);
	}
}


/*
 * What decides how much is alive, as a message names it: --total, or the
 * replayed trace's peak (the user gave no --total then).
 */
static const char *total_subject(const struct run_config *config)
{
	static char buf[4200];

	if (config->workload == WORKLOAD_REPLAY)
		snprintf(buf, sizeof(buf), "trace '%s' (a peak of %llu live bytes)", config->trace_path,
			 (unsigned long long)config->total_bytes);
	else
		snprintf(buf, sizeof(buf), "--total %llu", (unsigned long long)config->total_bytes);
	return buf;
}

/*
 * Refuses (exit 2) a --total whose measurements a process cannot hold: more
 * chunks than the random workload's plan can name, or a memory bound (the
 * chunks, their pointers, the pool's blocks) beyond a 64-bit address space.
 * This is arithmetic, not the machine's memory: --force does not lift it.
 */
static void check_representable(const struct run_config *config)
{
	unsigned long long total = (unsigned long long)config->total_bytes;

	if (config->workload == WORKLOAD_RANDOM) {
		uint64_t live = config->total_bytes / run_mix_mean_size(config);

		if (live > RANDOM_OP_ARG)
			usage_die("--total %llu is too large for the random workload: %llu chunks "
				  "of the mix's mean size alive at once, at most %u can be named in "
				  "its sequence", total, (unsigned long long)live, RANDOM_OP_ARG);
	}
	for (size_t i = 0; i < config->nsizes; i++) {
		uint64_t count = config->total_bytes / config->sizes[i];

		for (size_t b = 0; b < config->nbackends; b++) {
			uint64_t need = run_bound_bytes(config, config->backends[b],
							config->sizes[i]);
			char bytes[32];

			if (config->backends[b]->abi == 32 && need > RUN_MAX_BOUND_BYTES_32)
				usage_die("%s cannot be measured at size %zu in a 32-bit "
					  "process (--abi 32): %llu chunks need up to %llu bytes, "
					  "more than its 4 GiB address space holds beside the "
					  "program (%llu)", total_subject(config), config->sizes[i],
					  (unsigned long long)count, (unsigned long long)need,
					  (unsigned long long)RUN_MAX_BOUND_BYTES_32);
			if (need <= RUN_MAX_BOUND_BYTES)
				continue;
			if (need == UINT64_MAX)
				snprintf(bytes, sizeof(bytes), "more than 2^64");
			else
				snprintf(bytes, sizeof(bytes), "%llu", (unsigned long long)need);
			usage_die("%s cannot be measured at size %zu: %llu chunks with "
				  "their pointers need %s bytes, more than a process can address "
				  "(%llu)", total_subject(config), config->sizes[i], (unsigned long long)count,
				  bytes, (unsigned long long)RUN_MAX_BOUND_BYTES);
		}
	}
}

/* Fills *CMD with the defaults. */
static void run_cmd_init(struct run_cmd *cmd)
{
	struct run_config *config = &cmd->config;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	memset(cmd, 0, sizeof(*cmd));
	config->workload = WORKLOAD_FILL;
	config->seed = RUN_DEFAULT_SEED;
	config->threads = cpus < 1 ? 1 : cpus > MEASURE_MAX_THREADS ? MEASURE_MAX_THREADS : (unsigned)cpus;
	config->total_bytes = RUN_DEFAULT_TOTAL;
	config->repeat = RUN_DEFAULT_REPEAT;
	config->touch = TOUCH_PAGES;
	config->pool_block_bytes = RUN_DEFAULT_POOL_BLOCK;
	config->writer = &report_formats[0];
	config->timeout_s = RUNNER_DEFAULT_TIMEOUT;
	counters_default_list(&config->counters);
}

/*
 * Refuses (exit 2) one file given to two of -o (standard output without
 * it) and the --export options, the second write would replace the first;
 * or one of them that is an input (--trace, --baseline, a --preload
 * library): it would be destroyed. By device and inode, not by name.
 */
static void check_outputs(const struct run_cmd *cmd)
{
	const struct run_config *config = &cmd->config;
	struct output_use *uses = calloc(3 + REPORT_FORMATS + config->npreloads, sizeof(*uses));
	size_t n = 0;

	if (!uses)
		die_out_of_memory();
	uses[n++] = (struct output_use){ config->output_path ? config->output_path : "-",
					 config->output_path ? "--output" : "the report", 1 };
	for (size_t i = 0; i < REPORT_FORMATS; i++) {
		const struct run_export *e = &cmd->exports[i];

		if (e->path && !strcmp(e->path, "-"))
			usage_die("%s '-': standard output holds the --format report; "
				  "name a file", e->option);
		uses[n++] = (struct output_use){ e->path, e->option, 1 };
	}
	uses[n++] = (struct output_use){ config->trace_path, "--trace", 0 };
	uses[n++] = (struct output_use){ config->baseline_path, "--baseline", 0 };
	for (size_t i = 0; i < config->npreloads; i++)
		if (config->preloads[i]->from_option)
			uses[n++] = (struct output_use){ config->preloads[i]->path, "--preload", 0 };
	if (output_refuse_same(uses, n))
		exit(2);
	free(uses);
}

/* Reads the options of ARGV into *CMD; exits 2 on a bad one. */
static void read_options(int argc, char **argv, struct run_cmd *cmd)
{
	struct cli_parser parser;

	cli_parser_init(&parser, run_options, run_help, "allocbench --help", argc, argv);
	parser.ctx = cmd;
	while (cli_next(&parser) != -1)
		;
	if (optind < argc)
		usage_die("unexpected argument '%s' (see allocbench --help)", argv[optind]);
	if (cmd->args.jobs && !cmd->config.jobs) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);

		cmd->config.jobs = cpus < 1 ? 1 : cpus > RUN_MAX_JOBS ? RUN_MAX_JOBS :
				   (unsigned)cpus;
	}
}

/*
 * The replay workload: --trace is read now (exit 2 when it is not a
 * trace), its figures kept in CONFIG->replay; the sizes and the total are
 * the trace's (its mean allocation size, its peak live bytes), not options.
 */
static void check_replay(struct run_config *config, struct run_args *args)
{
	struct replay_plan plan;
	struct trace trace;
	char why[512];

	if (!config->trace_path)
		usage_die("the replay workload needs --trace FILE (a trace allocbench record wrote)");
	if (args->sizes || args->total)
		usage_die("--sizes and --total do not apply to the replay workload: the trace "
			  "decides every size and how much is alive");
	if (trace_load(config->trace_path, &trace, why, sizeof(why)))
		usage_die("%s", why);
	if (trace_analyze(config->trace_path, &trace, NULL, &plan, why, sizeof(why)))
		usage_die("%s", why);
	config->replay = (struct run_replay){
		.calls = trace.nevents, .steps = plan.nops, .checksum = plan.checksum, .slots = plan.nslots,
		.threads = plan.nthreads, .peak_live_bytes = plan.peak_live_bytes,
		.alloc_bytes = plan.alloc_bytes, .allocs = plan.nallocs, .max_align = plan.max_align,
		.cut_short = trace.header.state == TRACE_STATE_WRITING,
	};
	replay_plan_release(&plan);
	trace_release(&trace);
	if (!config->replay.steps)
		usage_die("'%s' has no allocation to replay", config->trace_path);
	if (!args->backends)
		args->backends = RUN_DEFAULT_REPLAY_BACKENDS;
	/*
	 * One column, at the mean size of an allocation (the memory bound's and
	 * the row's): the trace's, not --sizes (whose limits are for options).
	 */
	free(config->sizes);
	config->sizes = calloc(1, sizeof(*config->sizes));
	if (!config->sizes)
		die_out_of_memory();
	config->sizes[0] = (size_t)(config->replay.alloc_bytes / config->replay.allocs + 1);
	config->nsizes = 1;
	config->total_bytes = config->replay.peak_live_bytes > config->replay.alloc_bytes /
			      config->replay.allocs + 1 ? config->replay.peak_live_bytes :
			      config->replay.alloc_bytes / config->replay.allocs + 1;
}

/*
 * What only the options together say: an option the workload ignores, the
 * lists, sizes larger than --total, what a process cannot hold. Exits 2.
 */
static void check_options(struct run_config *config, struct run_args *args)
{
	/* An option the chosen workload would silently ignore is a mistake. */
	if (args->rounds && config->workload != WORKLOAD_CHURN && config->workload != WORKLOAD_THREADS)
		usage_die("--rounds '%s' applies to the churn and threads workloads, not '%s'",
			  args->rounds, workload_name(config->workload));
	if (args->seed && config->workload != WORKLOAD_RANDOM)
		usage_die("--seed '%s' applies to the random workload, not '%s'",
			  args->seed, workload_name(config->workload));
	if (args->threads && config->workload != WORKLOAD_THREADS)
		usage_die("--threads '%s' applies to the threads workload, not '%s'",
			  args->threads, workload_name(config->workload));
	/* Counters are read around fill's two loops; the other workloads count nothing. */
	if (config->workload != WORKLOAD_FILL) {
		if (args->counters && config->counters.n)
			usage_die("--counters '%s' applies to the fill workload, not '%s'",
				  args->counters, workload_name(config->workload));
		config->counters.n = 0;
	}

	if (config->trace_path && config->workload != WORKLOAD_REPLAY)
		usage_die("--trace '%s' applies to the replay workload, not '%s'",
			  config->trace_path, workload_name(config->workload));
	if (args->replay_threads && config->workload != WORKLOAD_REPLAY)
		usage_die("--replay-threads '%s' applies to the replay workload, not '%s'",
			  args->replay_threads, workload_name(config->workload));
	if (config->workload == WORKLOAD_REPLAY)
		check_replay(config, args);
	else
		parse_sizes(args->sizes ? args->sizes : RUN_DEFAULT_SIZES, config);
	if (!args->backends)
		args->backends = RUN_DEFAULT_BACKENDS;
	switch (backend_set_parse(config, args->backends)) {
	case 1:
		/* As allocbench backends, with the --preload backends of this line. */
		if (backends_list_write(stdout, 0, config->preloads, config->npreloads)) {
			error("cannot write the list to standard output: %s",
			      strerror(errno ? errno : EIO));
			exit(1);
		}
		cli_exit_printed();
	case -1:
		exit(2);
	}
	if (config->weights && config->workload != WORKLOAD_RANDOM)
		usage_die("weights in --sizes ('%s') apply to the random workload's mix, not to "
			  "'%s'", args->sizes, workload_name(config->workload));
	if (backend_set_abis(config, args->abi, !strcmp(args->backends, "all")))
		exit(2);
	if (config->workload == WORKLOAD_RANDOM && config->nsizes > MEASURE_MAX_MIX)
		usage_die("the random workload mixes at most %d sizes; --sizes has %zu",
			  MEASURE_MAX_MIX, config->nsizes);
	if (backend_set_check_pool_block(config))
		exit(2);
	for (size_t i = 0; i < config->nsizes; i++)
		if (config->sizes[i] > config->total_bytes)
			usage_die("size %zu in --sizes is larger than --total (%llu bytes): "
				  "nothing would be allocated", config->sizes[i],
				  (unsigned long long)config->total_bytes);
	check_representable(config);
}

/*
 * Parses the run command's ARGV (ARGV[0] is the command name) into *CMD.
 * Exits with status 2 and a message naming the bad value on bad usage, and
 * with status 0 after --help or --version.
 */
static void parse_run(int argc, char **argv, struct run_cmd *cmd)
{
	run_cmd_init(cmd);
	cmd->config.argc = argc;
	cmd->config.argv = argv;
	read_options(argc, argv, cmd);
	check_outputs(cmd);  /* before any input is read */
	check_options(&cmd->config, &cmd->args);
}

/* Frees what parse_run() allocated. */
static void config_release(struct run_config *config)
{
	backend_set_release(config);
	free(config->sizes);
	free(config->weights);
	memset(config, 0, sizeof(*config));
}

/* ---- measuring ---- */

/*
 * Refuses (returns -1 after saying why) a run whose largest measurement
 * needs more memory than the machine has available: it would be killed by
 * the OOM killer after minutes, or push the machine into swap and measure
 * that. Without MemAvailable (no /proc) the check is skipped with a warning.
 */
static int check_memory(const struct run_config *config)
{
	uint64_t available, need;
	size_t size;

	if (probe_meminfo_read("/proc/meminfo", "MemAvailable", &available)) {
		warning("cannot read MemAvailable from '/proc/meminfo': the memory a "
			"measurement needs is not checked");
		return 0;
	}
	need = run_estimate_bytes(config, &size);
	if (config->jobs > 1) {
		/* --jobs: that many measurements may be the largest at once. */
		need = need > UINT64_MAX / config->jobs ? UINT64_MAX : need * config->jobs;
		if (need <= available)
			return 0;
		return error("--jobs %u runs %u measurements at once, each needing up to about "
			     "%llu MiB, more than the %llu MiB available (MemAvailable); use fewer "
			     "--jobs, a smaller --total, or --force to measure anyway",
			     config->jobs, config->jobs,
			     (unsigned long long)(need / config->jobs >> 20),
			     (unsigned long long)(available >> 20));
	}
	if (need <= available)
		return 0;
	if (size)
		return error("%s needs about %llu MiB at size %zu (the chunks, "
			     "their 8-byte pointers and the allocator's overhead), more than "
			     "the %llu MiB available (MemAvailable); use %s--force to measure "
			     "anyway", total_subject(config),
			     (unsigned long long)(need >> 20), size,
			     (unsigned long long)(available >> 20),
			     config->workload == WORKLOAD_REPLAY ? "" : "a smaller --total, or ");
	return error("%s needs about %llu MiB (the chunks %s, their 8-byte pointers, the plan "
		     "and the allocator's overhead), more than the %llu MiB available "
		     "(MemAvailable); use %s--force to measure anyway", total_subject(config),
		     (unsigned long long)(need >> 20),
		     config->workload == WORKLOAD_REPLAY ? "alive at its peak" : "of the mix",
		     (unsigned long long)(available >> 20),
		     config->workload == WORKLOAD_REPLAY ? "" : "a smaller --total, or ");
}

/*
 * After a terminating signal: nothing is written, and the status says which
 * (main() then ends the process by the signal). SIGPIPE, a reader that went
 * away, is as silent as its default action.
 */
static int interrupted_status(int sig, const struct run_config *config)
{
	if (sig == SIGPIPE)
		return 128 + sig;
	error("interrupted by SIG%s: the measuring process was stopped and no report "
	      "was written%s%s%s", sigabbrev_np(sig), config->output_path ? " ('" : "",
	      config->output_path ? config->output_path : "",
	      config->output_path ? "' is left as it was)" : "");
	return 128 + sig;
}

/*
 * An event no one has heard of is a typo, refused before anything is
 * measured (exit 2) with the nearest known names; one that exists but cannot
 * be counted here is measured without, and the report says why.
 */
static void refuse_unknown_counters(const struct counter_list *list)
{
	struct counters_check *check;

	if (!list->n)
		return;
	check = malloc(sizeof(*check));
	if (!check)
		return; /* the run's own check says what it can */
	counters_check(list, check);
	for (size_t i = 0; i < list->n; i++) {
		const struct counter_status *st = &check->events[i];
		const char *name = list->names[i];
		char shown[COUNTERS_NAME_MAX + 16];

		if (!st->unknown)
			continue;
		if (counters_short_name(name) != name)
			snprintf(shown, sizeof(shown), COUNTERS_SDE_LIBRARY "::%s",
				 counters_short_name(name));
		else
			copy_string(shown, sizeof(shown), name);
		usage_die("unknown event '%s' in --counters%s%s%s ('allocbench counters' says "
			  "which events this machine counts)", shown,
			  *st->nearest ? "; did you mean " : "", st->nearest, *st->nearest ? "?" : "");
	}
	free(check);
}

/*
 * Writes REPORT to each --export-FORMAT file opened in EXPORTS (OPEN[i]
 * set) and renames it into place; clears OPEN[i] for each one done.
 * Returns 0, or -1 after an error naming the file (the others are still
 * written).
 */
static int write_exports(const struct run_cmd *cmd, const struct run_report *report,
			 struct output *exports, int *open)
{
	int ret = 0;

	for (size_t i = 0; i < REPORT_FORMATS; i++) {
		const struct run_export *e = &cmd->exports[i];

		if (!open[i])
			continue;
		open[i] = 0;
		errno = 0;
		if (e->writer->write(exports[i].file, report)) {
			error("cannot write the report to '%s' (%s): %s", e->path, e->option,
			      strerror(errno ? errno : EIO));
			output_abort(&exports[i]);
			ret = -1;
		} else if (output_commit(&exports[i])) {
			ret = -1;
		}
	}
	return ret;
}

int cmd_run(int argc, char **argv)
{
	struct run_cmd cmd;
	struct run_config *config = &cmd.config;
	struct run_report report;
	struct result_file baseline;
	struct output out, exports[REPORT_FORMATS];
	int have_baseline = 0, have_report = 0, have_output = 0;
	int have_export[REPORT_FORMATS] = { 0 };
	int ret;

	parse_run(argc, argv, &cmd);
	refuse_unknown_counters(&config->counters);
	/* Every measurement execs /proc/self/exe: without /proc, say so once, up front. */
	if (access("/proc/self/exe", X_OK)) {
		error("cannot run the measuring processes: '/proc/self/exe': %s (is /proc "
		      "mounted?)", strerror(errno));
		ret = 2;
		goto cleanup;
	}
	ret = 2;
	if (!config->force && check_memory(config))
		goto cleanup;
	/* Before -o's temporary file exists, so that an interrupt can remove it. */
	ret = 1;
	if (runner_signals_install())
		goto cleanup;
	/* An unusable baseline is refused before anything is measured. */
	ret = 2;
	if (config->baseline_path) {
		if (baseline_open(config->baseline_path, config, &baseline))
			goto cleanup;
		have_baseline = 1;
	}
	if (output_open(&out, config->output_path)) {
		/* A signal while a FIFO waits for its reader is an interrupt, not bad usage. */
		if (runner_interrupted())
			ret = interrupted_status(runner_interrupted(), config);
		goto cleanup;
	}
	have_output = 1;
	for (size_t i = 0; i < REPORT_FORMATS; i++) {
		if (!cmd.exports[i].path)
			continue;
		if (output_open(&exports[i], cmd.exports[i].path)) {
			if (runner_interrupted())
				ret = interrupted_status(runner_interrupted(), config);
			goto cleanup;
		}
		have_export[i] = 1;
	}
	ret = run_measure_all(config, &report);
	have_report = 1;
	if (ret) {
		ret = 1;
		goto cleanup;
	}
	if (report.interrupted) {
		ret = interrupted_status(report.interrupted, config);
		goto cleanup;
	}
	ret = config->writer->write(out.file, &report);
	if (runner_interrupted()) {
		/* Too late to stop a child, in time to keep -o as it was. */
		ret = interrupted_status(runner_interrupted(), config);
		goto cleanup;
	}
	if (ret) {
		error("cannot write the report to %s: %s", config->output_path ? config->output_path :
		      "standard output", strerror(errno ? errno : EIO));
		output_abort(&out);
	} else {
		ret = output_commit(&out);
	}
	have_output = 0;
	if (!ret)
		ret = write_exports(&cmd, &report, exports, have_export);
	ret = ret ? 1 : report.failed ? 1 : 0;
	/*
	 * The comparison goes to standard error, so that standard output (or
	 * -o) holds the report alone, in its format.
	 */
	if (have_baseline) {
		int cmp = baseline_compare(&baseline, &report, stderr);

		ret = cmp < 0 ? 2 : cmp ? 1 : ret;
	}
cleanup:
	if (have_output)
		output_abort(&out);
	for (size_t i = 0; i < REPORT_FORMATS; i++)
		if (have_export[i])
			output_abort(&exports[i]);
	if (have_report)
		run_report_release(&report);
	if (have_baseline)
		results_release(&baseline);
	config_release(config);
	return ret;
}
