/*
 * cmd_run_check.c - the run command's options checked together (cmd_run.h):
 * the sizes, the backends, the replay's trace, what a process cannot hold.
 * Command layer: exits 2 naming the problem.
 */
#include "model/backend_set.h"
#include "report/report_backends.h"
#include "cmd/cli.h"
#include "cmd/cmd_run.h"
#include "model/figure.h"
#include "platform/parse.h"
#include "model/preload.h"
#include "model/runner.h"
#include "model/settings.h"
#include "platform/util.h"
#include "measure/backend.h"
#include "measure/workloads.h"
#include "trace/trace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
const char *run_total_subject(const struct run_config *config)
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
					  "program (%llu)", run_total_subject(config), config->sizes[i],
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
				  "(%llu)", run_total_subject(config), config->sizes[i], (unsigned long long)count,
				  bytes, (unsigned long long)RUN_MAX_BOUND_BYTES);
		}
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
	struct trace_stats stats;
	struct trace trace;
	char why[512];

	if (!config->trace_path)
		usage_die("the replay workload needs --trace FILE (a trace allocbench record wrote)");
	if (args->sizes || args->total)
		usage_die("--sizes and --total do not apply to the replay workload: the trace "
			  "decides every size and how much is alive");
	/*
	 * Streamed (the calls are never all in memory), once: the plan's steps
	 * go to a file the measuring processes map, a window at a time.
	 */
	switch (trace_stats_load(config->trace_path, &trace, &stats, &plan, why, sizeof(why))) {
	case 0:
		break;
	case -2:
		die(1, "%s", why);
	default:
		usage_die("%s", why);
	}
	config->replay = (struct run_replay){
		.calls = stats.calls[0], .steps = plan.nops, .checksum = plan.checksum, .slots = plan.nslots,
		.threads = plan.nthreads, .peak_live_bytes = plan.peak_live_bytes,
		.alloc_bytes = plan.alloc_bytes, .allocs = plan.nallocs, .max_align = plan.max_align,
		.cut_short = trace.header.state == TRACE_STATE_WRITING,
		.program_anon_kib = trace.header.anon_peak_kib, .program_hwm_kib = trace.header.hwm_kib,
		.program_run_ns = trace.header.run_ns,
	};
	snprintf(config->replay.program, sizeof(config->replay.program), "%.*s",
		 (int)sizeof(trace.header.command), trace.header.command);
	config->replay.plan_fd = plan.fd;
	trace_stats_release(&stats);
	if (!config->replay.steps)
		usage_die("'%s' has no allocation to replay", config->trace_path);
	if (!args->backends || config->tune == 2) {
		/*
		 * The installed drop-in allocators are the candidates a user is
		 * asking about; advise adds settings (kept for the process).
		 */
		static char defaults[256], *list;
		size_t size;

		if (!args->backends) {
			preload_with_installed(defaults, sizeof(defaults), RUN_DEFAULT_REPLAY_BACKENDS);
			args->backends = defaults;
		}
		size = strlen(args->backends) + sizeof(SETTINGS_GRID) + 1;
		if (!(list = malloc(size)))
			die_out_of_memory();
		copy_string(list, size, args->backends);
		if (config->tune == 2)
			settings_add(list, size, SETTINGS_GRID);
		else if (config->tune && config->replay.threads > 1)
			settings_add(list, size, SETTINGS_CURATED);
		args->backends = list;
	}
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
 * --NAME VALUE (NULL: not given) where the chosen workload does not take
 * OPTION (figure.h's workload table): exits 2 naming the workloads that do.
 */
static void check_takes(const struct run_config *config, enum workload_option option,
			const char *name, const char *value)
{
	char takers[128];

	if (!value || (workload_def(config->workload)->options & option))
		return;
	workload_option_takers(option, takers, sizeof(takers));
	usage_die("--%s '%s' applies to %s, not '%s'", name, value, takers,
		  workload_name(config->workload));
}

/*
 * What only the options together say: an option the workload ignores, the
 * lists, sizes larger than --total, what a process cannot hold. Exits 2.
 */
void run_options_check(struct run_config *config, struct run_args *args)
{
	/* An option the chosen workload would silently ignore is a mistake. */
	check_takes(config, WORKLOAD_OPT_ROUNDS, "rounds", args->rounds);
	check_takes(config, WORKLOAD_OPT_SEED, "seed", args->seed);
	check_takes(config, WORKLOAD_OPT_THREADS, "threads", args->threads);
	/* Counters are read around fill's two loops; the other workloads count nothing. */
	check_takes(config, WORKLOAD_OPT_COUNTERS, "counters",
		    config->counters.n ? args->counters : NULL);
	if (!(workload_def(config->workload)->options & WORKLOAD_OPT_COUNTERS))
		config->counters.n = 0;
	check_takes(config, WORKLOAD_OPT_TRACE, "trace", config->trace_path);
	check_takes(config, WORKLOAD_OPT_REPLAY_THREADS, "replay-threads", args->replay_threads);
	if (config->workload == WORKLOAD_REPLAY)
		check_replay(config, args);
	else
		parse_sizes(args->sizes ? args->sizes : RUN_DEFAULT_SIZES, config);
	if (!args->backends)
		args->backends = RUN_DEFAULT_BACKENDS;
	switch (backend_set_parse(config, args->backends)) {
	case 1:
		/* As allocbench backends, with the --preload backends of this line. */
		if (report_backends_write(stdout, 0, config->preloads, config->npreloads)) {
			if (!broken_pipe(errno))
				error("cannot write the list to standard output: %s",
				      strerror(errno ? errno : EIO));
			cli_exit(1);
		}
		cli_exit_printed();
	case -1:
		exit(2);
	}
	if (config->weights &&
	    !(workload_def(config->workload)->options & WORKLOAD_OPT_WEIGHTS)) {
		char takers[128];

		workload_option_takers(WORKLOAD_OPT_WEIGHTS, takers, sizeof(takers));
		usage_die("weights in --sizes ('%s') apply to %s's mix, not to '%s'", args->sizes,
			  takers, workload_name(config->workload));
	}
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
