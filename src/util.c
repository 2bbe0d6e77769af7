#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	fprintf(stderr, "allocbench: %s: ", prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error", fmt, ap);
	va_end(ap);
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("warning", fmt, ap);
	va_end(ap);
}

_Noreturn void usage_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error", fmt, ap);
	va_end(ap);
	exit(2);
}

_Noreturn void die(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error", fmt, ap);
	va_end(ap);
	exit(status);
}

void format_bytes(char *buf, size_t size, uint64_t bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	size_t u = 0;

	while (u + 1 < sizeof(units) / sizeof(units[0]) && bytes >= 1024 && !(bytes % 1024)) {
		bytes /= 1024;
		u++;
	}
	snprintf(buf, size, "%llu %s", (unsigned long long)bytes, units[u]);
}

void copy_string(char *dst, size_t dst_size, const char *src)
{
	size_t n;

	if (!dst_size)
		return;
	n = strlen(src);
	if (n >= dst_size)
		n = dst_size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

void put_wrapped(FILE *out, const char *text, size_t width, const char *indent)
{
	size_t lead = strspn(text, " ");

	/* The first line keeps its own leading spaces. */
	fwrite(text, 1, lead, out);
	put_wrapped_from(out, text + lead, lead, width, indent);
}

void put_wrapped_from(FILE *out, const char *text, size_t col, size_t width, const char *indent)
{
	size_t indent_len = strlen(indent), spaces = 0;
	int line_empty = 1;   /* no word on the current line yet */

	text += strspn(text, " ");
	while (*text) {
		size_t word = strcspn(text, " "), gap = line_empty ? 0 : spaces;

		if ((!line_empty || col > indent_len) && col + gap + word > width) {
			fprintf(out, "\n%s", indent);
			col = indent_len;
			line_empty = 1;
			gap = 0;
		}
		/* Spaces between words on one line are kept (aligned labels). */
		fprintf(out, "%*s", (int)gap, "");
		col += gap;
		/* A word longer than a whole line is cut at the width (not inside a UTF-8 character). */
		while (col + word > width && width > col) {
			size_t part = width - col;

			while (part > 1 && ((unsigned char)text[part] & 0xc0) == 0x80)
				part--;
			fwrite(text, 1, part, out);
			text += part;
			word -= part;
			fprintf(out, "\n%s", indent);
			col = indent_len;
		}
		fwrite(text, 1, word, out);
		col += word;
		line_empty = 0;
		text += word;
		spaces = strspn(text, " ");
		text += spaces;
	}
	fputc('\n', out);
}

int stdout_flush_check(void)
{
	errno = 0;
	if (fflush(stdout) || ferror(stdout))
		return error("cannot write to standard output: %s", strerror(errno ? errno : EIO));
	return 0;
}
