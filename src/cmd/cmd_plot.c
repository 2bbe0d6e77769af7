/*
 * cmd_plot.c - `allocbench plot`: reads allocbench JSON reports and writes
 * them as one SVG chart (plot_svg.h). Every input is read and checked before
 * anything is written, so bad input leaves neither output nor a half file.
 */
#include "cmd/cli.h"
#include "cmd/parse_options.h"
#include "cmd/commands.h"
#include "platform/output.h"
#include "model/runner.h"
#include "report/plot.h"
#include "report/plot_bars.h"
#include "report/plot_svg.h"
#include "report/results.h"
#include "platform/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
	OPT_X = 256,
	OPT_FACET,
};


/* What the command line asked for. */
struct plot_args {
	struct cli_list metric_list;             /* --metric, split in place */
	const char *metrics[PLOT_MAX_METRICS];   /* point into metric_list */
	size_t nmetrics;
	int metrics_given;                       /* --metric was given */
	const char **labels;                     /* --label values, in order; owned array */
	size_t nlabels;
	size_t labels_alloc;                     /* room in labels (ALLOC_GROW) */
	const char **files;                      /* paths; owned array */
	size_t nfiles;
	size_t files_alloc;                      /* room in files (ALLOC_GROW) */
	const char *output_path;                 /* -o, or NULL for stdout */
	struct plot_options options;             /* --x, --facet */
};

static int metric_name_ok(const char *name)
{
	return *name && strspn(name, "abcdefghijklmnopqrstuvwxyz"
			       "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") == strlen(name);
}

/* Splits --metric LIST into args->metrics; exits on a bad list. */
static void parse_metrics(const char *text, struct plot_args *args)
{
	char *item;

	cli_list_release(&args->metric_list);
	cli_list_init(&args->metric_list, text, "--metric",
		      " (expected names such as " PLOT_DEFAULT_METRICS ")");
	args->nmetrics = 0;
	while ((item = cli_list_next(&args->metric_list))) {
		if (!metric_name_ok(item))
			usage_die("unknown metric '%s' in --metric (expected overhead, alloc_ns, "
				  "free_ns, page_faults, free_page_faults, x_floor or a dotted "
				  "statistic such as counters.PAPI_TOT_CYC.alloc)", item);
		for (size_t i = 0; i < args->nmetrics; i++)
			if (!strcmp(plot_metric_field(args->metrics[i]), plot_metric_field(item)))
				usage_die("metric '%s' appears more than once in --metric '%s'",
					  item, text);
		if (args->nmetrics == PLOT_MAX_METRICS)
			usage_die("too many metrics in --metric '%s' (at most %d panels)", text,
				  PLOT_MAX_METRICS);
		args->metrics[args->nmetrics++] = item;
	}
}

/* Appends VALUE to ARRAY of N, with room for ALLOC. */
static void push(const char ***array, size_t *n, size_t *alloc, const char *value)
{
	if (ALLOC_GROW(*array, *n, *alloc))
		die_out_of_memory();
	(*array)[(*n)++] = value;
}

/* ---- the options' parsers: each stores into the struct plot_args CTX ---- */

static int opt_metric(const struct cli_option *o, const char *arg, void *ctx)
{
	struct plot_args *args = ctx;

	(void)o;
	parse_metrics(arg, args);
	args->metrics_given = 1;
	return 0;
}

static int opt_label(const struct cli_option *o, const char *arg, void *ctx)
{
	struct plot_args *args = ctx;

	(void)o;
	if (!*arg)
		return error("empty --label (give the name the legend shows for a file)");
	push(&args->labels, &args->nlabels, &args->labels_alloc, arg);
	return 0;
}

static int opt_x(const struct cli_option *o, const char *arg, void *ctx)
{
	struct plot_args *args = ctx;

	(void)o;
	if (!strcmp(arg, "log"))
		args->options.x_scale = PLOT_X_LOG;
	else if (!strcmp(arg, "linear"))
		args->options.x_scale = PLOT_X_LINEAR;
	else
		return error("invalid --x '%s' (expected log or linear)", arg);
	return 0;
}

static int opt_facet(const struct cli_option *o, const char *arg, void *ctx)
{
	struct plot_args *args = ctx;

	(void)o;
	if (!strcmp(arg, "none"))
		args->options.facet = PLOT_FACET_NONE;
	else if (!strcmp(arg, "backend"))
		args->options.facet = PLOT_FACET_BACKEND;
	else
		return error("invalid --facet '%s' (expected backend or none)", arg);
	return 0;
}

/* The metrics --metric knows by name, after its help. */
static void help_metrics(FILE *out)
{
	fputs(
"    overhead          bytes per chunk beyond its size\n"
"    alloc_ns          ns per allocation\n"
"    free_ns           ns per free\n"
"    page_faults       page faults in the allocation loop\n"
"    free_page_faults  page faults in the free loop\n"
"    x_floor           alloc ns over the floor's\n"
"    or any statistic of the results by its dotted path\n", out);
}

static const struct cli_option plot_options[] = {
	{ OPT_CALLBACK('m', "metric", "LIST", opt_metric,
	  "panels (default " PLOT_DEFAULT_METRICS ", or the workload's):"),
	  .more = help_metrics },
	{ OPT_CALLBACK('l', "label", "TEXT", opt_label,
	  "the legend's name of a file; one per FILE, in order") },
	{ OPT_CALLBACK(OPT_X, "x", "SCALE", opt_x,
	  "the chunk size axis: log (default) or linear") },
	{ OPT_CALLBACK(OPT_FACET, "facet", "WHAT", opt_facet,
	  "backend (a panel per backend) or none (default)") },
	{ OPT_FILENAME('o', "output", "FILE", plot_args, output_path,
	  "write the SVG to FILE instead of standard output") },
	CLI_OPT_HELP,
	CLI_OPTIONS_END,
};

