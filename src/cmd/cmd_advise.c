/*
 * cmd_advise.c - `allocbench advise [options] -- COMMAND [ARG...]`: which
 * allocator should this program use, and what would it save? Records
 * COMMAND as record does (record_command()), or takes --trace FILE,
 * replays the trace on every backend that can (the replay workload's
 * defaults: malloc, pool, arena and every installed drop-in allocator) as
 * run does, and prints the answer first (the verdict: for memory and for
 * time, the best drop-in choice and the best with code changes, against
 * the C library's malloc), then the run's report, then where to read more.
 * Like the other cmd_*.c files, it may exit.
 */
#include "cmd/cli.h"
#include "cmd/cmd_run.h"
#include "cmd/commands.h"
#include "cmd/parse_options.h"
#include "model/backend_set.h"
#include "report/report_backends.h"
#include "model/report.h"
#include "model/rerun.h"
#include "model/run.h"
#include "model/runner.h"
#include "platform/output.h"
#include "platform/util.h"
#include "report/report_formats.h"
#include "trace/trace_set.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define STR_(x) #x
#define STR(x) STR_(x)

/* What advise's options fill. */
struct advise_cmd {
	const char *trace;           /* --trace: replay this trace, record nothing */
	const char *keep_trace;      /* --keep-trace: record into this file and keep it */
	const char *backends;        /* --backend, or NULL: the replay's defaults */
	unsigned repeat;             /* --repeat: fresh processes per backend */
	unsigned reruns;             /* --reruns: real runs of COMMAND per drop-in candidate */
	const char *replay_threads;  /* --replay-threads, or NULL */
	const char *format;          /* --format, or NULL: text */
	const struct report_writer *writer;  /* --format's writer, or NULL */
	const char *output;          /* -o, or NULL: standard output */
	int quiet;                   /* -q */
	int tune;                    /* --tune: SETTINGS_GRID as candidates too */
};

static const struct cli_option advise_options[] = {
	{ OPT_FILENAME(256, "trace", "FILE", advise_cmd, trace,
	  "replay the trace FILE instead of recording a COMMAND") },
	{ OPT_FILENAME(257, "keep-trace", "FILE", advise_cmd, keep_trace,
	  "record COMMAND into FILE and keep it") },
	{ OPT_STRING('b', "backend", "LIST", advise_cmd, backends,
	  "backends (default malloc, pool, arena and drop-ins)") },
	{ OPT_UNSIGNED('r', "repeat", "N", advise_cmd, repeat, 1, RUN_MAX_REPEAT,
	  "(expected a whole number from 1 to " STR(RUN_MAX_REPEAT) ")",
	  "fresh-process replays per backend (default 3)") },
	{ OPT_UNSIGNED(259, "reruns", "N", advise_cmd, reruns, 0, RERUN_MAX_ROUNDS,
	  "(expected a whole number from 0 to " STR(RERUN_MAX_ROUNDS) ")",
	  "runs of COMMAND per allocator (default " STR(RERUN_DEFAULT_ROUNDS) "; 0: none)") },
	{ OPT_BOOL(260, "tune", advise_cmd, tune,
	  "also try a grid of each allocator's memory settings") },
	{ OPT_STRING(258, "replay-threads", "MODE", advise_cmd, replay_threads,
	  "global or per-thread (default: as the program ran)") },
	{ OPT_STRING('f', "format", "FORMAT", advise_cmd, format,
	  "text (default), json, csv or markdown") },
	{ OPT_FILENAME('o', "output", "FILE", advise_cmd, output,
	  "write the answer and report to FILE") },
	{ OPT_BOOL('q', "quiet", advise_cmd, quiet,
	  "no progress on standard error, no recording summary") },
	CLI_OPT_HELP,
	CLI_OPTIONS_END,
};

static void advise_help(FILE *out)
{
	fputs(
"usage: allocbench advise [options] -- COMMAND [ARG...]\n"
"       allocbench advise [options] --trace FILE\n"
"\n"
"Which allocator should this program use, and what would it save? Records\n"
"COMMAND, runs it again under each drop-in allocator, replays its allocations\n"
"on every backend and answers first, for memory and for time. After recording\n"
"a COMMAND, all of it goes to standard error (or -o).\n"
"\n"
"Options:\n", out);
	cli_help_options(out, advise_options, 25);
	fputs(
"\n"
"Exit status: 0 answered, 1 a replay or a real run failed or COMMAND left no\n"
"trace, 2 bad usage or an unusable trace, 127 COMMAND not found, 128+N signal N.\n"
"allocbench-advise(1) says more: how the answer is reached, every field.\n", out);
}

