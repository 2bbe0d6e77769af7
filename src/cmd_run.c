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
"    replay       a program's calls, recorded with allocbench record (--trace);\n"
"                 default backends malloc,pool,arena\n", out);
}

static const struct cli_option run_options[] = {
	CLI_OPT('s', "sizes", "LIST",
	  "chunk sizes in bytes, comma-separated (default\n"
	  RUN_DEFAULT_SIZES "); a range LO..HI doubles from\n"
	  "LO up to HI, LO..HI:xF multiplies by F, LO..HI:+S\n"
	  "adds S; random: SIZE:WEIGHT items weigh the mix\n"
	  "(24:70,48:30: 70% of the allocations are 24 B)"),
	{ .id = 'b', .name = "backend", .arg = "LIST",
	  .help = "backends, comma-separated (default\n"
	  RUN_DEFAULT_BACKENDS "):",
	  .more = backend_set_help },
	CLI_OPT('t', "total", "BYTES",
	  "bytes allocated per measurement (default 100M);\n"
	  "count = total / size; K, M, G, T and KiB, MiB, GiB,\n"
	  "TiB are binary (1024), KB, MB, GB, TB decimal (1000)"),
	CLI_OPT('r', "repeat", "N",
	  "fresh-process repetitions per measurement (default 3);\n"
	  "the report gives their median, min and max"),
	CLI_OPT(OPT_TOUCH, "touch", "POLICY",
	  "what is written into each chunk after allocation:\n"
	  "none, first (its first byte), pages (first byte, one\n"
	  "byte in every page it overlaps, last byte; default),\n"
	  "full (every byte)"),
	CLI_OPT(OPT_ALIGN, "align", "N",
	  "alignment of pool and arena chunks in bytes, a power\n"
	  "of two up to 4096 (default: the size's natural\n"
	  "alignment, its largest power-of-two divisor up to 16)"),
	CLI_OPT(OPT_POOL_BLOCK, "pool-block", "BYTES",
	  "bytes the pool takes from the system at a time\n"
	  "(default 1M, rounded up to whole pages; at most\n"
	  "4 GiB times the alignment, and 64 GiB)"),
	{ .id = 'w', .name = "workload", .arg = "NAME",
	  .help = "what is measured (default fill):",
	  .more = help_workloads },
	CLI_OPT(OPT_ROUNDS, "rounds", "N",
	  "churn, threads: rounds (default: about 16 million\n"
	  "operations in all, 2 to 1000 rounds)"),
	CLI_OPT(OPT_SEED, "seed", "N",
	  "random: the generator's seed (default 20120528)"),
	CLI_OPT(OPT_THREADS, "threads", "N",
	  "threads: threads at once, 1 to 256 (default: CPUs)"),
	CLI_OPT(OPT_TRACE, "trace", "FILE",
	  "replay: the trace allocbench record wrote"),
	CLI_OPT(OPT_REPLAY_THREADS, "replay-threads", "MODE",
	  "replay: global (default: every call in one thread in\n"
	  "the recorded order, the same sequence on every\n"
	  "backend, pool and arena included) or per-thread (each\n"
	  "recorded thread in a thread of its own, a free from\n"
	  "another thread after its allocation; malloc family\n"
	  "only)"),
	CLI_OPT(OPT_COUNTERS, "counters", "LIST",
	  "events counted through PAPI around the allocation loop\n"
	  "and the free loop, comma-separated: presets\n"
	  "(PAPI_TOT_CYC), native events (perf::PAGE-FAULTS),\n"
	  "allocbench's own (allocbench::allocs; allocbench for\n"
	  "all of them), default, or none; default:\n"
	  COUNTERS_DEFAULT_PRESETS ",\n"
	  "allocbench.\n"
	  "'allocbench counters' says which this machine counts;\n"
	  "an unknown name (a typo) is refused; fill workload only"),
	CLI_OPT(OPT_ABI, "abi", "LIST",
	  "word sizes to measure in, bits: 64 (default), 32, or\n"
	  "32,64 for both; 32-bit rows are named NAME/32 and run\n"
	  "in allocbench-child32, built with -m32 where the\n"
	  "compiler can (gcc-multilib, libc6-dev-i386)"),
	{ .id = OPT_PRELOAD, .name = "preload", .arg = "NAME=PATH",
	  .help = "measure the allocator library PATH as backend NAME\n"
	  "(LD_PRELOAD in the measuring process); repeatable",
	  .help_under = "backend" },
	CLI_OPT_FORMAT(
	  "text (default), json, csv (one line per result,\n"
	  "units in the column names) or markdown (a GitHub\n"
	  "table)"),
	CLI_OPT_OUTPUT(
	  "write the report to FILE (via a temporary file that\n"
	  "is linked into place; through a link, its target)\n"
	  "instead of standard output; not an input's file"),
	CLI_OPT('l', "label", "TEXT",
	  "what this run is of (\"before the fix\"): kept in the\n"
	  "report, shown by show, compare and plot"),
	CLI_OPT(OPT_EXPORT_JSON, "export-json", "FILE",
	  "also write the report as JSON to FILE, whatever\n"
	  "the format on standard output or -o"),
	CLI_OPT(OPT_EXPORT_CSV, "export-csv", "FILE",
	  "also write the report as CSV to FILE"),
	CLI_OPT(OPT_EXPORT_MARKDOWN, "export-markdown", "FILE",
	  "also write the report as Markdown to FILE"),
	CLI_OPT(OPT_BASELINE, "baseline", "FILE",
	  "after measuring, compare with the JSON report FILE\n"
	  "as allocbench compare does (its default limits),\n"
	  "print the comparison on standard error, exit 1 on\n"
	  "a regression; FILE is checked before measuring"),
	CLI_OPT(OPT_TIMEOUT, "timeout", "SEC",
	  "kill a measuring process still running after SEC\n"
	  "seconds, 1 to 86400 (default 600); its row fails"),
	CLI_OPT('j', "jobs", "N",
	  "measuring processes at once, 1 to 256, or 0 for one\n"
	  "per CPU (default 1): overhead figures are the same,\n"
	  "times are measured N at a time (compare does not\n"
	  "gate times between reports of different --jobs)"),
	CLI_OPT(OPT_FORCE, "force", NULL,
	  "measure even when the largest measurement needs more\n"
	  "memory than MemAvailable (refused by default)"),
	CLI_OPT_QUIET,
	CLI_OPT_HELP,
	CLI_OPT('V', "version", NULL, "print the version and exit"),
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


static uint64_t parse_bytes_option(const char *option, const char *text)
{
	const char *why = "";
	uint64_t v;

	if (parse_bytes(text, &v, &why))
		usage_die("invalid %s '%s': %s (expected a byte count such as 1M or 4096)",
			  option, text, why);
	return v;
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

/* The formats of --format, the default first: a new format is one entry. */
static const struct report_writer run_writers[] = {
	{ "text", report_text_write },
	{ "json", report_json_write },
	{ "csv", report_csv_write },        /* one line per result, RFC 4180 quoting */
	{ "markdown", report_markdown_write },  /* a GitHub table */
	{ NULL, NULL },
};

/* The values of the options checked once all are read, as given; NULL when not given. */
struct run_args {
	const char *sizes;     /* --sizes, or the default */
	const char *backends;  /* --backend, or the default */
	const char *rounds;
	const char *seed;
	const char *threads;
	const char *counters;
	const char *abi;       /* --abi, or NULL for 64 */
	int sizes_given;       /* --sizes was given */
	int backends_given;    /* --backend was given */
	int total_given;       /* --total was given */
	const char *replay_threads;  /* --replay-threads */
};

/* Fills *CONFIG with the defaults. */
static void config_init(struct run_config *config)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	memset(config, 0, sizeof(*config));
	config->workload = WORKLOAD_FILL;
	config->seed = RUN_DEFAULT_SEED;
	config->threads = cpus < 1 ? 1 : cpus > MEASURE_MAX_THREADS ? MEASURE_MAX_THREADS : (unsigned)cpus;
	config->total_bytes = RUN_DEFAULT_TOTAL;
	config->repeat = RUN_DEFAULT_REPEAT;
	config->touch = TOUCH_PAGES;
	config->pool_block_bytes = RUN_DEFAULT_POOL_BLOCK;
	config->writer = &run_writers[0];
	config->timeout_s = RUNNER_DEFAULT_TIMEOUT;
	counters_default_list(&config->counters);
	config->exports[0] = (struct run_export){ "--export-json", &run_writers[1], NULL };
	config->exports[1] = (struct run_export){ "--export-csv", &run_writers[2], NULL };
	config->exports[2] = (struct run_export){ "--export-markdown", &run_writers[3], NULL };
}

/* Sets the file of the export OPTION (an index of config->exports); exits 2 when given twice. */
static void set_export(struct run_config *config, size_t index, const char *path)
{
	struct run_export *e = &config->exports[index];

	if (e->path)
		usage_die("%s is given twice ('%s' and '%s')", e->option, e->path, path);
	e->path = cli_file_name(path, e->option);
}

/*
 * Refuses (exit 2) one file given to two of -o (standard output without
 * it) and the --export options, the second write would replace the first;
 * or one of them that is an input (--trace, --baseline, a --preload
 * library): it would be destroyed. By device and inode, not by name.
 */
static void check_outputs(const struct run_config *config)
{
	struct output_use *uses = calloc(3 + RUN_MAX_EXPORTS + config->npreloads, sizeof(*uses));
	size_t n = 0;

	if (!uses)
		die_out_of_memory();
	uses[n++] = (struct output_use){ config->output_path ? config->output_path : "-",
					 config->output_path ? "--output" : "the report", 1 };
	for (size_t i = 0; i < RUN_MAX_EXPORTS; i++) {
		const struct run_export *e = &config->exports[i];

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

/* Reads the options of ARGV into *CONFIG and *ARGS; exits 2 on a bad one. */
static void read_options(int argc, char **argv, struct run_config *config, struct run_args *args)
{
	const char *why = "";
	struct cli_parser parser;
	uint64_t v;
	int c;

	cli_parser_init(&parser, run_options, run_help, "allocbench --help", argc, argv);
	while ((c = cli_next(&parser)) != -1) {
		switch (c) {
		case OPT_TRACE:
			config->trace_path = cli_file_name(optarg, "--trace");
			break;
		case OPT_REPLAY_THREADS:
			if (!strcmp(optarg, "per-thread"))
				config->replay_per_thread = 1;
			else if (strcmp(optarg, "global"))
				usage_die("invalid --replay-threads '%s' (expected global or per-thread)",
					  optarg);
			args->replay_threads = optarg;
			break;
		case 's':
			args->sizes_given = 1;
			args->sizes = optarg;
			break;
		case 'b':
			args->backends = optarg;
			args->backends_given = 1;
			break;
		case 't':
			args->total_given = 1;
			config->total_bytes = parse_bytes_option("--total", optarg);
			if (!config->total_bytes)
				usage_die("invalid --total '%s': must be more than 0 bytes", optarg);
			break;
		case 'r':
			/* v is unset when the parse fails: the reason is WHY then. */
			if (parse_unsigned(optarg, RUN_MAX_REPEAT, &v, &why) || !v)
				usage_die("invalid --repeat '%s': %s (expected a whole number "
					  "from 1 to %d)", optarg, *why ? why : "must be at least 1",
					  RUN_MAX_REPEAT);
			config->repeat = (unsigned)v;
			break;
		case OPT_TOUCH:
			if (touch_parse(optarg, &config->touch))
				usage_die("invalid --touch '%s' (expected none, first, pages or full)",
					  optarg);
			break;
		case OPT_ALIGN:
			if (parse_unsigned(optarg, 4096, &v, &why) || !is_power_of_two(v))
				usage_die("invalid --align '%s' (expected a power of two from 1 "
					  "to 4096)", optarg);
			config->align = (size_t)v;
			break;
		case OPT_POOL_BLOCK:
			v = parse_bytes_option("--pool-block", optarg);
			if (!v || v > ((uint64_t)1 << 40))
				usage_die("invalid --pool-block '%s' (expected from 1 byte to 1T)",
					  optarg);
			config->pool_block_bytes = (size_t)v;
			break;
		case 'w':
			if (workload_parse(optarg, &config->workload))
				usage_die("unknown workload '%s' (expected fill, churn, random, threads or replay)",
					  optarg);
			break;
		case OPT_ROUNDS:
			if (parse_unsigned(optarg, 1000000, &v, &why) || !v)
				usage_die("invalid --rounds '%s': %s (expected a whole number from 1 "
					  "to 1000000)", optarg, *why ? why : "must be at least 1");
			config->rounds = (unsigned)v;
			args->rounds = optarg;
			break;
		case OPT_SEED:
			if (parse_unsigned(optarg, UINT64_MAX, &v, &why))
				usage_die("invalid --seed '%s': %s (expected a whole number)", optarg, why);
			config->seed = v;
			args->seed = optarg;
			break;
		case OPT_THREADS:
			if (parse_unsigned(optarg, MEASURE_MAX_THREADS, &v, &why) || !v)
				usage_die("invalid --threads '%s': %s (expected a whole number from 1 "
					  "to %d)", optarg, *why ? why : "must be at least 1",
					  MEASURE_MAX_THREADS);
			config->threads = (unsigned)v;
			args->threads = optarg;
			break;
		case OPT_COUNTERS:
			cli_parse_counters(optarg, &config->counters);
			args->counters = optarg;
			config->counters_given = 1;
			break;
		case OPT_PRELOAD:
			if (backend_set_preload(config, optarg))
				exit(2);
			break;
		case 'f':
			config->writer = CLI_FORMAT(run_writers, optarg, "");
			break;
		case 'o':
			config->output_path = cli_file_name(optarg, "--output");
			break;
		case OPT_BASELINE:
			config->baseline_path = cli_file_name(optarg, "--baseline");
			break;
		case OPT_TIMEOUT:
			if (parse_unsigned(optarg, 86400, &v, &why))
				usage_die("invalid --timeout '%s': %s (expected whole seconds from 1 "
					  "to 86400)", optarg, why);
			if (!v)
				usage_die("invalid --timeout '%s': must be at least 1 second "
					  "(expected whole seconds from 1 to 86400)", optarg);
			config->timeout_s = (unsigned)v;
			break;
		case 'j':
			if (parse_unsigned(optarg, RUN_MAX_JOBS, &v, &why))
				usage_die("invalid --jobs '%s': %s (expected a whole number from 0, "
					  "one per CPU, to %d)", optarg, why, RUN_MAX_JOBS);
			config->jobs = (unsigned)v;
			if (!v) {
				long cpus = sysconf(_SC_NPROCESSORS_ONLN);

				config->jobs = cpus < 1 ? 1 : cpus > RUN_MAX_JOBS ? RUN_MAX_JOBS :
					       (unsigned)cpus;
			}
			break;
		case OPT_FORCE:
			config->force = 1;
			break;
		case 'l':
			if (!*optarg)
				usage_die("empty --label (give what this run is of, e.g. "
					  "--label 'before the fix')");
			config->label = optarg;
			break;
		case OPT_EXPORT_JSON:
		case OPT_EXPORT_CSV:
		case OPT_EXPORT_MARKDOWN:
			set_export(config, (size_t)(c - OPT_EXPORT_JSON), optarg);
			break;
		case OPT_ABI:
			args->abi = optarg;
			break;
		case 'q':
			config->quiet = 1;
			break;
		case 'V':
			printf("allocbench %s\n", ALLOCBENCH_VERSION);
			cli_exit_printed();
		}
	}
	if (optind < argc)
		usage_die("unexpected argument '%s' (see allocbench --help)", argv[optind]);
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
	if (args->sizes_given || args->total_given)
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
	if (!args->backends_given)
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
		parse_sizes(args->sizes, config);
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
 * Parses the run command's ARGV (ARGV[0] is the command name) into *CONFIG.
 * Exits with status 2 and a message naming the bad value on bad usage, and
 * with status 0 after --help or --version.
 */
static void parse_run(int argc, char **argv, struct run_config *config)
{
	struct run_args args = { .sizes = RUN_DEFAULT_SIZES, .backends = RUN_DEFAULT_BACKENDS };

	config_init(config);
	config->argc = argc;
	config->argv = argv;
	read_options(argc, argv, config, &args);
	check_outputs(config);  /* before any input is read */
	check_options(config, &args);
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
static int write_exports(const struct run_config *config, const struct run_report *report,
			 struct output *exports, int *open)
{
	int ret = 0;

	for (size_t i = 0; i < RUN_MAX_EXPORTS; i++) {
		const struct run_export *e = &config->exports[i];

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
	struct run_config config;
	struct run_report report;
	struct result_file baseline;
	struct output out, exports[RUN_MAX_EXPORTS];
	int have_baseline = 0, have_report = 0, have_output = 0;
	int have_export[RUN_MAX_EXPORTS] = { 0 };
	int ret;

	parse_run(argc, argv, &config);
	refuse_unknown_counters(&config.counters);
	/* Every measurement execs /proc/self/exe: without /proc, say so once, up front. */
	if (access("/proc/self/exe", X_OK)) {
		error("cannot run the measuring processes: '/proc/self/exe': %s (is /proc "
		      "mounted?)", strerror(errno));
		ret = 2;
		goto cleanup;
	}
	ret = 2;
	if (!config.force && check_memory(&config))
		goto cleanup;
	/* Before -o's temporary file exists, so that an interrupt can remove it. */
	ret = 1;
	if (runner_signals_install())
		goto cleanup;
	/* An unusable baseline is refused before anything is measured. */
	ret = 2;
	if (config.baseline_path) {
		if (baseline_open(config.baseline_path, &config, &baseline))
			goto cleanup;
		have_baseline = 1;
	}
	if (output_open(&out, config.output_path)) {
		/* A signal while a FIFO waits for its reader is an interrupt, not bad usage. */
		if (runner_interrupted())
			ret = interrupted_status(runner_interrupted(), &config);
		goto cleanup;
	}
	have_output = 1;
	for (size_t i = 0; i < RUN_MAX_EXPORTS; i++) {
		if (!config.exports[i].path)
			continue;
		if (output_open(&exports[i], config.exports[i].path)) {
			if (runner_interrupted())
				ret = interrupted_status(runner_interrupted(), &config);
			goto cleanup;
		}
		have_export[i] = 1;
	}
	ret = run_measure_all(&config, &report);
	have_report = 1;
	if (ret) {
		ret = 1;
		goto cleanup;
	}
	if (report.interrupted) {
		ret = interrupted_status(report.interrupted, &config);
		goto cleanup;
	}
	ret = config.writer->write(out.file, &report);
	if (runner_interrupted()) {
		/* Too late to stop a child, in time to keep -o as it was. */
		ret = interrupted_status(runner_interrupted(), &config);
		goto cleanup;
	}
	if (ret) {
		error("cannot write the report to %s: %s", config.output_path ? config.output_path :
		      "standard output", strerror(errno ? errno : EIO));
		output_abort(&out);
	} else {
		ret = output_commit(&out);
	}
	have_output = 0;
	if (!ret)
		ret = write_exports(&config, &report, exports, have_export);
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
	for (size_t i = 0; i < RUN_MAX_EXPORTS; i++)
		if (have_export[i])
			output_abort(&exports[i]);
	if (have_report)
		run_report_release(&report);
	if (have_baseline)
		results_release(&baseline);
	config_release(&config);
	return ret;
}
