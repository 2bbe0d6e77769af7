/*
 * cmd_show.c - `allocbench show REPORT.json...`: the tables of saved
 * reports, as the runs that made them printed them (report_load.h). Like
 * every command file, it may exit.
 */
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "report/json_out.h"
#include "platform/output.h"
#include "cmd/parse_options.h"
#include "model/report.h"
#include "report/report_formats.h"
#include "report/report_load.h"
#include "platform/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* What the show command's options fill: the context of its option table. */
struct show_cmd {
	const struct report_writer *writer;   /* --format, from report_formats.h */
	const char *output_path;              /* -o; NULL: standard output */
};

static int opt_format(const struct cli_option *o, const char *arg, void *ctx)
{
	(void)o;
	((struct show_cmd *)ctx)->writer = CLI_FORMAT(report_formats, arg, " for show");
	return 0;
}

static int opt_output(const struct cli_option *o, const char *arg, void *ctx)
{
	(void)o;
	((struct show_cmd *)ctx)->output_path = cli_file_name(arg, "--output");
	return 0;
}

static const struct cli_option show_options[] = {
	{ OPT_CALLBACK('f', "format", "FORMAT", opt_format,
	  "text (default), json, markdown or csv") },
	{ OPT_CALLBACK('o', "output", "FILE", opt_output,
	  "write to FILE instead of standard output") },
	CLI_OPT_HELP,
	CLI_OPTIONS_END,
};

static void show_help(FILE *out)
{
	fputs(
"usage: allocbench show [--format FORMAT] [-o FILE] REPORT.json...\n"
"\n"
"Prints the tables of JSON reports (--format json, --export-json) as the run\n"
"that made each printed them, one after the other; '-' reads standard input.\n"
"\n"
"Options:\n", out);
	cli_help_options(out, show_options, 25);
	fputs(
"\n"
"Exit status: 0, 1 the output could not be written, 2 bad usage, an output\n"
"that is one of the reports, or a file that is not an allocbench report.\n"
"allocbench-show(1) says more.\n", out);
}


/* The text's line before a report's tables: the file, when, and how it was made. */
static void put_origin(FILE *out, const char *path, const struct loaded_report *r)
{
	put_wrappedf(out, 80, "  ", "report '%s', created %s: %s", path,
		     *r->created ? r->created : "(unknown)",
		     r->command_line ? r->command_line : "(no command line recorded)");
}

int cmd_show(int argc, char **argv)
{
	struct show_cmd cmd = { .writer = &report_formats[0] };
	const struct report_writer *writer;
	const char *output_path;
	struct cli_parser parser;
	struct loaded_report *reports;
	size_t n, loaded = 0;
	struct output out;
	int ret = 0, status = 2;

	cli_parser_init(&parser, show_options, show_help, "allocbench show --help", argc, argv);
	parser.ctx = &cmd;
	while (cli_next(&parser) != -1)
		;
	writer = cmd.writer;
	output_path = cmd.output_path;
	if (optind == argc)
		usage_die("show needs a JSON report (see allocbench show --help)");
	if (writer->write == report_json_write && argc - optind > 1)
		usage_die("show --format json takes one report: a JSON document holds one "
			  "(%d given)", argc - optind);
	if (output_refuse_input(output_path, (const char *const *)argv + optind,
				(size_t)(argc - optind)))
		return 2;
	/* Every report is read and checked before anything is written. */
	n = (size_t)(argc - optind);
	reports = calloc(n, sizeof(*reports));
	if (!reports)
		die_out_of_memory();
	for (size_t i = 0; i < n; i++) {
		if (report_load(argv[optind + i], &reports[i]))
			goto release;
		loaded = i + 1;
		/* CSV's columns are the workload's: one table for one workload only. */
		if (writer->write == report_csv_write &&
		    reports[i].config.workload != reports[0].config.workload) {
			error("'%s' is a %s report after a %s one: CSV has other columns for "
			      "each workload; show them one at a time", argv[optind + i],
			      workload_name(reports[i].config.workload),
			      workload_name(reports[0].config.workload));
			goto release;
		}
	}
	if (output_open(&out, output_path))
		goto release;
	status = 0;
	for (size_t i = 0; i < n && !ret; i++) {
		if (i && writer->write != report_csv_write && writer->write != report_json_write)
			fputc('\n', out.file);
		/* Text: an advise report as advise printed it, its answer first. */
		if (writer->write == report_text_write) {
			put_origin(out.file, argv[optind + i], &reports[i]);
			reports[i].report.answer_first = reports[i].advise;
		}
		/* JSON: the document as the run wrote it, checked by the reader. */
		if (writer->write == report_json_write) {
			ret = json_write_document(out.file, reports[i].file.root);
			reports[i].file.root = NULL;  /* json_write_document() freed it */
		}
		/* CSV: one header, then the rows of every report. */
		else if (writer->write == report_csv_write && i)
			ret = report_csv_write_rows(out.file, &reports[i].report);
		else
			ret = writer->write(out.file, &reports[i].report);
	}
	if (ret) {
		if (!broken_pipe(errno))
			error("cannot write to %s: %s", output_path ? output_path : "standard output",
			      strerror(errno ? errno : EIO));
		output_abort(&out);
		status = 1;
	} else if (output_commit(&out)) {
		status = 1;
	}
release:
	for (size_t i = 0; i < loaded; i++)
		report_loaded_release(&reports[i]);
	free(reports);
	return status;
}
