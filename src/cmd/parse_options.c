/*
 * parse_options.c - typed option entries (parse_options.h).
 */
#include "cmd/parse_options.h"
#include "platform/parse.h"
#include "platform/util.h"

#include <string.h>

/* Stores V in the SIZE-byte unsigned integer at P. */
static void store_unsigned(void *p, size_t size, uint64_t v)
{
	if (size == sizeof(unsigned)) {
		unsigned u = (unsigned)v;

		memcpy(p, &u, size);
	} else if (size == sizeof(uint64_t)) {
		memcpy(p, &v, size);
	}
}

/* A whole number, or a byte count, of O checked against its bounds. */
static int apply_number(const struct cli_option *o, const char *arg, void *field)
{
	const char *why = "";
	uint64_t v;

	if (o->type == CLI_UNSIGNED) {
		if (parse_unsigned(arg, o->max, &v, &why))
			return error("invalid --%s '%s': %s %s", o->name, arg, why, o->expect);
	} else if (parse_bytes(arg, &v, &why)) {
		return error("invalid --%s '%s': %s (expected a byte count such as 1M or 4096)",
			     o->name, arg, why);
	}
	if (v < o->min && o->type == CLI_BYTES && !o->expect)
		return error("invalid --%s '%s': must be more than %llu bytes", o->name, arg,
			     o->min - 1);
	if (v < o->min && o->type == CLI_UNSIGNED)
		return error("invalid --%s '%s': must be at least %llu%s %s", o->name, arg,
			     o->min, o->unit ? o->unit : "", o->expect);
	if (v < o->min || v > o->max)
		return error("invalid --%s '%s' %s", o->name, arg, o->expect);
	store_unsigned(field, o->size, v);
	return 0;
}

int parse_options_apply(const struct cli_option *o, const char *arg, void *ctx)
{
	void *field = (char *)ctx + o->offset;

	if (o->given)
		memcpy((char *)ctx + o->given - 1, &arg, sizeof(arg));
	switch (o->type) {
	case CLI_BOOL: {
		int one = 1;

		memcpy(field, &one, sizeof(one));
		return 0;
	}
	case CLI_UNSIGNED:
	case CLI_BYTES:
		return apply_number(o, arg, field);
	case CLI_FILE:
		if (!*arg)
			return error("empty file name for --%s", o->name);
		/* fall through */
	case CLI_STRING:
		memcpy(field, &arg, sizeof(arg));
		return 0;
	case CLI_CALLBACK:
		return o->callback(o, arg, ctx);
	}
	return error("option '--%s' has no parser", o->name);
}

void parse_options_dump(FILE *out, const struct cli_option *options)
{
	for (const struct cli_option *o = options; o->name; o++) {
		if (o->id < 256)
			fprintf(out, "-%c ", o->id);
		fprintf(out, "--%s%s%s\n", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
	}
}
