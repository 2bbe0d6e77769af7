/* svg.c - the charts' palette and XML escaping (svg.h). */
#include "report/svg.h"
#include "platform/util.h"

#include <stdarg.h>

const char *const svg_colours[SVG_COLOURS] = {
	"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000",
};

void svg_put_text(FILE *out, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t chars = 0;

	while (*p) {
		size_t n = text_char_length(p);

		if (max && chars + 1 == max && p[n ? n : 1]) {
			fputs("\xe2\x80\xa6", out);
			return;
		}
		chars++;
		if (!n) {
			fputs("\xef\xbf\xbd", out);
			p++;
			continue;
		}
		switch (*p) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&apos;", out); break;
		case '\t': case '\n': case '\r': fputc(' ', out); break;
		default:
			if (*p < 0x20)
				fputs("\xef\xbf\xbd", out);
			else
				fwrite(p, 1, n, out);
		}
		p += n;
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