/* ---- the temporary trace ---- */

/* The directory of the temporary trace and its processes' traces, or "". */
static char tmp_dir[PATH_MAX - 16];  /* room for "/trace" after it */

/* Removes the temporary trace, the processes' traces beside it and their directory. */
static void tmp_dir_remove(void)
{
	DIR *dp;
	struct dirent *d;

	if (!*tmp_dir || !(dp = opendir(tmp_dir)))
		return;
	while ((d = readdir(dp))) {
		char path[PATH_MAX + 256];

		if (strcmp(d->d_name, ".") && strcmp(d->d_name, "..") &&
		    (size_t)snprintf(path, sizeof(path), "%s/%s", tmp_dir, d->d_name) < sizeof(path))
			unlink(path);
	}
	closedir(dp);
	rmdir(tmp_dir);
	*tmp_dir = '\0';
}

/* A new temporary trace's path into BUF (SIZE bytes), removed at exit; exits 2 on failure. */
static void tmp_trace(char *buf, size_t size)
{
	const char *dir = getenv("TMPDIR");

	if (!dir || !*dir)
		dir = "/tmp";
	if ((size_t)snprintf(tmp_dir, sizeof(tmp_dir), "%s/allocbench-advise.XXXXXX", dir) >=
	    sizeof(tmp_dir) || !mkdtemp(tmp_dir)) {
		error("cannot make a temporary directory in '%s' for the trace: %s (set TMPDIR, or "
		      "give --keep-trace FILE)", dir, strerror(errno));
		exit(2);
	}
	atexit(tmp_dir_remove);
	snprintf(buf, size, "%s/trace", tmp_dir);
}

/* ---- the command line ---- */

/*
 * Parses advise's options (they end at "--" or COMMAND: the command's own
 * follow) into *CMD; returns the index of COMMAND in ARGV (ARGC: none).
 * Exits 2 on bad usage, 0 after --help.
 */
static int parse_advise(int argc, char **argv, struct advise_cmd *cmd)
{
	struct cli_parser parser;
	size_t len;

	memset(cmd, 0, sizeof(*cmd));
	cmd->repeat = RUN_DEFAULT_REPEAT;
	cmd->reruns = RERUN_DEFAULT_ROUNDS;
	cli_parser_init(&parser, advise_options, advise_help, "allocbench advise --help", argc,
			argv);
	parser.ctx = cmd;
	/* '+': stop at COMMAND, whose options are its own; optind 0 makes getopt see it. */
	len = strlen(parser.optstring);
	memmove(parser.optstring + 1, parser.optstring, len + 1);
	parser.optstring[0] = '+';
	optind = 0;
	while (cli_next(&parser) != -1)
		;
	/* Here, before what is missing is said. */
	if (cmd->format)
		cmd->writer = CLI_FORMAT(report_formats, cmd->format, "");
	if (cmd->trace && optind < argc)
		usage_die("advise takes --trace '%s' or a COMMAND to record, not both ('%s')",
			  cmd->trace, argv[optind]);
	if (cmd->trace && cmd->keep_trace)
		usage_die("--keep-trace keeps a recording, and --trace '%s' records nothing",
			  cmd->trace);
	if (!cmd->trace && optind >= argc)
		usage_die("advise needs a COMMAND to record (allocbench advise -- COMMAND [ARG...]) "
			  "or --trace FILE (see allocbench advise --help)");
	return optind;
}

/*
 * The run of CMD's replay of TRACE into *RUN: the run command's defaults,
 * then what advise's options say (each checked as run checks it; exits 2 on
 * a bad --replay-threads). The report's command line is advise's, ARGC
 * words of ARGV as the user typed them.
 */
static void run_options_for(const struct advise_cmd *cmd, const char *trace, int argc,
			    char **argv, struct run_cmd *run)
{
	struct run_config *config = &run->config;

	run_cmd_defaults(run);
	config->argc = argc;
	config->argv = argv;
	config->workload = WORKLOAD_REPLAY;
	config->trace_path = trace;
	config->repeat = cmd->repeat;
	if (cmd->replay_threads &&
	    run_replay_threads_parse(cmd->replay_threads, &config->replay_per_thread))
		exit(2);
	run->args.replay_threads = cmd->replay_threads;
	if (cmd->writer)
		config->writer = cmd->writer;
	config->output_path = cmd->output;
	config->quiet = cmd->quiet;
	run->args.backends = cmd->backends;
}

