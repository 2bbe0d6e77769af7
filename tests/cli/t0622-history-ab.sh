#!/bin/sh
# allocbench history of ab comparisons: each the change of one commit
# measured side by side with the commit before, chained into a series, a
# step named where a comparison's pairs moved the figure. The comparisons
# are written by hand, their pairs known, so that where the step is, and
# that there is none elsewhere, is certain; one real ab run checks that
# history reads what ab writes.
. "$(dirname "$0")/lib.sh"

# pairs N RATIO [OLD [OFF]]: N old values of OLD (10) and their new ones,
# RATIO times each old one, +-0.4% by turns (the median ratio is RATIO),
# but for the first OFF (0) pairs, which a busy machine threw to half, as
# two JSON arrays.
pairs() {
	awk -v n="$1" -v r="$2" -v b="${3:-10}" -v off="${4:-0}" 'BEGIN {
		for (i = 0; i < n; i++) { o = o (i ? ", " : "") b; w = w (i ? ", " : "") b * (i < off ? 0.5 : r * (i % 2 ? 1.004 : 0.996)) }
		printf "\"old\": [%s], \"new\": [%s]", o, w }'
}
# link FILE N RATIO [PAIRS [OFF]]: the Nth comparison (created on day N,
# label cN) of churn on malloc 16 B, churn_ns moved by RATIO (OFF pairs
# thrown off), churn_cold_ns not.
link() {
	cat >"$1" <<EOF
{"schema": "allocbench-ab/1", "old": "./base/allocbench", "new": "./allocbench",
 "label": "c$2", "created": "2026-11-$(printf %02d "$2")T10:00:00Z", "workload": "churn",
 "pairs": ${4:-16}, "series": [
 {"old_backend": "malloc", "new_backend": "malloc", "size": 16, "figure": "churn_ns", $(pairs "${4:-16}" "$3" 10 "${5:-0}")},
 {"old_backend": "malloc", "new_backend": "malloc", "size": 16, "figure": "churn_cold_ns", $(pairs "${4:-16}" 1)}]}
EOF
}
mkdir "$tmp/step" "$tmp/faster" "$tmp/few" "$tmp/off"
for i in 1 2 3 4 5 6; do
	r=1; [ "$i" = 4 ] && r=1.2
	link "$tmp/step/l$i.json" "$i" "$r"
	link "$tmp/off/l$i.json" "$i" "$r" 16 2
	r=1; [ "$i" = 3 ] && r=0.8
	link "$tmp/faster/l$i.json" "$i" "$r"
	link "$tmp/few/l$i.json" "$i" 1.2 4
done

run_ab history "$tmp/step"
check "a directory of ab comparisons: exit 0" [ "$rc" -eq 0 ]
check "they are listed oldest first, by label" \
	sh -c 'grep -q "^  #1   2026-11-01T10:00:00Z  c1$" "$1" && grep -q "^  #6   2026-11-06T10:00:00Z  c6$" "$1"' sh "$tmp/out"
check "the figures are chained through the pairs" grep -q "chained through each report's pairs, first -> last:" "$tmp/out"
check "it names the comparison whose pairs moved churn, by how much, and that it is worse" \
	grep -Eq '^  malloc +16 B  10\.0 -> 12\.0; stepped \+2\.00 ns/pair \(\+20\.0%\) at #4 \(c4\), Holm.s p [0-9.e-]+ \(worse\)$' "$tmp/out"
check "no other series stepped" sh -c '[ "$(grep -c "stepped" "$1")" = 1 ]' sh "$tmp/out"
check "the unmoved figure has no step" grep -Eq '^  malloc +16 B  ([0-9.]+) -> \1; no step$' "$tmp/out"
check "the method and the family are said" \
	grep -q "Holm-corrected over the 12 tests of the history" "$tmp/out"

run_ab history -f json "$tmp/step"
s='series[figure=churn_ns]'
check "JSON: the method" [ "$(jq_get "$tmp/out" method)" = "side by side" ]
check "JSON: the family's tests" [ "$(jq_get "$tmp/out" tests)" = 12 ]
check "JSON: the level before the step is the first old median" near "$(jq_get "$tmp/out" "$s.values[2]")" 10 1e-9
check "JSON: and after it, times the median ratio" near "$(jq_get "$tmp/out" "$s.values[5]")" 12 1e-9
check "JSON: the step is at the fourth comparison (index 3)" [ "$(jq_get "$tmp/out" "$s.steps[0].report")" = 3 ]
check "JSON: worse" [ "$(jq_get "$tmp/out" "$s.worse")" = true ]

