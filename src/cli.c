#include "cli.h"
#include "parse.h"
#include "preload.h"
#include "util.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

void cli_run_help(FILE *out)
{
	fputs(
"usage: allocbench [run] [options]\n"
"       allocbench --help | --version\n"
"\n"
"Measures what one allocation really costs: resident bytes and nanoseconds per\n"
"chunk, allocating --total bytes in chunks of one size at a time, each\n"
"measurement in a freshly executed process.\n"
"\n"
"Options:\n"
"  -s, --sizes LIST       chunk sizes in bytes, comma-separated (default\n"
"                         " RUN_DEFAULT_SIZES "); a range LO..HI doubles from LO up to\n"
"                         HI, LO..HI:xF multiplies by F, LO..HI:+S adds S\n"
"  -b, --backend LIST     backends, comma-separated (default " RUN_DEFAULT_BACKENDS "):\n", out);
	for (size_t i = 0; backend_table[i]; i++)
		fprintf(out, "                           %-8s %s\n", backend_table[i]->name,
			backend_table[i]->summary);
	for (size_t i = 0; allocator_known[i].name; i++)
		fprintf(out, "                           %-8s %s\n", allocator_known[i].name,
			allocator_known[i].summary);
	fputs(
"                         a --preload NAME; or all: every built-in backend, every\n"
"                         installed third-party allocator and every --preload\n"
"      --preload NAME=PATH\n"
"                         measure the allocator library PATH as backend NAME\n"
"                         (LD_PRELOAD in the measuring process); repeatable\n", out);
	fputs(
"  -t, --total BYTES      bytes allocated per measurement (default 100M);\n"
"                         count = total / size; K, M, G, T and KiB, MiB, GiB,\n"
"                         TiB are binary (1024), KB, MB, GB, TB decimal (1000)\n"
"  -r, --repeat N         fresh-process repetitions per measurement (default 3);\n"
"                         the report gives their median, min and max\n"
"      --touch POLICY     what is written into each chunk after allocation:\n"
"                         none, first (its first byte), pages (first byte, one\n"
"                         byte in every page it overlaps, last byte; default),\n"
"                         full (every byte)\n"
"      --align N          alignment of pool and arena chunks in bytes, a power\n"
"                         of two up to 4096 (default: the size's natural\n"
"                         alignment, its largest power-of-two divisor up to 16)\n"
"      --pool-block BYTES bytes the pool takes from the system at a time\n"
"                         (default 1M, rounded up to whole pages)\n"
"  -f, --format FORMAT    text (default) or json\n"
"  -o, --output FILE      write the report to FILE (via a temporary file that\n"
"                         is renamed into place) instead of standard output\n"
"  -q, --quiet            no progress on standard error\n"
"  -h, --help             print this help and exit\n"
"  -V, --version          print the version and exit\n"
"\n"
"Exit status: 0 every measurement succeeded, 1 one failed (its row says why),\n"
"2 bad usage. See allocbench(1) for the method and every output field.\n", out);
}

enum {
	OPT_TOUCH = 256,
	OPT_ALIGN,
	OPT_POOL_BLOCK,
	OPT_PRELOAD,
};

static const struct option run_options[] = {
	{ "sizes", required_argument, NULL, 's' },
	{ "backend", required_argument, NULL, 'b' },
	{ "total", required_argument, NULL, 't' },
	{ "repeat", required_argument, NULL, 'r' },
	{ "touch", required_argument, NULL, OPT_TOUCH },
	{ "align", required_argument, NULL, OPT_ALIGN },
	{ "pool-block", required_argument, NULL, OPT_POOL_BLOCK },
	{ "preload", required_argument, NULL, OPT_PRELOAD },
	{ "format", required_argument, NULL, 'f' },
	{ "output", required_argument, NULL, 'o' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ 0, 0, 0, 0 },
};

static void list_backends(char *buf, size_t size, const struct run_config *config)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; backend_table[i] && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : "",
					 backend_table[i]->name);
	for (size_t i = 0; allocator_known[i].name && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, ", %s", allocator_known[i].name);
	for (size_t i = 0; i < config->npreloads && used < size; i++)
		if (config->preloads[i]->from_option && !config->preloads[i]->known)
			used += (size_t)snprintf(buf + used, size - used, ", %s",
						 config->preloads[i]->name);
	if (used < size)
		snprintf(buf + used, size - used, ", all");
}

static void add_preload(struct run_config *config, struct preload *p)
{
	struct preload **grown = realloc(config->preloads,
					 (config->npreloads + 1) * sizeof(*grown));

	if (!grown)
		die(1, "out of memory");
	config->preloads = grown;
	config->preloads[config->npreloads++] = p;
}

/* The preloaded backend called NAME (from --preload or located before), or NULL. */
static struct preload *find_preload(const struct run_config *config, const char *name)
{
	for (size_t i = 0; i < config->npreloads; i++)
		if (!strcmp(config->preloads[i]->name, name))
			return config->preloads[i];
	return NULL;
}

