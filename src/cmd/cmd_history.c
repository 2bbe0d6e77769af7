/*
 * cmd_history.c - `allocbench history REPORT...|DIR`: a series of reports
 * of one workload, oldest first, and where each gated figure stepped
 * (history.h). Like every command file, it may exit.
 */
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "cmd/parse_options.h"
#include "report/compare.h"
#include "model/history.h"
#include "platform/output.h"
#include "platform/util.h"
#include "report/report_ab.h"
#include "report/report_history.h"
#include "report/report_load.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { OPT_METRIC = 256, OPT_ALPHA, OPT_MIN_STEP };

struct history_writer {
	const char *name;
	int (*write)(FILE *out, const struct history *history);
};

static const struct history_writer history_writers[] = {
	{ "text", history_text_write },
	{ "json", history_json_write },
	{ "svg", history_svg_write },
	{ NULL, NULL },
};

/* What history's options fill: the context of its option table. */
struct history_cmd {
	struct history_options options;
	const struct history_writer *writer;  /* --format */
	const char *output_path;              /* -o FILE, or NULL */
};

static int opt_metric(const struct cli_option *o, const char *arg, void *ctx)
{
	int m = metric_find(arg);
	char gated[512] = "";
	size_t used = 0;

	(void)o;
	if (m < 0 || !figure_get((enum metric)m)->compare) {
		/* The figures compare gates, from the one table of figures. */
		for (int i = 0; i < METRIC_COUNT && used < sizeof(gated); i++)
			if (figure_get((enum metric)i)->compare)
				used += (size_t)snprintf(gated + used, sizeof(gated) - used, "%s%s",
							 used ? ", " : "", metric_name((enum metric)i));
		return error("unknown --metric '%s' (expected a figure compare gates: %s)", arg,
			     gated);
	}
	((struct history_cmd *)ctx)->options.metric = m;
	return 0;
}

static int opt_alpha(const struct cli_option *o, const char *arg, void *ctx)
{
	(void)o;
	((struct history_cmd *)ctx)->options.alpha =
		cli_decimal("--alpha", arg, 0, 1, "a probability between 0 and 1, e.g. 0.05");
	return 0;
}

static int opt_min_step(const struct cli_option *o, const char *arg, void *ctx)
{
	(void)o;
	((struct history_cmd *)ctx)->options.min_step =
		cli_decimal("--min-step", arg, -1e-300, 1e6, "a percentage, e.g. 5");
	return 0;
}

static int opt_format(const struct cli_option *o, const char *arg, void *ctx)
{
	(void)o;
	((struct history_cmd *)ctx)->writer = CLI_FORMAT(history_writers, arg, " for history");
	return 0;
}

static const struct cli_option history_options[] = {
	{ OPT_CALLBACK(OPT_METRIC, "metric", "NAME", opt_metric,
	  "follow this figure (default: every one compare gates)") },
	{ OPT_CALLBACK(OPT_ALPHA, "alpha", "P", opt_alpha,
	  "the permutation test's level (default 0.05)") },
	{ OPT_CALLBACK(OPT_MIN_STEP, "min-step", "PCT", opt_min_step,
	  "the least step that counts, per cent (default 5)") },
	{ OPT_CALLBACK('f', "format", "FORMAT", opt_format,
	  "text (default), json or svg") },
	{ OPT_FILENAME('o', "output", "FILE", history_cmd, output_path,
	  "write to FILE instead of standard output") },
	CLI_OPT_HELP,
	CLI_OPTIONS_END,
};

