#include "report/results.h"
#include "report/json_out.h"
#include "model/breakdown.h"
#include "model/figure.h"
#include "platform/util.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A block of run values handed out by results_row_stat(), freed with the file. */
struct runs_block {
	struct runs_block *next;
	double values[];
};

/* Largest report read: far above any real one, small enough to refuse garbage. */
#define RESULTS_MAX_BYTES ((size_t)256 << 20)

/*
 * PATH opened for reading ("-": standard input), or NULL with errno set.
 * Opened O_NONBLOCK, so that a FIFO no one writes to (a stray x.json in a
 * directory history reads) is not waited for: it then reads as empty.
 * Reads block again after the open, for a pipe whose writer is slow.
 */
static FILE *open_report(const char *path)
{
	struct stat st;
	FILE *f = NULL;
	int fd, flags, saved;

	if (!strcmp(path, "-"))
		return stdin;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))
		errno = EISDIR;
	else if ((flags = fcntl(fd, F_GETFL)) >= 0 && fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0)
		f = fdopen(fd, "rb");
	if (!f) {
		saved = errno;
		close(fd);
		errno = saved;
	}
	return f;
}

static char *read_all(const char *path, size_t *len)
{
	FILE *f = open_report(path);
	size_t n = 0, alloc = 1 << 16;
	char *buf;

	if (!f)
		return NULL;
	buf = malloc(alloc);
	while (buf) {
		size_t got = fread(buf + n, 1, alloc - n - 1, f);

		n += got;
		if (got == 0 || n + 1 < alloc) {
			if (ferror(f) || n + 1 < alloc || feof(f))
				break;
		}
		if (n + 1 == alloc) {
			char *grown;

			if (alloc >= RESULTS_MAX_BYTES) {
				free(buf);
				buf = NULL;
				errno = EFBIG;
				break;
			}
			grown = realloc(buf, alloc * 2);
			if (!grown) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = grown;
			alloc *= 2;
		}
	}
	if (buf && ferror(f)) {
		free(buf);
		buf = NULL;
	}
	if (f != stdin)
		fclose(f);
	if (buf) {
		buf[n] = '\0';
		*len = n;
	}
	return buf;
}

/* Follows the dotted PATH from NODE. */
static const cJSON *lookup(const cJSON *node, const char *path)
{
	char name[256];

	while (node && *path) {
		size_t n = strcspn(path, ".");

		if (n >= sizeof(name))
			return NULL;
		memcpy(name, path, n);
		name[n] = '\0';
		node = cJSON_GetObjectItemCaseSensitive(node, name);
		path += n;
		if (*path == '.')
			path++;
	}
	return node;
}

/* The string at PATH of NODE, or FALLBACK when there is none. */
static const char *string_at(const cJSON *node, const char *path, const char *fallback)
{
	const cJSON *item = lookup(node, path);

	return cJSON_IsString(item) ? item->valuestring : fallback;
}

static int number_at(const cJSON *node, const char *path, double *out)
{
	const cJSON *item = lookup(node, path);

	if (!cJSON_IsNumber(item))
		return -1;
	*out = item->valuedouble;
	return 0;
}

static int fail(struct result_file *file, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct result_file *file, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	error("'%s': %s", file->path, msg);
	results_release(file);
	return -1;
}

/* Parses "allocbench/N" into N; -1 when SCHEMA is not of that form. */
static int schema_major(const char *schema)
{
	size_t n = strlen(RESULTS_SCHEMA_NAME);
	char *end;
	long major;

	if (strncmp(schema, RESULTS_SCHEMA_NAME "/", n + 1))
		return -1;
	errno = 0;
	major = strtol(schema + n + 1, &end, 10);
	if (errno || end == schema + n + 1 || (*end && *end != '.') || major < 0)
		return -1;
	return (int)major;
}

/*
 * 1 when TEXT ends inside an object, an array or a string: a file cut short
 * (a copy that stopped, a disk that filled up), whatever token it ends in.
 */
