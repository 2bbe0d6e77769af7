/* Unit tests for parse.c: byte counts, size lists and ranges, alignment. */
#include "check.h"
#include "platform/parse.h"
#include "cmd/parse_options.h"

#include <stdlib.h>
#include <string.h>

static int bytes_are(const char *text, uint64_t want)
{
	const char *why = NULL;
	uint64_t v = 0;

	return !parse_bytes(text, &v, &why) && v == want;
}

static int bytes_fail(const char *text)
{
	const char *why = NULL;
	uint64_t v;

	return parse_bytes(text, &v, &why) == -1 && why && *why;
}

/* 1 when TEXT parses into exactly the N sizes of WANT. */
static int sizes_are(const char *text, const size_t *want, size_t n)
{
	size_t *sizes = NULL, count = 0;
	char bad[64];
	const char *why = NULL;
	int ok;

	if (parse_size_list(text, &sizes, &count, bad, sizeof(bad), &why))
		return 0;
	ok = count == n && !memcmp(sizes, want, n * sizeof(*want));
	free(sizes);
	return ok;
}

/*
 * 1 when the list TEXT reads as the items of WANT ("a|b", "" for none) and
 * then fails (an empty item: a message, no exit) exactly when FAILS.
 */
static int list_reads(const char *text, const char *want, int fails)
{
	struct parse_list list;
	char got[128] = "";
	const char *item;

	parse_list_init(&list, text, "--abi", "");
	while ((item = parse_list_next(&list)))
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", *got ? "|" : "", item);
	return !strcmp(got, want) && parse_list_release(&list) == -fails;
}

/* 1 when TEXT is refused and BAD names BAD_ITEM. */
static int sizes_fail(const char *text, const char *bad_item)
{
	size_t *sizes = NULL, count = 0;
	char bad[64];
	const char *why = NULL;

	if (!parse_size_list(text, &sizes, &count, bad, sizeof(bad), &why)) {
		free(sizes);
		return 0;
	}
	return sizes == NULL && count == 0 && why && !strcmp(bad, bad_item);
}

/* A context for option entries (parse_options.h). */
struct opts {
	unsigned n;
	uint64_t bytes;
	size_t block;
	int flag;
	const char *file;
	const char *n_given;
};

static const struct cli_option opt_table[] = {
	{ OPT_UNSIGNED('n', "n", "N", opts, n, 1, 10, "(expected 1 to 10)", "h"),
	  OPT_GIVEN(opts, n_given) },
	{ OPT_SIZE('b', "bytes", "BYTES", opts, bytes, 1, (uint64_t)1 << 20, NULL, "h") },
	{ OPT_SIZE('k', "block", "BYTES", opts, block, 4096, (uint64_t)1 << 30,
		   "(expected 4K to 1G)", "h") },
	{ OPT_BOOL('q', "flag", opts, flag, "h") },
	{ OPT_FILENAME('o', "file", "FILE", opts, file, "h") },
	CLI_OPTIONS_END,
};

/* 1 when the entry of opt_table named NAME takes ARG (or refuses it, WANT -1). */
static int opt_is(const char *name, const char *arg, int want, struct opts *o)
{
	for (const struct cli_option *e = opt_table; e->name; e++)
		if (!strcmp(e->name, name))
			return parse_options_apply(e, arg, o) == want;
	return 0;
}

