/*
 * cli.h - what every command's command line shares: an option table that
 * drives getopt_long and prints the help's option lines (like git's
 * parse-options), the options every command spells the same way (-h, -o,
 * -f, -q), comma-separated lists, and the messages for bad options. Like
 * main.c and the cmd_*.c files, this module may exit: status 2 on bad
 * usage, 0 after --help.
 */
#ifndef ALLOCBENCH_CLI_H
#define ALLOCBENCH_CLI_H

#include "platform/parse.h"

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

/* One option of a command, in the order getopt_long sees them. */
struct cli_option {
	int id;              /* what cli_next() returns; below 256 it is also the
				short option (-s), from 256 on a long one only */
	const char *name;    /* the long option, without "--" */
	const char *arg;     /* the value's name in the help ("LIST"); NULL: takes none */
	const char *help;    /* the help's one line, no '\n': the man page
				says the rest (t0973: within 79 columns) */
	void (*more)(FILE *out);  /* prints lines after the help (the values), or NULL */
	const char *help_under;   /* printed in the help right after this option
				     instead of at its place in the table, or NULL:
				     the table's order is what an ambiguous
				     abbreviation lists */
	/*
	 * How the value is parsed, checked and stored (parse_options.h): 0
	 * (CLI_RETURN) hands it to the command's switch through cli_next();
	 * the others store it at OFFSET in the parser's context.
	 */
	int type;
	size_t offset;       /* where the value goes in the context, bytes */
	size_t size;         /* its size, bytes (an unsigned, a size_t, a uint64_t) */
	unsigned long long min, max;  /* bounds of a number, both included */
	const char *expect;  /* "(expected ...)" of a bad value's message, or NULL */
	const char *unit;    /* " second": a number's unit in "must be at least 1
				second", or NULL */
	size_t given;        /* 1 + where the value as typed goes (a const char *),
				or 0: for messages about options used together */
	int (*callback)(const struct cli_option *o, const char *arg, void *ctx);
				/* CLI_CALLBACK: parses ARG; 0, or -1 after error() */
};

/* An option with neither more() nor help_under; ARG NULL when it takes no value. */
#define CLI_OPT(id_, name_, arg_, help_) \
	{ .id = (id_), .name = (name_), .arg = (arg_), .help = (help_) }

/* The end of a table of struct cli_option. */
#define CLI_OPTIONS_END { .name = NULL }

/* The options every command spells the same way. */
#define CLI_OPT_HELP CLI_OPT('h', "help", NULL, "print this help and exit")
#define CLI_OPT_OUTPUT(help) CLI_OPT('o', "output", "FILE", help)

/* Most options one command may have. */
#define CLI_MAX_OPTIONS 48

struct counter_list;

/* A command line being parsed (cli_parser_init(), then cli_next()). */
struct cli_parser {
	const struct cli_option *options;  /* the command's table */
	void (*help)(FILE *out);           /* prints the whole help, for -h */
	const char *help_command;          /* "allocbench plot --help", for messages */
	int argc;
	char **argv;
	void *ctx;                         /* where typed options are stored
					      (cli_option.offset), and the
					      callbacks' context */
	struct option longopts[CLI_MAX_OPTIONS + 1];  /* from options, {0, 0, 0, 0} ended */
	char optstring[1 + 2 * CLI_MAX_OPTIONS + 1];  /* ":" then "s" or "s:" per short option */
};

/*
 * Prepares *PARSER for ARGV (ARGV[0] is the command's name) with the table
 * OPTIONS (CLI_OPTIONS_END ended, at most CLI_MAX_OPTIONS). HELP prints the
 * command's help for -h; HELP_COMMAND ("allocbench compare --help") is named
 * by every message about a bad option.
 */
void cli_parser_init(struct cli_parser *parser, const struct cli_option *options,
		     void (*help)(FILE *out), const char *help_command, int argc, char **argv);

/*
 * The id of the next option of type CLI_RETURN (its value in optarg), or
 * -1 after the last (optind is then the first operand). The typed options
 * on the way are parsed, checked and stored in PARSER->ctx; a bad value
 * exits 2 naming it. -h prints the help and exits (cli_exit_printed()); a
 * bad option exits 2 (cli_option_error()). A command line of
 * --dump-options alone prints the table (parse_options_dump()) and exits.
 */
int cli_next(struct cli_parser *parser);

/*
 * Prints the option lines of OPTIONS to OUT, one per option: "  -s, --sizes
 * LIST" (or "      --touch POLICY" for a long option only), then its help
 * from COLUMN on (two spaces after the option where it reaches COLUMN),
 * then what its more() prints.
 */
void cli_help_options(FILE *out, const struct cli_option *options, size_t column);

/*
 * Exits with STATUS; or, when a write found its pipe's reader gone
 * (broken_pipe_seen()), ends by SIGPIPE as cat does: status 141, nothing said.
 */
_Noreturn void cli_exit(int status);

/* Exits after --help or --version: 0, or 1 when standard output could not be written (cli_exit()). */
_Noreturn void cli_exit_printed(void);

/*
 * ARG as a decimal strictly between LOW and HIGH for OPTION, or exits 2
 * naming both and what was EXPECTED ("a percentage, e.g. 10").
 */
double cli_decimal(const char *option, const char *arg, double low, double high,
		   const char *expected);

/* Refuses an empty FILE name for OPTION ("--output"), exit 2; returns FILE. */
const char *cli_file_name(const char *file, const char *option);

/*
 * The entry of TABLE, an array of writers ({name, write}, the first the
 * default, ended by a NULL name), called VALUE, the value of --format;
 * exits 2 with "invalid --format 'VALUE'FOR_WHAT (expected a, b or c)",
 * the names from TABLE. FOR_WHAT is "" or " for compare".
 */
#define CLI_FORMAT(table, value, for_what) \
	(&(table)[cli_format_index((value), &(table)[0].name, sizeof((table)[0]), (for_what))])

/* CLI_FORMAT()'s index: the names are STRIDE bytes apart from FIRST_NAME on. */
size_t cli_format_index(const char *value, const char *const *first_name, size_t stride,
			const char *for_what);

/* A comma-separated list (platform/parse.h's), read one item at a time. */
struct cli_list {
	struct parse_list list;
};

/* parse_list_init(); exits 1 when memory runs out. */
void cli_list_init(struct cli_list *list, const char *text, const char *option,
		   const char *hint);

/* parse_list_next(), but an empty item exits 2 (the message names it). */
char *cli_list_next(struct cli_list *list);

/* Frees LIST's copy. */
void cli_list_release(struct cli_list *list);

/*
 * Parses a --counters LIST (counters_parse_list()) into *LIST; exits with
 * status 2 and a message naming the bad item when it is malformed. An event
 * this machine cannot count is not malformed: it is reported, not refused.
 */
void cli_parse_counters(const char *text, struct counter_list *list);

#endif
