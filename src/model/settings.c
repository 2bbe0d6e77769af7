/*
 * settings.c - a drop-in allocator with settings, as one candidate (settings.h).
 */
#include "model/settings.h"
#include "model/run.h"
#include "measure/allocator.h"
#include "measure/backend.h"
#include "platform/util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A candidate: a backend with its name and environment inside. */
struct candidate {
	struct backend backend;                   /* first: config->candidates frees it */
	char name[SETTINGS_NAME_MAX + 1];
	char env_text[SETTINGS_MAX][320];
	const char *env[SETTINGS_MAX + 1];
	size_t nenv;
	int confirmed;                            /* every setting read back */
	int described;                            /* from a saved report (settings_described()) */
	char how[256];                            /* what it said of reading them back */
};

/* How each allocator takes its settings, and what the report says of reading them back. */
struct settings_form {
	const char *allocator;
	const char *variable;     /* one variable for all (GLIBC_TUNABLES, MALLOC_CONF), or NULL */
	const char *prefix;       /* each setting's variable, PREFIX + NAME in capitals */
	const char *item_prefix;  /* before a setting's name in VARIABLE */
	char item_sep;            /* between its name and value there */
	char separator;           /* between two settings there */
	const char *bools[2];     /* false, true as the allocator reads them */
	const char *unconfirmed;  /* why a setting without allocator_setting.reads is not read back */
};

static const struct settings_form forms[] = {
	{ "malloc", "GLIBC_TUNABLES", NULL, "glibc.malloc.", '=', ':', { "0", "1" },
	  "glibc reads its tunables at start and has no call that reads one back" },
	{ "jemalloc", "MALLOC_CONF", NULL, "", ':', ',', { "false", "true" }, "" },
	{ "mimalloc", NULL, "MIMALLOC_", NULL, 0, 0, { "0", "1" },
	  "mimalloc 2.0 reads an option by its number, which differs between versions" },
	{ "tcmalloc", NULL, "TCMALLOC_", NULL, 0, 0, { "0", "1" },
	  "tcmalloc has no property that reads its release rate back" },
};

static const struct settings_form *form_of(const char *allocator)
{
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++)
		if (!strcmp(forms[i].allocator, allocator))
			return &forms[i];
	return NULL;
}

int settings_split(const char *text, char *buf, size_t size)
{
	size_t n = strcspn(text, ":");

	snprintf(buf, size, "%.*s", (int)n, text);
	return text[n] == ':';
}

/* "narenas, dirty_decay_ms, ..." of ALLOCATOR into BUF. */
static void list_settings(const char *allocator, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; allocator_settings[i].name && used < size; i++)
		if (!strcmp(allocator_settings[i].allocator, allocator))
			used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? ", " : "",
						 allocator_settings[i].name);
}

/* An error naming the unknown setting NAME of ALLOCATOR in TEXT, with the nearest. */
static int unknown_setting(const char *text, const char *allocator, const char *name)
{
	const char *names[32];
	char list[512], near[200];
	size_t n = 0;

	for (size_t i = 0; allocator_settings[i].name && n < 32; i++)
		if (!strcmp(allocator_settings[i].allocator, allocator))
			names[n++] = allocator_settings[i].name;
	list_settings(allocator, list, sizeof(list));
	if (!nearest_names(name, names, n, 3, near, sizeof(near)))
		near[0] = '\0';
	return error("unknown setting '%s' of %s in --backend '%s'%s%s%s (%s's settings: %s)",
		     name, allocator, text, near[0] ? "; did you mean " : "", near,
		     near[0] ? "?" : "", allocator, list);
}