static void history_help(FILE *out)
{
	fputs(
"usage: allocbench history [options] REPORT.json... | DIR\n"
"\n"
"Reads JSON reports of one workload (or every *.json of DIR), orders them by\n"
"when each was made and says where each gated figure of each row stepped, and\n"
"by how much. The reports may instead be ab comparisons (-f json).\n"
"\n"
"Options:\n", out);
	cli_help_options(out, history_options, 25);
	fputs(
"\n"
"Exit status: 0, 1 the history could not be written, 2 bad usage, a report\n"
"that cannot be read, or reports of two workloads.\n"
"allocbench-history(1) says more.\n", out);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The *.json files of DIR, by name, into *PATHS (owned); their count, or
 * exits 2. What is not a regular file (a FIFO, a device, a directory) is
 * skipped with a warning: a FIFO would be read by no one. stat() does not
 * open it; one put there after is read as empty (results.h), not waited for.
 */
static size_t dir_reports(const char *dir, char ***paths)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct stat st;
	const char *why;
	size_t n = 0, alloc = 0;

	if (!d)
		usage_die("cannot read the directory '%s': %s", dir, strerror(errno));
	*paths = NULL;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);

		if (len <= 5 || strcmp(e->d_name + len - 5, ".json"))
			continue;
		if (ALLOC_GROW(*paths, n, alloc))
			die_out_of_memory();
		if (asprintf(&(*paths)[n], "%s/%s", dir, e->d_name) < 0)
			die_out_of_memory();
		why = stat((*paths)[n], &st) ? strerror(errno) :
		      !S_ISREG(st.st_mode) ? "not a regular file" : NULL;
		if (why) {
			warning("skipping '%s': %s", (*paths)[n], why);
			free((*paths)[n]);
			continue;
		}
		n++;
	}
	closedir(d);
	if (!n)
		usage_die("the directory '%s' holds no *.json report", dir);
	qsort(*paths, n, sizeof(**paths), name_cmp);
	return n;
}

/* The reports named on the command line: files, or one directory. */
static size_t report_paths(int argc, char **argv, char ***paths)
{
	struct stat st;
	size_t n = (size_t)argc;

	if (argc == 1 && !stat(argv[0], &st) && S_ISDIR(st.st_mode))
		return dir_reports(argv[0], paths);
	*paths = malloc(n * sizeof(**paths));
	if (!*paths)
		die_out_of_memory();
	for (size_t i = 0; i < n; i++)
		if (!((*paths)[i] = strdup(argv[i])))
			die_out_of_memory();
	return n;
}

/*
 * 1 when PATH holds an ab comparison (by its schema), 0 a report (or
 * standard input, read once), -1 after an error naming it. The file is
 * read again by its loader: it is small.
 */
static int is_ab(const char *path)
{
	struct result_file f;
	int ab;

	if (!strcmp(path, "-"))
		return 0;
	if (results_parse(path, &f))
		return -1;
	ab = !strcmp(f.schema, AB_SCHEMA);
	results_release(&f);
	return ab;
}

/* What warn_differences() has said, so that each kind of difference is said once. */
struct history_said {
	char what[32][64];         /* the settings and host fields said */
	size_t n;
	const char *oldest;        /* the oldest report's file */
	const char *path;          /* the report compared with it */
};

static void say_difference(void *ctx, const char *what, const char *oldest, const char *value)
{
	struct history_said *said = ctx;

	for (size_t i = 0; i < said->n; i++)
		if (!strcmp(said->what[i], what))
			return;
	if (said->n < sizeof(said->what) / sizeof(said->what[0]))
		copy_string(said->what[said->n++], sizeof(said->what[0]), what);
	warning("different %s: %s in the oldest report '%s', %s in '%s' (the first that "
		"differs)", what, oldest, said->oldest, value, said->path);
}

/* The file of R, one of the N LOADED reports (history_build() reordered them). */
static struct result_file *file_of(struct loaded_report *loaded, size_t n,
				   const struct history_report *r)
{
	for (size_t i = 0; i < n; i++)
		if (&loaded[i].report == r->report)
			return &loaded[i].file;
	return NULL;
}

/*
 * Warns, one line per kind of difference, where a report of HISTORY was
 * measured with other settings than the oldest (those compare refuses to
 * compare) or records another host or build (compare's "what changed"),
 * naming the first report that differs: its steps may be those. Returns
 * 0, or -1 after an error naming a report whose settings cannot be read.
 */
