/*
 * request.c - a measurement request as "key=value" arguments (request.h).
 */
#include "measure/request.h"
#include "platform/util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How a field's value is written and read. */
enum field_kind {
	FIELD_STRING,   /* const char *; not sent when NULL */
	FIELD_FLAG,     /* int, 0 or 1 */
	FIELD_SIZE,     /* size_t */
	FIELD_UNSIGNED, /* unsigned, up to UINT32_MAX */
	FIELD_U64,      /* uint64_t */
	FIELD_TOUCH,    /* enum touch_policy, by name */
	FIELD_WORKLOAD, /* enum workload, by name */
	FIELD_MIX,      /* params.mix[] and params.nmix: comma-separated sizes, "-" for none */
	FIELD_COUNTERS, /* struct counter_list, as counters_list_format() writes it */
};

/* One field of struct child_request: the only place that names it. */
struct field {
	const char *key;
	enum field_kind kind;
	size_t offset;  /* in struct child_request */
};

#define FIELD(key, kind, member) { key, kind, offsetof(struct child_request, member) }

static const struct field fields[] = {
	FIELD("backend", FIELD_STRING, backend),
	FIELD("floor", FIELD_FLAG, floor),
	FIELD("preload", FIELD_STRING, preload_path),
	FIELD("trace", FIELD_STRING, trace_path),
	FIELD("size", FIELD_SIZE, params.size),
	FIELD("count", FIELD_SIZE, params.count),
	FIELD("align", FIELD_SIZE, params.align),
	FIELD("pool-block", FIELD_SIZE, params.pool_block_bytes),
	FIELD("touch", FIELD_TOUCH, params.touch),
	FIELD("workload", FIELD_WORKLOAD, params.workload),
	FIELD("rounds", FIELD_UNSIGNED, params.rounds),
	FIELD("seed", FIELD_U64, params.seed),
	FIELD("threads", FIELD_UNSIGNED, params.threads),
	FIELD("replay-threads", FIELD_FLAG, params.replay_per_thread),
	FIELD("mix", FIELD_MIX, params.nmix),
	FIELD("counters", FIELD_COUNTERS, counters),
	FIELD("abi", FIELD_UNSIGNED, abi),
};

#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

/* "protocol=N" and the fields, with the terminating NULL. */
_Static_assert(NFIELDS + 2 <= CHILD_REQUEST_ARGS, "CHILD_REQUEST_ARGS is too small");

#define AT(req, f, type) ((type *)(void *)((char *)(req) + (f)->offset))
#define AT_CONST(req, f, type) ((const type *)(const void *)((const char *)(req) + (f)->offset))

const char *child_request_name(const struct child_request *req)
{
	return req->floor ? "floor" : req->backend ? req->backend : "";
}

/* Writes F's value in REQ into BUF of SIZE bytes; 1 when it is not sent. Returns -1 if it does not fit. */
static int format_value(const struct child_request *req, const struct field *f, char *buf,
			size_t size)
{
	const struct measure_params *p = &req->params;
	size_t used = 0;
	int n = 0;

	switch (f->kind) {
	case FIELD_STRING: {
		const char *s = *AT_CONST(req, f, char *);

		if (!s)
			return 1;
		n = snprintf(buf, size, "%s", s);
		break;
	}
	case FIELD_FLAG:
		n = snprintf(buf, size, "%d", *AT_CONST(req, f, int) ? 1 : 0);
		break;
	case FIELD_SIZE:
		n = snprintf(buf, size, "%zu", *AT_CONST(req, f, size_t));
		break;
	case FIELD_UNSIGNED:
		n = snprintf(buf, size, "%u", *AT_CONST(req, f, unsigned));
		break;
	case FIELD_U64:
		n = snprintf(buf, size, "%" PRIu64, *AT_CONST(req, f, uint64_t));
		break;
	case FIELD_TOUCH:
		n = snprintf(buf, size, "%s", touch_name(*AT_CONST(req, f, enum touch_policy)));
		break;
	case FIELD_WORKLOAD:
		n = snprintf(buf, size, "%s", workload_name(*AT_CONST(req, f, enum workload)));
		break;
	case FIELD_MIX:
		if (p->nmix > MEASURE_MAX_MIX)
			return -1;
		if (!p->nmix) {
			n = snprintf(buf, size, "-");
			break;
		}
		for (size_t i = 0; i < p->nmix; i++) {
			/* A weighted mix: SIZE:WEIGHT (the weights are all set or none). */
			n = p->mix_weight[0] ?
			    snprintf(buf + used, size - used, "%s%zu:%u", i ? "," : "", p->mix[i],
				     p->mix_weight[i]) :
			    snprintf(buf + used, size - used, "%s%zu", i ? "," : "", p->mix[i]);
			if (n < 0 || (size_t)n >= size - used)
				return -1;
			used += (size_t)n;
		}
		return 0;
	case FIELD_COUNTERS:
		return counters_list_format(AT_CONST(req, f, struct counter_list), buf, size);
	}
	return n < 0 || (size_t)n >= size ? -1 : 0;
}

int child_request_encode(const struct child_request *req, struct child_args *out)
{
	size_t used = 0, arg = 0;
	int n;

	n = snprintf(out->text, sizeof(out->text), "protocol=%d", CHILD_PROTOCOL_VERSION);
	out->argv[arg++] = out->text;
	used = (size_t)n + 1;
	for (size_t i = 0; i < NFIELDS; i++) {
		size_t key = strlen(fields[i].key);
		int ret;

		if (used + key + 2 > sizeof(out->text))
			return -1;
		memcpy(out->text + used, fields[i].key, key);
		out->text[used + key] = '=';
		ret = format_value(req, &fields[i], out->text + used + key + 1,
				   sizeof(out->text) - used - key - 1);
		if (ret < 0)
			return -1;
		if (ret > 0)
			continue;
		out->argv[arg++] = out->text + used;
		used += strlen(out->text + used) + 1;
	}
	out->argv[arg] = NULL;
	return 0;
}

