/*
 * fuzz_counters.c - libFuzzer target for counters_parse_list(), the
 * --counters parser. A list it accepts must format (counters_list_format())
 * and parse back to the same events, as the parent passes it to a child.
 */
#include "platform/counters.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct counter_list list, again;
	char *text, bad[COUNTERS_NAME_MAX], buf[COUNTERS_ARG_MAX];
	const char *why = NULL;

	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (counters_parse_list(text, &list, bad, sizeof(bad), &why)) {
		if (!why || !memchr(bad, '\0', sizeof(bad)))
			abort();
	} else if (!counters_list_format(&list, buf, sizeof(buf))) {
		if (counters_parse_list(buf, &again, bad, sizeof(bad), &why) ||
		    again.n != list.n)
			abort();
		for (size_t i = 0; i < list.n; i++)
			if (strcmp(again.names[i], list.names[i]))
				abort();
	}
	free(text);
	return 0;
}
