/*
 * cmd_ab.c - `allocbench ab OLD NEW [options] [-- RUN OPTIONS]`: two
 * variants measured side by side in one job, run by run, and their times
 * gated on the ratios within each pair (ab.h). A variant is a backend, an
 * allocator library (NAME=PATH) or another allocbench build. Like every
 * command file, it may exit.
 */
#include "cmd/cli.h"
#include "cmd/cmd_run.h"
#include "cmd/commands.h"
#include "cmd/parse_options.h"
#include "model/ab.h"
#include "platform/output.h"
#include "platform/util.h"
#include "report/report_ab.h"
#include "report/results.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { OPT_PAIRS = 256, OPT_MAX_TIME, OPT_ALPHA };

static const struct ab_writer ab_writers[] = {
	{ "text", ab_write_text },
	{ "json", ab_write_json },
	{ NULL, NULL },
};

/* What ab's options fill: the context of its option table. */
struct ab_cmd {
	unsigned pairs;
	struct ab_options options;
	const struct ab_writer *writer;       /* --format */
	const char *output_path;              /* -o FILE, or NULL */
	const char *label;                    /* --label, or NULL */
};

static int opt_format(const struct cli_option *o, const char *arg, void *ctx)
{
	(void)o;
	((struct ab_cmd *)ctx)->writer = CLI_FORMAT(ab_writers, arg, " for ab");
	return 0;
}

static int opt_max_time(const struct cli_option *o, const char *arg, void *ctx)
{
	(void)o;
	((struct ab_cmd *)ctx)->options.max_time =
		cli_decimal("--max-time", arg, -1e-300, 1e6, "a percentage, e.g. 10");
	return 0;
}

static int opt_alpha(const struct cli_option *o, const char *arg, void *ctx)
{
	(void)o;
	((struct ab_cmd *)ctx)->options.alpha =
		cli_decimal("--alpha", arg, 0, 1, "a probability between 0 and 1, e.g. 0.05");
	return 0;
}

static int opt_label(const struct cli_option *o, const char *arg, void *ctx)
{
	(void)o;
	if (!*arg)
		return error("empty --label (give what NEW is, e.g. --label $GITHUB_SHA)");
	((struct ab_cmd *)ctx)->label = arg;
	return 0;
}

static const struct cli_option ab_options[] = {
	{ OPT_UNSIGNED(OPT_PAIRS, "pairs", "N", ab_cmd, pairs, 2, 64, "a whole number from 2 to 64",
	  "pairs of runs (default 32)") },
	{ OPT_CALLBACK(OPT_MAX_TIME, "max-time", "PCT", opt_max_time,
	  "the least slowdown that counts, per cent (default 5)") },
	{ OPT_CALLBACK(OPT_ALPHA, "alpha", "P", opt_alpha,
	  "family-wise level of the tests (default 0.05)") },
	{ OPT_CALLBACK('f', "format", "FORMAT", opt_format, "text (default) or json") },
	{ OPT_FILENAME('o', "output", "FILE", ab_cmd, output_path,
	  "write to FILE instead of standard output") },
	{ OPT_CALLBACK('l', "label", "TEXT", opt_label,
	  "what NEW is (a commit), kept in the JSON for history") },
	CLI_OPT_HELP,
	CLI_OPTIONS_END,
};

static void ab_help(FILE *out)
{
	fputs(
"usage: allocbench ab OLD NEW [options] [-- RUN OPTIONS]\n"
"\n"
"Measures two variants side by side, an OLD run and a NEW run one after the\n"
"other --pairs times, and gates each time on the ratios within the pairs. A\n"
"variant is a backend, an allocator library (NAME=PATH) or an allocbench build.\n"
"\n"
"Options:\n", out);
	cli_help_options(out, ab_options, 25);
	fputs(
"\n"
"Exit status: 0 no time regressed, 1 one did, a run failed or the comparison\n"
"could not be written, 2 bad usage (too few --pairs included).\n"
"allocbench-ab(1) says more.\n", out);
}

/* How a variant is run. */
struct variant {
	const char *spec;       /* as given */
	const char *exe;        /* the allocbench to run */
	const char *backend;    /* --backend it adds, or NULL */
	const char *preload;    /* --preload it adds, or NULL */
	char name[64];          /* NAME of a NAME=PATH variant, where backend points */
};

