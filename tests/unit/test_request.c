/*
 * Unit tests for the parent/child protocol (child/request.c): every field
 * survives the round trip, and the decoder refuses what the encoder never
 * writes, naming it.
 */
#include "check.h"
#include "measure/request.h"

#include <string.h>

static struct child_args args;
static struct child_request in, out;
static char why[256];

/* Decodes ARGV (NULL-terminated); 0 or -1 as child_request_decode(). */
static int decode(char **argv)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	why[0] = '\0';
	return child_request_decode(argc, argv, &out, why, sizeof(why));
}

/*
 * The encoded request with argument I replaced by ARG (NULL: removed),
 * decoded. The decoded strings point into the arguments: they live here,
 * as a child's argv lives as long as the child.
 */
static char copy[CHILD_REQUEST_TEXT];

static int decode_with(size_t i, const char *arg)
{
	char *argv[CHILD_REQUEST_ARGS + 1];
	size_t n = 0, used = 0;

	for (size_t k = 0; args.argv[k]; k++) {
		const char *a = k == i ? arg : args.argv[k];

		if (!a)
			continue;
		/* The decoder splits the mix in place: decode a copy. */
		argv[n++] = strcpy(copy + used, a);
		used += strlen(a) + 1;
	}
	argv[n] = NULL;
	return decode(argv);
}

static size_t find(const char *prefix)
{
	for (size_t k = 0; args.argv[k]; k++)
		if (!strncmp(args.argv[k], prefix, strlen(prefix)))
			return k;
	return (size_t)-1;
}

int main(void)
{
	memset(&in, 0, sizeof(in));
	in.backend = "jemalloc";
	in.preload_path = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2";
	in.params = (struct measure_params){
		.size = 24, .count = 43690, .align = 0, .pool_block_bytes = 1 << 20,
		.touch = TOUCH_FULL, .workload = WORKLOAD_RANDOM, .rounds = 7,
		.seed = UINT64_MAX, .threads = 3, .nmix = 2, .mix = { 16, 32 },
	};
	in.abi = 32;
	CHECK("counters parse", !counters_parse_list("PAPI_TOT_CYC,allocbench::allocs", &in.counters,
						     why, sizeof(why), &(const char *){ 0 }));
	CHECK("encode", !child_request_encode(&in, &args));
	CHECK("encode: protocol first", !strcmp(args.argv[0], "protocol=4"));
	CHECK("round trip: decodes", !decode_with((size_t)-1, NULL));
	CHECK("round trip: names", !strcmp(out.backend, in.backend) &&
	      !strcmp(out.preload_path, in.preload_path) && !out.floor);
	CHECK("round trip: numbers", out.params.size == 24 && out.params.count == 43690 &&
	      out.params.align == 0 && out.params.pool_block_bytes == 1 << 20 &&
	      out.params.rounds == 7 && out.params.seed == UINT64_MAX && out.params.threads == 3);
	CHECK("round trip: names of kinds", out.params.touch == TOUCH_FULL &&
	      out.params.workload == WORKLOAD_RANDOM);
	CHECK("round trip: mix", out.params.nmix == 2 && out.params.mix[0] == 16 &&
	      out.params.mix[1] == 32);
	CHECK("round trip: counters", out.counters.n == 2 &&
	      !strcmp(out.counters.names[0], in.counters.names[0]) &&
	      !strcmp(out.counters.names[1], in.counters.names[1]));
	CHECK("round trip: abi", out.abi == 32);
	CHECK("round trip: child-side pointers unset", !out.params.plan && !out.params.counters);
	CHECK("name", !strcmp(child_request_name(&out), "jemalloc"));

	CHECK("refused: another protocol", decode_with(0, "protocol=1") &&
	      strstr(why, "'protocol=1' is not protocol=4"));
	CHECK("refused: an abi other than 32 or 64", decode_with(find("abi="), "abi=16") &&
	      strstr(why, "abi 16 is neither 32 nor 64"));
	CHECK("refused: no abi", decode_with(find("abi="), NULL) &&
	      strstr(why, "field 'abi' missing"));
	CHECK("refused: unknown field, named", decode_with(find("seed="), "colour=blue") &&
	      strstr(why, "unknown field 'colour=blue'"));
	CHECK("refused: missing field, named", decode_with(find("seed="), NULL) &&
	      strstr(why, "field 'seed' missing"));
	CHECK("refused: field twice", decode_with(find("seed="), "size=24") &&
	      strstr(why, "field 'size' given twice"));
	CHECK("refused: a sign", decode_with(find("count="), "count=-1") &&
	      strstr(why, "invalid value in 'count=-1'"));
	CHECK("refused: trailing text", decode_with(find("rounds="), "rounds=7x"));
	CHECK("refused: unsigned overflow", decode_with(find("rounds="), "rounds=4294967296"));
	CHECK("refused: u64 overflow", decode_with(find("seed="), "seed=18446744073709551616"));
	CHECK("refused: unknown workload", decode_with(find("workload="), "workload=bogus"));
	CHECK("refused: a 0 in the mix", decode_with(find("mix="), "mix=16,0"));
	CHECK("refused: both backend and floor", decode_with(find("floor="), "floor=1") &&
	      strstr(why, "names both"));
	CHECK("refused: a mix outside random", decode_with(find("workload="), "workload=fill"));

	/* The floor: no backend, no preload, fill. */
	memset(&in, 0, sizeof(in));
	in.floor = 1;
	in.params = (struct measure_params){ .size = 40, .count = 26214, .align = 1,
					     .pool_block_bytes = 4096, .touch = TOUCH_PAGES };
	in.abi = 64;
	CHECK("floor: encode", !child_request_encode(&in, &args));
	CHECK("floor: no backend sent", find("backend=") == (size_t)-1 &&
	      find("preload=") == (size_t)-1);
	CHECK("floor: decodes", !decode_with((size_t)-1, NULL) && out.floor && !out.backend &&
	      out.counters.n == 0 && out.params.nmix == 0);
	CHECK("floor: name", !strcmp(child_request_name(&out), "floor"));
	CHECK("refused: neither backend nor floor", decode_with(find("floor="), "floor=0") &&
	      strstr(why, "names neither"));
	CHECK("refused: count 0", decode_with(find("count="), "count=0"));
	return check_exit();
}
