/*
 * tool_json.h - what the test tools (jsonq, jsonset, schemacheck) share:
 * reading a whole file, and the KEY=VALUE array selector of their paths.
 * Header-only: each tool is one .c file built on its own.
 */
#ifndef ALLOCBENCH_TOOL_JSON_H
#define ALLOCBENCH_TOOL_JSON_H

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The whole of PATH ("-": standard input), NUL-terminated; NULL when unreadable. */
static inline char *tool_slurp(const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	size_t n = 0, alloc = 4096;
	char *buf = malloc(alloc), *grown;

	if (!f || !buf) {
		free(buf);
		if (f && f != stdin)
			fclose(f);
		return NULL;
	}
	for (;;) {
		n += fread(buf + n, 1, alloc - n - 1, f);
		if (n + 1 < alloc)
			break;
		alloc *= 2;
		grown = realloc(buf, alloc);
		if (!grown) {
			free(buf);
			buf = NULL;
			break;
		}
		buf = grown;
	}
	if (buf)
		buf[n] = '\0';
	if (f != stdin)
		fclose(f);
	return buf;
}

/* 1 when every KEY=VALUE of CONDITIONS holds for ITEM (numbers as %.17g). */
static inline int tool_matches(const cJSON *item, const char *conditions)
{
	char *copy = strdup(conditions), *cond, *next;
	int ok = copy != NULL;

	for (cond = copy; ok && cond; cond = next) {
		char *eq = strchr(cond, '=');
		const cJSON *member;
		char buf[64];

		next = strchr(cond, ',');
		if (next)
			*next++ = '\0';
		if (!eq) {
			ok = 0;
			break;
		}
		*eq = '\0';
		member = cJSON_GetObjectItemCaseSensitive(item, cond);
		if (cJSON_IsString(member)) {
			ok = !strcmp(member->valuestring, eq + 1);
		} else if (cJSON_IsNumber(member)) {
			snprintf(buf, sizeof(buf), "%.17g", member->valuedouble);
			ok = !strcmp(buf, eq + 1);
		} else {
			ok = 0;
		}
	}
	free(copy);
	return ok;
}

#endif
