#include "platform/parse.h"
#include "platform/util.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char parse_out_of_memory[] = "out of memory";

/*
 * Refuses (-1, *WHY set) a number P that does not start with a decimal
 * digit, or is hex: strtoul and strtod take "0x10", allocbench does not.
 */
static int check_start(const char *p, const char **why)
{
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		*why = "numbers are decimal, not hexadecimal";
	else if (!isdigit((unsigned char)*p))
		*why = *p == '-' ? "negative numbers are not allowed" :
		       *p ? "not a number" : "empty value";
	else
		return 0;
	return -1;
}

/* Parses leading decimal digits of TEXT; *END points past them. */
static int parse_digits(const char *text, uint64_t *out, const char **end, const char **why)
{
	uint64_t v = 0;
	const char *p = text;

	if (check_start(p, why))
		return -1;
	for (; isdigit((unsigned char)*p); p++) {
		unsigned d = (unsigned)(*p - '0');

		if (v > (UINT64_MAX - d) / 10) {
			*why = "number too large";
			return -1;
		}
		v = v * 10 + d;
	}
	*out = v;
	*end = p;
	return 0;
}

int parse_unsigned(const char *text, uint64_t max, uint64_t *out, const char **why)
{
	const char *end;
	uint64_t v;

	if (parse_digits(text, &v, &end, why))
		return -1;
	if (*end) {
		*why = "not a whole number";
		return -1;
	}
	if (v > max) {
		*why = "number too large";
		return -1;
	}
	*out = v;
	return 0;
}

int parse_decimal(const char *text, double *out, const char **why)
{
	const char *p = text;
	char *end;
	double v;

	if (check_start(p, why))
		return -1;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p)) {
			*why = "digits must follow the '.'";
			return -1;
		}
		while (isdigit((unsigned char)*p))
			p++;
	}
	if (*p) {
		*why = *p == 'e' || *p == 'E' ? "exponents are not allowed" : "not a number";
		return -1;
	}
	/* TEXT is now digits with at most one '.': strtod reads just that. */
	errno = 0;
	v = strtod(text, &end);
	if (errno == ERANGE && v != 0) {
		*why = "number too large";
		return -1;
	}
	*out = v;
	return 0;
}

struct suffix {
	const char *name;
	uint64_t factor;
};

static const struct suffix suffixes[] = {
	{ "", 1 }, { "B", 1 },
	{ "K", 1ULL << 10 }, { "KiB", 1ULL << 10 }, { "KB", 1000ULL },
	{ "M", 1ULL << 20 }, { "MiB", 1ULL << 20 }, { "MB", 1000000ULL },
	{ "G", 1ULL << 30 }, { "GiB", 1ULL << 30 }, { "GB", 1000000000ULL },
	{ "T", 1ULL << 40 }, { "TiB", 1ULL << 40 }, { "TB", 1000000000000ULL },
};

int parse_bytes(const char *text, uint64_t *out, const char **why)
{
	const char *end;
	uint64_t v;

	if (parse_digits(text, &v, &end, why))
		return -1;
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		if (strcasecmp(end, suffixes[i].name))
			continue;
		if (v > UINT64_MAX / suffixes[i].factor) {
			*why = "number too large";
			return -1;
		}
		*out = v * suffixes[i].factor;
		return 0;
	}
	*why = *end == '.' ? "fractions are not allowed: use a smaller unit, 1536K for 1.5M" :
	       "unknown suffix: B, K, M, G, T and KiB, MiB.. are binary, KB, MB.. decimal";
	return -1;
}

static int check_size(uint64_t v, const char **why)
{
	if (!v) {
		*why = "sizes must be positive";
		return -1;
	}
	if (v > PARSE_MAX_SIZE) {
		*why = "larger than the 1 GiB limit for one chunk";
		return -1;
	}
	return 0;
}