/*
 * Refuses (exit 2) -o naming the trace advise reads or keeps, and a
 * --backend the replay cannot take, before anything is recorded.
 */
static void check_early(const struct advise_cmd *cmd)
{
	struct output_use uses[] = {
		{ cmd->output ? cmd->output : "-", cmd->output ? "--output" : "the report", 1 },
		{ cmd->keep_trace, "--keep-trace", 1 },
		{ cmd->trace, "--trace", 0 },
	};
	struct run_config scratch = { .workload = WORKLOAD_REPLAY };
	int ret;

	if (output_refuse_same(uses, sizeof(uses) / sizeof(uses[0])))
		exit(2);
	/* all is checked once, when the replay's backends are set: its warnings once. */
	if (!cmd->backends || !strcmp(cmd->backends, "all"))
		return;
	ret = backend_set_parse(&scratch, cmd->backends);
	backend_set_release(&scratch);
	if (ret == 1) {
		/* As run's --backend list: the backends, and nothing recorded. */
		if (report_backends_write(stdout, 0, NULL, 0))
			exit(1);
		cli_exit_printed();
	}
	if (ret)
		exit(2);
}

/*
 * Claims --keep-trace FILE for this advise until it exits (exit 2 when
 * another holds it): a second advise recording into FILE replaced it
 * under the first one's replay ("trace changed since allocbench read
 * it"). The claim is a Unix socket bound in the abstract namespace, under
 * a name made of FILE's absolute path (its directory's resolved path and
 * its own name, or the resolved target of a link): the kernel frees it
 * with the process, however it ends, and leaves no file behind.
 */
static void claim_keep_trace(const char *file)
{
	char path[PATH_MAX], dir[PATH_MAX];
	const char *slash = strrchr(file, '/'), *base = slash ? slash + 1 : file;
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	uint64_t h;
	int fd;

	if (!realpath(file, path)) {
		snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - file) + 1 : 1,
			 slash ? file : ".");
		if (!realpath(dir, path))
			return;  /* a directory that is not there: record says so */
		if (strlen(path) + 1 + strlen(base) >= sizeof(path))
			return;
		strcat(strcat(path, "/"), base);
	}
	h = trace_checksum_words(0xcbf29ce484222325ULL, path, strlen(path));
	/* sun_path[0] stays 0: the abstract namespace. */
	snprintf(addr.sun_path + 1, sizeof(addr.sun_path) - 1, "allocbench-advise-keep-trace-%016llx",
		 (unsigned long long)h);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (bind(fd, (struct sockaddr *)&addr,
		 (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(addr.sun_path + 1)))) {
		if (errno == EADDRINUSE) {
			error("--keep-trace '%s': another allocbench advise is recording or replaying "
			      "it now; give each its own FILE", file);
			exit(2);
		}
		close(fd);
	}
	/* Held open, never closed: the claim ends with the process. */
}

/* ---- recording ---- */

/*
 * Records ARGV into TRACE, converted to format version 3 when it is KEEP's
 * (a temporary one is replayed as the recorder wrote it, whose read is
 * faster). Returns 0 when there is a trace to replay (ARGV's
 * exit status in *STATUS), or the exit status when there is none (record's:
 * 127 not found, 2 refused, 1 no trace); ends by the signal that ended
 * COMMAND when record passed it on.
 */
static int record(const char *trace, char **argv, int quiet, int keep, int *status)
{
	struct stat before, after;
	int existed = !stat(trace, &before), sig, ret = record_command(trace, argv, quiet, keep, &sig);

	if (sig) {
		error("'%s' was stopped by SIG%s: nothing to replay", argv[0], sigabbrev_np(sig));
		tmp_dir_remove();
		fflush(NULL);
		signal(sig, SIG_DFL);
		raise(sig);
	}
	/* A --keep-trace file left as it was (COMMAND not found, refused) is not this run's. */
	if (stat(trace, &after) ||
	    (existed && after.st_dev == before.st_dev && after.st_ino == before.st_ino &&
	     after.st_ctim.tv_sec == before.st_ctim.tv_sec &&
	     after.st_ctim.tv_nsec == before.st_ctim.tv_nsec))
		return ret ? ret : 1;
	if (ret)
		warning("'%s' exited with status %d: the answer is for the calls it made until then",
			argv[0], ret);
	*status = ret;
	return 0;
}

/*
 * The trace of --trace FILE's recording that advise replays (the process
 * with the most calls: trace_set_choose(), as record chose when it made
 * FILE), into TRACE (SIZE bytes), with what it may lack on standard error.
 * A trace that cannot be read is left for the replay to refuse.
 */
