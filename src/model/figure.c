/*
 * figure.c - the figures and the workloads, defined once (figure.h).
 */
#include "model/figure.h"
#include "model/run.h"
#include "measure/backend.h"

#include <stdio.h>
#include <string.h>

#define W(x) (1u << WORKLOAD_##x)

static const struct figure figures[METRIC_COUNT] = {
	[METRIC_OVERHEAD_BYTES] = {
		.name = "overhead_bytes", .unit = "B/chunk", .display_unit = "B/chunk",
		.display_scale = 1, .display = FIGURE_SHOW_FIXED2,
		.head1 = "overhead", .head2 = "B/chunk", .head2_is_unit = 1,
		.aspect = FIGURE_MEMORY, .plot_label = "overhead per chunk",
		.plot_name = "overhead",
		.plot_heading = "Overhead: resident bytes per chunk beyond its size",
		.plot_unit = "bytes per chunk", .plot_log = 0, .plot_steps = 1,
		.compare = FIGURE_COMPARE_BYTES, .compare_decimals = 4, .compare_label = "overhead B",
		.workloads = W(FILL),
	},
	[METRIC_MARGINAL_BYTES] = {
		.name = "marginal_bytes", .unit = "B/chunk", .display_unit = "B/chunk",
		.display_scale = 1, .display = FIGURE_SHOW_FIXED2,
		.head1 = "marginal", .head2 = "B/chunk", .head2_is_unit = 1,
		.plot_label = "marginal overhead per chunk",
		.plot_name = "marginal",
		.plot_heading = "Marginal overhead: resident bytes one more chunk adds beyond its size",
		.plot_unit = "bytes per chunk", .plot_log = 0, .plot_steps = 1,
		.compare = FIGURE_COMPARE_BYTES, .compare_decimals = 4, .compare_label = "marginal B",
		.compare_optional = 1,
		.workloads = W(FILL),
	},
	[METRIC_ONE_TIME_BYTES] = {
		.name = "one_time_bytes", .unit = "bytes", .display_unit = "B",
		.display_scale = 1, .display = FIGURE_SHOW_WHOLE,
		.head1 = "one-time", .head2 = "B", .head2_is_unit = 1,
		.workloads = W(FILL),
	},
	[METRIC_LINEARITY_BYTES] = {
		.name = "linearity_bytes", .unit = "bytes", .display_unit = "B",
		.display_scale = 1, .display = FIGURE_SHOW_WHOLE,
		.head1 = "linearity", .head2 = "B", .head2_is_unit = 1,
		.workloads = W(FILL),
	},
	[METRIC_ALLOC_NS] = {
		.name = "alloc_ns", .unit = "ns", .display_unit = "ns",
		.display_scale = 1, .display = FIGURE_SHOW_ADAPTIVE,
		.head1 = "alloc", .head2 = "ns", .head2_is_unit = 1,
		.aspect = FIGURE_TIME, .plot_label = "time per allocation",
		.plot_name = "alloc",
		.plot_heading = "Time per allocation, including writing into the chunk",
		.plot_unit = "ns per allocation", .plot_log = 1, .plot_steps = 0,
		.compare = FIGURE_COMPARE_TIME, .compare_decimals = 2, .compare_label = "alloc ns",
		.workloads = W(FILL),
	},
	[METRIC_FREE_NS] = {
		.name = "free_ns", .unit = "ns", .display_unit = "ns",
		.display_scale = 1, .display = FIGURE_SHOW_ADAPTIVE,
		.head1 = "free", .head2 = "ns", .head2_is_unit = 1,
		.aspect = FIGURE_TIME, .plot_label = "time per free",
		.plot_name = "free",
		.plot_heading = "Time per free, including the final release",
		.plot_unit = "ns per free", .plot_log = 1, .plot_steps = 0,
		.compare = FIGURE_COMPARE_TIME, .compare_decimals = 2, .compare_label = "free ns",
		.workloads = W(FILL),
	},
	[METRIC_PAGE_FAULTS] = {
		.name = "page_faults", .unit = "faults", .display_unit = "faults",
		.display_scale = 1, .display = FIGURE_SHOW_WHOLE,
		.head1 = "page", .head2 = "faults",
		.plot_label = "page faults",
		.plot_name = "faults",
		.plot_heading = "Minor page faults in the allocation loop",
		.plot_unit = "page faults", .plot_log = 1, .plot_steps = 0,
		.compare = FIGURE_COMPARE_COUNT, .compare_decimals = 0, .compare_label = "faults",
		.workloads = W(FILL) | W(CHURN) | W(RANDOM) | W(REPLAY),
	},
	[METRIC_FREE_PAGE_FAULTS] = {
		.name = "free_page_faults", .unit = "faults", .display_unit = "faults",
		.display_scale = 1, .display = FIGURE_SHOW_WHOLE,
		.head1 = "free", .head2 = "faults",
		.plot_label = "page faults while freeing",
		.plot_heading = "Minor page faults in the free loop",
		.plot_unit = "page faults", .plot_log = 1, .plot_steps = 0,
		.workloads = W(FILL),
	},
	[METRIC_X_FLOOR] = {
		.name = "x_floor", .unit = "ratio", .display_unit = "x",
		.display_scale = 1, .display = FIGURE_SHOW_FIXED2,
		.head1 = "x", .head2 = "floor",
		.plot_label = "allocation time over the floor",
		.plot_heading = "Allocation time over the floor's (the same fill without an allocator)",
		.plot_unit = "alloc ns / floor ns", .plot_log = 1, .plot_steps = 0,
		.combine = FIGURE_MEDIAN_OF_RATIOS,
		.workloads = W(FILL),
	},
	[METRIC_WARM_ALLOC_NS] = {
		.name = "warm_alloc_ns", .unit = "ns", .display_unit = "ns",
		.display_scale = 1, .display = FIGURE_SHOW_ADAPTIVE,
		.head1 = "warm", .head2 = "ns", .head2_is_unit = 1,
		.aspect = FIGURE_TIME, .plot_label = "time per allocation, warm",
		.plot_heading = "Time per allocation, filling again after freeing everything",
		.plot_unit = "ns per allocation", .plot_log = 1, .plot_steps = 0,
		.workloads = W(FILL),
	},
	[METRIC_WARM_FREE_NS] = {
		.name = "warm_free_ns", .unit = "ns", .display_unit = "ns",
		.display_scale = 1, .display = FIGURE_SHOW_ADAPTIVE,
		.head1 = "warm free", .head2 = "ns", .head2_is_unit = 1,
		.aspect = FIGURE_TIME, .plot_label = "time per free, warm",
		.plot_heading = "Time per free of the warm fill",
		.plot_unit = "ns per free", .plot_log = 1, .plot_steps = 0,
		.workloads = W(FILL),
	},
	[METRIC_WARM_PAGE_FAULTS] = {
		.name = "warm_page_faults", .unit = "faults", .display_unit = "faults",
		.display_scale = 1, .display = FIGURE_SHOW_WHOLE,
		.head1 = "warm", .head2 = "faults",
		.workloads = W(FILL),
	},
	[METRIC_CHURN_NS] = {
		.name = "churn_ns", .unit = "ns/pair", .display_unit = "ns/pair",
		.display_scale = 1, .display = FIGURE_SHOW_ADAPTIVE,
		.head1 = "create+destroy", .head2 = "ns/pair", .head2_is_unit = 1,
		.aspect = FIGURE_TIME, .plot_label = "time per create and destroy",
		.plot_heading = "Time per create and destroy pair, fastest of rounds 2 and later",
		.plot_unit = "ns per pair", .plot_log = 1, .plot_steps = 0,
		.compare = FIGURE_COMPARE_TIME, .compare_decimals = 2, .compare_label = "churn ns",
		.workloads = W(CHURN),
	},
	[METRIC_CHURN_COLD_NS] = {
		.name = "churn_cold_ns", .unit = "ns/pair", .display_unit = "ns/pair",
		.display_scale = 1, .display = FIGURE_SHOW_ADAPTIVE,
		.head1 = "cold", .head2 = "ns/pair", .head2_is_unit = 1,
		.aspect = FIGURE_TIME, .plot_label = "time per create and destroy, cold",
		.plot_heading = "Time per create and destroy pair, first round (with its page faults)",
		.plot_unit = "ns per pair", .plot_log = 1, .plot_steps = 0,
		.compare = FIGURE_COMPARE_TIME, .compare_decimals = 2, .compare_label = "cold ns",
		.workloads = W(CHURN),
	},
	[METRIC_OP_NS] = {
		.name = "op_ns", .unit = "ns/op", .display_unit = "ns/op",
		.display_scale = 1, .display = FIGURE_SHOW_ADAPTIVE,
		.head1 = "", .head2 = "ns/op",
		.aspect = FIGURE_TIME, .plot_label = "time per operation",
		.plot_heading = "Time per operation (an allocation or a free) of the random sequence",
		.plot_unit = "ns per operation", .plot_log = 1, .plot_steps = 0,
		.compare = FIGURE_COMPARE_TIME, .compare_decimals = 2, .compare_label = "op ns",
		.workloads = W(RANDOM) | W(REPLAY),
	},
	[METRIC_PEAK_RSS_BYTES] = {
		.name = "peak_rss_bytes", .unit = "bytes", .display_unit = "KiB",
		.display_scale = 1024, .display = FIGURE_SHOW_WHOLE,
		.head1 = "peak", .head2 = "KiB", .head2_is_unit = 1,
		.aspect = FIGURE_MEMORY, .plot_label = "peak resident growth",
		.plot_name = "peak_rss",
		.plot_heading = "Peak resident set growth during the random sequence",
		.plot_unit = "bytes", .plot_log = 1, .plot_steps = 0,
		.compare = FIGURE_COMPARE_RSS, .compare_decimals = 0, .compare_label = "peak RSS B",
		.workloads = W(RANDOM) | W(REPLAY),
	},
	[METRIC_FRAGMENTATION] = {
		.name = "fragmentation", .unit = "ratio", .display_unit = "ratio",
		.display_scale = 1, .display = FIGURE_SHOW_FIXED2,
		.head1 = "RSS/live", .head2 = "ratio", .head2_is_unit = 1,
		.plot_label = "resident growth over live bytes",
		.plot_heading = "Resident growth over the bytes still alive at the end",
		.plot_unit = "RSS / live bytes", .plot_log = 1, .plot_steps = 0,
		.compare = FIGURE_COMPARE_RATIO, .compare_decimals = 4, .compare_label = "RSS/live",
		.combine = FIGURE_MEDIAN_OF_RATIOS,
		.workloads = W(RANDOM) | W(REPLAY),
	},
	[METRIC_SETUP_BYTES] = {
		.name = "setup_bytes", .unit = "bytes", .display_unit = "KiB",
		.display_scale = 1024, .display = FIGURE_SHOW_WHOLE,
		.head1 = "set-up", .head2 = "KiB", .head2_is_unit = 1,
		.plot_label = "allocator set-up",
		.plot_heading = "Anonymous memory the allocator took before the program's first call",
		.plot_unit = "bytes", .plot_log = 1, .plot_steps = 0,
		.workloads = W(REPLAY),
	},
	/* What the allocator keeps when the live bytes fall: the series' (replay_series.h). */
	[METRIC_LOW_RSS_BYTES] = {
		.name = "low_rss_bytes", .unit = "bytes", .display_unit = "KiB",
		.display_scale = 1024, .display = FIGURE_SHOW_WHOLE,
		.head1 = "lowest after the live peak", .head2 = "KiB", .head2_is_unit = 1,
		.workloads = W(REPLAY),
	},
	[METRIC_END_RSS_BYTES] = {
		.name = "end_rss_bytes", .unit = "bytes", .display_unit = "KiB",
		.display_scale = 1024, .display = FIGURE_SHOW_WHOLE,
		.head1 = "at the end", .head2 = "KiB", .head2_is_unit = 1,
		.workloads = W(REPLAY),
	},
	[METRIC_OPS_PER_S] = {
		.name = "ops_per_s", .unit = "ops/s", .display_unit = "Mops/s",
		.display_scale = 1e6, .display = FIGURE_SHOW_ADAPTIVE,
		.head1 = "all threads", .head2 = "Mops/s", .head2_is_unit = 1,
		.aspect = FIGURE_RATE, .plot_label = "swaps per second",
		.plot_heading = "Swaps per second, all threads together",
		.plot_unit = "swaps per second", .plot_log = 1, .plot_steps = 0,
		.compare = FIGURE_COMPARE_RATE, .compare_decimals = 0, .compare_label = "ops/s",
		.workloads = W(THREADS),
	},
	[METRIC_OPS_PER_S_PER_THREAD] = {
		.name = "ops_per_s_per_thread", .unit = "ops/s", .display_unit = "Mops/s",
		.display_scale = 1e6, .display = FIGURE_SHOW_ADAPTIVE,
		.head1 = "per thread", .head2 = "Mops/s", .head2_is_unit = 1,
		.aspect = FIGURE_RATE, .plot_label = "swaps per second per thread",
		.plot_heading = "Swaps per second per thread",
		.plot_unit = "swaps per second", .plot_log = 1, .plot_steps = 0,
		.workloads = W(THREADS),
	},
	[METRIC_OPS_PER_S_1THREAD] = {
		.name = "ops_per_s_1thread", .unit = "ops/s", .display_unit = "Mops/s",
		.display_scale = 1e6, .display = FIGURE_SHOW_ADAPTIVE,
		.head1 = "1 thread", .head2 = "Mops/s", .head2_is_unit = 1,
		.aspect = FIGURE_RATE,
		.workloads = W(THREADS),
	},
	[METRIC_SPEEDUP] = {
		.name = "speedup", .unit = "ratio", .display_unit = "x",
		.display_scale = 1, .display = FIGURE_SHOW_FIXED2,
		.head1 = "", .head2 = "speed-up",
		.aspect = FIGURE_RATE, .plot_label = "speed-up over one thread",
		.plot_heading = "Speed-up of all threads over one thread",
		.plot_unit = "times one thread", .plot_log = 1, .plot_steps = 0,
		.compare = FIGURE_COMPARE_RATE, .compare_decimals = 3, .compare_label = "speedup",
		.combine = FIGURE_MEDIAN_OF_RATIOS,
		.combine_note = "speed-up: each run's all-threads rate over its own 1-thread rate,\n"
				"the median of those ratios (not the ratio of the columns' medians)",
		.workloads = W(THREADS),
	},
};

