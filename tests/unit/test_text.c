/*
 * Unit tests for the cleaning of outside text (util.c text_clean and
 * json_out.c json_clean_strings): control characters and invalid UTF-8 become
 * U+FFFD, tab and newline a space, valid UTF-8 passes. And the wrapping of
 * text (util.c put_wrapped): a number keeps its unit on its line.
 */
#include "check.h"
#include "report/json_out.h"
#include "platform/util.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#define R "\xef\xbf\xbd"   /* U+FFFD */

/* 1 when put_wrapped() of IN at WIDTH (continuations indented 2) writes WANT. */
static int wraps_to(const char *in, size_t width, const char *want)
{
	char got[512] = "";
	FILE *f = fmemopen(got, sizeof(got) - 1, "w");
	int ok;

	if (!f)
		return 0;
	put_wrapped(f, in, width, "  ");
	fclose(f);
	ok = !strcmp(got, want);
	if (!ok)
		printf("# '%s' wrapped at %zu to '%s', expected '%s'\n", in, width, got, want);
	return ok;
}

/* 1 when text_clean() of IN is WANT. */
static int cleans_to(const char *in, const char *want)
{
	char got[256];
	int ok = text_clean(got, sizeof(got), in) < sizeof(got) && !strcmp(got, want);

	if (!ok)
		printf("# '%s' cleaned to '%s', expected '%s'\n", in, got, want);
	return ok;
}

int main(void)
{
	char buf[8];

	CHECK("plain ASCII is clean", text_is_clean("host-1.example") && cleans_to("vm", "vm"));
	CHECK("valid UTF-8 is clean", text_is_clean("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80") &&
	      cleans_to("caf\xc3\xa9", "caf\xc3\xa9"));
	CHECK("tab, newline, carriage return become a space", cleans_to("a\tb\nc\rd", "a b c d"));
	CHECK("other control characters become U+FFFD", !text_is_clean("a\x01") &&
	      cleans_to("a\x01" "b\x1b[31m", "a" R "b" R "[31m"));
	CHECK("DEL becomes U+FFFD", cleans_to("a\x7f", "a" R));
	CHECK("C1 controls (U+009B, CSI) become U+FFFD, U+00A0 stays",
	      cleans_to("a\xc2\x9b" "31m\xc2\x80\xc2\xa0", "a" R "31m" R "\xc2\xa0"));
	CHECK("a stray byte becomes U+FFFD", cleans_to("a\xff" "b", "a" R "b"));
	CHECK("a cut sequence becomes U+FFFD", cleans_to("a\xc3", "a" R) &&
	      cleans_to("\xe2\x82" "x", R R "x"));
	CHECK("overlong and surrogate encodings become U+FFFD", cleans_to("\xc0\xaf", R R) &&
	      cleans_to("\xed\xa0\x80", R R R));
	CHECK("the empty string is clean", text_is_clean("") && cleans_to("", ""));
	CHECK("text_clean returns the whole length", text_clean(NULL, 0, "a\xff") == 4);
	text_clean(buf, sizeof(buf), "abcde\xff");
	CHECK("truncation keeps characters whole", !strcmp(buf, "abcde"));
	text_clean(buf, sizeof(buf), "ab\xff" "cdef");
	CHECK("truncation stops at the first character that does not fit",
	      !strcmp(buf, "ab" R "cd"));
	strcpy(buf, "a\x01z");
	text_clean_in_place(buf, sizeof(buf));
	CHECK("cleaned in place", !strcmp(buf, "a" R "z"));

	{
		cJSON *root = cJSON_Parse("{\"host\": {\"hostname\": \"h\\u0001o\\tst\"},"
					  " \"k\\u0002\": [\"ok\", \"x\\u001by\"], \"n\": 1}");
		const cJSON *host, *list, *n;

		json_clean_strings(root);
		host = cJSON_GetObjectItemCaseSensitive(root, "host");
		list = cJSON_GetObjectItemCaseSensitive(root, "k" R);
		n = cJSON_GetObjectItemCaseSensitive(root, "n");
		CHECK("JSON: a nested string is cleaned", host &&
		      !strcmp(cJSON_GetObjectItemCaseSensitive(host, "hostname")->valuestring,
			      "h" R "o st"));
		CHECK("JSON: a member name is cleaned", list != NULL);
		CHECK("JSON: array items are cleaned", list &&
		      !strcmp(cJSON_GetArrayItem(list, 0)->valuestring, "ok") &&
		      !strcmp(cJSON_GetArrayItem(list, 1)->valuestring, "x" R "y"));
		CHECK("JSON: numbers are left alone", n && cJSON_IsNumber(n) && n->valuedouble == 1);
		cJSON_Delete(root);
	}
	CHECK("wrap: a number goes to the next line with its unit",
	      wraps_to("peak 83868 KiB, 0.819 s, 1213654 calls", 20,
		       "peak 83868 KiB,\n  0.819 s,\n  1213654 calls\n") &&
	      wraps_to("run 0.819 s", 9, "run\n  0.819 s\n"));
	CHECK("wrap: a unit of 7 or more characters may start a line",
	      wraps_to("took 12 seconds", 10, "took 12\n  seconds\n"));
	CHECK("wrap: a word after a number that is not a unit may start a line",
	      wraps_to("at call 12 (51%)", 11, "at call 12\n  (51%)\n"));
	return check_exit();
}