static void variant_parse(const char *spec, const char *self, struct variant *v)
{
	struct stat st;

	*v = (struct variant){ .spec = spec, .exe = self };
	if (!*spec)
		usage_die("an empty variant (expected a backend, NAME=PATH or an allocbench build)");
	/* ALLOCATOR:NAME=VALUE is a backend with settings (settings.h), not NAME=PATH. */
	if (strchr(spec, ':') && (!strchr(spec, '=') || strchr(spec, ':') < strchr(spec, '='))) {
		v->backend = spec;
	} else if (strchr(spec, '=')) {
		size_t len = (size_t)(strchr(spec, '=') - spec);

		if (!len || len >= sizeof(v->name))
			usage_die("invalid variant '%s': NAME=PATH needs a name (up to 63 bytes)",
				  spec);
		memcpy(v->name, spec, len);
		v->name[len] = '\0';
		v->backend = v->name;
		v->preload = spec;
	} else if (strchr(spec, '/')) {
		if (stat(spec, &st) || !S_ISREG(st.st_mode) || access(spec, X_OK))
			usage_die("invalid variant '%s': not an executable file (an allocbench "
				  "build)", spec);
		v->exe = spec;
	} else {
		v->backend = spec;
	}
}

/* Exits 2 when a RUN OPTION is one ab sets itself. */
static void check_run_options(char **args, int n, int backend_taken)
{
	static const char *const owned[] = {
		"--repeat", "-r", "--format", "-f", "--output", "-o", "--baseline", "--export",
		"-q", "--quiet",
	};

	for (int i = 0; i < n; i++) {
		for (size_t k = 0; k < sizeof(owned) / sizeof(*owned); k++) {
			size_t len = strlen(owned[k]);

			if (!strncmp(args[i], owned[k], len) &&
			    (!args[i][len] || args[i][len] == '=' || owned[k][1] != '-' ||
			     !strncmp(owned[k], "--export", 8)))
				usage_die("'%s' is ab's to set (each run is --repeat 1 -q, JSON, "
					  "to a file of ab's)", args[i]);
		}
		if (backend_taken && (!strncmp(args[i], "--backend", 9) || !strncmp(args[i], "-b", 2)))
			usage_die("'%s': the variants name the backends", args[i]);
	}
}

/*
 * The temporary directory and the report being written, removed on a
 * signal, and the run writing it, which ends first.
 */
static char ab_dir[PATH_MAX], ab_path[PATH_MAX + 32];
static volatile pid_t ab_child;

/*
 * The run of variant V with the RUN OPTIONS ARGS into ARGV (room for
 * nargs + 16), from "run" on; how many. Exits 2 on too many options.
 */
static int variant_argv(const struct variant *v, char **args, int nargs, const char **argv)
{
	int argc = 0;

	if (nargs > 48)
		usage_die("too many RUN OPTIONS (%d; at most 48)", nargs);
	argv[argc++] = "run";
	for (int i = 0; i < nargs; i++)
		argv[argc++] = args[i];
	if (v->preload) {
		argv[argc++] = "--preload";
		argv[argc++] = v->preload;
	}
	if (v->backend) {
		argv[argc++] = "--backend";
		argv[argc++] = v->backend;
	}
	argv[argc] = NULL;
	return argc;
}

