#!/bin/sh
# allocbench compare gates the times of one comparison together: Holm's
# correction over the tests that ran (their number and the family-wise rate
# said in text, Markdown and JSON), and a change counts only beyond both
# --max-time and the baseline's own run-to-run spread. Times are doctored:
# the outcomes are known, no machine's noise is asserted.
. "$(dirname "$0")/lib.sh"

run_ab --sizes 40 --backend pool,arena --total 256K --repeat 3 -q -f json -o "$tmp/base.json"
check "baseline run exits 0" [ "$rc" -eq 0 ]
r="results[backend=pool,size=40]"
five='={"median":10,"min":9.6,"max":10.4,"runs":[10,9.8,10.2,9.6,10.4]}'
doctor "$tmp/base.json" "$r.alloc_ns" "$five" "$tmp/one.json"
# +30%, every run but two above the baseline's: p = 7/252 = 0.028 alone.
doctor "$tmp/one.json" "$r.alloc_ns" '={"median":13,"min":10.1,"max":14,"runs":[13,13.5,14,10.3,10.1]}' \
	"$tmp/one-slow.json"

# One test in the family (only pool's alloc has the 5 runs it needs): p as it is.
run_ab compare --gate-time "$tmp/one.json" "$tmp/one-slow.json"
check "one test, p 0.028: regressed, exit 1" [ "$rc" -eq 1 ]
check "... its p" grep -Eq '^pool +40 +alloc ns +10\.00 +13\.00 +\+30\.0% +p 0\.028 +regressed$' "$tmp/out"
check "... the text says 1 test ran and the family-wise rate" sh -c "tr '\n' ' ' <'$tmp/out' | tr -s ' ' | grep -q 'tests: 1 ran, a false alarm on any of them at most 0.05 (family-wise)'"

# Two tests (free ns with five runs too): Holm doubles the smallest p, 0.056.
doctor "$tmp/one.json" "$r.free_ns" "$five" "$tmp/two.json"
doctor "$tmp/one-slow.json" "$r.free_ns" "$five" "$tmp/two-slow.json"
run_ab compare --gate-time "$tmp/two.json" "$tmp/two-slow.json"
check "two tests, p 0.028: not significant after Holm, exit 0" [ "$rc" -eq 0 ]
check "... the corrected p shown" grep -Eq '^pool +40 +alloc ns +10\.00 +13\.00 +\+30\.0% +p 0\.056 +unchanged$' "$tmp/out"
check "... 2 tests said" sh -c "tr '\n' ' ' <'$tmp/out' | tr -s ' ' | grep -q 'tests: 2 ran, a false alarm on any of them at most 0.05'"
run_ab compare --gate-time --alpha 0.1 "$tmp/two.json" "$tmp/two-slow.json"
check "... at --alpha 0.1 it is: exit 1" [ "$rc" -eq 1 ]
run_ab compare --gate-time -f json "$tmp/two.json" "$tmp/two-slow.json"
j=$tmp/out
check "json: 2 tests" [ "$(jq_get "$j" criteria.time.tests)" = 2 ]
check "json: Holm's" [ "$(jq_get "$j" criteria.time.correction)" = holm ]
check "json: the family-wise rate" near "$(jq_get "$j" criteria.time.family_wise_alpha)" 0.05 1e-12
check "json: the raw p" near "$(jq_get "$j" "rows[backend=pool,size=40].alloc_ns.p_slower")" 0.0278 1e-4
check "json: the corrected p" near "$(jq_get "$j" "rows[backend=pool,size=40].alloc_ns.p_slower_holm")" 0.0556 1e-4
check "json: summary.time_tested" [ "$(jq_get "$j" summary.time_tested)" = 2 ]
run_ab compare --gate-time -f markdown "$tmp/two.json" "$tmp/two-slow.json"
check "markdown: the tests and the rate" sh -c "tr '\n' ' ' <'$tmp/out' | tr -s ' ' | grep -q \"^.*- time: .*Holm's correction over this comparison's tests: 2 ran, a false alarm on any of them at most 0.05 (family-wise)\""

# Beyond the baseline's own spread: +15% and p 0.048, but the baseline's
# runs spread over 4.2 ns (one slow run), more than the 1.5 ns it moved.
doctor "$tmp/base.json" "$r.alloc_ns" '={"median":10,"min":9.8,"max":14,"runs":[10,9.9,10.1,9.8,14]}' "$tmp/wide.json"
doctor "$tmp/base.json" "$r.alloc_ns" '={"median":11.5,"min":11.3,"max":15,"runs":[11.5,11.4,11.6,11.3,15]}' "$tmp/wide-slow.json"
run_ab compare --gate-time "$tmp/wide.json" "$tmp/wide-slow.json"
check "+15% at p 0.048 within the baseline's spread: unchanged, exit 0" [ "$rc" -eq 0 ]
check "... the line" grep -Eq '^pool +40 +alloc ns +10\.00 +11\.50 +\+15\.0% +p 0\.048 +unchanged$' "$tmp/out"
doctor "$tmp/base.json" "$r.alloc_ns" '={"median":10,"min":9.8,"max":10.1,"runs":[10,9.9,10.1,9.8,10]}' "$tmp/narrow.json"
run_ab compare --gate-time "$tmp/narrow.json" "$tmp/wide-slow.json"
check "the same +15% against a baseline of narrow runs: regressed, exit 1" [ "$rc" -eq 1 ]

test_done
