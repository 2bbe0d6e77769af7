#include "cli.h"
#include "parse.h"
#include "child/pool.h"
#include "preload.h"
#include "runner.h"
#include "util.h"
#include "child/workloads.h"

#include <getopt.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

void cli_run_help(FILE *out)
{
	fputs(
"usage: allocbench [run] [options]\n"
"       allocbench compare BASELINE.json CURRENT.json [options]\n"
"       allocbench plot [--metric LIST] [-o FILE] [FILE...]\n"
"       allocbench counters [--counters LIST] [--format FORMAT]\n"
"       allocbench --help | --version | COMMAND --help\n"
"\n"
"Measures what one allocation really costs: resident bytes and nanoseconds per\n"
"chunk, allocating --total bytes in chunks of one size at a time, each\n"
"measurement in a freshly executed process.\n"
"\n"
"Options:\n"
"  -s, --sizes LIST       chunk sizes in bytes, comma-separated (default\n"
"                         " RUN_DEFAULT_SIZES "); a range LO..HI doubles from\n"
"                         LO up to HI, LO..HI:xF multiplies by F, LO..HI:+S\n"
"                         adds S\n"
"  -b, --backend LIST     backends, comma-separated (default\n"
"                         " RUN_DEFAULT_BACKENDS "):\n", out);
	for (size_t i = 0; backend_table[i]; i++)
		fprintf(out, "    %-12s %s\n", backend_table[i]->name, backend_table[i]->summary);
	for (size_t i = 0; allocator_known[i].name; i++)
		fprintf(out, "    %-12s %s\n", allocator_known[i].name, allocator_known[i].summary);
	fputs(
"    NAME         a library given with --preload NAME=PATH\n"
"    all          every built-in backend, every installed third-party\n"
"                 allocator and every --preload\n"
"      --preload NAME=PATH\n"
"                         measure the allocator library PATH as backend NAME\n"
"                         (LD_PRELOAD in the measuring process); repeatable\n", out);
	fputs(
"  -t, --total BYTES      bytes allocated per measurement (default 100M);\n"
"                         count = total / size; K, M, G, T and KiB, MiB, GiB,\n"
"                         TiB are binary (1024), KB, MB, GB, TB decimal (1000)\n"
"  -r, --repeat N         fresh-process repetitions per measurement (default 3);\n"
"                         the report gives their median, min and max\n"
"      --touch POLICY     what is written into each chunk after allocation:\n"
"                         none, first (its first byte), pages (first byte, one\n"
"                         byte in every page it overlaps, last byte; default),\n"
"                         full (every byte)\n"
"      --align N          alignment of pool and arena chunks in bytes, a power\n"
"                         of two up to 4096 (default: the size's natural\n"
"                         alignment, its largest power-of-two divisor up to 16)\n"
"      --pool-block BYTES bytes the pool takes from the system at a time\n"
"                         (default 1M, rounded up to whole pages; at most\n"
"                         4 GiB times the alignment, and 64 GiB)\n"
"  -w, --workload NAME    what is measured (default fill):\n"
"    fill         allocate total in chunks, free, fill again warm\n"
"    churn        create and destroy count objects, --rounds times\n"
"    random       a seeded random live set mixing all --sizes\n"
"    threads      --threads threads swap array elements through a temporary\n"
"      --rounds N         churn, threads: rounds (default: about 16 million\n"
"                         operations in all, 2 to 1000 rounds)\n"
"      --seed N           random: the generator's seed (default 20120528)\n"
"      --threads N        threads: threads at once, 1 to 256 (default: CPUs)\n"
"      --counters LIST    events counted through PAPI around the allocation loop\n"
"                         and the free loop, comma-separated: presets\n"
"                         (PAPI_TOT_CYC), native events (perf::PAGE-FAULTS),\n"
"                         allocbench's own (allocbench::allocs; allocbench for\n"
"                         all of them), default, or none; default:\n"
"                         " COUNTERS_DEFAULT_PRESETS ",\n"
"                         allocbench.\n"
"                         'allocbench counters' says which this machine counts;\n"
"                         fill workload only\n"
"  -f, --format FORMAT    text (default), json, csv (one line per result,\n"
"                         units in the column names) or markdown (a GitHub\n"
"                         table)\n"
"  -o, --output FILE      write the report to FILE (via a temporary file that\n"
"                         is renamed into place; through a link, its target)\n"
"                         instead of standard output\n"
"      --baseline FILE    after measuring, compare with the JSON report FILE\n"
"                         as allocbench compare does (its default limits),\n"
"                         print the comparison on standard error, exit 1 on\n"
"                         a regression; FILE is checked before measuring\n"
"      --timeout SEC      kill a measuring process still running after SEC\n"
"                         seconds, 1 to 86400 (default 600); its row fails\n"
"      --force            measure even when the largest measurement needs more\n"
"                         memory than MemAvailable (refused by default)\n"
"  -q, --quiet            no progress on standard error\n"
"  -h, --help             print this help and exit\n"
"  -V, --version          print the version and exit\n"
"\n"
"Exit status: 0 every measurement succeeded, 1 one failed (its row says why)\n"
"or --baseline found a regression, 2 bad usage, an unusable --baseline or a\n"
"--total larger than the memory available, 128+N after signal N (130 SIGINT,\n"
"143 SIGTERM, 129 SIGHUP...: the measuring process is killed, no report is\n"
"written, -o FILE is left as it was).\n"
"See allocbench(1) for the method and every output field.\n", out);
}

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
};

