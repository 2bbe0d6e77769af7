/*
 * schemacheck - validates a JSON document against a JSON Schema, for the
 * test that keeps data/allocbench.schema.json true to what allocbench writes.
 *
 *   schemacheck SCHEMA.json DOCUMENT.json
 *   schemacheck --always [--optional PLACE]... SCHEMA.json DOCUMENT.json...
 *
 * Exits 0 when DOCUMENT is valid, 1 when it is not (each failure printed
 * with its JSON pointer), 2 on bad usage, unreadable files, or a schema that
 * uses a keyword this checker does not implement.
 *
 * --always holds the schema's "required" to the writer the other way too:
 * besides validating each DOCUMENT, it finds each member that is in every
 * object of its place in all of them (a place: the pointer with each array
 * index as *), and that a document still validates without. Such a member
 * is always written and not required: each is printed, and the exit is 1.
 * A member the schema names in no "properties" (a key of a map: a counter,
 * a backend) is not judged, nor one at a PLACE given with --optional (one
 * the writer leaves out on a path the documents do not take: the caller
 * says which).
 *
 * Why a checker of our own: CI has no Python for certain, and cJSON is
 * already a build dependency. It implements the subset of draft 2020-12 the
 * schema uses: type, properties, required, additionalProperties, items,
 * minItems, maxItems, enum, const, minimum, maximum, exclusiveMinimum,
 * exclusiveMaximum, minLength, if/then/else, pattern (POSIX extended regular expressions,
 * which agree with ECMA-262 on the patterns used: classes, anchors,
 * counts), allOf, anyOf, oneOf, not, and $ref to "#/$defs/NAME". Any other
 * keyword is refused rather than ignored, so the schema cannot promise
 * something that is not checked; annotations ($schema, $id, $comment, title,
 * description, default, examples, format) are ignored, as the draft allows.
 *
 * Stricter than the draft in one way, so that the schema follows the
 * writer: an object schema ("type": "object") that lists properties and
 * says nothing of additionalProperties admits no other member. The schema
 * leaves such members allowed for readers of later reports; allocbench
 * writes none (a member it writes and the schema does not describe fails
 * here, with its JSON pointer).
 */
#include "tool_json.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const cJSON *schema_root;
static int unsupported;   /* set when the schema uses a keyword not implemented */
static const char *schema_path;

static int is_type(const cJSON *node, const char *type)
{
	if (!strcmp(type, "object"))
		return cJSON_IsObject(node);
	if (!strcmp(type, "array"))
		return cJSON_IsArray(node);
	if (!strcmp(type, "string"))
		return cJSON_IsString(node);
	if (!strcmp(type, "number"))
		return cJSON_IsNumber(node);
	if (!strcmp(type, "integer"))
		return cJSON_IsNumber(node) && node->valuedouble == floor(node->valuedouble);
	if (!strcmp(type, "boolean"))
		return cJSON_IsBool(node);
	if (!strcmp(type, "null"))
		return cJSON_IsNull(node);
	fprintf(stderr, "schemacheck: unknown type '%s'\n", type);
	unsupported = 1;
	return 0;
}

/* Validates NODE (at pointer PATH) against SCHEMA; prints failures unless QUIET. */
static int validate(const cJSON *node, const cJSON *schema, const char *path, int quiet);

#define FAIL(...)                                                      \
	do {                                                           \
		if (!quiet) {                                          \
			fprintf(stderr, "%s: ", *path ? path : "/");   \
			fprintf(stderr, __VA_ARGS__);                  \
			fputc('\n', stderr);                           \
		}                                                      \
		errors++;                                              \
	} while (0)

static const cJSON *resolve(const char *ref)
{
	const char *prefix = "#/$defs/";

	if (strncmp(ref, prefix, strlen(prefix))) {
		fprintf(stderr, "schemacheck: unsupported $ref '%s' (only #/$defs/NAME)\n", ref);
		unsupported = 1;
		return NULL;
	}
	return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(schema_root, "$defs"),
						ref + strlen(prefix));
}

static int count_valid(const cJSON *node, const cJSON *list, const char *path)
{
	const cJSON *sub;
	int valid = 0;

	cJSON_ArrayForEach(sub, list)
		valid += !validate(node, sub, path, 1);
	return valid;
}

/*
 * 1 when SCHEMA is an object schema that lists its properties and says
 * nothing of additionalProperties: it admits only those (see above).
 */
static int closed(const cJSON *schema)
{
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(schema, "type");

	return cJSON_IsString(type) && !strcmp(type->valuestring, "object") &&
	       cJSON_GetObjectItemCaseSensitive(schema, "properties") &&
	       !cJSON_GetObjectItemCaseSensitive(schema, "additionalProperties");
}

