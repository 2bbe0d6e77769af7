/*
 * jsonq - prints one value of a JSON file, for the shell tests.
 *
 *   jsonq FILE PATH
 *
 * PATH is a dot-separated list of steps: NAME (object member), NAME[N]
 * (array element), NAME[KEY=VALUE,KEY=VALUE] (the first array element whose
 * members match), or NAME# (the length of an array). Prints numbers with
 * %.17g, strings raw, null as "null", objects and arrays as JSON. Exits 1
 * when the path does not exist, 2 when FILE is not JSON.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	size_t n = 0, alloc = 4096;
	char *buf = malloc(alloc);

	if (!f || !buf)
		return NULL;
	for (;;) {
		size_t got = fread(buf + n, 1, alloc - n - 1, f);

		n += got;
		if (n + 1 < alloc)
			break;
		alloc *= 2;
		buf = realloc(buf, alloc);
		if (!buf)
			return NULL;
	}
	buf[n] = '\0';
	if (f != stdin)
		fclose(f);
	return buf;
}

static int matches(const cJSON *item, char *conditions)
{
	char *copy = strdup(conditions), *cond, *next;
	int ok = 1;

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
		if (cJSON_IsString(member))
			ok = !strcmp(member->valuestring, eq + 1);
		else if (cJSON_IsNumber(member)) {
			snprintf(buf, sizeof(buf), "%.17g", member->valuedouble);
			ok = !strcmp(buf, eq + 1);
		} else
			ok = 0;
	}
	free(copy);
	return ok;
}

static const cJSON *step(const cJSON *node, char *text, int *length)
{
	char *bracket = strchr(text, '['), *hash = strchr(text, '#');

	if (hash)
		*hash = '\0';
	if (bracket)
		*bracket = '\0';
	if (*text)
		node = cJSON_GetObjectItemCaseSensitive(node, text);
	if (!node)
		return NULL;
	if (bracket) {
		char *inside = bracket + 1, *close = strchr(inside, ']');
		const cJSON *item;

		if (!close || !cJSON_IsArray(node))
			return NULL;
		*close = '\0';
		if (!strchr(inside, '='))
			return cJSON_GetArrayItem(node, atoi(inside));
		cJSON_ArrayForEach(item, node)
			if (matches(item, inside))
				return item;
		return NULL;
	}
	if (hash)
		*length = 1;
	return node;
}

int main(int argc, char **argv)
{
	char *text, *path, *s, *next;
	const cJSON *node;
	cJSON *root;
	int length = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: jsonq FILE PATH\n");
		return 2;
	}
	text = slurp(argv[1]);
	root = text ? cJSON_Parse(text) : NULL;
	if (!root) {
		fprintf(stderr, "jsonq: %s: not JSON\n", argv[1]);
		return 2;
	}
	node = root;
	path = strdup(argv[2]);
	for (s = path; node && s && *s; s = next) {
		next = strchr(s, '.');
		/* A dot inside [..] belongs to the condition. */
		if (next && strchr(s, '[') && strchr(s, '[') < next && strchr(s, ']') > next)
			next = strchr(strchr(s, ']'), '.');
		if (next)
			*next++ = '\0';
		node = step(node, s, &length);
	}
	if (!node) {
		fprintf(stderr, "jsonq: %s: no '%s'\n", argv[1], argv[2]);
		return 1;
	}
	if (length)
		printf("%d\n", cJSON_GetArraySize(node));
	else if (cJSON_IsNumber(node))
		printf("%.17g\n", node->valuedouble);
	else if (cJSON_IsString(node))
		printf("%s\n", node->valuestring);
	else if (cJSON_IsNull(node))
		printf("null\n");
	else if (cJSON_IsBool(node))
		printf("%s\n", cJSON_IsTrue(node) ? "true" : "false");
	else {
		char *out = cJSON_PrintUnformatted(node);

		printf("%s\n", out);
		free(out);
	}
	free(path);
	cJSON_Delete(root);
	free(text);
	return 0;
}
