/*
 * markdown_text.c - text as Markdown writes it (markdown_text.h).
 */
#include "report/markdown_text.h"
#include "report/svg.h"
#include "platform/util.h"

#include <string.h>

void markdown_put_text(FILE *out, const char *text, const char *escaped)
{
	while (*text) {
		size_t len;
		const char *with = text_clean_next(&text, &len);

		/* Markdown passes HTML through: a tag in a label would be one on the page. */
		if (len == 1 && strchr("<>&", *with))
			fputs(xml_entity(*with), out);
		else if (len == 1 && strchr(escaped, *with))
			fprintf(out, "\\%c", *with);
		else
			fwrite(with, 1, len, out);
	}
}
