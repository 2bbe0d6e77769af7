/*
 * fuzz_parse.c - libFuzzer target for the parsers of parse.c: the first
 * byte chooses --sizes (parse_size_list), a byte count (parse_bytes) or a
 * bounded integer (parse_unsigned); the rest is the text. Besides the
 * sanitizers, it checks each parser's contract and aborts when one breaks.
 */
#include "platform/parse.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text, bad[64];
	const char *why = NULL;
	size_t *sizes = NULL, count = 0;
	uint64_t v = 0;

	if (!size)
		return 0;
	text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	switch (data[0] % 3) {
	case 0:
		if (!parse_size_list(text, &sizes, &count, bad, sizeof(bad), &why)) {
			if (!count || count > PARSE_MAX_SIZES)
				abort();
			for (size_t i = 0; i < count; i++)
				if (!sizes[i] || sizes[i] > PARSE_MAX_SIZE)
					abort();
			free(sizes);
		} else if (!why || !memchr(bad, '\0', sizeof(bad))) {
			abort();  /* a failure must say why, in a terminated BAD */
		}
		break;
	case 1:
		if (parse_bytes(text, &v, &why) && !why)
			abort();
		break;
	default:
		if (!parse_unsigned(text, 1000, &v, &why) ? v > 1000 : !why)
			abort();
		break;
	}
	free(text);
	return 0;
}
