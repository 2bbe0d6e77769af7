#!/bin/sh
# report streams its trace (allocbench-report(1)): a trace is read in
# memory that follows the program's live chunks, not its calls, and what it
# says is exact: the calls, the peak of live chunks, a median lifetime
# longer than one pass's window (65536 calls), threads merged in order.
. "$(dirname "$0")/lib.sh"

GEN=$ABBUILD/tests/tools/tracegen
test_lazy_prereq NOASAN '[ $asan = 0 ] || { echo "built with AddressSanitizer, whose shadow memory a 256 MiB address space cannot hold"; exit 1; }'

# Chunks freed oldest first: 60000 mallocs, then 40000 pairs of a free and
# a malloc; the chunks freed lived 60000 .. 99999 calls: median 80000.
"$GEN" "$tmp/fifo.trace" 140000 60000 fifo
run_ab report -f json -o "$tmp/fifo.json" "$tmp/fifo.trace"
check "a median past the first window is exact (80000)" \
	test "$(jq_get "$tmp/fifo.json" median_lifetime_calls)" = 80000
check "calls, frees and the peak of live chunks" \
	test "$(jq_get "$tmp/fifo.json" calls.total)-$(jq_get "$tmp/fifo.json" calls.free)-$(jq_get "$tmp/fifo.json" peak_live_chunks)" = 140000-40000-60000
check "the lifetimes' buckets: all 40000 up to 100000 calls" \
	test "$(jq_get "$tmp/fifo.json" 'lifetimes[4].count')-$(jq_get "$tmp/fifo.json" 'lifetimes[4].max_calls')" = 40000-100000
# The first pass counts lifetimes past its window in buckets that span
# every lifetime the calls allow (here 32 calls wide); the second counts
# the median's bucket one by one: 2 million calls, 500000 live, the chunks
# freed lived 500000 .. 1249999 calls.
"$GEN" "$tmp/fifo2.trace" 2000000 500000 fifo
run_ab report -f json -o "$tmp/fifo2.json" "$tmp/fifo2.trace"
check "a median in a wide bucket of the first pass is exact (875000)" \
	test "$(jq_get "$tmp/fifo2.json" median_lifetime_calls)" = 875000

# 4 million calls in 4 threads whose live chunks peak at 1000, under a
# 256 MiB address space: what a reader that holds every call (about 100
# bytes each) cannot do.
"$GEN" "$tmp/long.trace" 4000000 1000 4
check_if NOASAN "4 million calls read within ulimit -v 256 MiB" \
	sh -c 'ulimit -v 262144 && exec "$1" report -f json -o "$2" "$3"' sh "$AB" "$tmp/long.json" "$tmp/long.trace"
check_if NOASAN "all of them, 4 threads, the live chunks' peak exact" \
	test "$(jq_get "$tmp/long.json" calls.total)-$(jq_get "$tmp/long.json" 'threads#')-$(jq_get "$tmp/long.json" peak_live_chunks)" = 4000000-4-1000
sum=0
for i in 0 1 2 3; do
	sum=$(awk -v s="$sum" -v n="$(jq_get "$tmp/long.json" "threads[$i].calls" 2>/dev/null)" 'BEGIN { print s + n }')
done
check_if NOASAN "the threads' calls add up" test "$sum" = 4000000

# A signal while the trace is read ends report there (each read of the
# file asks), not once the whole trace is read: exit 128 + the signal,
# nothing printed (before, the whole report, then the status). 8 million
# calls take a second or more to read; the signal comes once the file is
# open.
"$GEN" "$tmp/sig.trace" 8000000 10000 4
"$AB" record --convert "$tmp/sig.trace" -o "$tmp/sig.v3" 2>/dev/null
for f in sig.trace sig.v3; do
	for s in TERM:143 INT:130; do
		"$AB" report "$tmp/$f" >"$tmp/sig.out" 2>"$tmp/sig.err" &
		pid=$!
		i=0
		while [ $i -lt 500 ] && ! ls -l /proc/$pid/fd 2>/dev/null | grep -q "$tmp/$f"; do
			sleep 0.01
			i=$((i + 1))
		done
		kill -${s%:*} $pid
		wait $pid
		rc=$?
		check "SIG${s%:*} while $f is read: exit ${s#*:}, nothing printed" \
			sh -c '[ "$1" = "$2" ] && [ ! -s "$3" ] && [ ! -s "$4" ]' sh "$rc" "${s#*:}" \
			"$tmp/sig.out" "$tmp/sig.err"
	done
done
rm -f "$tmp/sig.trace" "$tmp/sig.v3"

test_done