static void plot_help(FILE *out)
{
	fputs(
"usage: allocbench plot [options] [FILE...]\n"
"\n"
"Draws allocbench JSON reports as one standalone SVG chart: a panel per metric\n"
"against chunk size, a series per backend and file. Reads standard input when\n"
"no FILE is given, or for FILE -.\n"
"\n"
"Options:\n", out);
	cli_help_options(out, plot_options, 22);
	fputs(
"\n"
"Exit status: 0 the chart was written, 1 it could not be written, 2 bad usage\n"
"or bad input (nothing is written).\n"
"allocbench-plot(1) says more.\n", out);
}

static void parse_plot_args(int argc, char **argv, struct plot_args *args)
{
	struct cli_parser parser;
	size_t stdin_uses = 0;

	memset(args, 0, sizeof(*args));
	parse_metrics(PLOT_DEFAULT_METRICS, args);
	cli_parser_init(&parser, plot_options, plot_help, "allocbench plot --help", argc, argv);
	parser.ctx = args;
	while (cli_next(&parser) != -1)
		;
	for (int i = optind; i < argc; i++) {
		if (!*argv[i])
			usage_die("empty file name (give allocbench JSON reports, or - for "
				  "standard input)");
		push(&args->files, &args->nfiles, &args->files_alloc, argv[i]);
	}
	if (!args->nfiles) {
		/* Waiting for a report typed at the terminal is never what was meant. */
		if (isatty(STDIN_FILENO))
			usage_die("no input (give allocbench JSON reports, or pipe one in: "
				  "allocbench -f json | allocbench plot -o chart.svg)");
		push(&args->files, &args->nfiles, &args->files_alloc, "-");
	}
	for (size_t i = 0; i < args->nfiles; i++)
		stdin_uses += !strcmp(args->files[i], "-");
	if (stdin_uses > 1)
		usage_die("standard input ('-') is given %zu times; it can be read once",
			  stdin_uses);
	if (args->nlabels && args->nlabels != args->nfiles)
		usage_die("%zu --label for %zu input file%s (give one --label per file, in order)",
			  args->nlabels, args->nfiles, args->nfiles == 1 ? "" : "s");
}

static void plot_args_release(struct plot_args *args)
{
	cli_list_release(&args->metric_list);
	free(args->labels);
	free(args->files);
	memset(args, 0, sizeof(*args));
}

int cmd_plot(int argc, char **argv)
{
	struct plot_args args;
	struct result_file *files;
	struct plot_input *inputs;
	struct plot plot;
	struct output out;
	size_t loaded = 0;
	int ret = 2, bars;

	parse_plot_args(argc, argv, &args);
	if (output_refuse_input(args.output_path, args.files, args.nfiles)) {
		plot_args_release(&args);
		return 2;
	}
	files = calloc(args.nfiles, sizeof(*files));
	inputs = calloc(args.nfiles, sizeof(*inputs));
	if (!files || !inputs)
		die_out_of_memory();
	memset(&plot, 0, sizeof(plot));
	for (; loaded < args.nfiles; loaded++) {
		if (results_load(args.files[loaded], &files[loaded]))
			goto done;
		inputs[loaded].file = &files[loaded];
		/* --label, else the run's own --label, else the file's name. */
		inputs[loaded].label = args.nlabels ? args.labels[loaded] :
			files[loaded].label ? files[loaded].label :
			strcmp(args.files[loaded], "-") ? args.files[loaded] : "standard input";
	}
	/* Without --metric, the panels that say most about the first report's workload. */
	if (!args.metrics_given) {
		if (!strcmp(files[0].workload, "churn"))
			parse_metrics("churn_ns,churn_cold_ns", &args);
		else if (!strcmp(files[0].workload, "threads"))
			parse_metrics("ops_per_s,speedup", &args);
		else if (!strcmp(files[0].workload, "random"))
			parse_metrics("op_ns,fragmentation", &args);
	}
	/* Replay reports have no size axis: a bar per backend (report/plot_bars.h). */
	bars = plot_bars_applies(inputs, args.nfiles);
	if (bars && args.metrics_given)
		usage_die("--metric does not apply to replay reports: their chart is peak RSS, "
			  "RSS over peak live bytes and ns per call, a bar per backend");
	if (!bars && plot_build(&plot, inputs, args.nfiles, args.metrics, args.nmetrics, &args.options))
		goto done;
	if (output_open(&out, args.output_path))
		goto done;
	if ((bars ? plot_bars_write(out.file, inputs, args.nfiles) : plot_svg_write(&plot, out.file)) ||
	    runner_interrupted()) {
		/* After a signal, main() ends by it: -o is left as it was. */
		if (!runner_interrupted() && !broken_pipe(errno))
			error("cannot write the chart to '%s': %s",
			      args.output_path ? args.output_path : "standard output",
			      strerror(errno ? errno : EIO));
		output_abort(&out);
		ret = 1;
		goto done;
	}
	ret = output_commit(&out) ? 1 : 0;
done:
	plot_release(&plot);
	for (size_t i = 0; i < loaded; i++)
		results_release(&files[i]);
	free(files);
	free(inputs);
	plot_args_release(&args);
	return ret;
}