/* Runs variant V once into the report PATH; 0, or -1 after saying why. */
static int run_variant(const struct variant *v, char **args, int nargs, const char *path)
{
	const char *argv[72];
	int argc, status;
	pid_t pid;

	argv[0] = v->exe;
	argc = 1 + variant_argv(v, args, nargs, argv + 1);
	argv[argc++] = "--repeat=1";
	argv[argc++] = "-q";
	argv[argc++] = "--format=json";
	argv[argc++] = "--output";
	argv[argc++] = path;
	argv[argc] = NULL;
	pid = fork();
	if (pid < 0)
		return error("cannot start a run: %s", strerror(errno));
	if (!pid) {
		/* The run's own words go to ab's standard error: its output is ab's report. */
		if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(127);
		execv(v->exe, (char *const *)argv);
		fprintf(stderr, "allocbench: error: cannot run '%s': %s\n", v->exe, strerror(errno));
		_exit(127);
	}
	ab_child = pid;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return error("cannot wait for a run: %s", strerror(errno));
	ab_child = 0;
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return error("the run of %s failed (%s %d): see its messages above", v->spec,
			     WIFEXITED(status) ? "exit status" : "signal",
			     WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	return 0;
}

/* The time and rate figures compare gates for workload W, into OUT; how many. */
static size_t time_figures(enum workload w, enum metric *out)
{
	const struct workload_def *def = workload_def(w);
	size_t n = 0;

	for (size_t i = 0; i < def->ngated; i++) {
		enum figure_compare rule = figure_get(def->gated[i])->compare;

		if (rule == FIGURE_COMPARE_TIME || rule == FIGURE_COMPARE_RATE)
			out[n++] = def->gated[i];
	}
	return n;
}

/*
 * The series of the PAIRS pairs of reports OLD and NEW (rows matched in
 * order: the variants measure the same sizes) into *OUT; how many, or exits
 * 2 when the reports do not match.
 */
static size_t make_series(struct result_file *old, struct result_file *new, size_t pairs,
			  struct ab_series **out, double **storage)
{
	enum metric figures[METRIC_COUNT];
	enum workload w;
	size_t nfig, nrows = old[0].nrows, n = 0;
	struct ab_series *s;
	double *values;

	nfig = workload_parse(old[0].workload, &w) ? 0 : time_figures(w, figures);
	s = calloc(nrows * nfig + 1, sizeof(*s));
	values = calloc(2 * nrows * nfig * pairs + 1, sizeof(*values));
	if (!s || !values)
		die_out_of_memory();
	for (size_t p = 0; p < pairs; p++)
		if (old[p].nrows != nrows || new[p].nrows != nrows ||
		    strcmp(new[p].workload, old[0].workload))
			usage_die("the runs of '%s' and '%s' measured different rows (%zu and %zu) "
				  "or workloads: they cannot be paired", old[p].path, new[p].path,
				  old[p].nrows, new[p].nrows);
	for (size_t r = 0; r < nrows; r++)
		for (size_t f = 0; f < nfig; f++, n++) {
			s[n] = (struct ab_series){
				.old_backend = old[0].rows[r].backend,
				.new_backend = new[0].rows[r].backend, .size = old[0].rows[r].size,
				.metric = figures[f], .old = values + 2 * n * pairs,
				.new = values + (2 * n + 1) * pairs, .n = pairs,
			};
			for (size_t p = 0; p < pairs; p++) {
				struct result_stat st;

				if (new[p].rows[r].size != s[n].size)
					usage_die("row %zu of '%s' is %" PRIu64 " B, of '%s' %zu B: the "
						  "variants must measure the same sizes", r + 1,
						  new[p].path, new[p].rows[r].size, old[p].path,
						  s[n].size);
				s[n].old[p] = !results_row_stat(&old[p], &old[p].rows[r],
								metric_name(figures[f]), &st) ? st.median : 0;
				s[n].new[p] = !results_row_stat(&new[p], &new[p].rows[r],
								metric_name(figures[f]), &st) ? st.median : 0;
			}
		}
	*out = s;
	*storage = values;
	return n;
}

/*
 * The gated series a run of variant V with the RUN OPTIONS measures: its
 * rows times the workload's gated times. The options are read and checked
 * as run reads them, so that a bad one, or a variant that names no backend,
 * exits 2 before anything is measured.
 */
static size_t plan_series(const struct variant *v, char **args, int nargs)
{
	const char *argv[72];
	struct run_cmd run;
	enum metric figures[METRIC_COUNT];
	size_t rows;
	int argc = variant_argv(v, args, nargs, argv);

	run_options_read(argc, (char **)argv, &run);
	run_options_check(&run.config, &run.args);
	rows = (workload_one_column(run.config.workload) ? 1 : run.config.nsizes) *
	       run.config.nbackends;
	rows *= time_figures(run.config.workload, figures);
	run_options_release(&run.config);
	return rows;
}

/*
 * Exits 2 when N tests of PAIRS pairs cannot reach the family-wise ALPHA:
 * Holm's least corrected p is N times the least p of one test, and a gate
 * that can never fail is worse than none.
 */
static void check_reach(size_t n, unsigned pairs, double alpha)
{
	unsigned need = pairs;

	if (!n || ab_min_p(pairs) * (double)n < alpha)
		return;
	while (need < 1000 && ab_min_p(need) * (double)n >= alpha)
		need++;
	usage_die("--pairs %u cannot find a slowdown at --alpha %g: over %zu gated time%s the least "
		  "p, Holm-corrected, is %.4g; use --pairs %u or more (or fewer sizes or backends)",
		  pairs, alpha, n, n == 1 ? "" : "s", ab_min_p(pairs) * (double)n, need);
}

static void ab_cleanup(void)
{
	if (ab_path[0])
		unlink(ab_path);
	if (ab_dir[0])
		rmdir(ab_dir);
}

static void ab_on_signal(int sig)
{
	pid_t child = ab_child;

	if (child > 0 && !kill(child, sig))
		while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
			;
	ab_cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

static double seconds_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - start->tv_sec) + (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

/*
 * ab's directory under $TMPDIR (or /tmp), removed on every exit and on the
 * signals that end a job; 0, or -1 after saying why.
 */
static int make_tmpdir(void)
{
	const char *tmpdir = getenv("TMPDIR");

	if (!tmpdir || !*tmpdir)
		tmpdir = "/tmp";
	if ((size_t)snprintf(ab_dir, sizeof(ab_dir), "%s/allocbench-ab.XXXXXX", tmpdir) >=
	    sizeof(ab_dir))
		usage_die("TMPDIR is too long: '%s'", tmpdir);
	signal(SIGINT, ab_on_signal);
	signal(SIGTERM, ab_on_signal);
	signal(SIGHUP, ab_on_signal);
	if (!mkdtemp(ab_dir)) {
		ab_dir[0] = '\0';
		return error("cannot make a temporary directory in '%s': %s", tmpdir,
			     strerror(errno));
	}
	return 0;
}

/*
 * PAIRS pairs of runs of the variants V, loaded into OLD and NEW, in the
 * order OLD NEW, NEW OLD, ... (a drift within the job falls on both alike),
 * a line on standard error as each pair ends; 0, or -1 after saying why.
 */
static int measure_pairs(const struct variant *v, char **run, int nrun, unsigned pairs,
			 struct result_file *old, struct result_file *new)
{
	for (size_t p = 0; p < pairs; p++) {
		double took[2];

		for (int k = 0; k < 2; k++) {
			int which = (int)(p % 2) ^ k;
			struct result_file *f = which ? &new[p] : &old[p];
			struct timespec start;

			snprintf(ab_path, sizeof(ab_path), "%s/%s%zu.json", ab_dir,
				 which ? "new" : "old", p);
			clock_gettime(CLOCK_MONOTONIC, &start);
			if (run_variant(&v[which], run, nrun, ab_path) || results_load(ab_path, f))
				return -1;
			took[which] = seconds_since(&start);
			unlink(ab_path);
		}
		fprintf(stderr, "ab: pair %zu of %u: old %.1f s, new %.1f s\n", p + 1, pairs,
			took[0], took[1]);
	}
	return 0;
}

int cmd_ab(int argc, char **argv)
{
	struct ab_cmd cmd = { .pairs = 32, .options = { .max_time = 5, .alpha = 0.05 },
			      .writer = &ab_writers[0] };
	struct result_file *old, *new;
	struct variant v[2];
	struct ab_series *series;
	double *values;
	struct cli_parser parser;
	struct ab_comparison c;
	struct output out;
	char created[32], **run;
	size_t nseries;
	int nrun, ret = 1, slower;

	cli_parser_init(&parser, ab_options, ab_help, "allocbench ab --help", argc, argv);
	parser.ctx = &cmd;
	while (cli_next(&parser) != -1)
		;
	if (argc - optind < 2)
		usage_die("ab needs two variants, OLD and NEW (see allocbench ab --help)");
	run = argv + optind + 2;
	nrun = argc - optind - 2;
	/* getopt_long has moved the "--" before OLD: what follows NEW is the run's. */
	if (nrun && !strcmp(run[0], "--")) {
		run++;
		nrun--;
	}
	variant_parse(argv[optind], "/proc/self/exe", &v[0]);
	variant_parse(argv[optind + 1], "/proc/self/exe", &v[1]);
	check_run_options(run, nrun, v[0].backend || v[1].backend);
	/* Another build reads its own options: this one's are checked for a backend's sake. */
	nseries = plan_series(&v[0], run, nrun);
	if (plan_series(&v[1], run, nrun) != nseries)
		usage_die("'%s' and '%s' measure different rows: they cannot be paired",
			  v[0].spec, v[1].spec);
	check_reach(nseries, cmd.pairs, cmd.options.alpha);
	if (make_tmpdir())
		return 1;
	old = calloc(cmd.pairs, sizeof(*old));
	new = calloc(cmd.pairs, sizeof(*new));
	if (!old || !new)
		die_out_of_memory();
	if (measure_pairs(v, run, nrun, cmd.pairs, old, new))
		goto release;
	nseries = make_series(old, new, cmd.pairs, &series, &values);
	check_reach(nseries, cmd.pairs, cmd.options.alpha);
	slower = ab_judge(series, nseries, &cmd.options);
	if (slower < 0)
		die_out_of_memory();
	c = (struct ab_comparison){
		.old = v[0].spec, .new = v[1].spec, .pairs = cmd.pairs, .options = cmd.options,
		.series = series, .nseries = nseries, .slower = (size_t)slower,
		.workload = old[0].workload, .label = cmd.label, .created = now_utc(created),
	};
	if (!output_open(&out, cmd.output_path)) {
		errno = 0;
		if (cmd.writer->write(out.file, &c)) {
			if (!broken_pipe(errno))
				error("cannot write the comparison to '%s': %s",
				      cmd.output_path ? cmd.output_path : "standard output",
				      strerror(errno ? errno : EIO));
			output_abort(&out);
		} else if (!output_commit(&out)) {
			ret = slower ? 1 : 0;
		}
	}
	free(values);
	free(series);
release:
	for (size_t i = 0; i < cmd.pairs; i++) {
		if (old[i].root)
			results_release(&old[i]);
		if (new[i].root)
			results_release(&new[i]);
	}
	free(old);
	free(new);
	ab_cleanup();
	return ret;
}