#define GATED(a) .gated = a, .ngated = sizeof(a) / sizeof(a[0])
static const enum metric fill_gated[] = {
	METRIC_OVERHEAD_BYTES, METRIC_MARGINAL_BYTES, METRIC_ALLOC_NS, METRIC_FREE_NS,
};
static const enum metric churn_gated[] = {
	METRIC_CHURN_NS, METRIC_CHURN_COLD_NS, METRIC_PAGE_FAULTS,
};
/* A replay is a recorded sequence: the random sequence's three figures. */
static const enum metric random_gated[] = {
	METRIC_PEAK_RSS_BYTES, METRIC_FRAGMENTATION, METRIC_OP_NS,
};
static const enum metric threads_gated[] = { METRIC_OPS_PER_S, METRIC_SPEEDUP };

/* A replay: pool-locked has no size classes of its own. */
static const char *replay_cannot(const struct run_config *config, const struct backend *b)
{
	(void)config;
	if (backend_base(b) == &backend_pool_locked)
		return "it does not replay a trace (its size classes are the pool backend's)";
	return NULL;
}

static const struct workload_def workloads[WORKLOAD_COUNT] = {
	[WORKLOAD_FILL] = {
		.workload = WORKLOAD_FILL,
		.options = WORKLOAD_OPT_COUNTERS,
		GATED(fill_gated),
		.verdict_memory = METRIC_OVERHEAD_BYTES, .verdict_time = METRIC_ALLOC_NS,
		.sections = SECTION_FLOOR | SECTION_BREAKDOWN,
		.notes = "overhead A(M): the average A, and M the cost of one more chunk (the slope\n"
			 "of the growth read at each quarter) where they differ by more than two\n"
			 "pages over the count; --format json gives one_time_bytes too\n",
	},
	[WORKLOAD_CHURN] = {
		.workload = WORKLOAD_CHURN,
		.options = WORKLOAD_OPT_ROUNDS,
		GATED(churn_gated),
		.gates_reserved = 1,
		.verdict_memory = METRIC_COUNT, .verdict_time = METRIC_CHURN_NS,
		.notes = "ns/pair: one create (allocate, touch) and one destroy, in the fastest\n"
			 "of rounds 2 and later; cold: the first round, with its page faults;\n"
			 "x floor: ns/pair over the arena's, whose destroy does nothing (n/a\n"
			 "without the arena)\n",
	},
	[WORKLOAD_RANDOM] = {
		.workload = WORKLOAD_RANDOM,
		.options = WORKLOAD_OPT_SEED | WORKLOAD_OPT_WEIGHTS,
		GATED(random_gated),
		.verdict_memory = METRIC_PEAK_RSS_BYTES, .verdict_time = METRIC_OP_NS,
		.sections = SECTION_CHECKSUM,
		.notes = "RSS/live: resident growth over the bytes still alive at the end\n",
	},
	[WORKLOAD_THREADS] = {
		.workload = WORKLOAD_THREADS,
		.options = WORKLOAD_OPT_ROUNDS | WORKLOAD_OPT_THREADS,
		GATED(threads_gated),
		.verdict_memory = METRIC_COUNT, .verdict_time = METRIC_OPS_PER_S,
		.notes = "Mops/s: millions of swaps (allocate, copy, copy, copy, free) per second\n",
	},
	[WORKLOAD_REPLAY] = {
		.workload = WORKLOAD_REPLAY,
		.options = WORKLOAD_OPT_TRACE | WORKLOAD_OPT_REPLAY_THREADS,
		.cannot = replay_cannot,
		GATED(random_gated),
		.verdict_memory = METRIC_PEAK_RSS_BYTES, .verdict_time = METRIC_OP_NS,
		.notes = "steps: the trace's calls replayed (free(NULL) and failed calls left out);\n"
			 "peak RSS: the highest resident set during the replay over the one before\n"
			 "it; peak live: the most bytes the program had asked for and not freed\n"
			 "(the same for every backend); RSS/live at peak: peak RSS over peak live\n",
	},
};

