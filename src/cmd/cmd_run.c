/*
 * cmd_run.c - `allocbench [run]`, the default command: reads its options
 * (cmd_run_options.c) and checks them together (cmd_run_check.c),
 * refuses what cannot run (no /proc, more memory than is available, an
 * unusable --baseline), measures (run.h), writes the report in its format
 * and, with --baseline, compares it with the baseline as compare does.
 * Exit status: 0, 1 a measurement failed or a regression, 2 bad usage,
 * 128+N after signal N. Like every command file, it may exit.
 */
#include "model/backend_set.h"
#include "cmd/cmd_run.h"
#include "cmd/commands.h"
#include "platform/counters.h"
#include "platform/output.h"
#include "model/preload.h"
#include "platform/probe.h"
#include "model/report.h"
#include "report/results.h"
#include "model/run.h"
#include "cmd/run_baseline.h"
#include "model/runner.h"
#include "platform/util.h"
#include "measure/workloads.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the command line ---- */

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

/*
 * Parses the run command's ARGV (ARGV[0] is the command name) into *CMD.
 * Exits with status 2 and a message naming the bad value on bad usage, and
 * with status 0 after --help or --version.
 */
static void parse_run(int argc, char **argv, struct run_cmd *cmd)
{
	run_options_read(argc, argv, cmd);
	check_outputs(cmd);  /* before any input is read */
	if (cmd->allow_host_change && !cmd->config.baseline_path)
		usage_die("--allow-host-change gates a --baseline comparison: give --baseline FILE");
	if (cmd->gate_time && !cmd->config.baseline_path)
		usage_die("--gate-time gates a --baseline comparison: give --baseline FILE");
	run_options_check(&cmd->config, &cmd->args);
}

/* ---- measuring ---- */

/*
 * The memory run_measure_all() keeps for the runs' results: one sample
 * per run of each row (and of each size's floor), allocated before the
 * first run. Forks fail long before it is all written.
 */
static uint64_t results_bytes(const struct run_config *config)
{
	uint64_t columns = workload_one_column(config->workload) ? 1 : config->nsizes;
	uint64_t runs = columns * (config->nbackends + (config->workload == WORKLOAD_FILL)) *
			config->repeat;

	return runs > UINT64_MAX / sizeof(struct sample) ? UINT64_MAX : runs * sizeof(struct sample);
}

/*
 * Refuses (returns -1 after saying why) a run whose largest measurement
 * needs more memory than the machine has available: it would be killed by
 * the OOM killer after minutes, or push the machine into swap and measure
 * that. Without MemAvailable (no /proc) the check is skipped with a warning.
 */
static int check_memory(const struct run_config *config)
{
	uint64_t available, need, results = results_bytes(config);
	size_t size;

	if (probe_meminfo_read("/proc/meminfo", "MemAvailable", &available)) {
		warning("cannot read MemAvailable from '/proc/meminfo': the memory a "
			"measurement needs is not checked");
		return 0;
	}
	/* Half of it at most: the measuring processes need the rest. */
	if (results > available / 2)
		return error("--repeat %u makes %llu runs, whose results take about %llu MiB "
			     "(%zu bytes each), more than half the %llu MiB available "
			     "(MemAvailable); use a smaller --repeat, fewer --sizes or --backend, "
			     "or --force to measure anyway", config->repeat,
			     (unsigned long long)(results / sizeof(struct sample)),
			     (unsigned long long)(results >> 20), sizeof(struct sample),
			     (unsigned long long)(available >> 20));
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
			     "anyway", run_total_subject(config),
			     (unsigned long long)(need >> 20), size,
			     (unsigned long long)(available >> 20),
			     config->workload == WORKLOAD_REPLAY ? "" : "a smaller --total, or ");
	return error("%s needs about %llu MiB (the chunks %s, their 8-byte pointers, the plan "
		     "and the allocator's overhead), more than the %llu MiB available "
		     "(MemAvailable); use %s--force to measure anyway", run_total_subject(config),
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

int run_refuse_early(const struct run_config *config)
{
	/*
	 * The measuring programs are found through /proc/self/exe (abi.h):
	 * without /proc, say so once, up front.
	 */
	if (access("/proc/self/exe", X_OK))
		return error("cannot run the measuring processes: '/proc/self/exe': %s (is "
			     "/proc mounted?)", strerror(errno));
	return config->force ? 0 : check_memory(config);
}

/*
 * Opens the file of each --export (OPEN[i] set for each one opened).
 * Returns 0, 2 after an error, or 128+N when signal N came while waiting.
 */
static int open_exports(const struct run_cmd *cmd, struct output *exports, int *open)
{
	for (size_t i = 0; i < REPORT_FORMATS; i++) {
		if (!cmd->exports[i].path)
			continue;
		if (output_open(&exports[i], cmd->exports[i].path))
			return runner_interrupted() ?
			       interrupted_status(runner_interrupted(), &cmd->config) : 2;
		open[i] = 1;
	}
	return 0;
}

/*
 * Writes REPORT to OUT, -o's file or standard output, and puts it in
 * place. Returns 0; 1 after an error naming it; or 128+N when signal N
 * came meanwhile (-o is left as it was). OUT is committed or removed.
 */
static int write_report(const struct run_config *config, const struct run_report *report,
			struct output *out)
{
	int ret = config->writer->write(out->file, report);

	if (runner_interrupted()) {
		/* Too late to stop a child, in time to keep -o as it was. */
		ret = interrupted_status(runner_interrupted(), config);
		output_abort(out);
		return ret;
	}
	if (ret) {
		if (!broken_pipe(errno))
			error("cannot write the report to %s: %s", config->output_path ?
			      config->output_path : "standard output", strerror(errno ? errno : EIO));
		output_abort(out);
		return 1;
	}
	return output_commit(out) ? 1 : 0;
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
	ret = 2;
	if (run_refuse_early(config))
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
	if ((ret = open_exports(&cmd, exports, have_export)))
		goto cleanup;
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
	ret = write_report(config, &report, &out);
	have_output = 0;
	if (ret > 1)  /* interrupted: the exports are removed too */
		goto cleanup;
	if (!ret)
		ret = write_exports(&cmd, &report, exports, have_export);
	ret = ret ? 1 : report.failed ? 1 : 0;
	/*
	 * The comparison goes to standard error, so that standard output (or
	 * -o) holds the report alone, in its format.
	 */
	if (have_baseline) {
		int cmp = baseline_compare(&baseline, &report, cmd.gate_time, cmd.allow_host_change,
					   stderr);

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
	run_options_release(config);
	return ret;
}