/* VALUE of setting S (in TEXT) as the allocator reads it, into OUT. Returns 0, or -1 after an error. */
static int setting_value(const char *text, const struct allocator_setting *s,
			 const struct settings_form *f, const char *value, char *out, size_t size)
{
	char *end;
	long long v;

	if (s->type == SETTING_BOOL) {
		int b = !strcmp(value, "true") || !strcmp(value, "1") ? 1 :
			!strcmp(value, "false") || !strcmp(value, "0") ? 0 : -1;

		if (b < 0)
			return error("invalid value '%s' for %s:%s in --backend '%s' (expected true "
				     "or false)", value, s->allocator, s->name, text);
		snprintf(out, size, "%s", f->bools[b]);
		return 0;
	}
	errno = 0;
	v = strtoll(value, &end, 10);
	if (end == value || *end || errno || v < s->min || v > s->max) {
		char range[64];

		if (s->max >= ALLOCATOR_SETTING_NO_LIMIT)
			snprintf(range, sizeof(range), "%lld or more", s->min);
		else
			snprintf(range, sizeof(range), "from %lld to %lld", s->min, s->max);
		return error("invalid value '%s' for %s:%s in --backend '%s' (expected a whole "
			     "number %s: %s)", value, s->allocator, s->name, text, range, s->what);
	}
	snprintf(out, size, "%lld", v);
	return 0;
}

/* One NAME=VALUE of TEXT into C's environment (F's form). Returns 0, or -1 after an error. */
static int add_setting(struct candidate *c, const struct settings_form *f, const char *text,
		       char *item, char *joined, size_t joined_size)
{
	char *value = strchr(item, '='), got[64];
	const struct allocator_setting *s;
	size_t used = strlen(joined);

	if (!value || value == item || !value[1])
		return error("invalid setting '%s' in --backend '%s' (expected NAME=VALUE, as in "
			     "%s:%s=1)", item, text, f->allocator, item);
	*value++ = '\0';
	if (!(s = allocator_setting_find(f->allocator, item)))
		return unknown_setting(text, f->allocator, item);
	if (setting_value(text, s, f, value, got, sizeof(got)))
		return -1;
	if (!s->reads)
		c->confirmed = 0;
	if (f->variable) {
		if (used)
			joined[used++] = f->separator;
		snprintf(joined + used, joined_size - used, "%s%s%c%s", f->item_prefix, item,
			 f->item_sep, got);
		return 0;
	}
	if (c->nenv == SETTINGS_MAX)
		return error("more than %d settings in --backend '%s'", SETTINGS_MAX, text);
	snprintf(c->env_text[c->nenv], sizeof(c->env_text[0]), "%s%s=%s", f->prefix, item, got);
	for (char *p = c->env_text[c->nenv] + strlen(f->prefix); *p != '='; p++)
		*p = (char)toupper((unsigned char)*p);
	c->env[c->nenv] = c->env_text[c->nenv];
	c->nenv++;
	return 0;
}

/* Refuses a setting that TEXT gives twice. */
static int check_twice(const char *text)
{
	char copy[SETTINGS_NAME_MAX + 1], *save = NULL, *names[SETTINGS_MAX + 2];
	size_t n = 0;

	copy_string(copy, sizeof(copy), strchr(text, ':') + 1);
	for (char *item = strtok_r(copy, ":", &save); item && n < SETTINGS_MAX + 2;
	     item = strtok_r(NULL, ":", &save)) {
		item[strcspn(item, "=")] = '\0';
		for (size_t i = 0; i < n; i++)
			if (!strcmp(names[i], item))
				return error("setting '%s' appears more than once in --backend '%s'",
					     item, text);
		names[n++] = item;
	}
	return 0;
}

/* A new candidate, zeroed, kept in CONFIG's candidates (freed with them); NULL: out of memory. */
static struct candidate *candidate_add(struct run_config *config)
{
	struct candidate *c = calloc(1, sizeof(*c));

	if (!c || ALLOC_GROW(config->candidates, config->ncandidates, config->candidates_alloc)) {
		free(c);
		return NULL;
	}
	config->candidates[config->ncandidates++] = &c->backend;
	return c;
}

/* C's backend: BASE's, named NAME, with C's settings in its environment. */
static const struct backend *candidate_backend(struct candidate *c, const char *name,
					       const struct backend *base)
{
	copy_string(c->name, sizeof(c->name), name);
	c->backend = *base;
	c->backend.name = c->name;
	c->backend.base = base;
	c->backend.env = c->env;
	return &c->backend;
}