static int cut_short(const char *text, size_t len)
{
	long depth = 0;
	int in_string = 0;

	for (size_t i = 0; i < len; i++) {
		char ch = text[i];

		if (in_string) {
			if (ch == '\\')
				i++;
			else if (ch == '"')
				in_string = 0;
		} else if (ch == '"') {
			in_string = 1;
		} else if (ch == '{' || ch == '[') {
			depth++;
		} else if (ch == '}' || ch == ']') {
			if (--depth < 0)
				return 0;
		}
	}
	return depth > 0 || in_string;
}

/* ---- keys given twice ------------------------------------------------- */

static int key_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* An object this small is sorted in place, on the stack; a larger one on the heap. */
#define FEW_KEYS 32

/*
 * Whether object OBJ names a key twice: 0 no, 1 yes with the key in *DUP,
 * -1 out of memory. Sorted, not compared pairwise: a hostile object of
 * 100000 keys costs n log n, not n^2.
 */
static int repeated_key(const cJSON *obj, const char **dup)
{
	const char *few[FEW_KEYS], **keys = few;
	size_t n = (size_t)cJSON_GetArraySize(obj), i = 0;
	const cJSON *item;
	int ret = 0;

	if (n > FEW_KEYS && !(keys = malloc(n * sizeof(*keys))))
		return -1;
	cJSON_ArrayForEach(item, obj)
		keys[i++] = item->string ? item->string : "";
	qsort(keys, n, sizeof(*keys), key_cmp);
	for (i = 1; i < n && !ret; i++)
		if (!strcmp(keys[i - 1], keys[i])) {
			*dup = keys[i];
			ret = 1;
		}
	if (keys != few)
		free(keys);
	return ret;
}

/*
 * Finds an object under NODE that names a key twice. PATH holds NODE's
 * JSON path (LEN characters, SIZE bytes of room), "" for the top level;
 * each container below writes its own after it. Returns 0, 1 with the key
 * in *DUP and its object's path in PATH, or -1 when out of memory.
 */
static int find_repeated_key(const cJSON *node, char *path, size_t len, size_t size,
			     const char **dup)
{
	const cJSON *item;
	size_t i = 0;
	int ret;

	if (cJSON_IsObject(node) && (ret = repeated_key(node, dup)))
		return ret;
	cJSON_ArrayForEach(item, node) {
		if (item->child) {
			size_t sub = len + (size_t)(cJSON_IsArray(node) ?
				snprintf(path + len, size - len, "[%zu]", i) :
				snprintf(path + len, size - len, "%s%s", len ? "." : "", item->string));

			ret = find_repeated_key(item, path, sub < size ? sub : size - 1, size, dup);
			if (ret)
				return ret;
			path[len] = '\0';
		}
		i++;
	}
	return 0;
}

/* ---- parsing ------------------------------------------------------------ */

/* cJSON says NULL for text it cannot parse and for memory it cannot get alike. */
static int json_out_of_memory;

static void *json_malloc(size_t size)
{
	void *p = malloc(size);

	if (!p)
		json_out_of_memory = 1;
	return p;
}

/*
 * Parses the LEN bytes of TEXT into FILE->root; FILE->path is set. One
 * document, then only white space: text after it (a second report
 * appended, a stray byte) would be read by nobody, so it is refused.
 */