/* Strict decimal: digits only, no sign, no space, no overflow. */
static int parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > max)
		return -1;
	*out = (uint64_t)v;
	return 0;
}

/* Reads VALUE into F's place in REQ. Returns 0, or -1 when it is not valid. */
static int parse_value(struct child_request *req, const struct field *f, char *value)
{
	struct measure_params *p = &req->params;
	char bad[COUNTERS_NAME_MAX], *item, *next;
	const char *why;
	uint64_t v;

	switch (f->kind) {
	case FIELD_STRING:
		*AT(req, f, const char *) = value;
		return *value ? 0 : -1;
	case FIELD_FLAG:
		if (parse_u64(value, 1, &v))
			return -1;
		*AT(req, f, int) = (int)v;
		return 0;
	case FIELD_SIZE:
		if (parse_u64(value, SIZE_MAX, &v))
			return -1;
		*AT(req, f, size_t) = (size_t)v;
		return 0;
	case FIELD_UNSIGNED:
		if (parse_u64(value, UINT32_MAX, &v))
			return -1;
		*AT(req, f, unsigned) = (unsigned)v;
		return 0;
	case FIELD_U64:
		return parse_u64(value, UINT64_MAX, AT(req, f, uint64_t));
	case FIELD_TOUCH:
		return touch_parse(value, AT(req, f, enum touch_policy));
	case FIELD_WORKLOAD:
		return workload_parse(value, AT(req, f, enum workload));
	case FIELD_MIX:
		p->nmix = 0;
		memset(p->mix_weight, 0, sizeof(p->mix_weight));
		if (!strcmp(value, "-"))
			return 0;
		/* The value is the child's own argument: split in place. */
		for (item = value; item; item = next) {
			char *weight;
			uint64_t w;

			if ((next = strchr(item, ',')))
				*next++ = '\0';
			if ((weight = strchr(item, ':')))
				*weight++ = '\0';
			/* Every size weighted, or none. */
			if (p->nmix && !weight != !p->mix_weight[0])
				return -1;
			if (p->nmix == MEASURE_MAX_MIX || parse_u64(item, SIZE_MAX, &v) || !v)
				return -1;
			if (weight) {
				if (parse_u64(weight, MEASURE_MAX_WEIGHT, &w) || !w)
					return -1;
				p->mix_weight[p->nmix] = (unsigned)w;
			}
			p->mix[p->nmix++] = (size_t)v;
		}
		return 0;
	case FIELD_COUNTERS:
		return counters_parse_list(value, AT(req, f, struct counter_list), bad, sizeof(bad),
					   &why);
	}
	return -1;
}

int child_request_decode(int argc, char **argv, struct child_request *req, char *why,
			 size_t why_size)
{
	char version[32];
	int seen[NFIELDS] = { 0 };
	struct measure_params *p = &req->params;

	memset(req, 0, sizeof(*req));
	snprintf(version, sizeof(version), "protocol=%d", CHILD_PROTOCOL_VERSION);
	if (argc < 1 || strcmp(argv[0], version)) {
		snprintf(why, why_size, "'%s' is not %s", argc < 1 ? "" : argv[0], version);
		return -1;
	}
	for (int a = 1; a < argc; a++) {
		char *eq = strchr(argv[a], '=');
		size_t i, key = eq ? (size_t)(eq - argv[a]) : 0;

		for (i = 0; i < NFIELDS; i++)
			if (eq && strlen(fields[i].key) == key && !strncmp(argv[a], fields[i].key, key))
				break;
		if (i == NFIELDS) {
			snprintf(why, why_size, "unknown field '%s'", argv[a]);
			return -1;
		}
		if (seen[i]++) {
			snprintf(why, why_size, "field '%s' given twice", fields[i].key);
			return -1;
		}
		if (parse_value(req, &fields[i], eq + 1)) {
			snprintf(why, why_size, "invalid value in '%s'", argv[a]);
			return -1;
		}
	}
	for (size_t i = 0; i < NFIELDS; i++)
		if (!seen[i] && fields[i].kind != FIELD_STRING) {
			snprintf(why, why_size, "field '%s' missing", fields[i].key);
			return -1;
		}
	if (!req->floor == !req->backend) {
		snprintf(why, why_size, "a request names either a backend or the floor (it names %s)",
			 req->floor ? "both" : "neither");
		return -1;
	}
	if (req->abi != 32 && req->abi != 64) {
		snprintf(why, why_size, "abi %u is neither 32 nor 64", req->abi);
		return -1;
	}
	if (!p->size || !p->count ||
	    (!p->align && p->workload != WORKLOAD_RANDOM && p->workload != WORKLOAD_REPLAY) ||
	    (p->nmix != 0) != (p->workload == WORKLOAD_RANDOM)) {
		snprintf(why, why_size, "size, count, align or mix out of range for workload %s",
			 workload_name(p->workload));
		return -1;
	}
	if ((p->workload == WORKLOAD_REPLAY) != (req->trace_path != NULL)) {
		snprintf(why, why_size, "a trace is for the replay workload, and only it");
		return -1;
	}
	return 0;
}
