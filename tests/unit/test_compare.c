/*
 * Unit tests for compare.c on reports written by hand: the derived and the
 * optional overhead tolerance, the rank test's gate on the times (and when
 * it cannot run), missing, new and failed rows, settings that differ.
 */
#include "check.h"
#include "report/compare.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A report with one config and the rows given as JSON text. */
static int load(const char *name, const char *config, const char *rows, struct result_file *out)
{
	char text[8192];

	snprintf(text, sizeof(text),
		 "{\"schema\":\"allocbench/1\",\"tool\":{\"name\":\"allocbench\",\"version\":\"0.1.0\","
		 "\"sanitizers\":\"\"},\"host\":{\"hostname\":\"h\"},\"config\":{%s},\"results\":[%s]}",
		 config, rows);
	return results_load_buffer(name, text, strlen(text), out);
}

static const char config[] =
	"\"workload\":\"fill\",\"total_bytes\":1048576,\"repeat\":3,\"touch\":\"pages\","
	"\"align\":\"natural\",\"pool_block_bytes\":1048576";

/* One ok row of backend B and size S, overhead {OVH}, alloc runs ALLOC. */
static void row(char *buf, size_t size, const char *b, int s, const char *ovh, const char *alloc)
{
	snprintf(buf, size,
		 "{\"backend\":\"%s\",\"size\":%d,\"count\":26214,\"status\":\"ok\","
		 "\"resolution_bytes\":0.15,\"overhead_bytes\":{%s},\"alloc_ns\":{%s},"
		 "\"free_ns\":{\"median\":1,\"min\":1,\"max\":1,\"runs\":[1,1,1]}}",
		 b, s, ovh, alloc);
}

static const char flat3[] = "\"median\":10,\"min\":10,\"max\":10,\"runs\":[10,10,10]";

/* Compares one row pair; returns the row's overhead metric (or alloc with WANT_ALLOC). */
static int compare_one(const char *base_ovh, const char *cur_ovh, const char *base_alloc,
		       const char *cur_alloc, const struct compare_options *options,
		       struct compare_metric *overhead, struct compare_metric *alloc,
		       enum compare_verdict *verdict)
{
	struct result_file b, c;
	struct comparison cmp;
	char rb[1024], rc[1024];
	int ret;

	row(rb, sizeof(rb), "pool", 40, base_ovh, base_alloc);
	row(rc, sizeof(rc), "pool", 40, cur_ovh, cur_alloc);
	if (load("base", config, rb, &b))
		return -1;
	if (load("cur", config, rc, &c)) {
		results_release(&b);
		return -1;
	}
	ret = compare_reports(&b, &c, options, &cmp);
	if (!ret) {
		/* By name: fill's metrics are overhead, marginal (absent from these rows), alloc, free. */
		for (size_t i = 0; i < cmp.rows[0].nmetrics; i++) {
			if (!strcmp(cmp.rows[0].defs[i].name, "overhead_bytes"))
				*overhead = cmp.rows[0].metrics[i];
			else if (!strcmp(cmp.rows[0].defs[i].name, "alloc_ns"))
				*alloc = cmp.rows[0].metrics[i];
		}
		*verdict = cmp.rows[0].verdict;
		comparison_release(&cmp);
	}
	results_release(&c);
	results_release(&b);
	return ret;
}