static int parse_text(struct result_file *file, const char *text, size_t len)
{
	const char *end = NULL, *dup = NULL;
	char where[256] = "";

	cJSON_Hooks hooks = { json_malloc, free };

	if (!len)
		return fail(file, "empty file, not an allocbench JSON report");
	cJSON_InitHooks(&hooks);
	json_out_of_memory = 0;
	file->root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
	if (!file->root && json_out_of_memory)
		return fail(file, "out of memory reading its %zu bytes of JSON", len);
	if (file->root) {
		while (end < text + len && strchr(" \t\n\r", *end) && *end)
			end++;
		if (end < text + len)
			return fail(file, "text after the report at byte %zu (one JSON document "
				    "per file)", (size_t)(end - text));
	} else {
		const char *at = cJSON_GetErrorPtr();
		long offset = at && at >= text && at <= text + len ? (long)(at - text) : -1;

		if ((offset >= 0 && (size_t)offset >= len) || cut_short(text, len))
			return fail(file, "not valid JSON: truncated at byte %zu", len);
		return fail(file, "not valid JSON (error near byte %ld)", offset);
	}
	/* Whatever the file holds, the reports built from it print only clean text. */
	json_clean_strings(file->root);
	/* cJSON would read the first of two keys and ignore the other: which is meant? */
	switch (find_repeated_key(file->root, where, 0, sizeof(where), &dup)) {
	case 0:
		return 0;
	case 1:
		return fail(file, "duplicate key \"%s\" in %s", dup, *where ? where : "the top level");
	default:
		return fail(file, "out of memory");
	}
}

static int load_parsed(struct result_file *file);

int results_parse(const char *path, struct result_file *file)
{
	size_t len = 0;
	char *text;
	int ret;

	memset(file, 0, sizeof(*file));
	file->path = strdup(path);
	if (!file->path)
		return error("out of memory");
	text = read_all(path, &len);
	if (!text && errno == EFBIG)
		return fail(file, "larger than %zu MiB, the most a report is read in "
			    "(its JSON takes several times that in memory)", RESULTS_MAX_BYTES >> 20);
	if (!text)
		return fail(file, "cannot read: %s", strerror(errno ? errno : EIO));
	ret = parse_text(file, text, len);
	free(text);
	if (!ret)
		file->schema = string_at(file->root, "schema", "");
	return ret;
}

int results_load(const char *path, struct result_file *file)
{
	return results_parse(path, file) ? -1 : load_parsed(file);
}

int results_load_buffer(const char *name, const char *text, size_t len,
			struct result_file *file)
{
	memset(file, 0, sizeof(*file));
	file->path = strdup(name);
	if (!file->path)
		return error("out of memory");
	return parse_text(file, text, len) ? -1 : load_parsed(file);
}

/* A number under NODE that is not finite becomes null, as cJSON_Print() writes it. */
static void nonfinite_to_null(cJSON *node)
{
	for (; node; node = node->next) {
		if (cJSON_IsNumber(node) && !isfinite(node->valuedouble))
			node->type = cJSON_NULL;
		nonfinite_to_null(node->child);
	}
}

int results_load_tree(const char *name, struct cJSON *root, struct result_file *file)
{
	memset(file, 0, sizeof(*file));
	file->root = root;
	file->path = strdup(name);
	if (!file->path || !root) {
		results_release(file);
		return error("out of memory");
	}
	json_clean_strings(root);
	nonfinite_to_null(root);
	return load_parsed(file);
}

/* The largest whole number a double holds exactly. */
#define RESULTS_MAX_WHOLE 9007199254740992.0

/* Whether V is a whole number from 0 to 2^53. */
static int whole(double v)
{
	return isfinite(v) && v >= 0 && v <= RESULTS_MAX_WHOLE && v == floor(v);
}

/*
 * Every number under NODE (at JSON path PATH) is finite, and every
 * statistic ({median, ...}) holds numbers only: writes the path of the
 * first offender and what is wrong into WHY and returns -1.
 */
