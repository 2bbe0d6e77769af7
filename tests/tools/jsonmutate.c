/*
 * jsonmutate - writes damaged copies of a JSON report, for the shell test
 * that fuzzes the readers of saved reports (show, compare).
 *
 *   jsonmutate FILE SEED N DIR
 *
 * Writes DIR/1.json to DIR/N.json, each FILE with one to three random
 * mutations of the kind a hand edit or a broken script makes: a row or a
 * key deleted, two rows swapped, a row repeated, a backend renamed, a size
 * changed, a statistic's runs emptied, config.backends or config.sizes
 * shortened, results emptied. The same SEED gives the same files. Prints
 * one line per file: its name and what was done to it. Exits 2 on bad
 * usage or when FILE is not JSON.
 */
#include "tool_json.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t state;

/* A number from 0 to N - 1 (N > 0), from a fixed xorshift sequence. */
static unsigned pick(unsigned n)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return (unsigned)(state % n);
}

/* A random element of ARRAY (an array or an object), or NULL when it is empty. */
static cJSON *any(cJSON *array, unsigned *index)
{
	int n = cJSON_GetArraySize(array);

	if (n <= 0)
		return NULL;
	*index = pick((unsigned)n);
	return cJSON_GetArrayItem(array, (int)*index);
}

/* One mutation of ROOT; appends what it did to WHAT. */
static void mutate(cJSON *root, char *what, size_t size)
{
	static const char *const names[] = { "malloc", "pool", "arena", "x", "" };
	cJSON *results = cJSON_GetObjectItemCaseSensitive(root, "results");
	cJSON *config = cJSON_GetObjectItemCaseSensitive(root, "config");
	cJSON *row, *other, *item;
	unsigned i = 0, j = 0;
	size_t used = strlen(what);

#define SAY(...) snprintf(what + used, size - used, __VA_ARGS__)
	switch (pick(12)) {
	case 0:
		if (any(results, &i)) {
			cJSON_DeleteItemFromArray(results, (int)i);
			SAY(" del results[%u]", i);
		}
		break;
	case 1:
		if ((row = any(results, &i)) && (item = any(row, &j))) {
			SAY(" del results[%u].%s", i, item->string ? item->string : "?");
			cJSON_DeleteItemFromObject(row, item->string);
		}
		break;
	case 2:
		if ((row = any(results, &i)) && (other = any(results, &j)) && i != j) {
			cJSON *a = cJSON_Duplicate(row, 1), *b = cJSON_Duplicate(other, 1);

			cJSON_ReplaceItemInArray(results, (int)i, b);
			cJSON_ReplaceItemInArray(results, (int)j, a);
			SAY(" swap results[%u] results[%u]", i, j);
		}
		break;
	case 3:
		if ((row = any(results, &i)) && any(results, &j) && i != j) {
			cJSON_ReplaceItemInArray(results, (int)j, cJSON_Duplicate(row, 1));
			SAY(" results[%u] = results[%u]", j, i);
		}
		break;
	case 4:
		if ((row = any(results, &i))) {
			const char *name = names[pick(5)];

			cJSON_DeleteItemFromObject(row, "backend");
			cJSON_AddStringToObject(row, "backend", name);
			SAY(" results[%u].backend = '%s'", i, name);
		}
		break;
	case 5:
		if ((row = any(results, &i))) {
			double sizes[] = { 0, 1, 40, 400, 4000, 1e15 };
			double v = sizes[pick(6)];

			cJSON_DeleteItemFromObject(row, "size");
			cJSON_AddNumberToObject(row, "size", v);
			SAY(" results[%u].size = %g", i, v);
		}
		break;
	case 6:
		if ((row = any(results, &i)) && (item = any(row, &j)) && cJSON_IsObject(item) &&
		    cJSON_GetObjectItemCaseSensitive(item, "runs")) {
			cJSON_ReplaceItemInObject(item, "runs", cJSON_CreateArray());
			SAY(" results[%u].%s.runs = []", i, item->string);
		}
		break;
	case 7:
		if (any(cJSON_GetObjectItemCaseSensitive(config, "backends"), &i)) {
			cJSON_DeleteItemFromArray(cJSON_GetObjectItemCaseSensitive(config, "backends"),
						  (int)i);
			SAY(" del config.backends[%u]", i);
		}
		break;
	case 8:
		if ((item = any(cJSON_GetObjectItemCaseSensitive(config, "backends"), &i))) {
			const char *name = names[pick(5)];

			cJSON_ReplaceItemInArray(cJSON_GetObjectItemCaseSensitive(config, "backends"),
						 (int)i, cJSON_CreateString(name));
			SAY(" config.backends[%u] = '%s'", i, name);
		}
		break;
	case 9:
		if (any(cJSON_GetObjectItemCaseSensitive(config, "sizes"), &i)) {
			cJSON_DeleteItemFromArray(cJSON_GetObjectItemCaseSensitive(config, "sizes"),
						  (int)i);
			SAY(" del config.sizes[%u]", i);
		}
		break;
	case 10:
		if ((item = any(config, &i))) {
			SAY(" del config.%s", item->string ? item->string : "?");
			cJSON_DeleteItemFromObject(config, item->string);
		}
		break;
	default:
		if (pick(4)) {
			if ((item = any(root, &i)) && strcmp(item->string, "schema")) {
				SAY(" del %s", item->string);
				cJSON_DeleteItemFromObject(root, item->string);
			}
		} else if (results) {
			cJSON_ReplaceItemInObject(root, "results", cJSON_CreateArray());
			SAY(" results = []");
		}
		break;
	}
#undef SAY
}

int main(int argc, char **argv)
{
	char *text, *end;
	unsigned long n;
	cJSON *original;

	if (argc != 5) {
		fprintf(stderr, "usage: jsonmutate FILE SEED N DIR\n");
		return 2;
	}
	state = strtoull(argv[2], &end, 10) * 2654435761u + 1;
	n = strtoul(argv[3], NULL, 10);
	text = tool_slurp(argv[1]);
	original = text ? cJSON_Parse(text) : NULL;
	free(text);
	if (!original) {
		fprintf(stderr, "jsonmutate: %s: not JSON\n", argv[1]);
		return 2;
	}
	for (unsigned long k = 1; k <= n; k++) {
		cJSON *copy = cJSON_Duplicate(original, 1);
		char path[4096], what[1024] = "";
		unsigned times = 1 + pick(3);
		char *out;
		FILE *f;

		for (unsigned t = 0; t < times; t++)
			mutate(copy, what, sizeof(what));
		out = cJSON_Print(copy);
		snprintf(path, sizeof(path), "%s/%lu.json", argv[4], k);
		f = fopen(path, "w");
		if (!f || !out || fputs(out, f) < 0 || fclose(f)) {
			fprintf(stderr, "jsonmutate: cannot write %s\n", path);
			return 2;
		}
		printf("%lu.json:%s\n", k, what);
		free(out);
		cJSON_Delete(copy);
	}
	cJSON_Delete(original);
	return 0;
}