/* The short options of run, for getopt_long and cli_option_error. */
#define RUN_OPTSTRING ":s:b:t:r:f:o:w:qhV"

static const struct option run_options[] = {
	{ "sizes", required_argument, NULL, 's' },
	{ "backend", required_argument, NULL, 'b' },
	{ "total", required_argument, NULL, 't' },
	{ "repeat", required_argument, NULL, 'r' },
	{ "touch", required_argument, NULL, OPT_TOUCH },
	{ "align", required_argument, NULL, OPT_ALIGN },
	{ "pool-block", required_argument, NULL, OPT_POOL_BLOCK },
	{ "workload", required_argument, NULL, 'w' },
	{ "rounds", required_argument, NULL, OPT_ROUNDS },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "counters", required_argument, NULL, OPT_COUNTERS },
	{ "preload", required_argument, NULL, OPT_PRELOAD },
	{ "format", required_argument, NULL, 'f' },
	{ "output", required_argument, NULL, 'o' },
	{ "baseline", required_argument, NULL, OPT_BASELINE },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ 0, 0, 0, 0 },
};

static void list_backends(char *buf, size_t size, const struct run_config *config)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; backend_table[i] && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : "",
					 backend_table[i]->name);
	for (size_t i = 0; allocator_known[i].name && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, ", %s", allocator_known[i].name);
	for (size_t i = 0; i < config->npreloads && used < size; i++)
		if (config->preloads[i]->from_option && !config->preloads[i]->known)
			used += (size_t)snprintf(buf + used, size - used, ", %s",
						 config->preloads[i]->name);
	if (used < size)
		snprintf(buf + used, size - used, ", all");
}

static void add_preload(struct run_config *config, struct preload *p)
{
	struct preload **grown = realloc(config->preloads,
					 (config->npreloads + 1) * sizeof(*grown));

	if (!grown)
		die(1, "out of memory");
	config->preloads = grown;
	config->preloads[config->npreloads++] = p;
}

/* The preloaded backend called NAME (from --preload or located before), or NULL. */
static struct preload *find_preload(const struct run_config *config, const char *name)
{
	for (size_t i = 0; i < config->npreloads; i++)
		if (!strcmp(config->preloads[i]->name, name))
			return config->preloads[i];
	return NULL;
}

/* Refuses the preloaded backend NAME when this build cannot preload (exit 2). */
static void check_preload_supported(const char *name)
{
	if (preload_unsupported())
		usage_die("backend '%s' cannot run in this build: it preloads a library, and "
			  "AddressSanitizer (make SANITIZE=%s) must be the first library "
			  "loaded; rebuild without SANITIZE=address", name, ALLOCBENCH_SANITIZE);
}