/* Refuses the preloaded backend NAME when this build cannot preload (exit 2). */
static void check_preload_supported(const char *name)
{
	if (preload_unsupported())
		usage_die("backend '%s' cannot run in this build: it preloads a library, and "
			  "AddressSanitizer (make SANITIZE=%s) must be the first library "
			  "loaded; rebuild without SANITIZE=address", name, ALLOCBENCH_SANITIZE);
}

/*
 * The known allocator KNOWN, located on this machine; exits 2 naming the
 * Debian package when it is not installed.
 */
static const struct backend *require_known(struct run_config *config,
					   const struct allocator_known *known)
{
	struct preload *p = find_preload(config, known->name);
	char where[512];

	check_preload_supported(known->name);
	if (p)
		return &p->backend;
	p = preload_locate(known);
	if (!p) {
		preload_describe_search(where, sizeof(where));
		usage_die("backend '%s' needs %s, which is not installed (searched %s); on "
			  "Debian: apt-get install %s", known->name, known->sonames[0], where,
			  known->package);
	}
	add_preload(config, p);
	return &p->backend;
}

static void add_backend(struct run_config *config, const struct backend *b)
{
	const struct backend **grown;

	for (size_t i = 0; i < config->nbackends; i++)
		if (config->backends[i] == b)
			usage_die("backend '%s' appears more than once in --backend", b->name);
	grown = realloc(config->backends, (config->nbackends + 1) * sizeof(*grown));
	if (!grown)
		die(1, "out of memory");
	config->backends = grown;
	config->backends[config->nbackends++] = b;
}

static void add_skip(struct run_config *config, const char *name, const char *package,
		     const char *reason)
{
	struct backend_skip *grown = realloc(config->skipped,
					     (config->nskipped + 1) * sizeof(*grown));
	struct backend_skip *skip;

	if (!grown)
		die(1, "out of memory");
	config->skipped = grown;
	skip = &config->skipped[config->nskipped++];
	copy_string(skip->name, sizeof(skip->name), name);
	copy_string(skip->package, sizeof(skip->package), package);
	copy_string(skip->reason, sizeof(skip->reason), reason);
	warning("--backend all skips %s: %s", name, reason);
}

/*
 * --backend all: every built-in backend, then every known allocator that is
 * installed (the others are listed in config->skipped and on stderr), then
 * every other --preload.
 */
static void add_all_backends(struct run_config *config)
{
	for (size_t i = 0; backend_table[i]; i++)
		add_backend(config, backend_table[i]);
	for (size_t i = 0; allocator_known[i].name; i++) {
		const struct allocator_known *known = &allocator_known[i];
		struct preload *p = find_preload(config, known->name);
		char reason[160];

		if (preload_unsupported()) {
			add_skip(config, known->name, known->package,
				 "this build uses AddressSanitizer, which must be the first "
				 "library loaded");
			continue;
		}
		if (!p && (p = preload_locate(known)))
			add_preload(config, p);
		if (p) {
			add_backend(config, &p->backend);
			continue;
		}
		snprintf(reason, sizeof(reason), "not installed (no %s; on Debian: apt-get "
			 "install %s)", known->sonames[0], known->package);
		add_skip(config, known->name, known->package, reason);
	}
	for (size_t i = 0; i < config->npreloads; i++)
		if (config->preloads[i]->from_option && !config->preloads[i]->known) {
			check_preload_supported(config->preloads[i]->name);
			add_backend(config, &config->preloads[i]->backend);
		}
}

static void parse_backends(const char *text, struct run_config *config)
{
	char *copy = strdup(text), *item, *next;
	char known[512];

	if (!copy)
		die(1, "out of memory");
	list_backends(known, sizeof(known), config);
	free(config->backends);
	config->backends = NULL;
	config->nbackends = 0;
	if (!*text)
		usage_die("empty --backend list (known backends: %s)", known);
	for (item = copy; item; item = next) {
		const struct backend *b;
		const struct allocator_known *k;
		struct preload *p;

		next = strchr(item, ',');
		if (next)
			*next++ = '\0';
		if (!*item)
			usage_die("empty item in --backend '%s' (known backends: %s)", text, known);
		if (!strcmp(item, "all")) {
			if (strcmp(text, "all"))
				usage_die("--backend all cannot be combined with other backends "
					  "('%s')", text);
			add_all_backends(config);
			break;
		}
		if ((b = backend_find(item))) {
			add_backend(config, b);
		} else if ((p = find_preload(config, item))) {
			check_preload_supported(item);
			add_backend(config, &p->backend);
		} else if ((k = allocator_known_find(item))) {
			add_backend(config, require_known(config, k));
		} else {
			usage_die("unknown backend '%s' in --backend (known backends: %s)",
				  item, known);
		}
	}
	free(copy);
	for (size_t i = 0; i < config->npreloads; i++) {
		const struct preload *p = config->preloads[i];
		int used = 0;

		for (size_t b = 0; b < config->nbackends; b++)
			used |= config->backends[b] == &p->backend;
		if (p->from_option && !used)
			usage_die("--preload '%s' is not measured: add '%s' to --backend (or use "
				  "--backend all)", p->name, p->name);
	}
}

