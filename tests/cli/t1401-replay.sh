#!/bin/sh
# --workload replay: a recorded trace replayed on malloc, pool, arena and
# every installed third-party allocator, each in fresh processes: every row
# measured, the same steps (checksum) on every backend, peak_live_bytes the
# trace's own (allocbench report), the allocator named; per-thread replay
# on the malloc family; what is refused.
. "$(dirname "$0")/lib.sh"

need_trace "replay"
"$AB" report "$tmp/th.trace" -f json >"$tmp/report.json"
peak=$(jq_get "$tmp/report.json" peak_live_bytes)
backends=malloc,pool,arena
for a in $DROP_IN; do
	if test_have_prereq "$(echo "$a" | tr a-z A-Z)"; then
		backends=$backends,$a
	else
		skip "replay on $a" "$prereq_why"
	fi
done

run_ab --workload replay --trace "$tmp/th.trace" --backend "$backends" --repeat 2 -q -f json -o "$tmp/r.json"
check "replay on $backends exits 0" test "$rc" = 0
n=$(jq_get "$tmp/r.json" "results#")
check "one row per backend" test "$n" = "$(echo "$backends" | tr ',' '\n' | wc -l)"
sum=$(jq_get "$tmp/r.json" "results[0].checksum")
i=0
while [ "$i" -lt "$n" ]; do
	b=$(jq_get "$tmp/r.json" "results[$i].backend")
	check "$b: measured, peak_live_bytes is the trace's ($peak), the same steps" \
		test "$(jq_get "$tmp/r.json" "results[$i].status") $(jq_get "$tmp/r.json" "results[$i].peak_live_bytes") $(jq_get "$tmp/r.json" "results[$i].checksum")" = "ok $peak $sum"
	check "$b: peak RSS, RSS over live bytes at the peak, ns per step, page faults" \
		awk -v r="$(jq_get "$tmp/r.json" "results[$i].peak_rss_bytes.median")" \
		    -v f="$(jq_get "$tmp/r.json" "results[$i].fragmentation.median")" \
		    -v t="$(jq_get "$tmp/r.json" "results[$i].op_ns.median")" \
		    -v p="$(jq_get "$tmp/r.json" "results[$i].page_faults.median")" -v l="$peak" \
		    'BEGIN { exit !(r > 0 && t > 0 && p > 0 && f > 0 && (f - r / l) ^ 2 < 1e-6) }'
	i=$((i + 1))
done
check "malloc's row names the allocator and its version" \
	test "$(jq_get "$tmp/r.json" 'results[backend=malloc].allocator.name')" = glibc
check "the steps are the trace's calls less free(NULL) and failures" \
	test "$(jq_get "$tmp/r.json" 'results[0].ops')" = \
	     "$(( $(jq_get "$tmp/report.json" calls.total) - $(jq_get "$tmp/report.json" free_null) - $(jq_get "$tmp/report.json" failed_allocations) - $(jq_get "$tmp/report.json" unknown_frees) ))"
check "the report says the replay's order and what pool and arena do" \
	sh -c '[ "$1" = global ] && echo "$2" | grep -q "one pool per 16-byte size class"' sh \
	"$(jq_get "$tmp/r.json" config.replay.threads_mode)" "$(jq_get "$tmp/r.json" config.replay.policy)"

# Issue 27: the default backends are the candidates a user asks about, the
# installed drop-in allocators among them (main: malloc, pool, arena alone).
run_ab --workload replay --trace "$tmp/th.trace" --repeat 1 -q -f json -o "$tmp/d.json"
n=$(jq_get "$tmp/d.json" "results#")
rows=$(i=0; while [ "$i" -lt "$n" ]; do jq_get "$tmp/d.json" "results[$i].backend"; i=$((i + 1)); done |
	paste -sd, -)
check "without --backend: malloc, pool, arena and every installed drop-in allocator ($rows)" \
	test "$rows" = "$backends"

run_ab --workload replay --trace "$tmp/th.trace" --backend malloc --repeat 1 -q
check "the text report: a row per backend, the policy" \
	sh -c 'grep -q "^malloc  *129[0-9]* " "$1" && grep -q "frees do nothing" "$1"' sh "$tmp/out"

run_ab --workload replay --replay-threads per-thread --trace "$tmp/th.trace" --backend malloc,pool \
	--repeat 1 -q -f json -o "$tmp/pt.json"
check "per-thread: malloc replays each recorded thread in its own, same peak live bytes" \
	test "$(jq_get "$tmp/pt.json" 'results[backend=malloc].status') $(jq_get "$tmp/pt.json" 'results[backend=malloc].peak_live_bytes')" = "ok $peak"
check "per-thread: the pool replays in one thread, the same sequence" \
	test "$(jq_get "$tmp/pt.json" 'results[backend=pool].status') $(jq_get "$tmp/pt.json" 'results[backend=pool].checksum')" = "ok $(jq_get "$tmp/pt.json" 'results[backend=malloc].checksum')"
