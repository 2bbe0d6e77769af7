/*
 * jsonset - writes a JSON file with one value changed, for the shell tests
 * that build doctored reports out of real ones.
 *
 *   jsonset FILE PATH =JSON     replace the value at PATH with JSON (a
 *                               member an object lacks is added)
 *   jsonset FILE PATH +N        add N to the number at PATH, or to every
 *                               number inside it (an object or array)
 *   jsonset FILE PATH xF        multiply likewise by F
 *   jsonset FILE PATH delete    remove the value at PATH
 *
 * PATH is jsonq's: NAME, NAME[N], NAME[KEY=VALUE,...] steps joined by dots.
 * Prints the whole document to stdout. Exits 1 when the path does not
 * exist, 2 on bad usage or when FILE is not JSON.
 */
#include "tool_json.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One step of the path from NODE; *PARENT becomes the container of the result. */
static cJSON *step(cJSON *node, char *text, cJSON **parent)
{
	char *bracket = strchr(text, '[');
	cJSON *item;

	if (bracket)
		*bracket = '\0';
	if (*text) {
		*parent = node;
		node = cJSON_GetObjectItemCaseSensitive(node, text);
	}
	if (!node || !bracket)
		return node;
	{
		char *inside = bracket + 1, *close = strchr(inside, ']');

		if (!close || !cJSON_IsArray(node))
			return NULL;
		*close = '\0';
		*parent = node;
		if (!strchr(inside, '='))
			return cJSON_GetArrayItem(node, atoi(inside));
		cJSON_ArrayForEach(item, node)
			if (tool_matches(item, inside))
				return item;
	}
	return NULL;
}

/* Applies '+' (add) or 'x' (multiply) by V to every number in NODE. */
static void apply(cJSON *node, char op, double v)
{
	cJSON *child;

	if (cJSON_IsNumber(node)) {
		cJSON_SetNumberValue(node, op == '+' ? node->valuedouble + v : node->valuedouble * v);
		return;
	}
	cJSON_ArrayForEach(child, node)
		apply(child, op, v);
}

int main(int argc, char **argv)
{
	char *text, *path, *s, *next, *end, *out;
	cJSON *root, *node, *parent = NULL;
	const char *op;

	if (argc != 4) {
		fprintf(stderr, "usage: jsonset FILE PATH =JSON|+N|xF|delete\n");
		return 2;
	}
	op = argv[3];
	text = tool_slurp(argv[1]);
	root = text ? cJSON_Parse(text) : NULL;
	if (!root) {
		fprintf(stderr, "jsonset: %s: not JSON\n", argv[1]);
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
		/* "=JSON" on a member the object lacks adds it. */
		if (!next && op[0] == '=' && !strchr(s, '[') && cJSON_IsObject(node) &&
		    !cJSON_GetObjectItemCaseSensitive(node, s)) {
			cJSON_AddItemToObject(node, s, cJSON_CreateNull());
		}
		node = step(node, s, &parent);
	}
	if (!node || !parent) {
		fprintf(stderr, "jsonset: %s: no '%s'\n", argv[1], argv[2]);
		return 1;
	}
	if (op[0] == '=') {
		cJSON *value = cJSON_Parse(op + 1);

		if (!value) {
			fprintf(stderr, "jsonset: '%s' is not JSON\n", op + 1);
			return 2;
		}
		/* In an object the replacement takes the member's name. */
		if (cJSON_IsObject(parent))
			cJSON_ReplaceItemInObjectCaseSensitive(parent, node->string, value);
		else
			cJSON_ReplaceItemViaPointer(parent, node, value);
	} else if (op[0] == '+' || op[0] == 'x') {
		double v = strtod(op + 1, &end);

		if (end == op + 1 || *end) {
			fprintf(stderr, "jsonset: bad number in '%s'\n", op);
			return 2;
		}
		apply(node, op[0], v);
	} else if (!strcmp(op, "delete")) {
		cJSON_Delete(cJSON_DetachItemViaPointer(parent, node));
	} else {
		fprintf(stderr, "jsonset: unknown operation '%s'\n", op);
		return 2;
	}
	out = cJSON_Print(root);
	puts(out);
	free(out);
	free(path);
	cJSON_Delete(root);
	free(text);
	return 0;
}
