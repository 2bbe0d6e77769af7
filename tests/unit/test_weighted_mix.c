/*
 * Unit tests for the weighted mix of the random workload (--sizes
 * 24:70,48:30): the weights survive the parent/child protocol, the sequence
 * allocates each size as often as its weight says, equal weights give the
 * unweighted sequence, and an unweighted mix keeps the checksum it always had.
 */
#include "check.h"
#include "measure/measure.h"
#include "measure/request.h"
#include "measure/workloads.h"

#include <stdlib.h>
#include <string.h>

/* The share of allocations of the mix's first size in PARAMS's sequence. */
static double first_share(const struct measure_params *params, struct random_plan *plan)
{
	struct sample sample;
	size_t first = 0, allocs = 0;

	memset(&sample, 0, sizeof(sample));
	if (random_plan_make(params, plan, &sample))
		return -1;
	for (size_t k = 0; k < plan->nops; k++)
		if (!(plan->ops[k] & RANDOM_OP_FREE)) {
			allocs++;
			first += plan->ops[k] == 0;
		}
	return allocs ? (double)first / (double)allocs : -1;
}

int main(void)
{
	struct child_request in, out;
	struct child_args args;
	struct measure_params p;
	struct random_plan plan;
	uint64_t unweighted_sum, unweighted_live;
	char why[256];
	double share;
	int argc = 0;

	memset(&in, 0, sizeof(in));
	in.backend = "pool";
	in.abi = CHILD_ABI;
	in.params = (struct measure_params){ .size = 32, .count = 1000, .align = 0,
		.pool_block_bytes = 1 << 20, .workload = WORKLOAD_RANDOM, .seed = 7, .nmix = 2,
		.mix = { 24, 48 }, .mix_weight = { 70, 30 } };
	CHECK("encode a weighted mix", !child_request_encode(&in, &args));
	while (args.argv[argc])
		argc++;
	{
		int found = 0;

		for (int i = 0; i < argc; i++)
			found |= !strcmp(args.argv[i], "mix=24:70,48:30");
		CHECK("the mix is sent as SIZE:WEIGHT", found);
	}
	CHECK("decode it", !child_request_decode(argc, args.argv, &out, why, sizeof(why)));
	CHECK("the weights survive", out.params.nmix == 2 && out.params.mix[1] == 48 &&
	      out.params.mix_weight[0] == 70 && out.params.mix_weight[1] == 30);

	p = (struct measure_params){ .workload = WORKLOAD_RANDOM, .seed = 20120528, .count = 20000,
		.nmix = 2, .mix = { 24, 48 } };
	share = first_share(&p, &plan);
	CHECK("unweighted: about half and half", share > 0.48 && share < 0.52);
	unweighted_sum = plan.checksum;
	unweighted_live = plan.live_bytes;
	random_plan_release(&plan);

	p.mix_weight[0] = 70;
	p.mix_weight[1] = 30;
	share = first_share(&p, &plan);
	CHECK("24:70,48:30: 70% of the allocations are 24 bytes", share > 0.68 && share < 0.72);
	CHECK("... and its checksum differs", plan.checksum != unweighted_sum);
	random_plan_release(&plan);

	p.mix_weight[0] = 1;
	p.mix_weight[1] = 1;
	first_share(&p, &plan);
	CHECK("equal weights: the unweighted sequence", plan.live_bytes == unweighted_live);
	random_plan_release(&plan);

	p.mix_weight[0] = 1;
	p.mix_weight[1] = 0;
	{
		struct sample sample;

		memset(&sample, 0, sizeof(sample));
		CHECK("a weight of 0 is refused", random_plan_make(&p, &plan, &sample) != 0);
	}
	return check_exit();
}
