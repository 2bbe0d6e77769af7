#include "platform/util.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

volatile sig_atomic_t signal_caught;

__attribute__((format(printf, 2, 0)))
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

_Noreturn void die_out_of_memory(void)
{
	die(1, "out of memory");
}

int resize_array(void *arrayp, uint64_t n, size_t elem)
{
	void *array, *resized;

	if (!elem || n > SIZE_MAX / elem)
		return -1;
	/* Through memcpy: *ARRAYP is a pointer of another type than void *. */
	memcpy(&array, arrayp, sizeof(array));
	resized = realloc(array, (size_t)n * elem);
	if (!resized)
		return -1;
	memcpy(arrayp, &resized, sizeof(resized));
	return 0;
}

int grow_array(void *arrayp, size_t *alloc, size_t nr, size_t elem)
{
	size_t n;

	if (nr < *alloc)
		return 0;
	if (nr > SIZE_MAX / 3 - 16)
		return -1;
	n = (nr + 16) * 3 / 2;
	if (resize_array(arrayp, n, elem))
		return -1;
	*alloc = n;
	return 0;
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

int color_enabled(FILE *out)
{
	const char *no_color = getenv("NO_COLOR");
	int fd = fileno(out);

	if (no_color && *no_color)
		return 0;
	return fd >= 0 && isatty(fd);
}

size_t name_distance(const char *a, const char *b)
{
	/* Three rows of the optimal string alignment distance. */
	size_t rows[3][128], la = strnlen(a, 127), lb = strnlen(b, 127);
	size_t *prev2 = rows[0], *prev = rows[1], *cur = rows[2];

	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
			size_t best = prev[j - 1] + (ca != cb);

			if (prev[j] + 1 < best)
				best = prev[j] + 1;
			if (cur[j - 1] + 1 < best)
				best = cur[j - 1] + 1;
			if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == cb && prev2[j - 2] + 1 < best)
				best = prev2[j - 2] + 1;
			cur[j] = best;
		}
		{
			size_t *t = prev2;

			prev2 = prev;
			prev = cur;
			cur = t;
		}
	}
	return prev[lb];
}

