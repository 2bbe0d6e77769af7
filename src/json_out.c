#include "json_out.h"
#include "util.h"

#include <cjson/cJSON.h>

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

int json_write_document(FILE *out, cJSON *root)
{
	char *text = cJSON_Print(root);
	int ret = 0;

	cJSON_Delete(root);
	if (!text)
		return error("out of memory while writing JSON");
	if (fputs(text, out) == EOF || fputc('\n', out) == EOF)
		ret = -1;
	cJSON_free(text);
	return ret;
}
