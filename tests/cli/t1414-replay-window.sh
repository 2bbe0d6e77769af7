#!/bin/sh
# Issue 42: a replay's memory grows with the program's live chunks, not with
# its calls. The plan's steps are in a file that the analysis writes as it
# goes and each replay maps a window of 262144 steps at a time. Two made-up
# traces (tests/tools/tracegen) of 300,000 and 1,200,000 calls, in 4
# threads, with the same live set, make 2 and 5 windows. Each is replayed
# globally (malloc, arena) and per thread (malloc):
# - every step is run once: the arena, whose frees do nothing, ends up
#   holding every byte asked for, and no more;
# - the series, worked out through the windows, ends at the trace's live
#   bytes;
# - the measuring process's peak memory (VmHWM) grows by less than 2 MiB
#   from the short trace to the long one. A plan held whole, at 24 bytes a
#   step, would add 21 MiB.
# A plan's file that cannot be made ($TMPDIR missing) exits 1, saying where.
# check: once
. "$(dirname "$0")/lib.sh"

if ! test_have_prereq NOASAN; then
	skip "a replay's memory" "$prereq_why"
	test_done
	exit 0
fi
gen=$ABBUILD/tests/tools/tracegen
for n in 300000 1200000; do
	"$gen" "$tmp/$n.trace" $n 2000 4 || echo "tracegen exited $?"
	"$AB" report -f json -o "$tmp/$n.report" "$tmp/$n.trace"
	run_ab --workload replay --trace "$tmp/$n.trace" --backend malloc,arena --repeat 1 \
		--replay-threads global -q -f json -o "$tmp/$n.global"
	check "$n calls: the global replay exits 0" test "$rc" = 0
	run_ab --workload replay --trace "$tmp/$n.trace" --backend malloc --repeat 1 \
		--replay-threads per-thread -q -f json -o "$tmp/$n.threads"
	check "$n calls: the per-thread replay exits 0" test "$rc" = 0
	check "$n calls: every row measured" test \
		"$(jq_get "$tmp/$n.global" 'results[0].status') $(jq_get "$tmp/$n.global" 'results[1].status') $(jq_get "$tmp/$n.threads" 'results[0].status')" = "ok ok ok"
	asked=$(jq_get "$tmp/$n.report" requested_bytes)
	allocs=$(($(jq_get "$tmp/$n.report" calls.malloc) + $(jq_get "$tmp/$n.report" calls.calloc) +
		$(jq_get "$tmp/$n.report" calls.realloc)))
	arena=$(jq_get "$tmp/$n.global" 'results[backend=arena].peak_rss_bytes.median')
	check "$n calls: the arena holds every byte asked for ($asked), at most 16 more a chunk ($arena)" \
		awk -v a="$arena" -v r="$asked" -v n="$allocs" \
		'BEGIN { exit !(a + 4096 >= r && a <= r + 16 * n + 65536) }'
	last=$(($(jq_get "$tmp/$n.global" 'results[backend=malloc].series.live_bytes#') - 1))
	check "$n calls: the series ends at the trace's live bytes" test \
		"$(jq_get "$tmp/$n.global" "results[backend=malloc].series.live_bytes[$last]")" = \
		"$(jq_get "$tmp/$n.report" live_bytes_end)"
done

TMPDIR=$tmp/none "$AB" --workload replay --trace "$tmp/300000.trace" --backend malloc -q \
	>"$tmp/out" 2>"$tmp/err"
check "the plan's file cannot be made: exit 1 (not a usage error), naming where" sh -c \
	'[ "$1" = 1 ] && grep -q "cannot write the replay.s steps to a file in $2: No such file or directory" "$3"' \
	sh $? "$tmp/none" "$tmp/err"

for mode in global threads; do
	short=$(jq_get "$tmp/300000.$mode" 'results[backend=malloc].peak_memory_bytes')
	long=$(jq_get "$tmp/1200000.$mode" 'results[backend=malloc].peak_memory_bytes')
	check "$mode: 4 times the calls, the measuring process's peak memory within 2 MiB ($short, $long)" \
		test $((long - short)) -lt 2097152
done

test_done