/*
 * The known allocator KNOWN, located on this machine; exits 2 naming the
 * Debian package when it is not installed.
 */
static const struct backend *require_known(struct run_config *config,
					   const struct allocator_known *known)
{
	struct preload *p = find_preload(config, known->name);
	char where[512];

	check_preload_supported(known->name);
	if (p)
		return &p->backend;
	p = preload_locate(known);
	if (!p) {
		preload_describe_search(where, sizeof(where));
		usage_die("backend '%s' needs %s, which is not installed (searched %s); on "
			  "Debian: apt-get install %s", known->name, known->sonames[0], where,
			  known->package);
	}
	add_preload(config, p);
	return &p->backend;
}

static void add_backend(struct run_config *config, const struct backend *b)
{
	const struct backend **grown;

	for (size_t i = 0; i < config->nbackends; i++)
		if (config->backends[i] == b)
			usage_die("backend '%s' appears more than once in --backend", b->name);
	grown = realloc(config->backends, (config->nbackends + 1) * sizeof(*grown));
	if (!grown)
		die(1, "out of memory");
	config->backends = grown;
	config->backends[config->nbackends++] = b;
}

static void add_skip(struct run_config *config, const char *name, const char *package,
		     const char *reason)
{
	struct backend_skip *grown = realloc(config->skipped,
					     (config->nskipped + 1) * sizeof(*grown));
	struct backend_skip *skip;

	if (!grown)
		die(1, "out of memory");
	config->skipped = grown;
	skip = &config->skipped[config->nskipped++];
	copy_string(skip->name, sizeof(skip->name), name);
	copy_string(skip->package, sizeof(skip->package), package);
	copy_string(skip->reason, sizeof(skip->reason), reason);
	warning("--backend all skips %s: %s", name, reason);
}

/*
 * --backend all: every built-in backend, then every known allocator that is
 * installed (the others are listed in config->skipped and on stderr), then
 * every other --preload.
 */
static void add_all_backends(struct run_config *config)
{
	for (size_t i = 0; backend_table[i]; i++)
		add_backend(config, backend_table[i]);
	for (size_t i = 0; allocator_known[i].name; i++) {
		const struct allocator_known *known = &allocator_known[i];
		struct preload *p = find_preload(config, known->name);
		char reason[160];

		if (preload_unsupported()) {
			add_skip(config, known->name, known->package,
				 "this build uses AddressSanitizer, which must be the first "
				 "library loaded");
			continue;
		}
		if (!p && (p = preload_locate(known)))
			add_preload(config, p);
		if (p) {
			add_backend(config, &p->backend);
			continue;
		}
		snprintf(reason, sizeof(reason), "not installed (no %s; on Debian: apt-get "
			 "install %s)", known->sonames[0], known->package);
		add_skip(config, known->name, known->package, reason);
	}
	for (size_t i = 0; i < config->npreloads; i++)
		if (config->preloads[i]->from_option && !config->preloads[i]->known) {
			check_preload_supported(config->preloads[i]->name);
			add_backend(config, &config->preloads[i]->backend);
		}
}

static void parse_backends(const char *text, struct run_config *config)
{
	char *copy = strdup(text), *item, *next;
	char known[512];

	if (!copy)
		die(1, "out of memory");
	list_backends(known, sizeof(known), config);
	free(config->backends);
	config->backends = NULL;
	config->nbackends = 0;
	if (!*text)
		usage_die("empty --backend list (known backends: %s)", known);
	for (item = copy; item; item = next) {
		const struct backend *b;
		const struct allocator_known *k;
		struct preload *p;

		next = strchr(item, ',');
		if (next)
			*next++ = '\0';
		if (!*item)
			usage_die("empty item in --backend '%s' (known backends: %s)", text, known);
		if (!strcmp(item, "all")) {
			if (strcmp(text, "all"))
				usage_die("--backend all cannot be combined with other backends "
					  "('%s')", text);
			add_all_backends(config);
			break;
		}
		if (!strcmp(item, RUNNER_FLOOR))
			usage_die("invalid backend '%s' in --backend: '%s' is reserved for the "
				  "floor (the loop without an allocator), not a backend (known "
				  "backends: %s)", item, item, known);
		if ((b = backend_find(item))) {
			add_backend(config, b);
		} else if ((p = find_preload(config, item))) {
			check_preload_supported(item);
			add_backend(config, &p->backend);
		} else if ((k = allocator_known_find(item))) {
			add_backend(config, require_known(config, k));
		} else {
			usage_die("unknown backend '%s' in --backend (known backends: %s)",
				  item, known);
		}
	}
	free(copy);
	for (size_t i = 0; i < config->npreloads; i++) {
		const struct preload *p = config->preloads[i];
		int used = 0;

		for (size_t b = 0; b < config->nbackends; b++)
			used |= config->backends[b] == &p->backend;
		if (p->from_option && !used)
			usage_die("--preload '%s' is not measured: add '%s' to --backend (or use "
				  "--backend all)", p->name, p->name);
	}
}