static void choose_trace(char *trace, size_t size, int quiet)
{
	struct trace_set set;
	char why[PATH_MAX + 512], text[1024];

	if (trace_set_find(trace, 0, &set, why, sizeof(why)) || set.chosen >= set.n) {
		trace_set_release(&set);
		return;
	}
	if (set.n > 1 && !quiet)
		fprintf(stderr, "allocbench: advise replays %s (allocbench report '%s' lists them)\n",
			trace_set_choice_text(&set, text, sizeof(text)), trace);
	copy_string(trace, size, set.procs[set.chosen].path);
	record_notes(&set, -1);
	trace_set_release(&set);
}

/* ---- the answer ---- */

/* Where to read more, after the report: the man pages, and the trace kept or not. */
static void more(FILE *out, const char *trace)
{
	char text[PATH_MAX * 2 + 256];

	if (*tmp_dir)
		snprintf(text, sizeof(text), "the trace was a temporary file, removed (--keep-trace "
			 "FILE keeps it)");
	else
		snprintf(text, sizeof(text), "the trace: %s (allocbench report '%s' says what the "
			 "program allocated)", trace, trace);
	fputc('\n', out);
	put_wrappedf(out, 80, "", "more: allocbench-advise(1) says how the answer is reached, "
		     "allocbench-run(1) what each column means; %s", text);
}

/*
 * Writes REPORT to OUT in its config's format: in text, the answer first
 * (report_text_write() with answer_first), then the report, then where to
 * read more; in the other formats, the report (JSON has the answer under
 * "summary", Markdown as its Verdict). Returns 0, or -1 when OUT could not
 * be written.
 */
static int advise_write(FILE *out, struct run_report *report, const char *trace)
{
	const struct run_config *config = report->config;
	int ret;

	if (config->writer != &report_formats[0])
		return config->writer->write(out, report);
	report->answer_first = 1;
	ret = report_text_write(out, report);
	more(out, trace);
	return ret || ferror(out) ? -1 : 0;
}

/*
 * Where the real runs RERUN answer for the drop-in allocators, each
 * preloaded one, and each with settings, is replayed once
 * (config->preloaded_once): its peak beside
 * its real runs. One whose replay's peak is more than RUN_AGAIN_PERCENT
 * off its real runs' median is replayed again, --repeat times in all, and
 * its median stands: now and then one tcmalloc process takes 2 MiB more of
 * its own (t0013). One without real runs (its row failed) is replayed
 * --repeat times too: its replay is its answer. Returns 0, or -1 out of
 * memory.
 */
static int replay_again(const struct run_config *config, struct run_report *report,
			const struct rerun *rerun)
{
	for (size_t i = 0; i < report->ncells && !report->interrupted; i++) {
		struct cell *c = &report->cells[i];
		struct stat_summary real, replayed;
		const struct rerun_row *row = NULL;
		int measured;

		for (size_t k = 0; rerun && k < rerun->nrows; k++)
			if (rerun->rows[k].backend == c->backend)
				row = &rerun->rows[k];
		if (c->repeat == config->repeat || !c->ok)
			continue;
		measured = row && !rerun_summary(row, RERUN_PEAK, &real) && real.median > 0;
		if (measured && (cell_summary(report, c, METRIC_PEAK_RSS_BYTES, &replayed) ||
				 fabs(replayed.median - real.median) * 100 <=
				 RUN_AGAIN_PERCENT * real.median))
			continue;
		if (run_measure_again(config, report, c))
			return -1;
		if (config->quiet || isatty(STDERR_FILENO) || report->interrupted)
			continue;
		if (measured)
			fprintf(stderr, "allocbench: %s: %u of %u runs done%s, again: its first "
				"replay's peak was %.0f%% off its real runs'\n", c->backend->name,
				c->runs, config->repeat, c->ok ? "" : ", failed",
				100 * fabs(replayed.median - real.median) / real.median);
		else
			fprintf(stderr, "allocbench: %s: %u of %u runs done%s, again: no real run "
				"beside its replay\n", c->backend->name, c->runs, config->repeat,
				c->ok ? "" : ", failed");
	}
	return 0;
}

/*
 * Replays the trace CMD's RUN names (its options checked) and writes the
 * answer, with the real runs RERUN. Returns advise's exit status.
 */
