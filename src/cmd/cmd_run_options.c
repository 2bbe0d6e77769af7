/*
 * cmd_run_options.c - the run command's option table: one entry per
 * option, which parses it, bounds it and documents it (parse_options.h),
 * and the help made from it. Command layer: may exit.
 */
#include "model/backend_set.h"
#include "cmd/cli.h"
#include "cmd/cmd_run.h"
#include "platform/parse.h"
#include "cmd/parse_options.h"
#include "model/runner.h"
#include "platform/util.h"
#include "measure/workloads.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
	OPT_TOUCH = 256,
	OPT_ALIGN,
	OPT_POOL_BLOCK,
	OPT_BASELINE,
	OPT_GATE_TIME,
	OPT_ALLOW_HOST_CHANGE,
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

/* The workloads --workload knows, after its help. */
static void help_workloads(FILE *out)
{
	fputs(
"    fill         allocate total in chunks, free, fill again warm\n"
"    churn        create and destroy count objects, --rounds times; its\n"
"                 ns/pair is the fastest round after the first\n"
"    random       a seeded random live set mixing all --sizes\n"
"    threads      --threads threads swap array elements through a temporary\n"
"    replay       a program's calls, recorded with allocbench record (--trace);\n"
"                 default backends malloc,pool,arena and every installed\n"
"                 one of jemalloc, mimalloc, tcmalloc, tbbmalloc, scudo\n", out);
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
	  "backend) or per-thread (on the malloc family each\n"
	  "recorded thread in a thread of its own, within 1024\n"
	  "calls of the recorded order, as a multi-threaded\n"
	  "program's memory needs; pool and arena as global)"), OPT_GIVEN(run_cmd, args.replay_threads) },
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
	  "units in the column names; a text cell that begins\n"
	  "with = + - @ gets a ' before it) or markdown (a\n"
	  "GitHub table; HTML's < > & as entities)") },
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
	{ OPT_BOOL(OPT_GATE_TIME, "gate-time", run_cmd, gate_time,
	  "with --baseline: gate times and rates too, as\n"
	  "compare's option (allocbench ab gates them better)") },
	{ OPT_BOOL(OPT_ALLOW_HOST_CHANGE, "allow-host-change", run_cmd, allow_host_change,
	  "with --baseline: gate times and rates even where FILE\n"
	  "comes from another host, as compare's option") },
	{ OPT_UNSIGNED(OPT_TIMEOUT, "timeout", "SEC", run_cmd, config.timeout_s, 1, 86400,
	  "(expected whole seconds from 1 to 86400)",
	  "kill a measuring process still running after SEC\n"
	  "seconds, 1 to 86400 (default 600); its row fails"), OPT_UNIT(" second") },
	{ OPT_UNSIGNED('j', "jobs", "N", run_cmd, config.jobs, 0, RUN_MAX_JOBS,
	  "(expected a whole number from 0, one per CPU, to " STR(RUN_MAX_JOBS) ")",
	  "measuring processes at once, 1 to 256, or 0 for one\n"
	  "per CPU (default 1): overhead figures are the same,\n"
	  "times are measured N at a time (compare does not\n"
	  "gate times between reports of different --jobs)"), OPT_GIVEN(run_cmd, args.jobs) },
	{ OPT_BOOL(OPT_FORCE, "force", run_cmd, config.force,
	  "measure even when the largest measurement needs more\n"
	  "memory than MemAvailable, or the results more than half\n"
	  "of it (refused by default)") },
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
"       allocbench advise [options] -- COMMAND [ARG...]\n"
"       allocbench history [--metric NAME] [--format FORMAT] REPORT.json... | DIR\n"
"       allocbench ab [--pairs N] OLD NEW [-- RUN OPTIONS]\n"
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
"written, -o FILE is left as it was; 141, nothing said, when the reader of\n"
"the report's pipe went away, as cat).\n"
"See allocbench(1) for the method and every output field.\n", out);
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

void run_options_read(int argc, char **argv, struct run_cmd *cmd)
{
	struct cli_parser parser;

	run_cmd_init(cmd);
	cmd->config.argc = argc;
	cmd->config.argv = argv;

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

void run_options_release(struct run_config *config)
{
	backend_set_release(config);
	free(config->sizes);
	free(config->weights);
	memset(config, 0, sizeof(*config));
}
