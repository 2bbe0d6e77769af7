#include "report/json_out.h"
#include "platform/util.h"

#include <cjson/cJSON.h>

void json_add_number(cJSON *obj, const char *name, int known, double value)
{
	if (known)
		cJSON_AddNumberToObject(obj, name, value);
	else
		cJSON_AddNullToObject(obj, name);
}

cJSON *json_stat(const struct stat_summary *s, const double *runs, unsigned n)
{
	cJSON *obj = cJSON_CreateObject(), *array = cJSON_CreateArray();

	cJSON_AddNumberToObject(obj, "median", s->median);
	cJSON_AddNumberToObject(obj, "min", s->min);
	cJSON_AddNumberToObject(obj, "max", s->max);
	for (unsigned i = 0; i < n; i++)
		cJSON_AddItemToArray(array, cJSON_CreateNumber(runs[i]));
	cJSON_AddItemToObject(obj, "runs", array);
	return obj;
}

/* Replaces *S (a string cJSON owns) by its text_clean() copy when it needs one. */
static void clean_owned(char **s)
{
	size_t need;
	char *copy;

	if (!*s || text_is_clean(*s))
		return;
	need = text_clean(NULL, 0, *s);
	copy = cJSON_malloc(need + 1);
	if (!copy) {
		/* No memory: mark the bad bytes in place rather than pass them on. */
		for (unsigned char *p = (unsigned char *)*s; *p; p++)
			if (*p < 0x20 || *p >= 0x7f)
				*p = '?';
		return;
	}
	text_clean(copy, need + 1, *s);
	cJSON_free(*s);
	*s = copy;
}

void json_clean_strings(cJSON *node)
{
	for (; node; node = node->next) {
		if (!(node->type & cJSON_StringIsConst))
			clean_owned(&node->string);
		if (cJSON_IsString(node) && !(node->type & cJSON_IsReference))
			clean_owned(&node->valuestring);
		if (node->child && !(node->type & cJSON_IsReference))
			json_clean_strings(node->child);
	}
}

int json_write_document(FILE *out, cJSON *root)
{
	char *text;
	int ret = 0;

	/* Host names, versions, errors from outside: printable, valid UTF-8 JSON. */
	json_clean_strings(root);
	text = cJSON_Print(root);

	cJSON_Delete(root);
	if (!text)
		return error("out of memory while writing JSON");
	if (fputs(text, out) == EOF || fputc('\n', out) == EOF)
		ret = -1;
	cJSON_free(text);
	return ret;
}