static void check_options(void)
{
	struct opts o = { 0 };

	CHECK("option: a number in bounds", opt_is("n", "7", 0, &o) && o.n == 7);
	CHECK("option: the value as given kept", o.n_given && !strcmp(o.n_given, "7"));
	CHECK("option: below its minimum refused", opt_is("n", "0", -1, &o) && o.n == 7);
	CHECK("option: above its maximum refused", opt_is("n", "11", -1, &o));
	CHECK("option: not a number refused", opt_is("n", "x", -1, &o));
	CHECK("option: a byte count with a suffix", opt_is("bytes", "1K", 0, &o) && o.bytes == 1024);
	CHECK("option: a byte count above its maximum", opt_is("bytes", "2M", -1, &o));
	CHECK("option: a byte count of 0 below 1", opt_is("bytes", "0", -1, &o));
	CHECK("option: a size_t byte count", opt_is("block", "64K", 0, &o) && o.block == 65536);
	CHECK("option: a size_t byte count out of bounds", opt_is("block", "1K", -1, &o));
	CHECK("option: a flag", opt_is("flag", NULL, 0, &o) && o.flag == 1);
	CHECK("option: a file name", opt_is("file", "a.json", 0, &o) && !strcmp(o.file, "a.json"));
	CHECK("option: an empty file name refused", opt_is("file", "", -1, &o));
}