static void parse_sizes(const char *text, struct run_config *config)
{
	char bad[64];
	const char *why = "";

	free(config->sizes);
	if (parse_size_list(text, &config->sizes, &config->nsizes, bad, sizeof(bad), &why))
		usage_die("invalid size '%s' in --sizes: %s (expected positive byte counts "
			  "or ranges, e.g. 4,40,400 or 8..4096)", bad, why);
}

void cli_parse_counters(const char *text, struct counter_list *list)
{
	char bad[COUNTERS_NAME_MAX];
	const char *why = "";

	if (counters_parse_list(text, list, bad, sizeof(bad), &why))
		usage_die("invalid event '%s' in --counters: %s (expected PAPI event names, "
			  "e.g. PAPI_TOT_CYC,allocbench::allocs, or none)", bad, why);
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

			if (need <= RUN_MAX_BOUND_BYTES)
				continue;
			if (need == UINT64_MAX)
				snprintf(bytes, sizeof(bytes), "more than 2^64");
			else
				snprintf(bytes, sizeof(bytes), "%llu", (unsigned long long)need);
			usage_die("--total %llu cannot be measured at size %zu: %llu chunks with "
				  "their pointers need %s bytes, more than a process can address "
				  "(%llu)", total, config->sizes[i], (unsigned long long)count,
				  bytes, (unsigned long long)RUN_MAX_BOUND_BYTES);
		}
	}
}

/*
 * Refuses (exit 2) a --pool-block larger than a pool of the chunks measured
 * can address: its links count alignments in 32 bits (pool_block_limit()).
 */
static void check_pool_block(const struct run_config *config)
{
	int pooled = 0;

	for (size_t b = 0; b < config->nbackends; b++)
		pooled |= config->backends[b] == &backend_pool ||
			  config->backends[b] == &backend_pool_locked;
	for (size_t i = 0; pooled && i < config->nsizes; i++) {
		size_t align = config->align ? config->align : natural_alignment(config->sizes[i]);
		size_t limit = pool_block_limit(align);

		if (config->pool_block_bytes > limit)
			usage_die("invalid --pool-block: %zu bytes is more than a pool of %zu-byte "
				  "chunks aligned to %zu B can address, %zu bytes (%zu MiB): its "
				  "links count alignments in 32 bits; use a smaller --pool-block%s",
				  config->pool_block_bytes, config->sizes[i], align, limit,
				  limit >> 20, config->align ? "" : " or a larger --align");
	}
}

