/*
 * main.c - allocbench's entry point: finds the subcommand and runs it.
 * `run` is the default, so `allocbench --sizes 4,40` measures.
 */
#include "cmd/commands.h"
#include "platform/heap.h"
#include "model/runner.h"
#include "measure/child.h"
#include "platform/probe.h"
#include "platform/util.h"
#include "report/progress.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	int signals;  /* writes -o: a terminating signal removes its temporary file */
};

static const struct command commands[] = {
	{ "run", cmd_run, 0 },  /* installs them itself, after checking its input */
	{ "compare", cmd_compare, 1 },
	{ "plot", cmd_plot, 1 },
	{ "show", cmd_show, 1 },
	{ "counters", cmd_counters, 0 },
	{ "backends", cmd_backends, 0 },
	{ "record", cmd_record, 0 },
	{ "report", cmd_report, 1 },
	{ "history", cmd_history, 1 },
	{ "ab", cmd_ab, 1 },
	{ "advise", cmd_advise, 0 },  /* installs them itself, after recording */
	{ CHILD_COMMAND, child_main, 0 },
};

/* Exits 2 naming WORD, with the nearest commands ("did you mean compare?"). */
static _Noreturn void unknown_command(const char *word)
{
	const char *names[sizeof(commands) / sizeof(commands[0])];
	char near[128] = "";
	size_t n = 0;

	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(commands[i].name, CHILD_COMMAND))
			names[n++] = commands[i].name;
	nearest_names(word, names, n, 3, near, sizeof(near));
	usage_die("unknown command '%s'%s%s%s (expected run, compare, plot, show, counters, "
		  "backends, record, report, advise, history or ab; "
		  "see allocbench --help)", word, *near ? "; did you mean " : "", near,
		  *near ? "?" : "");
}

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
	/* Its reader went away, with SIGPIPE ignored: it ends as it would have by the signal. */
	if (broken_pipe_seen())
		runner_signal_exit(SIGPIPE);
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
	/* Before anything of its own: a replay counts the allocator's set-up against it. */
	probe_entry_record();
	standard_fds_open();
	progress_sink = progress_stderr;
	/*
	 * A measuring process keeps its own allocations on the private heap
	 * from the first one on (heap.h); the parent measures nothing and
	 * uses the C library's allocator.
	 */
	if (argc < 2 || strcmp(argv[1], CHILD_COMMAND))
		heap_private_end();
	if (argc > 1) {
		for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
			if (!strcmp(argv[1], commands[i].name))
				return run_command(&commands[i], argc - 1, argv + 1);
		if (argv[1][0] != '-')
			unknown_command(argv[1]);
	}
	return run_command(&commands[0], argc, argv);
}
