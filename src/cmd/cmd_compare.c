/*
 * cmd_compare.c - `allocbench compare BASELINE CURRENT`: the CI gate. Reads
 * two JSON reports, compares them row by row (compare.h) and writes the
 * table with a verdict per row. Exit status: 0 no regression, 1 a
 * regression (or a measurement that failed in CURRENT and not in
 * BASELINE), 2 bad usage or
 * unusable input. Like main.c and cli.c, this file may exit.
 */
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "report/compare.h"
#include "report/report_compare.h"
#include "platform/output.h"
#include "platform/parse.h"
#include "cmd/parse_options.h"
#include "model/runner.h"
#include "report/results.h"
#include "platform/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum {
	OPT_MAX_OVERHEAD = 256,
	OPT_MAX_TIME,
	OPT_ALPHA,
	OPT_ALLOW_MISSING,
	OPT_GATE_TIME,
	OPT_ALLOW_HOST_CHANGE,
	OPT_BACKEND,
};

/* Their help prints these literals: each is the default it names, as written. */
#define MAX_TIME_PERCENT_TEXT ALLOCBENCH_STRING(COMPARE_DEFAULT_MAX_TIME_PERCENT)
#define ALPHA_TEXT ALLOCBENCH_STRING(COMPARE_DEFAULT_ALPHA)

/* The formats of --format, the default first: a new format is one entry. */
static const struct compare_writer compare_writers[] = {
	{ "text", compare_write_text },
	{ "json", compare_write_json },
	{ "markdown", compare_write_markdown },
	{ NULL, NULL },
};

/*
 * Parses a decimal number (parse_decimal: the rules of every command), with
 * a trailing '%' when PERCENT is not NULL (*PERCENT says whether it had
 * one). Returns 0, or -1 with *WHY set.
 */
static int parse_number(const char *text, double *out, int *percent, const char **why)
{
	size_t len = strlen(text);
	char *copy;
	int ret;

	if (percent)
		*percent = len && text[len - 1] == '%';
	if (!percent || !*percent)
		return parse_decimal(text, out, why);
	copy = strndup(text, len - 1);
	if (!copy)
		die_out_of_memory();
	ret = parse_decimal(copy, out, why);
	free(copy);
	return ret;
}

/* What compare's options fill: the context of its option table. */
struct compare_cmd {
	struct compare_options options;
	const struct compare_writer *writer;  /* --format */
	const char *output_path;              /* -o FILE, or NULL */
};

static int opt_backend(const struct cli_option *o, const char *text, void *ctx)
{
	struct compare_options *options = &((struct compare_cmd *)ctx)->options;
	struct cli_list list;
	char *item;

	(void)o;
	if (!*text)
		return error("empty --backend list (expected backend names, e.g. pool,arena)");
	cli_list_init(&list, text, "--backend", "");
	while ((item = cli_list_next(&list))) {
		for (size_t i = 0; i < options->nbackends; i++)
			if (!strcmp(options->backends[i], item))
				usage_die("backend '%s' appears more than once in --backend", item);
		if (ALLOC_GROW(options->backends, options->nbackends, options->backends_alloc))
			die_out_of_memory();
		options->backends[options->nbackends] = strdup(item);
		if (!options->backends[options->nbackends++])
			die_out_of_memory();
	}
	cli_list_release(&list);
	return 0;
}

static int opt_max_overhead(const struct cli_option *o, const char *arg, void *ctx)
{
	struct compare_options *options = &((struct compare_cmd *)ctx)->options;
	const char *why = "";
	int percent;
	double v;

	(void)o;
	if (parse_number(arg, &v, &percent, &why))
		return error("invalid --max-overhead '%s': %s (expected bytes per chunk, e.g. "
			     "0.5, or a percentage, e.g. 5%%, in decimal)", arg, why);
	options->max_overhead = v;
	options->max_overhead_percent = percent;
	return 0;
}

static int opt_max_time(const struct cli_option *o, const char *arg, void *ctx)
{
	const char *why = "";
	int percent;
	double v;

	(void)o;
	if (parse_number(arg, &v, &percent, &why))
		return error("invalid --max-time '%s': %s (expected a percentage, e.g. 10 or "
			     "10%%, in decimal)", arg, why);
	((struct compare_cmd *)ctx)->options.max_time_percent = v;
	return 0;
}

static int opt_alpha(const struct cli_option *o, const char *arg, void *ctx)
{
	const char *why = "";
	double v;

	(void)o;
	if (parse_number(arg, &v, NULL, &why) || v <= 0 || v >= 1)
		return error("invalid --alpha '%s': %s (expected a probability between 0 and 1, "
			     "e.g. 0.05, in decimal)", arg, *why ? why : "not between 0 and 1");
	((struct compare_cmd *)ctx)->options.alpha = v;
	return 0;
}

static int opt_format(const struct cli_option *o, const char *arg, void *ctx)
{
	(void)o;
	((struct compare_cmd *)ctx)->writer = CLI_FORMAT(compare_writers, arg, " for compare");
	return 0;
}