check "per-thread: the malloc replay has its memory over time" \
	test "$(jq_get "$tmp/pt.json" 'results[backend=malloc].series.steps#')" -gt 1

# compare takes replay reports: the same three figures as random's, the sequence checked.
run_ab --workload replay --trace "$tmp/th.trace" --backend malloc,pool --repeat 2 -q -f json -o "$tmp/c1.json"
run_ab compare "$tmp/c1.json" "$tmp/c1.json"
check "compare: a replay report against itself, no regression" \
	sh -c '[ '"$rc"' = 0 ] && grep -q "^pool  *0  *peak RSS B" "$1" && grep -q "checksums match" "$1"' sh "$tmp/out"
rss=$(jq_get "$tmp/c1.json" 'results[backend=pool].peak_rss_bytes.median')
doctor "$tmp/c1.json" 'results[backend=pool].peak_rss_bytes' \
	"={\"median\": $((rss * 2)), \"min\": $((rss * 2)), \"max\": $((rss * 2)), \"runs\": [$((rss * 2)), $((rss * 2))]}" \
	"$tmp/c2.json"
run_ab compare "$tmp/c1.json" "$tmp/c2.json"
check "compare: twice the peak RSS on the pool regresses" \
	sh -c '[ '"$rc"' = 1 ] && grep -q "^pool .*peak RSS B.*regressed" "$1"' sh "$tmp/out"

# plot draws a replay report as bars: a bar per backend in each of three panels.
run_ab plot "$tmp/c1.json" -o "$tmp/c.svg"
check "plot: a replay report gives a bar per backend for each of 3 figures" \
	sh -c '[ '"$rc"' = 0 ] && [ "$(grep -c "<rect x=" "$1")" = 6 ] && grep -q "peak RSS over peak live" "$1"' sh "$tmp/c.svg"
check_if XMLLINT "plot: the bar chart is well-formed XML" xmllint --noout "$tmp/c.svg"
expect_usage "plot: --metric with replay reports" "does not apply to replay reports" plot --metric op_ns "$tmp/c1.json"

expect_usage "replay without --trace" "needs --trace" --workload replay
expect_usage "--trace with another workload" "--trace '.*' applies to the replay workload" --trace "$tmp/th.trace"
expect_usage "--sizes with replay" "do not apply to the replay workload" --workload replay --trace "$tmp/th.trace" --sizes 4
expect_usage "an invalid --replay-threads" "invalid --replay-threads 'both'" --workload replay --trace "$tmp/th.trace" --replay-threads both
printf 'x%.0s' $(seq 300) >"$tmp/bad.trace"
expect_usage "a file that is not a trace" "is not an allocbench trace" --workload replay --trace "$tmp/bad.trace"

# realloc(p, 0) that returned a chunk (as under mimalloc or jemalloc): the
# program saw a new chunk, which it frees later; glibc's realloc(p, 0) frees
# p and returns NULL, and the later free was a double free (SIGABRT).
printf 'header threads=1\nchunk\nmalloc seq=1 size=8 ret=0x1000\nrealloc seq=2 ptr=0x1000 size=0 ret=0x2000 done=1\nfree seq=4 ptr=0x2000\n' |
	"$ABBUILD/tests/tools/tracetool" make "$tmp/realloc0.trace" 2
run_ab --workload replay --trace "$tmp/realloc0.trace" --backend malloc,pool,arena --repeat 1 -q -f json -o "$tmp/r0.json"
check "realloc(p, 0) that returned a chunk: replayed on malloc, every row ok" sh -c \
	'[ "$1" = 0 ] && [ "$("$2" "$3" "results[backend=malloc].status")" = ok ] &&
	 [ "$("$2" "$3" "results[backend=pool].status")/$("$2" "$3" "results[backend=arena].status")" = ok/ok ]' \
	sh "$rc" "$JSONQ" "$tmp/r0.json"

# Slots are handed out again (a window of steps after their free): a replay
# holds about as many as chunks were alive at once, not one per allocation
# (tests/tools/tracegen: 20000 calls, 500 chunks alive at most, about 9750
# allocations).
ASAN_OPTIONS=detect_leaks=0 "$ABBUILD/tests/tools/tracegen" "$tmp/g.trace" 20000 500 >/dev/null
run_ab --workload replay --trace "$tmp/g.trace" --backend malloc --repeat 1 -q -f json -o "$tmp/g.json"
check "20000 calls, 500 alive at most: at most 500 + 1024 slots ($(jq_get "$tmp/g.json" 'results[0].count'))" \
	sh -c '[ "$1" = 0 ] && [ "$2" -le 1524 ] && [ "$3" = ok ]' sh "$rc" \
	"$(jq_get "$tmp/g.json" 'results[0].count')" "$(jq_get "$tmp/g.json" 'results[0].status')"

test_done