void cli_parse_run(int argc, char **argv, struct run_config *config)
{
	const char *sizes = RUN_DEFAULT_SIZES, *backends = RUN_DEFAULT_BACKENDS;
	const char *why = "";
	const char *rounds_arg = NULL, *seed_arg = NULL, *threads_arg = NULL, *counters_arg = NULL;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct preload *p;
	uint64_t v;
	int c;

	memset(config, 0, sizeof(*config));
	config->workload = WORKLOAD_FILL;
	config->seed = RUN_DEFAULT_SEED;
	config->threads = cpus < 1 ? 1 : cpus > MEASURE_MAX_THREADS ? MEASURE_MAX_THREADS : (unsigned)cpus;
	config->total_bytes = RUN_DEFAULT_TOTAL;
	config->repeat = RUN_DEFAULT_REPEAT;
	config->touch = TOUCH_PAGES;
	config->pool_block_bytes = RUN_DEFAULT_POOL_BLOCK;
	config->format = FORMAT_TEXT;
	config->timeout_s = RUNNER_DEFAULT_TIMEOUT;
	counters_default_list(&config->counters);

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, RUN_OPTSTRING, run_options, NULL)) != -1) {
		switch (c) {
		case 's':
			sizes = optarg;
			break;
		case 'b':
			backends = optarg;
			break;
		case 't':
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
				usage_die("unknown workload '%s' (expected fill, churn, random or threads)",
					  optarg);
			break;
		case OPT_ROUNDS:
			if (parse_unsigned(optarg, 1000000, &v, &why) || !v)
				usage_die("invalid --rounds '%s': %s (expected a whole number from 1 "
					  "to 1000000)", optarg, *why ? why : "must be at least 1");
			config->rounds = (unsigned)v;
			rounds_arg = optarg;
			break;
		case OPT_SEED:
			if (parse_unsigned(optarg, UINT64_MAX, &v, &why))
				usage_die("invalid --seed '%s': %s (expected a whole number)", optarg, why);
			config->seed = v;
			seed_arg = optarg;
			break;
		case OPT_THREADS:
			if (parse_unsigned(optarg, MEASURE_MAX_THREADS, &v, &why) || !v)
				usage_die("invalid --threads '%s': %s (expected a whole number from 1 "
					  "to %d)", optarg, *why ? why : "must be at least 1",
					  MEASURE_MAX_THREADS);
			config->threads = (unsigned)v;
			threads_arg = optarg;
			break;
		case OPT_COUNTERS:
			cli_parse_counters(optarg, &config->counters);
			counters_arg = optarg;
			config->counters_given = 1;
			break;
		case OPT_PRELOAD:
			if (!(p = preload_parse(optarg)))
				exit(2);
			if (find_preload(config, p->name)) {
				error("--preload '%s' appears more than once", p->name);
				free(p);
				exit(2);
			}
			add_preload(config, p);
			break;
		case 'f':
			if (!strcmp(optarg, "text"))
				config->format = FORMAT_TEXT;
			else if (!strcmp(optarg, "json"))
				config->format = FORMAT_JSON;
			else if (!strcmp(optarg, "csv"))
				config->format = FORMAT_CSV;
			else if (!strcmp(optarg, "markdown"))
				config->format = FORMAT_MARKDOWN;
			else
				usage_die("invalid --format '%s' (expected text, json, csv or markdown)",
					  optarg);
			break;
		case 'o':
			if (!*optarg)
				usage_die("empty file name for --output");
			config->output_path = optarg;
			break;
		case OPT_BASELINE:
			if (!*optarg)
				usage_die("empty file name for --baseline");
			config->baseline_path = optarg;
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
		case OPT_FORCE:
			config->force = 1;
			break;
		case 'q':
			config->quiet = 1;
			break;
		case 'h':
			cli_run_help(stdout);
			exit(stdout_flush_check() ? 1 : 0);
		case 'V':
			printf("allocbench %s\n", ALLOCBENCH_VERSION);
			exit(stdout_flush_check() ? 1 : 0);
		default:
			cli_option_error(c, argv, RUN_OPTSTRING, run_options,
					 "allocbench --help");
		}
	}
	if (optind < argc)
		usage_die("unexpected argument '%s' (see allocbench --help)", argv[optind]);

	/* An option the chosen workload would silently ignore is a mistake. */
	if (rounds_arg && config->workload != WORKLOAD_CHURN && config->workload != WORKLOAD_THREADS)
		usage_die("--rounds '%s' applies to the churn and threads workloads, not '%s'",
			  rounds_arg, workload_name(config->workload));
	if (seed_arg && config->workload != WORKLOAD_RANDOM)
		usage_die("--seed '%s' applies to the random workload, not '%s'",
			  seed_arg, workload_name(config->workload));
	if (threads_arg && config->workload != WORKLOAD_THREADS)
		usage_die("--threads '%s' applies to the threads workload, not '%s'",
			  threads_arg, workload_name(config->workload));
	/* Counters are read around fill's two loops; the other workloads count nothing. */
	if (config->workload != WORKLOAD_FILL) {
		if (counters_arg && config->counters.n)
			usage_die("--counters '%s' applies to the fill workload, not '%s'",
				  counters_arg, workload_name(config->workload));
		config->counters.n = 0;
	}

	parse_sizes(sizes, config);
	parse_backends(backends, config);
	if (config->workload == WORKLOAD_RANDOM && config->nsizes > MEASURE_MAX_MIX)
		usage_die("the random workload mixes at most %d sizes; --sizes has %zu",
			  MEASURE_MAX_MIX, config->nsizes);
	check_pool_block(config);
	for (size_t i = 0; i < config->nsizes; i++)
		if (config->sizes[i] > config->total_bytes)
			usage_die("size %zu in --sizes is larger than --total (%llu bytes): "
				  "nothing would be allocated", config->sizes[i],
				  (unsigned long long)config->total_bytes);
	check_representable(config);
}

