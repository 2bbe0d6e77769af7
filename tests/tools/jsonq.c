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
#include "tool_json.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
			if (tool_matches(item, inside))
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
	text = tool_slurp(argv[1]);
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
