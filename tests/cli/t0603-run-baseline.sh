#!/bin/sh
# run --baseline FILE: measure, write the report as usual, then compare with
# FILE and print the comparison on stderr; exit 1 on a regression; an
# unusable or mismatched baseline is refused before anything is measured.
# check: host
. "$(dirname "$0")/lib.sh"

args="--sizes 4,40 --backend pool,arena --total 1M --repeat 3 -q"
run_ab $args -f json -o "$tmp/base.json"
check "baseline run exits 0" [ "$rc" -eq 0 ]

run_ab $args --baseline "$tmp/base.json"
check "same build against its baseline: exit 0" [ "$rc" -eq 0 ]
check "the report is on stdout as usual" grep -Eq '^backend +B +count' "$tmp/out"
check "the comparison is on stderr" grep -q "^allocbench compare: baseline '$tmp/base.json', current 'this run'$" "$tmp/err"
check "... with its verdict" grep -q '^result: no regression$' "$tmp/err"
check "... and every row" grep -q '^4 rows: 0 regressed, 0 failed, 0 improved, 4 unchanged' "$tmp/err"
check "stdout holds the report alone" [ "$(grep -c 'allocbench compare' "$tmp/out")" -eq 0 ]

# A baseline 1 byte per chunk cheaper at 40 bytes: this run has regressed.
"$JSONSET" "$tmp/base.json" "results[backend=arena,size=40].overhead_bytes" +-1 >"$tmp/cheaper.json"
run_ab $args -f json -o "$tmp/cur.json" --baseline "$tmp/cheaper.json"
check "a regression against the baseline: exit 1" [ "$rc" -eq 1 ]
check "the regressed row is named" grep -Eq '^arena +40 +overhead B .* \+[0-9.]+ +tol [0-9.]+ +regressed$' "$tmp/err"
# 1 B exactly, against a tolerance of two pages over the count, where the
# runs agree exactly.
check_if RSS_EXACT,PAGE_4K,THP_NOT_ALWAYS "... by 1 B, beyond its tolerance of 2 pages over the count" \
	grep -Eq '^arena +40 +overhead B .* \+1\.0000 +tol 0\.3125 +regressed$' "$tmp/err"
check "... REGRESSION" grep -q '^result: REGRESSION$' "$tmp/err"
check "the report is still written" [ "$("$JSONQ" "$tmp/cur.json" schema)" = allocbench/2 ]

# A baseline from another host (its kernel): times gated only with
# --allow-host-change, as compare gates them.
"$JSONSET" "$tmp/base.json" host.kernel '="Linux 9.9.9-other"' >"$tmp/other-host.json"
run_ab $args --baseline "$tmp/other-host.json"
check "another host: said, times not gated" \
	grep -q '^what changed (another host: times not gated, --allow-host-change gates them):$' "$tmp/err"
run_ab $args --baseline "$tmp/other-host.json" --allow-host-change
check "--allow-host-change: times gated anyway" \
	grep -q '^what changed (another host: times gated anyway, --allow-host-change):$' "$tmp/err"
expect_usage "--allow-host-change without --baseline" "--allow-host-change gates a --baseline comparison" \
	$args --allow-host-change

# Times gated only with --gate-time, as compare gates them.
run_ab $args --baseline "$tmp/base.json"
check "without --gate-time: the times are not gated, said so" \
	grep -Eq '^arena +40 +alloc ns .* no --gate-time +not gated$' "$tmp/err"
run_ab $args --baseline "$tmp/base.json" --gate-time
check "--gate-time: the times are gated (or said why not)" \
	sh -c '! grep -q "no --gate-time" "$1" && grep -q "^time: regressed when the median rose" "$1"' sh "$tmp/err"
expect_usage "--gate-time without --baseline" "--gate-time gates a --baseline comparison" $args --gate-time

# Refused before measuring: nothing on stdout, -o left alone, fast.
echo old >"$tmp/keep.json"
start=$(date +%s)
# (64 MiB: within the memory guard on a host with 1 GiB of MemAvailable, which
# would refuse 1 GiB first, and long to measure.)
run_ab --sizes 4,40 --backend pool,arena --total 64M --repeat 3 -q -o "$tmp/keep.json" --baseline "$tmp/base.json"
check "another total: exit 2" [ "$rc" -eq 2 ]
check "another total: names the setting and both values" grep -q "different total (--total): 1048576 bytes in the baseline '$tmp/base.json', 67108864 bytes in 'this run'" "$tmp/err"
check "another total: refused before measuring" [ $(( $(date +%s) - start )) -lt 5 ]
check "another total: -o untouched" [ "$(cat "$tmp/keep.json")" = old ]
run_ab $args --touch full --baseline "$tmp/base.json"
check "another touch: exit 2" [ "$rc" -eq 2 ]
check "another touch: says so" grep -q "different touch policy (--touch): pages in the baseline '$tmp/base.json', full in 'this run'" "$tmp/err"
printf '{"schema": "allocbench/1", "results": [' >"$tmp/trunc.json"
expect_usage "a truncated baseline" "'$tmp/trunc.json': not valid JSON: truncated" $args --baseline "$tmp/trunc.json"
expect_usage "a missing baseline" "'$tmp/none.json': cannot read" $args --baseline "$tmp/none.json"
"$JSONSET" "$tmp/base.json" "results[backend=pool,size=4].free_ns" delete >"$tmp/nofree.json"
expect_usage "a baseline row without free_ns" "'$tmp/nofree.json': results\[0\] \(pool, 4 B\) has status \"ok\" but no \"free_ns\"" $args --baseline "$tmp/nofree.json"
expect_usage "an empty --baseline" "empty file name for --baseline" $args --baseline ''

test_done