static void parse_sizes(const char *text, struct run_config *config)
{
	char bad[64];
	const char *why = "";

	free(config->sizes);
	if (parse_size_list(text, &config->sizes, &config->nsizes, bad, sizeof(bad), &why))
		usage_die("invalid size '%s' in --sizes: %s (expected positive byte counts "
			  "or ranges, e.g. 4,40,400 or 8..4096)", bad, why);
}

static uint64_t parse_bytes_option(const char *option, const char *text)
{
	const char *why = "";
	uint64_t v;

	if (parse_bytes(text, &v, &why))
		usage_die("invalid %s '%s': %s (expected a byte count such as 1M or 4096)",
			  option, text, why);
	return v;
}

void cli_parse_run(int argc, char **argv, struct run_config *config)
{
	const char *sizes = RUN_DEFAULT_SIZES, *backends = RUN_DEFAULT_BACKENDS;
	const char *why = "";
	struct preload *p;
	uint64_t v;
	int c;

	memset(config, 0, sizeof(*config));
	config->total_bytes = RUN_DEFAULT_TOTAL;
	config->repeat = RUN_DEFAULT_REPEAT;
	config->touch = TOUCH_PAGES;
	config->pool_block_bytes = RUN_DEFAULT_POOL_BLOCK;
	config->format = FORMAT_TEXT;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":s:b:t:r:f:o:qhV", run_options, NULL)) != -1) {
		switch (c) {
		case 's':
			sizes = optarg;
			break;
		case 'b':
			backends = optarg;
			break;
		case 't':
			config->total_bytes = parse_bytes_option("--total", optarg);
			if (!config->total_bytes)
				usage_die("invalid --total '%s': must be more than 0 bytes", optarg);
			break;
		case 'r':
			if (parse_unsigned(optarg, RUN_MAX_REPEAT, &v, &why) || !v)
				usage_die("invalid --repeat '%s': %s (expected a whole number "
					  "from 1 to %d)", optarg, v ? why : "must be at least 1",
					  RUN_MAX_REPEAT);
			config->repeat = (unsigned)v;
			break;
		case OPT_TOUCH:
			if (touch_parse(optarg, &config->touch))
				usage_die("invalid --touch '%s' (expected none, first, pages or full)",
					  optarg);
			break;
		case OPT_ALIGN:
			if (parse_unsigned(optarg, 4096, &v, &why) || !is_power_of_two(v))
				usage_die("invalid --align '%s' (expected a power of two from 1 "
					  "to 4096)", optarg);
			config->align = (size_t)v;
			break;
		case OPT_POOL_BLOCK:
			v = parse_bytes_option("--pool-block", optarg);
			if (!v || v > ((uint64_t)1 << 40))
				usage_die("invalid --pool-block '%s' (expected from 1 byte to 1T)",
					  optarg);
			config->pool_block_bytes = (size_t)v;
			break;
		case OPT_PRELOAD:
			if (!(p = preload_parse(optarg)))
				exit(2);
			if (find_preload(config, p->name)) {
				error("--preload '%s' appears more than once", p->name);
				free(p);
				exit(2);
			}
			add_preload(config, p);
			break;
		case 'f':
			if (!strcmp(optarg, "text"))
				config->format = FORMAT_TEXT;
			else if (!strcmp(optarg, "json"))
				config->format = FORMAT_JSON;
			else
				usage_die("invalid --format '%s' (expected text or json)", optarg);
			break;
		case 'o':
			if (!*optarg)
				usage_die("empty file name for --output");
			config->output_path = optarg;
			break;
		case 'q':
			config->quiet = 1;
			break;
		case 'h':
			cli_run_help(stdout);
			exit(fflush(stdout) || ferror(stdout) ? 1 : 0);
		case 'V':
			printf("allocbench %s\n", ALLOCBENCH_VERSION);
			exit(fflush(stdout) || ferror(stdout) ? 1 : 0);
		case ':':
			usage_die("option '%s' needs a value (see allocbench --help)",
				  argv[optind - 1]);
		default:
			if (optopt)
				usage_die("unknown option '-%c' (see allocbench --help)", optopt);
			usage_die("unknown option '%s' (see allocbench --help)", argv[optind - 1]);
		}
	}
	if (optind < argc)
		usage_die("unexpected argument '%s' (see allocbench --help)", argv[optind]);

	parse_sizes(sizes, config);
	parse_backends(backends, config);
	for (size_t i = 0; i < config->nsizes; i++)
		if (config->sizes[i] > config->total_bytes)
			usage_die("size %zu in --sizes is larger than --total (%llu bytes): "
				  "nothing would be allocated", config->sizes[i],
				  (unsigned long long)config->total_bytes);
}

void cli_config_release(struct run_config *config)
{
	for (size_t i = 0; i < config->npreloads; i++)
		free(config->preloads[i]);
	free(config->preloads);
	free(config->skipped);
	free(config->sizes);
	free(config->backends);
	memset(config, 0, sizeof(*config));
}