size_t nearest_names(const char *word, const char *const *names, size_t n, size_t max,
		     char *buf, size_t size)
{
	size_t limit = strlen(word) / 3, best = (size_t)-1, found = 0, used = 0;

	if (limit < 2)
		limit = 2;
	if (size)
		*buf = '\0';
	for (size_t i = 0; i < n; i++) {
		size_t d = name_distance(word, names[i]);

		if (d <= limit && d < best)
			best = d;
	}
	/* The nearest first: every name at the best distance, then at one more. */
	for (size_t d = best; d <= best + 1 && d <= limit && found < max; d++)
		for (size_t i = 0; i < n && found < max; i++) {
			int seen = 0;

			if (name_distance(word, names[i]) != d)
				continue;
			for (size_t k = 0; k < i && !seen; k++)
				seen = !strcmp(names[k], names[i]);
			if (seen)
				continue;
			if (used < size)
				used += (size_t)snprintf(buf + used, size - used, "%s%s",
							 found ? ", " : "", names[i]);
			found++;
		}
	return found;
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

/*
 * After a word that ends in a digit, at TEXT: one space and a unit ("s",
 * "KiB", "calls,": a letter or '%', then up to 6 characters in all), which
 * the line must not be broken before; their length, else 0.
 */
static size_t unit_after(const char *text)
{
	size_t n;

	if (text[0] != ' ' || !(isalpha((unsigned char)text[1]) || text[1] == '%'))
		return 0;
	n = strcspn(text + 1, " ");
	return n <= 6 ? 1 + n : 0;
}

void put_wrapped_from(FILE *out, const char *text, size_t col, size_t width, const char *indent)
{
	size_t indent_len = strlen(indent), spaces = 0;
	int line_empty = 1;   /* no word on the current line yet */

	text += strspn(text, " ");
	while (*text) {
		size_t word = strcspn(text, " "), gap = line_empty ? 0 : spaces, keep = word;

		/* A number and its unit go to the next line together. */
		if (word && isdigit((unsigned char)text[word - 1]))
			keep += unit_after(text + word);
		if ((!line_empty || col > indent_len) && col + gap + keep > width) {
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
	/*
	 * A write that failed before (a help longer than the buffer) left its
	 * errno, and the stream forgets it: fflush then fails, or succeeds with
	 * nothing left to write, without an errno. Keep the first failure's.
	 */
	int first = ferror(stdout) ? errno : 0, err;

	errno = 0;
	if (!fflush(stdout) && !ferror(stdout))
		return 0;
	err = first ? first : errno ? errno : EIO;
	return broken_pipe(err) ? -1 : error("cannot write to standard output: %s", strerror(err));
}

static int pipe_broken;

int broken_pipe(int err)
{
	if (err == EPIPE)
		pipe_broken = 1;
	return err == EPIPE;
}

int broken_pipe_seen(void)
{
	return pipe_broken;
}

/* Length of the valid UTF-8 character at P (1 to 4; XML's, no U+FFFE/FFFF), or 0. */
static size_t text_char_length(const unsigned char *p)
{
	unsigned lo, hi;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xC2 && p[0] <= 0xDF)
		return (p[1] & 0xC0) == 0x80 ? 2 : 0;
	if (p[0] >= 0xE0 && p[0] <= 0xEF) {
		lo = p[0] == 0xE0 ? 0xA0 : 0x80;
		hi = p[0] == 0xED ? 0x9F : 0xBF;   /* no UTF-16 surrogates */
		if (p[1] < lo || p[1] > hi || (p[2] & 0xC0) != 0x80)
			return 0;
		if (p[0] == 0xEF && p[1] == 0xBF && p[2] >= 0xBE)
			return 0;                  /* U+FFFE and U+FFFF are not XML */
		return 3;
	}
	if (p[0] >= 0xF0 && p[0] <= 0xF4) {
		lo = p[0] == 0xF0 ? 0x90 : 0x80;
		hi = p[0] == 0xF4 ? 0x8F : 0xBF;
		if (p[1] < lo || p[1] > hi || (p[2] & 0xC0) != 0x80 || (p[3] & 0xC0) != 0x80)
			return 0;
		return 4;
	}
	return 0;
}

#define REPLACEMENT "\xef\xbf\xbd"   /* U+FFFD in UTF-8 */

const char *text_clean_next(const char **text, size_t *len)
{
	const unsigned char *p = (const unsigned char *)*text;
	size_t n = text_char_length(p);

	*text += n ? n : 1;
	/* C0, DEL and C1 (U+0080..U+009F: U+009B is CSI to a terminal) are controls. */
	if (!n || (n == 1 && (*p < 0x20 || *p == 0x7f)) || (n == 2 && p[0] == 0xC2 && p[1] < 0xA0)) {
		if (n == 1 && (*p == '\t' || *p == '\n' || *p == '\r')) {
			*len = 1;
			return " ";
		}
		*len = 3;
		return REPLACEMENT;
	}
	*len = n;
	return (const char *)p;
}

int text_is_clean(const char *s)
{
	while (*s) {
		const char *p = s;
		size_t len;

		if (text_clean_next(&s, &len) != p)
			return 0;
	}
	return 1;
}

size_t text_clean(char *dst, size_t dst_size, const char *src)
{
	size_t used = 0, need = 0;
	int full = !dst_size;

	while (*src) {
		size_t len;
		const char *with = text_clean_next(&src, &len);

		/* A character is written whole or not at all, and nothing after it. */
		if (!full && used + len < dst_size) {
			memcpy(dst + used, with, len);
			used += len;
		} else {
			full = 1;
		}
		need += len;
	}
	if (dst_size)
		dst[used] = '\0';
	return need;
}

void text_clean_in_place(char *s, size_t size)
{
	char *copy;

	if (text_is_clean(s))
		return;
	copy = strdup(s);
	if (copy) {
		text_clean(s, size, copy);
		free(copy);
	} else {
		/* No memory for the replacements: drop what is not clean ASCII. */
		for (char *p = s; *p; p++)
			if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
				*p = '?';
	}
}

void put_wrappedf(FILE *out, size_t width, const char *indent, const char *fmt, ...)
{
	char line[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	put_wrapped(out, line, width, indent);
}

char *now_utc(char buf[32])
{
	time_t now = time(NULL);
	struct tm tm;

	if (!gmtime_r(&now, &tm) || !strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm))
		buf[0] = '\0';
	return buf;
}