run_ab history "$tmp/off"
check "two pairs of each comparison thrown far off do not hide the step (a pair counts by its sign)" \
	sh -c '[ "$(grep -c stepped "$1")" = 1 ] && grep -Eq "^  malloc +16 B .* at #4 \(c4\), Holm.s p 0\.0[0-4]" "$1"' sh "$tmp/out"

run_ab history "$tmp/faster"
check "a comparison 20% faster is a step down, not worse" \
	grep -Eq '^  malloc +16 B  10\.0 -> 8\.00; stepped -2\.00 ns/pair \(-20\.0%\) at #3 \(c3\), Holm.s p [0-9.e-]+$' "$tmp/out"

# A rate (10 Mops/s): higher is better, so a step down is worse.
mkdir "$tmp/rate"
for i in 1 2 3 4; do
	r=1; [ "$i" = 3 ] && r=0.8
	cat >"$tmp/rate/l$i.json" <<EOF
{"schema": "allocbench-ab/1", "old": "a", "new": "b", "label": "c$i", "created": "2026-11-0${i}T10:00:00Z",
 "workload": "threads", "pairs": 16, "series": [
 {"old_backend": "pool", "new_backend": "pool", "size": 40, "figure": "ops_per_s", $(pairs 16 "$r" 1e7)}]}
EOF
done
run_ab history "$tmp/rate"
check "a rate 20% lower: a step down, worse" \
	grep -Eq '^  pool +40 B  10\.00* -> 8\.00; stepped -2\.00 Mops/s \(-20\.0%\) at #3 \(c3\), Holm.s p [0-9.e-]+ \(worse\)$' "$tmp/out"

run_ab history "$tmp/step/l1.json" "$tmp/rate/l2.json"
check "comparisons of two workloads: exit 2, both named" \
	sh -c '[ "$1" = 2 ] && grep -q "l1.json. is a churn comparison and .*l2.json. a threads one" "$2"' sh "$rc" "$tmp/err"

run_ab history --metric churn_cold_ns "$tmp/step"
check "--metric follows one figure of the comparisons" \
	sh -c '[ "$1" = 0 ] && ! grep -q "stepped" "$2" && grep -q "Holm-corrected over the 6 tests" "$2"' sh "$rc" "$tmp/out"

run_ab history "$tmp/few"
check "4 pairs: every comparison 20% slower, yet no step, and why" \
	sh -c '! grep -q stepped "$1" && grep -q "With 4 pairs the least p is 0.0625: Holm over 12 tests cannot reach 0.05; give ab more --pairs" "$1"' sh "$tmp/out"

# Believing nothing: a comparison and a report mixed, a damaged pair.
run_ab --sizes 16 --backend malloc --workload churn --total 1M --repeat 1 --counters none -q \
	-f json -o "$tmp/run.json"
run_ab history "$tmp/step/l1.json" "$tmp/run.json"
check "a comparison and a report: exit 2, both named" \
	sh -c '[ "$1" = 2 ] && grep -q "is an ab comparison and .*run.json. a report" "$2"' sh "$rc" "$tmp/err"
sed 's/"old": \[10, /"old": [-10, /' "$tmp/step/l2.json" >"$tmp/bad.json"
run_ab history "$tmp/step/l1.json" "$tmp/bad.json"
check "a negative time in a pair: exit 2, the file and the field named" \
	sh -c '[ "$1" = 2 ] && grep -q "bad.json.: series\[0\]: \"old\" and \"new\" must each hold 16 positive numbers" "$2"' \
	sh "$rc" "$tmp/err"
sed 's/"churn_cold_ns"/"overhead_bytes"/' "$tmp/step/l2.json" >"$tmp/bad.json"
run_ab history "$tmp/step/l1.json" "$tmp/bad.json"
check "a figure that is no time: exit 2, named" \
	sh -c '[ "$1" = 2 ] && grep -q "series\[1\].figure \"overhead_bytes\" is not a time or rate of the churn workload" "$2"' \
	sh "$rc" "$tmp/err"

# What ab writes, history reads: its label and creation time.
run_ab ab malloc malloc --pairs 6 --max-time 1000 --label c9 -f json -o "$tmp/ab.json" -- --workload churn --sizes 16 \
	--total 1M --rounds 2 --counters none
check "ab --label: kept in the JSON" [ "$(jq_get "$tmp/ab.json" label)" = c9 ]
check "ab's JSON says when it was made" \
	sh -c 'jq_created=$("$1" "$2" created) && echo "$jq_created" | grep -Eq "^20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$"' \
	sh "$JSONQ" "$tmp/ab.json"
run_ab history "$tmp/step/l1.json" "$tmp/ab.json"
check "history reads ab's own JSON, after the older comparison" \
	sh -c '[ "$1" = 0 ] && grep -Eq "^  #2   20[0-9-]+T[0-9:]+Z  c9$" "$2"' sh "$rc" "$tmp/out"

test_done