int main(void)
{
	const char *why;
	uint64_t v;

	CHECK("plain bytes", bytes_are("4096", 4096));
	CHECK("B suffix", bytes_are("12B", 12));
	CHECK("K is binary", bytes_are("1K", 1024));
	CHECK("k lower case is binary", bytes_are("4k", 4096));
	CHECK("KiB is binary", bytes_are("2KiB", 2048));
	CHECK("KB is decimal", bytes_are("1KB", 1000));
	CHECK("M is binary", bytes_are("100M", 100ULL << 20));
	CHECK("MB is decimal", bytes_are("3MB", 3000000));
	CHECK("G is binary", bytes_are("1G", 1ULL << 30));
	CHECK("GB is decimal", bytes_are("1GB", 1000000000ULL));
	CHECK("T is binary", bytes_are("2T", 2ULL << 40));
	CHECK("empty refused", bytes_fail(""));
	CHECK("negative refused", bytes_fail("-4"));
	CHECK("letters refused", bytes_fail("abc"));
	CHECK("unknown suffix refused", bytes_fail("4x"));
	CHECK("space refused", bytes_fail("4 K"));
	CHECK("overflow refused", bytes_fail("99999999999999999999"));
	CHECK("overflow by suffix refused", bytes_fail("99999999999T"));
	CHECK("largest u64 accepted", bytes_are("18446744073709551615", UINT64_MAX));

	CHECK("unsigned in range", !parse_unsigned("7", 10, &v, &why) && v == 7);
	CHECK("unsigned above max refused", parse_unsigned("11", 10, &v, &why) == -1);
	CHECK("unsigned with suffix refused", parse_unsigned("1K", 5000, &v, &why) == -1);
	CHECK("unsigned plus sign refused", parse_unsigned("+1", 10, &v, &why) == -1);

	/* One set of rules: decimal only, for run's integers and compare's fractions. */
	why = "";
	CHECK("unsigned 0x refused as hexadecimal", parse_unsigned("0x10", 100, &v, &why) == -1 &&
	      strstr(why, "decimal"));
	why = "";
	CHECK("bytes 0x refused as hexadecimal", bytes_fail("0x10") &&
	      parse_bytes("0X1K", &v, &why) == -1 && strstr(why, "decimal"));
	{
		double d = -1;

		CHECK("decimal integer", !parse_decimal("16", &d, &why) && d == 16);
		CHECK("decimal fraction", !parse_decimal("0.25", &d, &why) && d == 0.25);
		CHECK("decimal zero", !parse_decimal("0", &d, &why) && d == 0);
		why = "";
		CHECK("decimal 0x refused as hexadecimal", parse_decimal("0x10", &d, &why) == -1 &&
		      strstr(why, "decimal"));
		CHECK("decimal hex float refused", parse_decimal("0x1p4", &d, &why) == -1);
		CHECK("decimal exponent refused", parse_decimal("1e3", &d, &why) == -1);
		CHECK("decimal inf refused", parse_decimal("inf", &d, &why) == -1);
		CHECK("decimal nan refused", parse_decimal("nan", &d, &why) == -1);
		CHECK("decimal sign refused", parse_decimal("+1", &d, &why) == -1 &&
		      parse_decimal("-1", &d, &why) == -1);
		CHECK("decimal space refused", parse_decimal(" 1", &d, &why) == -1 &&
		      parse_decimal("1 ", &d, &why) == -1);
		CHECK("decimal empty refused", parse_decimal("", &d, &why) == -1);
		CHECK("decimal lone dot refused", parse_decimal(".", &d, &why) == -1 &&
		      parse_decimal("5.", &d, &why) == -1 && parse_decimal(".5", &d, &why) == -1);
		CHECK("decimal two dots refused", parse_decimal("1.2.3", &d, &why) == -1);
		CHECK("decimal suffix refused", parse_decimal("5%", &d, &why) == -1);
		CHECK("decimal overflow refused", parse_decimal("1" "000000000000000000000000000000"
			"0000000000000000000000000000000000000000000000000000000000000000000000"
			"0000000000000000000000000000000000000000000000000000000000000000000000"
			"0000000000000000000000000000000000000000000000000000000000000000000000"
			"0000000000000000000000000000000000000000000000000000000000000000000000"
			"00000", &d, &why) == -1);
	}

	{
		static const size_t want[] = { 4, 40, 400, 4000, 40000 };
		CHECK("default list", sizes_are("4,40,400,4000,40000", want, 5));
	}
	{
		static const size_t want[] = { 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096 };
		CHECK("range doubles", sizes_are("8..4096", want, 10));
	}
	{
		static const size_t want[] = { 8, 16, 32, 64 };
		CHECK("range stops below HI", sizes_are("8..127", want, 4));
	}
	{
		static const size_t want[] = { 10, 100, 1000 };
		CHECK("range factor", sizes_are("10..1000:x10", want, 3));
	}
	{
		static const size_t want[] = { 16, 32, 48, 64 };
		CHECK("range step", sizes_are("16..64:+16", want, 4));
	}
	{
		static const size_t want[] = { 4, 1024, 2048 };
		CHECK("suffixes and ranges mix", sizes_are("4,1K..2K", want, 3));
	}
	CHECK("empty list refused", sizes_fail("", ""));
	CHECK("abc refused", sizes_fail("abc", "abc"));
	CHECK("zero refused", sizes_fail("4,0", "0"));
	CHECK("negative refused in list", sizes_fail("-4", "-4"));
	CHECK("empty item refused", sizes_fail("4,,40", ""));
	CHECK("trailing comma refused", sizes_fail("4,", ""));
	CHECK("unknown suffix refused in list", sizes_fail("4x", "4x"));
	CHECK("overflow refused in list", sizes_fail("4,99999999999999999999999", "99999999999999999999999"));
	CHECK("above 1 GiB refused", sizes_fail("2G", "2G"));
	CHECK("duplicate refused", sizes_fail("4,40,4", "4"));
	CHECK("backwards range refused", sizes_fail("64..8", "64..8"));
	CHECK("factor 1 refused", sizes_fail("8..64:x1", "8..64:x1"));
	CHECK("step 0 refused", sizes_fail("8..64:+0", "8..64:+0"));
	CHECK("bad step refused", sizes_fail("8..64:/2", "8..64:/2"));
	CHECK("huge expansion refused", sizes_fail("1..100000:+1", "1..100000:+1"));

	CHECK("natural alignment of 4", natural_alignment(4) == 4);
	CHECK("natural alignment of 40", natural_alignment(40) == 8);
	CHECK("natural alignment of 400", natural_alignment(400) == 16);
	CHECK("natural alignment of 7", natural_alignment(7) == 1);
	CHECK("natural alignment of 6", natural_alignment(6) == 2);
	CHECK("power of two", is_power_of_two(4096) && !is_power_of_two(3) && !is_power_of_two(0));
	CHECK("list read at commas", list_reads("32,64", "32|64", 0));
	CHECK("list empty item fails, no exit", list_reads("32,,64", "32", 1));
	CHECK("list trailing comma fails", list_reads("32,", "32", 1));
	CHECK("empty list is one empty item", list_reads("", "", 1));
	check_options();
	return check_exit();
}