static int validate(const cJSON *node, const cJSON *schema, const char *path, int quiet)
{
	const cJSON *kw;
	int errors = 0;

	if (cJSON_IsTrue(schema))
		return 0;
	if (cJSON_IsFalse(schema)) {
		FAIL("not allowed (false schema)");
		return errors;
	}
	if (!cJSON_IsObject(schema)) {
		fprintf(stderr, "schemacheck: a schema is neither an object nor a boolean\n");
		unsupported = 1;
		return 1;
	}
	if (closed(schema) && cJSON_IsObject(node)) {
		const cJSON *props = cJSON_GetObjectItemCaseSensitive(schema, "properties");
		const cJSON *member;

		cJSON_ArrayForEach(member, node)
			if (!cJSON_GetObjectItemCaseSensitive(props, member->string))
				FAIL("member '%s' is not described by the schema", member->string);
	}
	cJSON_ArrayForEach(kw, schema) {
		const char *k = kw->string;

		if (!strcmp(k, "$schema") || !strcmp(k, "$id") || !strcmp(k, "$comment") ||
		    !strcmp(k, "title") || !strcmp(k, "description") || !strcmp(k, "default") ||
		    !strcmp(k, "examples") || !strcmp(k, "format") || !strcmp(k, "$defs")) {
			continue;
		} else if (!strcmp(k, "$ref")) {
			const cJSON *target = resolve(kw->valuestring);

			if (!target) {
				if (!unsupported)
					FAIL("$ref '%s' not found", kw->valuestring);
				errors++;
			} else {
				errors += validate(node, target, path, quiet);
			}
		} else if (!strcmp(k, "type")) {
			int ok = 0;

			if (cJSON_IsString(kw)) {
				ok = is_type(node, kw->valuestring);
			} else {
				const cJSON *t;

				cJSON_ArrayForEach(t, kw)
					ok |= is_type(node, t->valuestring);
			}
			if (!ok) {
				char *want = cJSON_PrintUnformatted(kw);

				FAIL("not of type %s", want);
				free(want);
			}
		} else if (!strcmp(k, "properties")) {
			const cJSON *prop;

			if (!cJSON_IsObject(node))
				continue;
			cJSON_ArrayForEach(prop, kw) {
				const cJSON *member = cJSON_GetObjectItemCaseSensitive(node, prop->string);
				char sub[1024];

				if (!member)
					continue;
				snprintf(sub, sizeof(sub), "%s/%s", path, prop->string);
				errors += validate(member, prop, sub, quiet);
			}
		} else if (!strcmp(k, "additionalProperties")) {
			const cJSON *props = cJSON_GetObjectItemCaseSensitive(schema, "properties");
			const cJSON *member;

			if (!cJSON_IsObject(node))
				continue;
			cJSON_ArrayForEach(member, node) {
				char sub[1024];

				if (props && cJSON_GetObjectItemCaseSensitive(props, member->string))
					continue;
				snprintf(sub, sizeof(sub), "%s/%s", path, member->string);
				errors += validate(member, kw, sub, quiet);
			}
		} else if (!strcmp(k, "required")) {
			const cJSON *name;

			if (!cJSON_IsObject(node))
				continue;
			cJSON_ArrayForEach(name, kw)
				if (!cJSON_GetObjectItemCaseSensitive(node, name->valuestring))
					FAIL("required member \"%s\" is missing", name->valuestring);
		} else if (!strcmp(k, "items")) {
			const cJSON *item;
			int i = 0;

			if (!cJSON_IsArray(node))
				continue;
			cJSON_ArrayForEach(item, node) {
				char sub[1024];

				snprintf(sub, sizeof(sub), "%s/%d", path, i++);
				errors += validate(item, kw, sub, quiet);
			}
		} else if (!strcmp(k, "minItems") || !strcmp(k, "maxItems")) {
			int n;

			if (!cJSON_IsArray(node))
				continue;
			n = cJSON_GetArraySize(node);
			if (k[1] == 'i' ? n < kw->valueint : n > kw->valueint)
				FAIL("%d items, %s is %d", n, k, kw->valueint);
		} else if (!strcmp(k, "enum")) {
			const cJSON *v;
			int found = 0;

			cJSON_ArrayForEach(v, kw)
				found |= cJSON_Compare(node, v, 1);
			if (!found)
				FAIL("not one of the enum values");
		} else if (!strcmp(k, "const")) {
			if (!cJSON_Compare(node, kw, 1))
				FAIL("not the const value");
		} else if (!strcmp(k, "minimum") || !strcmp(k, "maximum") ||
			   !strcmp(k, "exclusiveMinimum") || !strcmp(k, "exclusiveMaximum")) {
			double v, limit = kw->valuedouble;
			int bad;

			if (!cJSON_IsNumber(node))
				continue;
			v = node->valuedouble;
			bad = !strcmp(k, "minimum") ? v < limit : !strcmp(k, "maximum") ? v > limit :
			      !strcmp(k, "exclusiveMinimum") ? v <= limit : v >= limit;
			if (bad)
				FAIL("%.17g fails %s %.17g", v, k, limit);
		} else if (!strcmp(k, "minLength")) {
			if (cJSON_IsString(node) && (int)strlen(node->valuestring) < kw->valueint)
				FAIL("shorter than %d", kw->valueint);
		} else if (!strcmp(k, "pattern")) {
			regex_t re;

			if (!cJSON_IsString(node))
				continue;
			if (regcomp(&re, kw->valuestring, REG_EXTENDED | REG_NOSUB)) {
				fprintf(stderr, "schemacheck: cannot compile pattern '%s'\n", kw->valuestring);
				unsupported = 1;
				return errors + 1;
			}
			if (regexec(&re, node->valuestring, 0, NULL, 0))
				FAIL("\"%s\" does not match '%s'", node->valuestring, kw->valuestring);
			regfree(&re);
		} else if (!strcmp(k, "allOf")) {
			const cJSON *sub;

			cJSON_ArrayForEach(sub, kw)
				errors += validate(node, sub, path, quiet);
		} else if (!strcmp(k, "anyOf")) {
			if (!count_valid(node, kw, path))
				FAIL("not valid under any schema of anyOf");
		} else if (!strcmp(k, "oneOf")) {
			int n = count_valid(node, kw, path);

			if (n != 1) {
				FAIL("valid under %d schemas of oneOf, not exactly one", n);
				/* Say why each branch failed: the useful part of the message. */
				if (!quiet && !n) {
					const cJSON *sub;
					int i = 0;

					cJSON_ArrayForEach(sub, kw) {
						fprintf(stderr, "  oneOf[%d]:\n", i++);
						validate(node, sub, path, 0);
					}
				}
			}
		} else if (!strcmp(k, "if")) {
			const cJSON *branch = cJSON_GetObjectItemCaseSensitive(schema,
					validate(node, kw, path, 1) ? "else" : "then");

			if (branch)
				errors += validate(node, branch, path, quiet);
		} else if (!strcmp(k, "then") || !strcmp(k, "else")) {
			continue;   /* with "if" */
		} else if (!strcmp(k, "not")) {
			if (!validate(node, kw, path, 1))
				FAIL("valid under the schema of not");
		} else {
			fprintf(stderr, "schemacheck: unsupported keyword '%s'\n", k);
			unsupported = 1;
			errors++;
		}
	}
	return errors;
}