static int check_numbers(const cJSON *node, const char *path, char *why, size_t size)
{
	const cJSON *item;
	char sub[256];
	size_t i = 0;

	if (cJSON_IsNumber(node)) {
		if (!isfinite(node->valuedouble)) {
			snprintf(why, size, "%s is not a finite number", path);
			return -1;
		}
		return 0;
	}
	if (cJSON_IsObject(node) && cJSON_GetObjectItemCaseSensitive(node, "median")) {
		static const char *const fields[] = { "median", "min", "max" };
		const cJSON *runs = cJSON_GetObjectItemCaseSensitive(node, "runs");

		for (size_t f = 0; f < 3; f++) {
			item = cJSON_GetObjectItemCaseSensitive(node, fields[f]);
			if (item && !cJSON_IsNumber(item)) {
				snprintf(why, size, "%s.%s is not a number", path, fields[f]);
				return -1;
			}
		}
		if (runs && !cJSON_IsArray(runs)) {
			snprintf(why, size, "%s.runs is not an array", path);
			return -1;
		}
		cJSON_ArrayForEach(item, runs) {
			if (!cJSON_IsNumber(item)) {
				snprintf(why, size, "%s.runs[%zu] is not a number", path, i);
				return -1;
			}
			i++;
		}
	}
	i = 0;
	cJSON_ArrayForEach(item, node) {
		if (cJSON_IsArray(node))
			snprintf(sub, sizeof(sub), "%s[%zu]", path, i++);
		else
			snprintf(sub, sizeof(sub), "%s.%s", path, item->string ? item->string : "?");
		if (check_numbers(item, sub, why, size))
			return -1;
	}
	return 0;
}

/* What NODE is, for a message: "a string", "an array", ... */
static const char *json_kind(const cJSON *node)
{
	if (cJSON_IsString(node))
		return "a string";
	if (cJSON_IsBool(node))
		return cJSON_IsTrue(node) ? "true" : "false";
	if (cJSON_IsArray(node))
		return "an array";
	if (cJSON_IsObject(node))
		return "an object without a median";
	return cJSON_IsNumber(node) ? "a number" : "null";
}

/*
 * The member NAME of OBJ (at JSON path PATH) is a figure where present: a
 * number, or a statistic {median, ...} (check_numbers() checks its
 * members). Absent or null (allocbench/1) is "not measured", which an
 * older report may be; anything else would be read as that, silently.
 */
static int check_figure(const cJSON *obj, const char *path, const char *name, char *why,
			size_t size)
{
	const cJSON *node = cJSON_GetObjectItemCaseSensitive(obj, name);

	if (!node || cJSON_IsNull(node) || cJSON_IsNumber(node) ||
	    (cJSON_IsObject(node) && cJSON_GetObjectItemCaseSensitive(node, "median")))
		return 0;
	snprintf(why, size, "%s.%s is %s (expected a number or a statistic {median, min, max, "
		 "runs})", path, name, json_kind(node));
	return -1;
}

/* A row's figures besides the tables': numbers the readers take as statistics of one run. */
static const char *const row_figures[] = {
	"resolution_bytes", "reserved_bytes", "rss_before_bytes", "rss_after_bytes",
	"live_bytes", "peak_live_bytes", "ops",
};

/*
 * Every figure ROW (at PATH) has is of a figure's type: those of the
 * table of figures (figure.h), of the breakdown (breakdown.h), the row's
 * other numbers, and each event's under "counters". Writes the path of
 * the first offender and what was expected into WHY and returns -1.
 */
static int check_figures(const cJSON *row, const char *path, char *why, size_t size)
{
	const cJSON *counters = cJSON_GetObjectItemCaseSensitive(row, "counters"), *event, *item;
	char sub[256];

	for (int m = 0; m < METRIC_COUNT; m++)
		if (check_figure(row, path, metric_name((enum metric)m), why, size))
			return -1;
	for (int b = 0; b < BREAKDOWN_COUNT; b++)
		if (check_figure(row, path, breakdown_name((enum breakdown)b), why, size))
			return -1;
	for (size_t i = 0; i < sizeof(row_figures) / sizeof(row_figures[0]); i++)
		if (check_figure(row, path, row_figures[i], why, size))
			return -1;
	if (counters && !cJSON_IsNull(counters) && !cJSON_IsObject(counters)) {
		snprintf(why, size, "%s.counters is %s (expected an object of events)", path,
			 json_kind(counters));
		return -1;
	}
	cJSON_ArrayForEach(event, counters) {
		snprintf(sub, sizeof(sub), "%s.counters.%s", path, event->string);
		if (cJSON_IsNull(event))
			continue;  /* allocbench/1: not counted */
		if (!cJSON_IsObject(event)) {
			snprintf(why, size, "%s is %s (expected an object of statistics)", sub,
				 json_kind(event));
			return -1;
		}
		cJSON_ArrayForEach(item, event)
			if (check_figure(event, sub, item->string, why, size))
				return -1;
	}
	return 0;
}

