#!/bin/sh
# --backend all means every backend that can do the workload: with
# --workload replay, pool-locked (whose size classes are the pool's) is
# skipped and said so, not measured into a failed row and exit 1; with
# --replay-threads per-thread, pool and arena replay in one thread, in the
# recorded order. A backend named by hand that cannot replay still fails its row.
. "$(dirname "$0")/lib.sh"

need_trace "replay --backend all"

run_ab --workload replay --trace "$tmp/th.trace" --backend all --repeat 1 -q -f json -o "$tmp/all.json"
check "replay --backend all exits 0 (was 1: pool-locked failed)" test "$rc" = 0
check "... no row for pool-locked, one each for malloc, pool and arena" \
	test "$(jq_get "$tmp/all.json" 'results[backend=pool-locked].status' 2>/dev/null)-$(jq_get "$tmp/all.json" 'results[backend=malloc].status') $(jq_get "$tmp/all.json" 'results[backend=pool].status') $(jq_get "$tmp/all.json" 'results[backend=arena].status')" = "-ok ok ok"
check "... says it skips pool-locked and why" \
	grep -q "warning: --backend all skips pool-locked: it does not replay a trace" "$tmp/err"
check "... the report lists pool-locked as skipped" \
	grep -Eq '"backend":[[:space:]]*"pool-locked"' "$tmp/all.json"

run_ab --workload replay --replay-threads per-thread --trace "$tmp/th.trace" --backend all \
	--repeat 1 -q -f json -o "$tmp/pt.json"
check "per-thread --backend all exits 0, malloc, pool and arena measured" \
	test "$rc $(jq_get "$tmp/pt.json" 'results[backend=malloc].status') $(jq_get "$tmp/pt.json" 'results[backend=pool].status') $(jq_get "$tmp/pt.json" 'results[backend=arena].status')" = "0 ok ok ok"
check "... pool-locked skipped, pool and arena not" \
	sh -c 'grep -q "skips pool-locked: " "$1" && ! grep -Eq "skips (pool|arena): " "$1"' sh "$tmp/err"

run_ab --workload replay --trace "$tmp/th.trace" --backend malloc,pool-locked --repeat 1 -q
check "pool-locked named by hand: its row fails, exit 1" \
	sh -c '[ "$1" = 1 ] && grep -q "does not replay a trace" "$2"' sh "$rc" "$tmp/out"

run_ab --backend all --total 1M --sizes 64 --repeat 1 -q -f json -o "$tmp/fill.json"
check "fill --backend all still measures pool-locked" \
	test "$rc $(jq_get "$tmp/fill.json" 'results[backend=pool-locked].status')" = "0 ok"

test_done
