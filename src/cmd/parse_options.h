/*
 * parse_options.h - one entry per option (as git's parse-options.h): the
 * entry of a command's table (struct cli_option, cli.h) says how its value
 * is parsed, what bounds it must keep and where it is stored, besides its
 * name and help line. cli_next() applies every typed entry itself, so an
 * option lives in one place: the table drives the parser, the checks, the
 * help, and --dump-options (what the tests compare the help, the bash
 * completion and the man page with).
 *
 * Values are stored at an offset into the parser's context (cli_parser.ctx,
 * one struct per command), so that the tables stay static and const.
 * Messages name the option and the bad value; the functions here return
 * errors, cli_next() (the command layer) exits 2.
 */
#ifndef ALLOCBENCH_PARSE_OPTIONS_H
#define ALLOCBENCH_PARSE_OPTIONS_H

#include "cmd/cli.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The types of struct cli_option. */
enum cli_type {
	CLI_RETURN = 0,  /* not parsed here: cli_next() returns the id */
	CLI_BOOL,        /* no value: stores 1 in an int */
	CLI_UNSIGNED,    /* a whole number from min to max (parse_unsigned()) */
	CLI_BYTES,       /* a byte count, K/M/G suffixes (parse_bytes()), min to max */
	CLI_STRING,      /* a const char *, as given */
	CLI_FILE,        /* a const char *, a file name: not empty */
	CLI_CALLBACK,    /* callback(o, arg, ctx) parses it */
};

/*
 * The OPT_* macros give the fields of one entry, without braces, so that
 * an entry may add more (.more, .help_under, OPT_GIVEN()):
 * { OPT_BOOL('q', "quiet", cmd, quiet, "no progress") },
 */

/* The size of FIELD of the struct CTX. */
#define CLI_SIZEOF(ctx, field) sizeof(((struct ctx *)0)->field)

/*
 * OPT_BOOL(id, "name", CTX, field, "help"): --name stores 1 in the int
 * CTX.field (CTX the context's struct tag, field a member path).
 */
#define OPT_BOOL(id_, name_, ctx, field, help_) \
	.id = (id_), .name = (name_), .help = (help_), .type = CLI_BOOL, \
	  .offset = offsetof(struct ctx, field), .size = CLI_SIZEOF(ctx, field)

/*
 * OPT_UNSIGNED(id, "name", "N", CTX, field, min, max, "(expected ...)",
 * "help"): a whole number from MIN to MAX into CTX.field (an unsigned,
 * size_t or uint64_t); EXPECT ends the message about a bad one.
 */
#define OPT_UNSIGNED(id_, name_, arg_, ctx, field, min_, max_, expect_, help_) \
	.id = (id_), .name = (name_), .arg = (arg_), .help = (help_), \
	  .type = CLI_UNSIGNED, .offset = offsetof(struct ctx, field), \
	  .size = CLI_SIZEOF(ctx, field), .min = (min_), .max = (max_), .expect = (expect_)

/* A byte count (1M, 4096, 2KiB) from MIN to MAX bytes into CTX.field. */
#define OPT_SIZE(id_, name_, arg_, ctx, field, min_, max_, expect_, help_) \
	.id = (id_), .name = (name_), .arg = (arg_), .help = (help_), \
	  .type = CLI_BYTES, .offset = offsetof(struct ctx, field), \
	  .size = CLI_SIZEOF(ctx, field), .min = (min_), .max = (max_), .expect = (expect_)

/* The value as given into the const char * CTX.field. */
#define OPT_STRING(id_, name_, arg_, ctx, field, help_) \
	.id = (id_), .name = (name_), .arg = (arg_), .help = (help_), \
	  .type = CLI_STRING, .offset = offsetof(struct ctx, field), \
	  .size = CLI_SIZEOF(ctx, field)

/* A file name, not empty, into the const char * CTX.field. */
#define OPT_FILENAME(id_, name_, arg_, ctx, field, help_) \
	.id = (id_), .name = (name_), .arg = (arg_), .help = (help_), \
	  .type = CLI_FILE, .offset = offsetof(struct ctx, field), \
	  .size = CLI_SIZEOF(ctx, field)

/* FN(o, arg, ctx) parses the value (ARG NULL for an option without one). */
#define OPT_CALLBACK(id_, name_, arg_, fn, help_) \
	.id = (id_), .name = (name_), .arg = (arg_), .help = (help_), \
	  .type = CLI_CALLBACK, .callback = (fn)

/* The unit of a number, in the message about one too small (" second"). */
#define OPT_UNIT(unit_) .unit = (unit_)

/* Also keeps the value as typed in the const char * CTX.field (after another OPT_*). */
#define OPT_GIVEN(ctx, field) .given = 1 + offsetof(struct ctx, field)

/*
 * Parses ARG, the value of the typed option O, into CTX as O says.
 * Returns 0, or -1 after an error naming the option and ARG.
 */
int parse_options_apply(const struct cli_option *o, const char *arg, void *ctx);

/*
 * Writes OPTIONS to OUT, one line per option: "-s --sizes LIST" ("--touch
 * POLICY" for a long option only, no argument name for a flag).
 */
void parse_options_dump(FILE *out, const struct cli_option *options);

#endif