const struct backend *settings_candidate(struct run_config *config, const char *text,
					 const struct backend *base)
{
	const struct settings_form *f;
	struct candidate *c;
	char allocator[32], copy[SETTINGS_NAME_MAX + 1], joined[256] = "", *save = NULL;

	settings_split(text, allocator, sizeof(allocator));
	if (!(f = form_of(allocator))) {
		error("backend '%s' has no settings allocbench knows, in --backend '%s' (settings "
		      "are for malloc, jemalloc, mimalloc and tcmalloc)", allocator, text);
		return NULL;
	}
	if (strlen(text) > SETTINGS_NAME_MAX) {
		error("--backend '%.40s...' is longer than %d characters", text, SETTINGS_NAME_MAX);
		return NULL;
	}
	if (check_twice(text))
		return NULL;
	if (!(c = candidate_add(config))) {
		error("out of memory");
		return NULL;
	}
	c->confirmed = 1;
	copy_string(copy, sizeof(copy), strchr(text, ':') + 1);
	for (char *item = strtok_r(copy, ":", &save); item; item = strtok_r(NULL, ":", &save))
		if (add_setting(c, f, text, item, joined, sizeof(joined)))
			return NULL;
	if (!c->nenv && !joined[0]) {
		error("no setting after '%s:' in --backend '%s'", allocator, text);
		return NULL;
	}
	if (f->variable) {
		snprintf(c->env_text[0], sizeof(c->env_text[0]), "%s=%s", f->variable, joined);
		c->env[0] = c->env_text[0];
		c->nenv = 1;
	}
	return candidate_backend(c, text, base);
}

const struct backend *settings_described(struct run_config *config, const struct backend *base,
					 const char *environment, int confirmed, const char *how)
{
	struct candidate *c = candidate_add(config);
	char copy[SETTINGS_MAX * 320], *save = NULL;

	if (!c)
		return NULL;
	copy_string(copy, sizeof(copy), environment);
	for (char *item = strtok_r(copy, " ", &save); item && c->nenv < SETTINGS_MAX;
	     item = strtok_r(NULL, " ", &save)) {
		copy_string(c->env_text[c->nenv], sizeof(c->env_text[0]), item);
		c->env[c->nenv] = c->env_text[c->nenv];
		c->nenv++;
	}
	c->confirmed = confirmed;
	c->described = 1;
	copy_string(c->how, sizeof(c->how), how);
	return candidate_backend(c, base->name, base);
}

int settings_describe(const struct backend *b, char *env, size_t env_size, int *confirmed,
		      char *how, size_t how_size)
{
	const struct candidate *c = (const struct candidate *)(const void *)b;
	const struct settings_form *f;
	char allocator[32];
	size_t used = 0;

	if (!b->env)
		return 0;
	env[0] = '\0';
	for (size_t i = 0; i < c->nenv && used < env_size; i++)
		used += (size_t)snprintf(env + used, env_size - used, "%s%s", i ? " " : "",
					 c->env[i]);
	settings_split(c->name, allocator, sizeof(allocator));
	f = form_of(allocator);
	*confirmed = c->confirmed;
	if (c->described)
		copy_string(how, how_size, c->how);
	else if (c->confirmed)
		snprintf(how, how_size, "read back in each measuring process (%s)",
			 !strcmp(allocator, "jemalloc") ? "mallctl opt.NAME" : "its numeric properties");
	else
		snprintf(how, how_size, "not confirmed: %s", f ? f->unconfirmed : "");
	return 1;
}

int settings_environment(const struct backend *b, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	if (b->preload_path)
		used = (size_t)snprintf(buf, size, "LD_PRELOAD=%s", b->preload_path);
	for (const char *const *e = b->env; e && *e && used < size; e++)
		used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? " " : "", *e);
	return buf[0] != '\0';
}

/* 1 when the comma-separated LIST names NAME. */
static int list_has(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
		if (!strncmp(p, name, n) && (p[n] == ',' || !p[n]))
			return 1;
	}
	return 0;
}

void settings_add(char *buf, size_t size, const char *set)
{
	char copy[512], *save = NULL, allocator[32];
	size_t used = strlen(buf);

	copy_string(copy, sizeof(copy), set);
	for (char *c = strtok_r(copy, ",", &save); c && used < size; c = strtok_r(NULL, ",", &save)) {
		settings_split(c, allocator, sizeof(allocator));
		/* A candidate the list names already is not named twice. */
		if (list_has(buf, allocator) && !list_has(buf, c))
			used += (size_t)snprintf(buf + used, size - used, ",%s", c);
	}
}