/* Checks results[I], ROW, and extracts its common fields into FILE->rows[I]. */
static int load_row(struct result_file *file, const cJSON *row, size_t i)
{
	struct result_row *r = &file->rows[i];
	char path[32], why[320];
	double v;

	if (!cJSON_IsObject(row))
		return fail(file, "results[%zu] is not an object", i);
	r->json = row;
	r->backend = string_at(row, "backend", NULL);
	r->status = string_at(row, "status", NULL);
	if (!r->backend)
		return fail(file, "results[%zu]: missing \"backend\"", i);
	if (!r->status)
		return fail(file, "results[%zu]: missing \"status\"", i);
	if (number_at(row, "size", &v) || v < 0)
		return fail(file, "results[%zu]: missing or negative \"size\"", i);
	if (!whole(v))
		return fail(file, "results[%zu].size: %g is not a whole number of bytes "
			    "below 2^53", i, v);
	r->size = (uint64_t)v;
	if (!number_at(row, "count", &v)) {
		if (!whole(v))
			return fail(file, "results[%zu].count: %g is not a whole number of "
				    "chunks below 2^53", i, v);
		r->count = (uint64_t)v;
	}
	snprintf(path, sizeof(path), "results[%zu]", i);
	if (check_numbers(row, path, why, sizeof(why)) ||
	    check_figures(row, path, why, sizeof(why)))
		return fail(file, "%s", why);
	r->workload = string_at(row, "workload", file->workload);
	r->ok = !strcmp(r->status, "ok");
	r->error = string_at(row, "error", NULL);
	if (number_at(row, "resolution_bytes", &r->resolution_bytes))
		r->resolution_bytes = 0;
	return 0;
}

/* Checks the parsed document and extracts the common fields. */
static int load_parsed(struct result_file *file)
{
	const cJSON *root, *results, *row;
	size_t i = 0;
	double v;
	int major;

	root = file->root;
	if (!cJSON_IsObject(root))
		return fail(file, "not an allocbench report (the top level is not an object)");
	file->schema = string_at(root, "schema", NULL);
	if (!file->schema)
		return fail(file, "not an allocbench report (no \"schema\" field)");
	major = schema_major(file->schema);
	if (major < 0)
		return fail(file, "not an allocbench report (schema \"%s\")", file->schema);
	if (major < RESULTS_SCHEMA_MIN_MAJOR || major > RESULTS_SCHEMA_MAJOR)
		return fail(file, "schema \"%s\" is not supported (this allocbench reads "
			    "%s/%d to %s/%d)", file->schema, RESULTS_SCHEMA_NAME,
			    RESULTS_SCHEMA_MIN_MAJOR, RESULTS_SCHEMA_NAME, RESULTS_SCHEMA_MAJOR);
	file->tool_version = string_at(root, "tool.version", "");
	file->hostname = string_at(root, "host.hostname", "");
	file->label = string_at(root, "label", NULL);
	file->created = string_at(root, "created", "");
	file->workload = string_at(root, "config.workload", "fill");
	file->touch = string_at(root, "config.touch", "");
	if (!number_at(root, "config.total_bytes", &v)) {
		if (!whole(v) || v < 1)
			return fail(file, "config.total_bytes: %g is not a whole number of bytes from "
				    "1 to 2^53", v);
		file->total_bytes = (uint64_t)v;
	}
	if (!number_at(root, "config.repeat", &v)) {
		if (!whole(v) || v > UINT32_MAX)
			return fail(file, "config.repeat: %g is not a whole number of runs", v);
		file->repeat = (unsigned)v;
	}

	results = cJSON_GetObjectItemCaseSensitive(root, "results");
	if (!cJSON_IsArray(results))
		return fail(file, "no \"results\" array");
	file->nrows = (size_t)cJSON_GetArraySize(results);
	file->rows = calloc(file->nrows ? file->nrows : 1, sizeof(*file->rows));
	if (!file->rows)
		return fail(file, "out of memory");
	cJSON_ArrayForEach(row, results)
		if (load_row(file, row, i++))
			return -1;
	/* The floor's rows (fill): the figures show reads from them. */
	i = 0;
	cJSON_ArrayForEach(row, cJSON_GetObjectItemCaseSensitive(root, "floor")) {
		char path[32], why[320];

		snprintf(path, sizeof(path), "floor[%zu]", i++);
		if (cJSON_IsObject(row) && check_figures(row, path, why, sizeof(why)))
			return fail(file, "%s", why);
	}
	return 0;
}

