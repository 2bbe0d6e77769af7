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
#include "measure/allocator.h"
#include "measure/backend.h"
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
"    churn        create and destroy count objects, --rounds times\n"
"    random       a seeded random live set mixing all --sizes\n"
"    threads      --threads threads swap array elements through a temporary\n"
"    replay       a program's calls, recorded by allocbench record (--trace)\n", out);
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

int run_replay_threads_parse(const char *arg, int *per_thread)
{
	if (strcmp(arg, "global") && strcmp(arg, "per-thread"))
		return error("invalid --replay-threads '%s' (expected global or per-thread)", arg);
	*per_thread = !strcmp(arg, "per-thread");
	return 0;
}

static int opt_replay_threads(const struct cli_option *o, const char *arg, void *ctx)
{
	(void)o;
	return run_replay_threads_parse(arg, &((struct run_cmd *)ctx)->config.replay_per_thread);
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

/* The values --backend knows, for its --help lines. */
static void backend_help(FILE *out)
{
	for (size_t i = 0; backend_table[i]; i++)
		fprintf(out, "    %-12s %s\n", backend_table[i]->name, backend_table[i]->summary);
	for (size_t i = 0; allocator_known[i].name; i++)
		fprintf(out, "    %-12s %s\n", allocator_known[i].name, allocator_known[i].summary);
	fputs(
"    NAME         a library given with --preload NAME=PATH\n"
"    all          each one installed that can do the workload, each --preload\n"
"    list         say which run here and why not; measure nothing\n"
"    ALLOCATOR:NAME=VALUE[:...]  with settings: allocbench-backends(1), SETTINGS\n",
	      out);
}

#define STR_(x) #x
#define STR(x) STR_(x)

static const struct cli_option run_options[] = {
	{ OPT_STRING('s', "sizes", "LIST", run_cmd, args.sizes,
	  "chunk sizes in bytes (default " RUN_DEFAULT_SIZES ")") },
	{ OPT_STRING('b', "backend", "LIST", run_cmd, args.backends,
	  "backends (default " RUN_DEFAULT_BACKENDS "):"), .more = backend_help },
	{ OPT_SIZE('t', "total", "BYTES", run_cmd, config.total_bytes, 1, UINT64_MAX, NULL,
	  "bytes allocated per measurement (default 100M)"),
	  OPT_GIVEN(run_cmd, args.total) },
	{ OPT_UNSIGNED('r', "repeat", "N", run_cmd, config.repeat, 1, RUN_MAX_REPEAT,
	  "(expected a whole number from 1 to " STR(RUN_MAX_REPEAT) ")",
	  "fresh-process repetitions per measurement (default 3)") },
	{ OPT_CALLBACK(OPT_TOUCH, "touch", "POLICY", opt_touch,
	  "what is written: none, first, pages (default) or full") },
	{ OPT_CALLBACK(OPT_ALIGN, "align", "N", opt_align,
	  "alignment of pool and arena chunks (default: natural)") },
	{ OPT_SIZE(OPT_POOL_BLOCK, "pool-block", "BYTES", run_cmd, config.pool_block_bytes,
	  1, (uint64_t)1 << 40, "(expected from 1 byte to 1T)",
	  "bytes the pool takes at a time (default 1M)") },
	{ OPT_CALLBACK('w', "workload", "NAME", opt_workload,
	  "what is measured (default fill):"), .more = help_workloads },
	{ OPT_UNSIGNED(OPT_ROUNDS, "rounds", "N", run_cmd, config.rounds, 1, 1000000,
	  "(expected a whole number from 1 to 1000000)",
	  "churn, threads: rounds (default: about 16M operations)"),
	  OPT_GIVEN(run_cmd, args.rounds) },
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
	  "replay: global (default) or per-thread"),
	  OPT_GIVEN(run_cmd, args.replay_threads) },
	{ OPT_CALLBACK(OPT_COUNTERS, "counters", "LIST", opt_counters,
	  "fill: events to count (default as allocbench counters)"),
	  OPT_GIVEN(run_cmd, args.counters) },
	{ OPT_STRING(OPT_ABI, "abi", "LIST", run_cmd, args.abi,
	  "word sizes to measure in: 64 (default), 32 or 32,64") },
	{ OPT_CALLBACK(OPT_PRELOAD, "preload", "NAME=PATH", opt_preload,
	  "measure the library PATH as backend NAME; repeatable"),
	  .help_under = "backend" },
	{ OPT_CALLBACK('f', "format", "FORMAT", opt_format,
	  "text (default), json, csv or markdown") },
	{ OPT_FILENAME('o', "output", "FILE", run_cmd, config.output_path,
	  "write the report to FILE instead of standard output") },
	{ OPT_CALLBACK('l', "label", "TEXT", opt_label,
	  "what this run is of (\"before the fix\")") },
	{ OPT_CALLBACK(OPT_EXPORT, "export", "FORMAT=FILE", opt_export,
	  "also write the report in FORMAT to FILE; repeatable") },
	{ OPT_CALLBACK(OPT_EXPORT_JSON, "export-json", "FILE", opt_export_alias,
	  "also write the report as JSON to FILE") },
	{ OPT_CALLBACK(OPT_EXPORT_CSV, "export-csv", "FILE", opt_export_alias,
	  "also write the report as CSV to FILE") },
	{ OPT_CALLBACK(OPT_EXPORT_MARKDOWN, "export-markdown", "FILE", opt_export_alias,
	  "also write the report as Markdown to FILE") },
	{ OPT_FILENAME(OPT_BASELINE, "baseline", "FILE", run_cmd, config.baseline_path,
	  "after measuring, compare with the JSON report FILE") },
	{ OPT_BOOL(OPT_GATE_TIME, "gate-time", run_cmd, gate_time,
	  "with --baseline: gate times and rates too") },
	{ OPT_BOOL(OPT_ALLOW_HOST_CHANGE, "allow-host-change", run_cmd, allow_host_change,
	  "with --baseline: gate times even from another host") },
	{ OPT_UNSIGNED(OPT_TIMEOUT, "timeout", "SEC", run_cmd, config.timeout_s, 1, 86400,
	  "(expected whole seconds from 1 to 86400)",
	  "kill a measurement after SEC seconds (default 600)"), OPT_UNIT(" second") },
	{ OPT_UNSIGNED('j', "jobs", "N", run_cmd, config.jobs, 0, RUN_MAX_JOBS,
	  "(expected a whole number from 0, one per CPU, to " STR(RUN_MAX_JOBS) ")",
	  "measurements at once, 0: one per CPU (default 1)"),
	  OPT_GIVEN(run_cmd, args.jobs) },
	{ OPT_BOOL(OPT_FORCE, "force", run_cmd, config.force,
	  "measure even beyond the memory available") },
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
"       allocbench history [options] REPORT.json... | DIR\n"
"       allocbench ab [--pairs N] OLD NEW [-- RUN OPTIONS]\n"
"       allocbench --help | --version | COMMAND --help\n"
"\n"
"Measures what one allocation really costs: resident bytes and nanoseconds per\n"
"chunk, each measurement in a freshly executed process.\n"
"\n"
"Options:\n", out);
	cli_help_options(out, run_options, 25);
	fputs(
"\n"
"Exit status: 0 every measurement succeeded, 1 one failed or --baseline found a\n"
"regression, 2 bad usage or a run refused before measuring, 128+N signal N.\n"
"allocbench-run(1) says more: every option in full, the method, every field.\n", out);
}

void run_cmd_defaults(struct run_cmd *cmd)
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

	run_cmd_defaults(cmd);
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