/* The long option of OPTIONS that NAME (up to LEN bytes, no "--") names, or NULL. */
static const struct option *find_long(const struct option *options, const char *name, size_t len)
{
	const struct option *found = NULL;
	size_t matches = 0;

	for (const struct option *o = options; o->name; o++) {
		if (strncmp(o->name, name, len))
			continue;
		if (strlen(o->name) == len)
			return o;   /* an exact name wins over longer ones */
		found = o;
		matches++;
	}
	return matches == 1 ? found : NULL;
}

_Noreturn void cli_option_error(int c, char **argv, const char *optstring,
				const struct option *options, const char *help)
{
	/* getopt_long has stepped past a long option and a whole short cluster only. */
	const char *arg = argv[optind - 1];
	int is_long = !strncmp(arg, "--", 2) && arg[2];
	size_t len = is_long ? strcspn(arg + 2, "=") : 0;
	const struct option *o = is_long ? find_long(options, arg + 2, len) : NULL;

	if (c == ':') {
		if (is_long)
			usage_die("option '--%s' needs a value (see %s)", o ? o->name : arg + 2,
				  help);
		usage_die("option '-%c' needs a value (see %s)", optopt, help);
	}
	/* A known long option given a value it does not take: --force=yes. */
	if (optopt >= 256 || (optopt && optopt != ':' && strchr(optstring, optopt))) {
		if (o)
			usage_die("option '--%s' takes no value (given '%s'; see %s)", o->name,
				  arg, help);
		usage_die("option '%.*s' takes no value (given '%s'; see %s)", (int)len + 2, arg,
			  arg, help);
	}
	if (optopt) {
		if (optopt > ' ' && optopt < 0x7f)
			usage_die("unknown option '-%c' (see %s)", optopt, help);
		usage_die("unknown option byte 0x%02x after '-' (see %s)", optopt & 0xff, help);
	}
	if (is_long) {
		char candidates[512] = "";
		size_t used = 0, n = 0;

		for (const struct option *k = options; k->name; k++)
			if (!strncmp(k->name, arg + 2, len) && used < sizeof(candidates)) {
				used += (size_t)snprintf(candidates + used, sizeof(candidates) - used,
							 "%s--%s", n++ ? ", " : "", k->name);
			}
		if (n > 1)
			usage_die("option '--%.*s' is ambiguous: it could be %s (see %s)",
				  (int)len, arg + 2, candidates, help);
	}
	if (is_long && arg[2 + len])
		usage_die("unknown option '%.*s' (given '%s'; see %s)", (int)len + 2, arg, arg,
			  help);
	usage_die("unknown option '%s' (see %s)", arg, help);
}

void cli_config_release(struct run_config *config)
{
	for (size_t i = 0; i < config->npreloads; i++)
		free(config->preloads[i]);
	free(config->preloads);
	free(config->skipped);
	free(config->sizes);
	free(config->backends);
	memset(config, 0, sizeof(*config));
}