void results_release(struct result_file *file)
{
	free(file->path);
	free(file->rows);
	while (file->runs_blocks) {
		struct runs_block *next = ((struct runs_block *)file->runs_blocks)->next;

		free(file->runs_blocks);
		file->runs_blocks = next;
	}
	cJSON_Delete(file->root);
	memset(file, 0, sizeof(*file));
}

/* Copies the N numbers of ARRAY into a block the file owns; NULL when out of memory. */
static const double *keep_runs(struct result_file *file, const cJSON *array, size_t n)
{
	struct runs_block *block = malloc(sizeof(*block) + n * sizeof(block->values[0]));
	const cJSON *item;
	size_t i = 0;

	if (!block)
		return NULL;
	cJSON_ArrayForEach(item, array)
		if (i < n)
			block->values[i++] = cJSON_IsNumber(item) ? item->valuedouble : 0;
	block->next = file->runs_blocks;
	file->runs_blocks = block;
	return block->values;
}

int results_row_stat(struct result_file *file, const struct result_row *row,
		     const char *name, struct result_stat *out)
{
	const cJSON *node = lookup(row->json, name), *runs;

	memset(out, 0, sizeof(*out));
	if (cJSON_IsNumber(node)) {
		out->median = out->min = out->max = node->valuedouble;
		return 0;
	}
	if (!cJSON_IsObject(node) || number_at(node, "median", &out->median))
		return -1;
	if (number_at(node, "min", &out->min))
		out->min = out->median;
	if (number_at(node, "max", &out->max))
		out->max = out->median;
	runs = cJSON_GetObjectItemCaseSensitive(node, "runs");
	if (cJSON_IsArray(runs)) {
		size_t n = (size_t)cJSON_GetArraySize(runs);

		out->runs = n ? keep_runs(file, runs, n) : NULL;
		out->nruns = out->runs ? n : 0;
	}
	return 0;
}

int results_row_number(const struct result_row *row, const char *name, double *out)
{
	return number_at(row->json, name, out);
}

size_t results_row_numbers(const struct result_row *row, const char *name, double *out,
			   size_t max)
{
	const cJSON *array = lookup(row->json, name), *item;
	size_t n = 0;

	if (!cJSON_IsArray(array) || (size_t)cJSON_GetArraySize(array) > max)
		return 0;
	cJSON_ArrayForEach(item, array) {
		if (!cJSON_IsNumber(item) || !isfinite(item->valuedouble))
			return 0;
		out[n++] = item->valuedouble;
	}
	return n;
}

const char *results_row_string(const struct result_row *row, const char *name)
{
	return string_at(row->json, name, NULL);
}

const char *results_file_string(const struct result_file *file, const char *name)
{
	return string_at(file->root, name, NULL);
}

int results_file_number(const struct result_file *file, const char *name, double *out)
{
	return number_at(file->root, name, out);
}

int results_file_numbers(const struct result_file *file, const char *name, char *out,
			 size_t size)
{
	const cJSON *array = lookup(file->root, name), *item;
	size_t used = 0;

	*out = '\0';
	if (!cJSON_IsArray(array))
		return -1;
	cJSON_ArrayForEach(item, array) {
		if (!cJSON_IsNumber(item))
			return -1;
		if (used < size)
			used += (size_t)snprintf(out + used, size - used, "%s%.17g", used ? "," : "",
						 item->valuedouble);
	}
	return 0;
}