static const struct cli_option compare_options[] = {
	{ OPT_CALLBACK(OPT_MAX_OVERHEAD, "max-overhead", "X", opt_max_overhead,
	  "overhead limit, bytes or X% (default: derived per row)") },
	{ OPT_BOOL(OPT_GATE_TIME, "gate-time", compare_cmd, options.gate_time,
	  "gate times and rates too") },
	{ OPT_CALLBACK(OPT_MAX_TIME, "max-time", "PCT", opt_max_time,
	  "with --gate-time: a time's limit in % (default " MAX_TIME_PERCENT_TEXT ")") },
	{ OPT_CALLBACK(OPT_ALPHA, "alpha", "P", opt_alpha,
	  "family-wise level of the time tests (default " ALPHA_TEXT ")") },
	{ OPT_BOOL(OPT_ALLOW_MISSING, "allow-missing", compare_cmd, options.allow_missing,
	  "a row missing from CURRENT is not a regression") },
	{ OPT_BOOL(OPT_ALLOW_HOST_CHANGE, "allow-host-change", compare_cmd,
	  options.allow_host_change,
	  "gate times and rates even across hosts") },
	{ OPT_CALLBACK(OPT_BACKEND, "backend", "LIST", opt_backend,
	  "compare only the rows of these backends") },
	{ OPT_CALLBACK('f', "format", "FORMAT", opt_format,
	  "text (default), json or markdown") },
	{ OPT_FILENAME('o', "output", "FILE", compare_cmd, output_path,
	  "write to FILE; standard output gets a summary") },
	CLI_OPT_HELP,
	CLI_OPTIONS_END,
};

static void compare_help(FILE *out)
{
	fputs(
"usage: allocbench compare BASELINE.json CURRENT.json [options]\n"
"\n"
"Compares two JSON reports of allocbench row by row, matched by workload,\n"
"backend and size, and says whether each regressed, improved or is unchanged;\n"
"each workload has its gated figures, times only with --gate-time.\n"
"\n"
"Options:\n", out);
	cli_help_options(out, compare_options, 25);
	fputs(
"\n"
"Exit status: 0 no regression, 1 a regression or the comparison could not be\n"
"written, 2 bad usage or unusable input (different settings included).\n"
"allocbench-compare(1) says more.\n", out);
}

static void release_options(struct compare_options *options)
{
	for (size_t i = 0; i < options->nbackends; i++)
		free(options->backends[i]);
	free(options->backends);
}

int cmd_compare(int argc, char **argv)
{
	struct compare_cmd cmd = { .writer = &compare_writers[0] };
	struct compare_options *options = &cmd.options;
	const char *output_path;
	struct result_file baseline, current;
	struct comparison comparison;
	struct cli_parser parser;
	struct output out;
	int have_baseline = 0, have_current = 0, have_comparison = 0;
	int ret;

	compare_options_init(options);
	cli_parser_init(&parser, compare_options, compare_help, "allocbench compare --help", argc,
			argv);
	parser.ctx = &cmd;
	while (cli_next(&parser) != -1)
		;
	output_path = cmd.output_path;
	if (argc - optind != 2)
		usage_die("compare needs two reports, BASELINE and CURRENT (got %d; see "
			  "allocbench compare --help)", argc - optind);
	if (!strcmp(argv[optind], "-") && !strcmp(argv[optind + 1], "-"))
		usage_die("only one of BASELINE and CURRENT can be standard input ('-')");
	ret = 2;
	if (output_refuse_input(output_path, (const char *const *)argv + optind, 2))
		goto cleanup;
	if (results_load(argv[optind], &baseline))
		goto cleanup;
	have_baseline = 1;
	if (results_load(argv[optind + 1], &current))
		goto cleanup;
	have_current = 1;
	/* Unusable input or an unwritable path: 2; a write that fails: 1, as for run. */
	if (compare_reports(&baseline, &current, options, &comparison))
		goto cleanup;
	have_comparison = 1;
	if (output_open(&out, output_path))
		goto cleanup;
	errno = 0;
	if (runner_interrupted()) {
		output_abort(&out);  /* main() ends by the signal */
	} else if (cmd.writer->write(out.file, &comparison)) {
		if (!runner_interrupted() && !broken_pipe(errno))
			error("cannot write the comparison to '%s': %s",
			      output_path ? output_path : "standard output",
			      strerror(errno ? errno : EIO));
		output_abort(&out);
		ret = 1;
	} else if (runner_interrupted()) {
		output_abort(&out);
	} else if (output_commit(&out)) {
		ret = 1;
	} else {
		ret = comparison.regression ? 1 : 0;
		/* The comparison went to a file: the job's log gets the gist. */
		if (output_path && strcmp(output_path, "-") &&
		    (compare_write_summary(stdout, &comparison, cmd.writer->name, output_path) ||
		     fflush(stdout))) {
			if (!broken_pipe(errno))
				error("cannot write the summary to standard output: %s",
				      strerror(errno ? errno : EIO));
			ret = 1;
		}
	}
cleanup:
	if (have_comparison)
		comparison_release(&comparison);
	if (have_current)
		results_release(&current);
	if (have_baseline)
		results_release(&baseline);
	release_options(options);
	return ret;
}