const struct figure *figure_get(enum metric figure)
{
	return &figures[figure];
}

const struct workload_def *workload_def(enum workload workload)
{
	return &workloads[workload < WORKLOAD_COUNT ? workload : WORKLOAD_FILL];
}

void workload_option_takers(enum workload_option option, char *buf, size_t size)
{
	size_t n = 0, used = 0, seen = 0;

	for (int w = 0; w < WORKLOAD_COUNT; w++)
		n += !!(workloads[w].options & option);
	used += (size_t)snprintf(buf, size, "the");
	for (int w = 0; w < WORKLOAD_COUNT && used < size; w++) {
		if (!(workloads[w].options & option))
			continue;
		seen++;
		used += (size_t)snprintf(buf + used, size - used, "%s%s",
					 seen == 1 ? " " : seen == n ? " and " : ", ",
					 workload_name((enum workload)w));
	}
	if (used < size)
		snprintf(buf + used, size - used, n == 1 ? " workload" : " workloads");
}

const char *metric_name(enum metric metric)
{
	return figures[metric].name;
}

int metric_applies(enum metric metric, enum workload workload)
{
	return !!(figures[metric].workloads & (1u << workload));
}

int metric_find_plot(const char *name)
{
	for (int m = 0; m < METRIC_COUNT; m++)
		if (figures[m].plot_label &&
		    (!strcmp(figures[m].name, name) ||
		     (figures[m].plot_name && !strcmp(figures[m].plot_name, name))))
			return m;
	return -1;
}

int metric_find(const char *name)
{
	for (int m = 0; m < METRIC_COUNT; m++)
		if (!strcmp(figures[m].name, name))
			return m;
	return -1;
}

double figure_display_value(enum metric metric, double value)
{
	return value / figures[metric].display_scale;
}