static int replay(struct run_cmd *run, const char *trace, int recorded, const struct rerun *rerun)
{
	struct run_config *config = &run->config;
	struct run_report report;
	struct output out;
	const char *where = config->output_path ? config->output_path :
			    recorded ? "standard error" : "standard output";
	int ret;

	if (output_open(&out, config->output_path))
		return runner_interrupted() ? 128 + runner_interrupted() : 2;
	/* The program's standard output is the program's: the answer never goes into it. */
	if (recorded && !config->output_path) {
		fflush(stdout);
		out.file = stderr;
	}
	config->preloaded_once = rerun_answers(rerun);
	if (run_measure_all(config, &report) ||
	    (!report.interrupted && replay_again(config, &report, rerun))) {
		output_abort(&out);
		run_report_release(&report);
		return 1;
	}
	report.rerun = rerun;
	if (report.interrupted) {
		error("interrupted by SIG%s: the replays were stopped and no answer was written",
		      sigabbrev_np(report.interrupted));
		ret = 128 + report.interrupted;
		output_abort(&out);
	} else if (advise_write(out.file, &report, trace)) {
		if (!broken_pipe(errno))
			error("cannot write the answer to %s: %s", where, strerror(errno ? errno : EIO));
		output_abort(&out);
		ret = 1;
	} else {
		ret = output_commit(&out) || report.failed || rerun_failed(rerun) ? 1 : 0;
	}
	run_report_release(&report);
	return ret;
}

/*
 * The real runs of ARGV (RERUN), then the replays of TRACE (RUN) and the
 * answer. Returns advise's exit status.
 */
static int measure(struct run_cmd *run, const char *trace, int recorded, char **argv,
		   struct rerun *rerun)
{
	if (rerun)
		rerun_measure(rerun, argv, run->config.quiet, 1);
	if (rerun && rerun->interrupted) {
		error("interrupted by SIG%s: the real runs were stopped and no answer was written",
		      sigabbrev_np(rerun->interrupted));
		return 128 + rerun->interrupted;
	}
	return replay(run, trace, recorded, rerun);
}

int cmd_advise(int argc, char **argv)
{
	struct advise_cmd cmd;
	struct run_cmd run;
	struct rerun *rerun = NULL;
	char trace[PATH_MAX];
	int command = parse_advise(argc, argv, &cmd), ret, status = 0;
	/* Where standard input starts, for the real runs: the recording reads it. */
	off_t stdin_offset = lseek(STDIN_FILENO, 0, SEEK_CUR);

	check_early(&cmd);
	if (cmd.trace) {
		copy_string(trace, sizeof(trace), cmd.trace);
		choose_trace(trace, sizeof(trace), cmd.quiet);
	} else if (cmd.keep_trace) {
		claim_keep_trace(cmd.keep_trace);
		copy_string(trace, sizeof(trace), cmd.keep_trace);
	}
	else
		tmp_trace(trace, sizeof(trace));
	run_options_for(&cmd, trace, argc, argv, &run);
	if (!cmd.trace && (ret = record(trace, argv + command, cmd.quiet, cmd.keep_trace != NULL, &status)))
		return ret;
	/* A program of several threads: the curated settings are candidates too; --tune, a grid. */
	run.config.tune = cmd.tune ? 2 : 1;
	run_options_check(&run.config, &run.args);
	run.config.progress_lines = 1;
	/* A program's threads each have their heap (glibc's arenas): replayed as they ran. */
	if (!cmd.replay_threads && run.config.replay.threads > 1)
		run.config.replay_per_thread = 1;
	/* A --trace has no command to run again: its answer is all replayed. */
	if (!cmd.trace) {
		size_t n = 0;

		for (size_t b = 0; b < run.config.nbackends; b++)
			n += (size_t)rerun_runs(run.config.backends[b]);
		if (n > RERUN_MAX_ROWS)
			usage_die("advise runs at most %d drop-in candidates for real; --backend "
				  "names %zu", RERUN_MAX_ROWS, n);
		if (!(rerun = malloc(sizeof(*rerun))))
			die_out_of_memory();
		rerun_init(rerun, &run.config, cmd.reruns, run.config.replay.program, status,
			   stdin_offset);
	}
	ret = run_refuse_early(&run.config) ? 2 : runner_signals_install() ? 1 :
	      measure(&run, trace, !cmd.trace, argv + command, rerun);
	free(rerun);
	/* Now, not at exit: after a signal, main() ends by it without exit handlers. */
	tmp_dir_remove();
	backend_set_release(&run.config);
	free(run.config.sizes);
	free(run.config.weights);
	return ret;
}
