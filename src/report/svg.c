/* svg.c - the charts' palette and XML escaping (svg.h). */
#include "report/svg.h"
#include "platform/util.h"

#include <stdarg.h>

const char *const svg_colours[SVG_COLOURS] = {
	"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000",
};

const char *xml_entity(int c)
{
	switch (c) {
	case '&': return "&amp;";
	case '<': return "&lt;";
	case '>': return "&gt;";
	case '"': return "&quot;";
	case '\'': return "&apos;";
	default: return NULL;
	}
}

void svg_put_text(FILE *out, const char *s, size_t max)
{
	size_t chars = 0;

	for (const char *p = s ? s : ""; *p; chars++) {
		size_t len;
		const char *with = text_clean_next(&p, &len);

		if (max && chars + 1 == max && *p) {
			fputs("\xe2\x80\xa6", out);
			return;
		}
		if (len == 1 && xml_entity(*with))
			fputs(xml_entity(*with), out);
		else
			fwrite(with, 1, len, out);
	}
}

void svg_put_textf(FILE *out, size_t max, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	svg_put_text(out, buf, max);
}
