/*
 * report_formats.c - the formats of a run report (report_formats.h).
 */
#include "report/report_formats.h"

#include <stdio.h>
#include <string.h>

const struct report_writer report_formats[REPORT_FORMATS + 1] = {
	{ "text", report_text_write },
	{ "json", report_json_write },
	{ "csv", report_csv_write },        /* one line per result, RFC 4180 quoting */
	{ "markdown", report_markdown_write },  /* a GitHub table */
	{ NULL, NULL },
};

const struct report_writer *report_format_find(const char *name)
{
	for (size_t i = 0; report_formats[i].name; i++)
		if (!strcmp(report_formats[i].name, name))
			return &report_formats[i];
	return NULL;
}

void report_formats_names(char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; report_formats[i].name && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s%s",
					 !i ? "" : report_formats[i + 1].name ? ", " : " or ",
					 report_formats[i].name);
}