int main(void)
{
	struct compare_options o;
	struct compare_metric ovh, alloc;
	enum compare_verdict v;
	const char *base = "\"median\":8,\"min\":7.9,\"max\":8.1,\"runs\":[8,7.9,8.1]";

	compare_options_init(&o);
	CHECK("defaults: derived tolerance, 10%, alpha 0.05",
	      o.max_overhead < 0 && o.max_time_percent == 10 && o.alpha == 0.05 && !o.backends);

	/* Derived: 2 pages (2 x 0.15) + the baseline's spread (0.2) = 0.5 B. */
	CHECK("same figures compare", !compare_one(base, base, flat3, flat3, &o, &ovh, &alloc, &v));
	CHECK("derived tolerance = 2 x resolution + spread", fabs(ovh.tolerance_bytes - 0.5) < 1e-12 &&
	      !ovh.from_option && ovh.derived_bytes == ovh.tolerance_bytes);
	CHECK("same figures unchanged", v == COMPARE_UNCHANGED && ovh.verdict == COMPARE_UNCHANGED &&
	      ovh.change == 0);
	CHECK("+0.49 B is within the tolerance",
	      !compare_one(base, "\"median\":8.49", flat3, flat3, &o, &ovh, &alloc, &v) &&
	      v == COMPARE_UNCHANGED);
	CHECK("+0.51 B regressed",
	      !compare_one(base, "\"median\":8.51", flat3, flat3, &o, &ovh, &alloc, &v) &&
	      v == COMPARE_REGRESSED && ovh.verdict == COMPARE_REGRESSED && fabs(ovh.change - 0.51) < 1e-9);
	CHECK("-0.51 B improved",
	      !compare_one(base, "\"median\":7.49", flat3, flat3, &o, &ovh, &alloc, &v) &&
	      v == COMPARE_IMPROVED);
	o.max_overhead = 1;
	CHECK("--max-overhead 1: +0.9 B unchanged",
	      !compare_one(base, "\"median\":8.9", flat3, flat3, &o, &ovh, &alloc, &v) &&
	      v == COMPARE_UNCHANGED && ovh.from_option && ovh.tolerance_bytes == 1 &&
	      fabs(ovh.derived_bytes - 0.5) < 1e-12);
	CHECK("--max-overhead 1: +1.1 B regressed",
	      !compare_one(base, "\"median\":9.1", flat3, flat3, &o, &ovh, &alloc, &v) &&
	      v == COMPARE_REGRESSED);
	o.max_overhead = 5;
	o.max_overhead_percent = 1;
	/* 5% of (40 + 8) bytes per chunk = 2.4 B. */
	CHECK("--max-overhead 5%: 5% of size + overhead",
	      !compare_one(base, "\"median\":10.3", flat3, flat3, &o, &ovh, &alloc, &v) &&
	      fabs(ovh.tolerance_bytes - 2.4) < 1e-12 && v == COMPARE_UNCHANGED);
	CHECK("--max-overhead 5%: +2.5 B regressed",
	      !compare_one(base, "\"median\":10.5", flat3, flat3, &o, &ovh, &alloc, &v) &&
	      v == COMPARE_REGRESSED);
	compare_options_init(&o);
	CHECK("times are not gated by default", !o.gate_time);
	CHECK("... and not gated without gate_time, however slower",
	      !compare_one(base, base, flat3, "\"median\":15,\"min\":15,\"max\":15,\"runs\":[15,15.1,14.9]",
			   &o, &ovh, &alloc, &v) &&
	      !alloc.tested && alloc.not_asked && v == COMPARE_UNCHANGED);
	o.gate_time = 1;

	/* Times: 3 and 3 runs cannot reach p < 0.05. */
	CHECK("3 vs 3: +50% not tested, not a regression",
	      !compare_one(base, base, flat3, "\"median\":15,\"min\":15,\"max\":15,\"runs\":[15,15.1,14.9]",
			   &o, &ovh, &alloc, &v) &&
	      !alloc.tested && alloc.have_p && fabs(alloc.p_slower - 0.05) < 1e-12 &&
	      alloc.verdict == COMPARE_UNCHANGED && v == COMPARE_UNCHANGED);
	{
		const char *b4 = "\"median\":10,\"min\":9.7,\"max\":10.3,\"runs\":[10,9.7,10.3,9.9]";
		const char *up20 = "\"median\":12,\"min\":11.7,\"max\":12.3,\"runs\":[12,11.7,12.3,11.9]";
		const char *up5 = "\"median\":10.5,\"min\":10.4,\"max\":10.8,\"runs\":[10.5,10.4,10.8,10.6]";
		const char *up8 = "\"median\":10.8,\"min\":10.7,\"max\":11.1,\"runs\":[10.8,10.7,11.1,10.9]";
		const char *mixed = "\"median\":12,\"min\":9.8,\"max\":14,\"runs\":[12,9.8,14,10.1]";
		const char *down = "\"median\":8,\"min\":7.7,\"max\":8.3,\"runs\":[8,7.7,8.3,7.9]";

		CHECK("4 vs 4, +20%, separated: regressed (p = 1/70)",
		      !compare_one(base, base, b4, up20, &o, &ovh, &alloc, &v) && alloc.tested &&
		      fabs(alloc.p_slower - 1.0 / 70) < 1e-12 && alloc.verdict == COMPARE_REGRESSED &&
		      v == COMPARE_REGRESSED && fabs(alloc.change_percent - 20) < 1e-9);
		CHECK("4 vs 4, +5%, separated: below --max-time, unchanged",
		      !compare_one(base, base, b4, up5, &o, &ovh, &alloc, &v) && alloc.tested &&
		      alloc.p_slower < 0.05 && alloc.verdict == COMPARE_UNCHANGED);
		o.max_time_percent = 3;
		/* 0.5 ns is within the baseline's own spread, 9.7 to 10.3. */
		CHECK("... and with --max-time 3 too: within the baseline's spread",
		      !compare_one(base, base, b4, up5, &o, &ovh, &alloc, &v) &&
		      alloc.verdict == COMPARE_UNCHANGED);
		CHECK("4 vs 4, +8%, beyond the spread: regressed with --max-time 3",
		      !compare_one(base, base, b4, up8, &o, &ovh, &alloc, &v) &&
		      alloc.verdict == COMPARE_REGRESSED);
		o.max_time_percent = 10;
		CHECK("4 vs 4, +20% median but overlapping runs: not significant",
		      !compare_one(base, base, b4, mixed, &o, &ovh, &alloc, &v) && alloc.tested &&
		      alloc.p_slower >= 0.05 && alloc.verdict == COMPARE_UNCHANGED);
		CHECK("4 vs 4, -20%: improved",
		      !compare_one(base, base, b4, down, &o, &ovh, &alloc, &v) &&
		      alloc.verdict == COMPARE_IMPROVED && v == COMPARE_IMPROVED);
		o.alpha = 0.01;
		CHECK("alpha 0.01: 4 vs 4 cannot reach it (1/70), not tested",
		      !compare_one(base, base, b4, up20, &o, &ovh, &alloc, &v) && !alloc.tested &&
		      v == COMPARE_UNCHANGED);
		o.alpha = 0.05;
	}

	/* Rows in one file only, failures, settings. */
	{
		struct result_file b, c;
		struct comparison cmp;
		char r1[1024], r2[1024], r3[1024], rows_b[4096], rows_c[4096];
		char pool_name[] = "pool", nosuch_name[] = "nosuch";

		row(r1, sizeof(r1), "pool", 4, base, flat3);
		row(r2, sizeof(r2), "pool", 40, base, flat3);
		row(r3, sizeof(r3), "arena", 40, base, flat3);
		snprintf(rows_b, sizeof(rows_b), "%s,%s", r1, r2);
		snprintf(rows_c, sizeof(rows_c), "%s,%s", r2, r3);
		CHECK("reports load", !load("b", config, rows_b, &b) && !load("c", config, rows_c, &c));
		compare_options_init(&o);
		CHECK("compare", !compare_reports(&b, &c, &o, &cmp));
		CHECK("three rows: baseline order, then new", cmp.nrows == 3 &&
		      cmp.rows[0].size == 4 && cmp.rows[1].size == 40 &&
		      !strcmp(cmp.rows[2].backend, "arena"));
		CHECK("only in the baseline: missing", cmp.rows[0].verdict == COMPARE_MISSING &&
		      cmp.rows[0].baseline && !cmp.rows[0].current);
		CHECK("only in the current: new", cmp.rows[2].verdict == COMPARE_NEW);
		CHECK("a missing row is a regression of the gate's coverage", cmp.regression &&
		      cmp.verdicts[COMPARE_MISSING] == 1 && cmp.verdicts[COMPARE_NEW] == 1 &&
		      cmp.verdicts[COMPARE_UNCHANGED] == 1 && cmp.in_common == 1);
		CHECK("min runs at alpha 0.05 is 4", cmp.min_runs == 4);
		comparison_release(&cmp);
		o.allow_missing = 1;
		CHECK("compare with allow_missing", !compare_reports(&b, &c, &o, &cmp));
		CHECK("... missing and new are then no regression", !cmp.regression);
		comparison_release(&cmp);
		o.backends = (char *[]){ pool_name };
		o.nbackends = 1;
		CHECK("--backend pool keeps two rows", !compare_reports(&b, &c, &o, &cmp) && cmp.nrows == 2);
		comparison_release(&cmp);
		o.backends = (char *[]){ nosuch_name };
		fprintf(stderr, "(the errors below are expected)\n");
		CHECK("--backend that matches nothing refused", compare_reports(&b, &c, &o, &cmp) == -1);
		results_release(&b);
		results_release(&c);

		snprintf(rows_c, sizeof(rows_c),
			 "{\"backend\":\"pool\",\"size\":4,\"status\":\"failed\",\"error\":\"boom\"},%s", r2);
		CHECK("a failed current row loads", !load("b", config, rows_b, &b) &&
		      !load("c", config, rows_c, &c));
		compare_options_init(&o);
		CHECK("failed in the current: failed, a regression", !compare_reports(&b, &c, &o, &cmp) &&
		      cmp.rows[0].verdict == COMPARE_FAILED && cmp.regression);
		comparison_release(&cmp);
		CHECK("failed in the baseline: new, no regression", !compare_reports(&c, &b, &o, &cmp) &&
		      cmp.rows[0].verdict == COMPARE_NEW && !cmp.regression);
		comparison_release(&cmp);
		CHECK("failed in both: failed, but no regression", !compare_reports(&c, &c, &o, &cmp) &&
		      cmp.rows[0].verdict == COMPARE_FAILED && !cmp.regression &&
		      cmp.verdicts[COMPARE_FAILED] == 1);
		comparison_release(&cmp);
		results_release(&c);

		CHECK("another total loads", !load("c", "\"workload\":\"fill\",\"total_bytes\":2097152,"
						  "\"touch\":\"pages\"", rows_b, &c));
		CHECK("another total refused", compare_reports(&b, &c, &o, &cmp) == -1);
		results_release(&c);
		CHECK("another touch loads", !load("c", "\"workload\":\"fill\",\"total_bytes\":1048576,"
						  "\"touch\":\"full\"", rows_b, &c));
		CHECK("another touch refused", compare_reports(&b, &c, &o, &cmp) == -1);
		results_release(&c);
		CHECK("no total loads", !load("c", "\"touch\":\"pages\"", rows_b, &c));
		CHECK("no total refused", compare_reports(&b, &c, &o, &cmp) == -1);
		results_release(&c);
		snprintf(rows_c, sizeof(rows_c), "%s,%s", r2, r2);
		CHECK("a repeated row loads", !load("c", config, rows_c, &c));
		CHECK("a repeated row refused", compare_reports(&b, &c, &o, &cmp) == -1);
		results_release(&c);
		CHECK("an ok row without alloc_ns loads", !load("c", config,
			"{\"backend\":\"pool\",\"size\":40,\"status\":\"ok\",\"resolution_bytes\":0.15,"
			"\"overhead_bytes\":{\"median\":8}}", &c));
		CHECK("an ok row without alloc_ns refused", compare_reports(&b, &c, &o, &cmp) == -1);
		results_release(&c);
		results_release(&b);
	}
	return check_exit();
}