static int warn_differences(const struct history *history, struct loaded_report *loaded)
{
	struct history_said said = { .n = 0 };
	struct compare_settings first, other;
	struct comparison c;

	if (history->side_by_side || history->nreports < 2)
		return 0;
	memset(&c, 0, sizeof(c));
	c.baseline = file_of(loaded, history->nreports, &history->reports[0]);
	said.oldest = c.baseline->path;
	if (compare_settings_of_file(c.baseline, &first))
		return -1;
	for (size_t i = 1; i < history->nreports; i++) {
		c.current = file_of(loaded, history->nreports, &history->reports[i]);
		said.path = c.current->path;
		if (compare_settings_of_file(c.current, &other))
			return -1;
		compare_settings_differences(&first, &other, say_difference, &said);
		c.nchanges = 0;
		compare_find_host_changes(&c);
		for (size_t k = 0; k < c.nchanges; k++)
			say_difference(&said, c.changes[k].what, c.changes[k].baseline,
				       c.changes[k].current);
	}
	return 0;
}

/*
 * Loads PATH, an ab comparison into *AB (its series described in *LINK) or
 * a report into *LOADED, and describes it in *IN, whose link is set for a
 * comparison (which of the two cmd_history() releases). Returns 0, or -1
 * after an error naming it, or at once when a signal was caught.
 */
static int load_input(const char *path, struct loaded_report *loaded, struct ab_loaded *ab,
		      struct history_link *link, struct history_report *in)
{
	int comparison = signal_caught ? -1 : is_ab(path);

	if (comparison < 0)
		return -1;
	if (comparison) {
		const struct ab_comparison *c = &ab->c;

		if (ab_load(path, ab))
			return -1;
		*link = (struct history_link){ .workload = c->workload,
			.series = c->series, .nseries = c->nseries, .pairs = c->pairs };
		*in = (struct history_report){ .link = link, .created = c->created,
			.name = c->label ? c->label : path, .path = path };
		return 0;
	}
	if (report_load(path, loaded))
		return -1;
	*in = (struct history_report){
		.report = &loaded->report, .created = loaded->created,
		.name = loaded->file.label ? loaded->file.label : path,
		.path = path,
	};
	return 0;
}

int cmd_history(int argc, char **argv)
{
	struct history_cmd cmd = { .writer = &history_writers[0] };
	struct cli_parser parser;
	struct loaded_report *loaded = NULL;
	struct ab_loaded *abs = NULL;
	struct history_link *links = NULL;
	struct history_report *in = NULL;
	struct history history;
	struct output out;
	char **paths, why[512];
	size_t n, have = 0;
	int ret = 2;

	history_options_init(&cmd.options);
	cli_parser_init(&parser, history_options, history_help, "allocbench history --help", argc,
			argv);
	parser.ctx = &cmd;
	while (cli_next(&parser) != -1)
		;
	if (optind == argc)
		usage_die("history needs reports or a directory of them (see allocbench history "
			  "--help)");
	n = report_paths(argc - optind, argv + optind, &paths);
	if (output_refuse_input(cmd.output_path, (const char *const *)paths, n))
		goto release;
	loaded = calloc(n, sizeof(*loaded));
	abs = calloc(n, sizeof(*abs));
	links = calloc(n, sizeof(*links));
	in = calloc(n, sizeof(*in));
	if (!loaded || !abs || !links || !in)
		die_out_of_memory();
	for (; have < n; have++)
		if (load_input(paths[have], &loaded[have], &abs[have], &links[have], &in[have]))
			goto release;
	if (history_build(in, n, &cmd.options, &history, why, sizeof(why))) {
		if (!signal_caught)  /* else it ends by the signal, saying nothing */
			error("%s", why);
		goto release;
	}
	if (warn_differences(&history, loaded) == 0 && output_open(&out, cmd.output_path) == 0) {
		errno = 0;
		if (cmd.writer->write(out.file, &history)) {
			if (!broken_pipe(errno))
				error("cannot write the history to '%s': %s",
				      cmd.output_path ? cmd.output_path : "standard output",
				      strerror(errno ? errno : EIO));
			output_abort(&out);
			ret = 1;
		} else {
			ret = output_commit(&out) ? 1 : 0;
		}
	}
	history_release(&history);
release:
	for (size_t i = 0; i < have; i++) {
		if (in[i].link)
			ab_loaded_release(&abs[i]);
		else
			report_loaded_release(&loaded[i]);
	}
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	free(loaded);
	free(abs);
	free(links);
	free(in);
	return ret;
}