static int push_size(size_t **sizes, size_t *count, size_t *alloc, uint64_t v, const char **why)
{
	for (size_t i = 0; i < *count; i++) {
		if ((*sizes)[i] == v) {
			*why = "this size appears more than once";
			return -1;
		}
	}
	if (*count >= PARSE_MAX_SIZES) {
		*why = "the list expands to more than 4096 sizes";
		return -1;
	}
	if (grow_array(sizes, alloc, *count, sizeof(**sizes))) {
		*why = parse_out_of_memory;
		return -1;
	}
	(*sizes)[(*count)++] = (size_t)v;
	return 0;
}

/* Parses one range item "LO..HI[:xF|:+S]" and appends its sizes. */
static int parse_range(char *item, char *dots, size_t **sizes, size_t *count,
		       size_t *alloc, const char **why)
{
	char *hi_text = dots + 2, *step_text = strchr(hi_text, ':');
	uint64_t lo, hi, step = 2;
	int additive = 0;

	*dots = '\0';
	if (step_text) {
		*step_text++ = '\0';
		if (*step_text == '+')
			additive = 1;
		else if (*step_text != 'x') {
			*why = "a range step must be :xFACTOR or :+STEP, e.g. 8..4096:x2";
			return -1;
		}
		if (parse_unsigned(step_text + 1, PARSE_MAX_SIZE, &step, why))
			return -1;
		if (additive ? step < 1 : step < 2) {
			*why = additive ? "a range step must be at least 1" :
					  "a range factor must be at least 2";
			return -1;
		}
	}
	if (parse_bytes(item, &lo, why) || check_size(lo, why) ||
	    parse_bytes(hi_text, &hi, why) || check_size(hi, why))
		return -1;
	if (lo > hi) {
		*why = "a range must go from the smaller size to the larger";
		return -1;
	}
	for (uint64_t v = lo; v <= hi;) {
		if (push_size(sizes, count, alloc, v, why))
			return -1;
		if (additive ? v > hi - step : v > hi / step)
			break;
		v = additive ? v + step : v * step;
	}
	return 0;
}

int parse_size_list(const char *text, size_t **sizes, size_t *count,
		    char *bad, size_t bad_size, const char **why)
{
	size_t alloc = 0;
	char *copy, *item, *next;

	*sizes = NULL;
	*count = 0;
	copy_string(bad, bad_size, text);
	if (!*text) {
		*why = "the list is empty";
		return -1;
	}
	copy = strdup(text);
	if (!copy) {
		*why = parse_out_of_memory;
		return -1;
	}
	for (item = copy; item; item = next) {
		char *dots;
		uint64_t v;
		int ret;

		next = strchr(item, ',');
		if (next)
			*next++ = '\0';
		copy_string(bad, bad_size, item);
		if (!*item) {
			*why = "empty item in the list";
			goto fail;
		}
		dots = strstr(item, "..");
		if (dots)
			ret = parse_range(item, dots, sizes, count, &alloc, why);
		else
			ret = parse_bytes(item, &v, why) || check_size(v, why) ||
			      push_size(sizes, count, &alloc, v, why) ? -1 : 0;
		if (ret)
			goto fail;
	}
	free(copy);
	return 0;
fail:
	free(copy);
	free(*sizes);
	*sizes = NULL;
	*count = 0;
	return -1;
}

size_t natural_alignment(size_t size)
{
	size_t align = size & -size;

	return align > 16 || !align ? 16 : align;
}

int is_power_of_two(uint64_t n)
{
	return n && !(n & (n - 1));
}

void parse_list_init(struct parse_list *list, const char *text, const char *option,
		     const char *hint)
{
	list->copy = list->next = strdup(text);
	list->text = text;
	list->option = option;
	list->hint = hint;
	list->failed = !list->copy;
	if (list->failed)
		error("out of memory");
}

char *parse_list_next(struct parse_list *list)
{
	char *item = list->next;

	if (!item)
		return NULL;
	list->next = strchr(item, ',');
	if (list->next)
		*list->next++ = '\0';
	if (*item)
		return item;
	list->next = NULL;
	list->failed = 1;
	error("empty item in %s '%s'%s", list->option, list->text, list->hint);
	return NULL;
}

int parse_list_release(struct parse_list *list)
{
	free(list->copy);
	list->copy = list->next = NULL;
	return list->failed ? -1 : 0;
}