/* What --always learns of one member at one place. */
struct seen {
	char *place;       /* the member's pointer, array indices as * */
	unsigned written;  /* objects at the place that have it */
	int optional;      /* a document validated without it */
};

static struct seen *seen;
static size_t nseen;
static char **optional;   /* --optional's places, every other word */
static int noptional;

static struct seen *seen_at(const char *place)
{
	for (size_t i = 0; i < nseen; i++)
		if (!strcmp(seen[i].place, place))
			return &seen[i];
	seen = realloc(seen, (nseen + 1) * sizeof(*seen));
	if (!seen || !(seen[nseen].place = strdup(place))) {
		fprintf(stderr, "schemacheck: out of memory\n");
		exit(2);
	}
	seen[nseen].written = 0;
	seen[nseen].optional = 0;
	return &seen[nseen++];
}

/* 1 when NAME is a member some "properties" of the schema at or below S names. */
static int named(const cJSON *s, const char *name)
{
	const cJSON *kw;

	if (!cJSON_IsObject(s) && !cJSON_IsArray(s))
		return 0;
	cJSON_ArrayForEach(kw, s) {
		if (kw->string && !strcmp(kw->string, "properties") && cJSON_IsObject(kw) &&
		    cJSON_GetObjectItemCaseSensitive(kw, name))
			return 1;
		if (named(kw, name))
			return 1;
	}
	return 0;
}

