/*
 * main.c - allocbench's entry point: finds the subcommand and runs it.
 * `run` is the default, so `allocbench --sizes 4,40` measures.
 */
#include "cli.h"
#include "commands.h"
#include "compare.h"
#include "heap.h"
#include "output.h"
#include "probe.h"
#include "run.h"
#include "runner.h"
#include "child/child.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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
	if (need <= available)
		return 0;
	if (size)
		return error("--total %llu bytes needs about %llu MiB at size %zu (the chunks, "
			     "their 8-byte pointers and the allocator's overhead), more than "
			     "the %llu MiB available (MemAvailable); use a smaller --total, or "
			     "--force to measure anyway", (unsigned long long)config->total_bytes,
			     (unsigned long long)(need >> 20), size,
			     (unsigned long long)(available >> 20));
	return error("--total %llu bytes needs about %llu MiB (the chunks of the mix, their "
		     "8-byte pointers, the plan and the allocator's overhead), more than the "
		     "%llu MiB available (MemAvailable); use a smaller --total, or --force to "
		     "measure anyway", (unsigned long long)config->total_bytes,
		     (unsigned long long)(need >> 20), (unsigned long long)(available >> 20));
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

static int cmd_run(int argc, char **argv)
{
	struct run_config config;
	struct run_report report;
	struct result_file baseline;
	struct output out;
	int ret;

	cli_parse_run(argc, argv, &config);
	/* Every measurement execs /proc/self/exe: without /proc, say so once, up front. */
	if (access("/proc/self/exe", X_OK)) {
		error("cannot run the measuring processes: '/proc/self/exe': %s (is /proc "
		      "mounted?)", strerror(errno));
		cli_config_release(&config);
		return 2;
	}
	if (!config.force && check_memory(&config)) {
		cli_config_release(&config);
		return 2;
	}
	/* Before -o's temporary file exists, so that an interrupt can remove it. */
	if (runner_signals_install()) {
		cli_config_release(&config);
		return 1;
	}
	/* An unusable baseline is refused before anything is measured. */
	if (config.baseline_path &&
	    compare_baseline_open(config.baseline_path, &config, &baseline)) {
		cli_config_release(&config);
		return 2;
	}
	if (output_open(&out, config.output_path)) {
		/* A signal while a FIFO waits for its reader is an interrupt, not bad usage. */
		ret = runner_interrupted() ? interrupted_status(runner_interrupted(), &config) : 2;
		if (config.baseline_path)
			results_release(&baseline);
		cli_config_release(&config);
		return ret;
	}
	if (run_measure_all(&config, &report)) {
		output_abort(&out);
		run_report_release(&report);
		if (config.baseline_path)
			results_release(&baseline);
		cli_config_release(&config);
		return 1;
	}
	if (report.interrupted) {
		output_abort(&out);
		ret = interrupted_status(report.interrupted, &config);
		run_report_release(&report);
		if (config.baseline_path)
			results_release(&baseline);
		cli_config_release(&config);
		return ret;
	}
	switch (config.format) {
	case FORMAT_JSON:
		ret = report_json_write(out.file, &report);
		break;
	case FORMAT_CSV:
		ret = report_csv_write(out.file, &report);
		break;
	case FORMAT_MARKDOWN:
		ret = report_markdown_write(out.file, &report);
		break;
	case FORMAT_TEXT:
	default:
		ret = report_text_write(out.file, &report);
		break;
	}
	if (runner_interrupted()) {
		/* Too late to stop a child, in time to keep -o as it was. */
		output_abort(&out);
		ret = interrupted_status(runner_interrupted(), &config);
		run_report_release(&report);
		if (config.baseline_path)
			results_release(&baseline);
		cli_config_release(&config);
		return ret;
	} else if (ret) {
		error("cannot write the report to %s: %s", config.output_path ? config.output_path :
		      "standard output", strerror(errno ? errno : EIO));
		output_abort(&out);
	} else {
		ret = output_commit(&out);
	}
	ret = ret ? 1 : report.failed ? 1 : 0;
	/*
	 * The comparison goes to standard error, so that standard output (or
	 * -o) holds the report alone, in its format.
	 */
	if (config.baseline_path) {
		int cmp = compare_baseline_run(&baseline, &report, stderr);

		ret = cmp < 0 ? 2 : cmp ? 1 : ret;
		results_release(&baseline);
	}
	run_report_release(&report);
	cli_config_release(&config);
	return ret;
}

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	int signals;  /* writes -o: a terminating signal removes its temporary file */
};

static const struct command commands[] = {
	{ "run", cmd_run, 0 },  /* installs them itself, after checking its input */
	{ "compare", cmd_compare, 1 },
	{ "plot", cmd_plot, 1 },
	{ "counters", cmd_counters, 0 },
	{ RUNNER_CHILD_COMMAND, child_main, 0 },
};

/*
 * Runs COMMAND. After a terminating signal it has cleaned up (-o's
 * temporary file removed, the measuring process killed): the process ends
 * by the signal, as it would have without a handler.
 */
static int run_command(const struct command *command, int argc, char **argv)
{
	int ret;

	if (command->signals && runner_signals_install())
		return 1;
	ret = command->fn(argc, argv);
	if (runner_interrupted())
		runner_signal_exit(runner_interrupted());
	return ret;
}

/*
 * Makes descriptors 0, 1 and 2 valid (/dev/null where one is closed) before
 * anything is opened: otherwise the first file opened (-o's temporary file)
 * would become standard error, and every message of this process and of the
 * measuring processes would be written into the report.
 */
static void standard_fds_open(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		int got;

		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		got = open("/dev/null", fd ? O_WRONLY : O_RDONLY);
		if (got != fd)
			_exit(2);  /* no /dev/null, or a race: nowhere to say it */
	}
}

int main(int argc, char **argv)
{
	standard_fds_open();
	/*
	 * A measuring process keeps its own allocations on the private heap
	 * from the first one on (heap.h); the parent measures nothing and
	 * uses the C library's allocator.
	 */
	if (argc < 2 || strcmp(argv[1], RUNNER_CHILD_COMMAND))
		heap_private_end();
	if (argc > 1) {
		for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
			if (!strcmp(argv[1], commands[i].name))
				return run_command(&commands[i], argc - 1, argv + 1);
		if (argv[1][0] != '-')
			usage_die("unknown command '%s' (expected run, compare, plot or counters; "
				  "see allocbench --help)", argv[1]);
	}
	return run_command(&commands[0], argc, argv);
}