/* Puts ITEM back into OBJECT after PREV (NULL: first), as cJSON links them. */
static void relink(cJSON *object, cJSON *prev, cJSON *item)
{
	cJSON *first = object->child;

	if (!prev) {
		item->next = first;
		item->prev = first ? first->prev : item;
		if (first)
			first->prev = item;
		object->child = item;
		return;
	}
	item->prev = prev;
	item->next = prev->next;
	if (prev->next)
		prev->next->prev = item;
	else
		first->prev = item;
	prev->next = item;
}

/*
 * Tallies each object below NODE (at place PLACE) of the valid document
 * DOC: at "PLACE/" the objects there, at "PLACE/NAME" those that have
 * NAME, and whether DOC validates with it taken out. An array's items are
 * at its place and a star.
 */
static void tally(cJSON *doc, cJSON *node, const char *place)
{
	char sub[1024];
	cJSON *member;

	if (cJSON_IsArray(node)) {
		snprintf(sub, sizeof(sub), "%s/*", place);
		cJSON_ArrayForEach(member, node)
			tally(doc, member, sub);
		return;
	}
	if (!cJSON_IsObject(node))
		return;
	snprintf(sub, sizeof(sub), "%s/", place);
	seen_at(sub)->written++;
	for (int i = 0; (member = cJSON_GetArrayItem(node, i)); i++) {
		struct seen *s;

		snprintf(sub, sizeof(sub), "%s/%s", place, member->string);
		if (named(schema_root, member->string)) {
			s = seen_at(sub);
			s->written++;
			if (!s->optional) {
				/* Take it out, validate, put it back after PREV. */
				cJSON *prev = i ? member->prev : NULL;

				cJSON_DetachItemViaPointer(node, member);
				s->optional = !validate(doc, schema_root, "", 1);
				relink(node, prev, member);
			}
		}
		tally(doc, member, sub);
	}
}
/* Validates the document at PATH; with ALWAYS, tallies it. Returns its errors, -1: unreadable. */
static int check_file(const char *path, int always)
{
	char *text = tool_slurp(path);
	cJSON *doc = text ? cJSON_Parse(text) : NULL;
	int errors;

	free(text);
	if (!doc) {
		fprintf(stderr, "schemacheck: %s: not readable JSON\n", path);
		return -1;
	}
	errors = validate(doc, schema_root, "", 0);
	if (errors)
		fprintf(stderr, "schemacheck: %s: not valid against %s\n", path, schema_path);
	else if (always)
		tally(doc, doc, "");
	cJSON_Delete(doc);
	return errors;
}

/* Prints each member --always found always written and not required; returns how many. */
static int always_written(void)
{
	int found = 0;

	for (size_t i = 0; i < nseen; i++) {
		const char *slash = strrchr(seen[i].place, '/');
		char parent[1024];

		int skip = !slash[1] || !seen[i].optional;

		for (int k = 0; k < noptional && !skip; k++)
			skip = !strcmp(optional[2 * k], seen[i].place);
		if (skip)
			continue;
		snprintf(parent, sizeof(parent), "%.*s/", (int)(slash - seen[i].place), seen[i].place);
		if (seen[i].written == seen_at(parent)->written) {
			printf("%s: in every object there (%u), and not required\n", seen[i].place,
			       seen[i].written);
			found++;
		}
	}
	return found;
}

int main(int argc, char **argv)
{
	int always = argc > 1 && !strcmp(argv[1], "--always");
	int first = 1 + always;   /* the schema's argument */
	char *schema_text;
	cJSON *schema;
	int errors = 0, bad = 0;

	while (always && first + 1 < argc && !strcmp(argv[first], "--optional")) {
		first += 2;
		noptional++;
	}
	optional = argv + 3;   /* every other word from there */
	if (argc - first < 2 || (!always && argc != 3)) {
		fprintf(stderr, "usage: schemacheck SCHEMA.json DOCUMENT.json\n"
				"       schemacheck --always [--optional PLACE]... SCHEMA.json DOCUMENT.json...\n");
		return 2;
	}
	schema_path = argv[first];
	schema_text = tool_slurp(schema_path);
	schema = schema_text ? cJSON_Parse(schema_text) : NULL;
	free(schema_text);
	if (!schema) {
		fprintf(stderr, "schemacheck: %s: not readable JSON\n", schema_path);
		return 2;
	}
	schema_root = schema;
	for (int i = first + 1; i < argc; i++) {
		int e = check_file(argv[i], always);

		bad |= e < 0;
		errors += e > 0;
	}
	if (!errors && !bad && !unsupported && always)
		errors = always_written();
	cJSON_Delete(schema);
	for (size_t i = 0; i < nseen; i++)
		free(seen[i].place);
	free(seen);
	if (unsupported || bad)
		return 2;
	return errors ? 1 : 0;
}
