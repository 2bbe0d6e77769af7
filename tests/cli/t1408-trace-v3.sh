#!/bin/sh
# Trace format version 3 (what record leaves, and record --convert's): one recording,
# converted, gives
# the same report (all but the trace's own bytes and name) and the same replay (its
# memory figures and its steps' checksum) as the trace it was converted
# from; a damaged block is refused by its checksum; a version 3 trace is
# not converted again.
. "$(dirname "$0")/lib.sh"

if ! test_have_prereq NOASAN; then
	skip "trace format version 3" "$prereq_why"
	test_done
	exit 0
fi
ALLOCBENCH_TEST_RECORD_V2=1 record_trace "$tmp/th.trace" "$THREADS" ||
	not_ok "record $THREADS" "$(tail -n 3 "$tmp/record.err")"
record_trace "$tmp/d.trace" "$THREADS" || not_ok "record $THREADS" "$(tail -n 3 "$tmp/record.err")"
"$AB" report "$tmp/d.trace" -f json >"$tmp/d.json"
check "record writes version 3 once the program ended" \
	test "$(jq_get "$tmp/d.json" trace.format_version)" = 3
# A program killed by a signal: its trace, cut short, converted to what it holds.
"$AB" record -o "$tmp/segv.trace" "$THREADS" segv >/dev/null 2>"$tmp/segv.err"
"$AB" report "$tmp/segv.trace" -f json >"$tmp/segv.json"
check "a program killed: its trace converted, cut short" \
	test "$(jq_get "$tmp/segv.json" trace.format_version) $(jq_get "$tmp/segv.json" trace.cut_short)" = "3 true"
# A process still running when the command ended is still writing its trace:
# left. (The shell ends once the process has made its calls and said so.)
"$AB" record -o "$tmp/bg.trace" sh -c '"$0" linger "$1" & until [ -s "$1" ]; do sleep 0.05; done' \
	"$THREADS" "$tmp/lingers" >/dev/null 2>"$tmp/bg.err"
check "a process still running: its trace left in version 2, said" \
	grep -q "bg.trace.threads.[0-9]*: its process [0-9]* was still running when the command ended: left in format version 2" \
	"$tmp/bg.err"
kill "$(cat "$tmp/lingers")" 2>/dev/null
# A signal once the program ended, while record converts: it stops there,
# leaves the trace as the recorder wrote it and nothing of the conversion,
# and ends by that signal (SIGTERM: a job in the background ignores SIGINT).
# About 5 s: in the full set only.
if ! test_have_prereq ONCE; then
	skip "a signal while record converts" "$prereq_why"
elif command -v perl >/dev/null; then
	# term_once GLOB: once a file GLOB names is there (at most 60 s), SIGTERM
	# to the job started last; its exit status into $r.
	term_once() {
		i=0
		until ls $1 >/dev/null 2>&1 || [ $i -ge 1200 ]; do
			sleep 0.05
			i=$((i + 1))
		done
		kill -TERM $!
		wait $! 2>/dev/null
		r=$?
	}
	"$AB" record -o "$tmp/big.trace" perl -e 'my %h; $h{$_} = [$_] for 1..2000000;' 2>"$tmp/big.err" &
	term_once "$tmp/big.trace.perl.*.v3-*"
	check "SIGTERM while record converts: exit 143, the trace left in version 2, nothing of the conversion left" \
		sh -c '[ "$1" = 143 ] && grep -q "stopped by SIGTERM: the traces not yet converted left in format version 2" "$2" &&
		       [ "$("$3" report -f json "$4" | "$5" - trace.format_version)" = 2 ] && ! ls "$4".*.v3-* 2>/dev/null' \
		sh "$r" "$tmp/big.err" "$AB" "$tmp/big.trace" "$JSONQ"
	# record --convert too.
	"$AB" record --convert "$tmp/big.trace" -o "$tmp/bigc.trace" 2>"$tmp/bigc.err" &
	term_once "$tmp/bigc.trace.v3-*"
	check "SIGTERM while record --convert converts: exit 143, nothing of the conversion left" \
		sh -c '[ "$1" = 143 ] && ! ls "$2".* "$2" 2>/dev/null' sh "$r" "$tmp/bigc.trace"
	rm -f "$tmp"/big.trace* "$tmp"/bigc.trace*
else
	skip "a signal while record converts" "no perl"
fi
"$AB" report "$tmp/th.trace" -f json >"$tmp/th.json"
check "the recorder writes version 2 (record converts it; the tests keep it)" test "$(jq_get "$tmp/th.json" trace.format_version)" = 2
"$AB" record --convert "$tmp/th.trace" -o "$tmp/th.v3" 2>"$tmp/conv.err"
check "record --convert exits 0" test "$?" = 0
check "the converted trace is smaller" \
	test "$(wc -c <"$tmp/th.v3")" -lt "$(wc -c <"$tmp/th.trace")"
# same_reports WHAT V2 V3: report's text and JSON, all but the trace's own bytes and name.
same_reports() {
	for f in text json; do
		for v in 2 3; do
			eval t=\$$v
			"$AB" report "$t" -f $f |
				grep -v 'bytes of trace\|"bytes"\|format_version\|"path"\|"advise_replays"\|^trace ' >"$tmp/r$v.$f"
		done
		check "$1: report -f $f the same but for the trace's bytes" cmp "$tmp/r2.$f" "$tmp/r3.$f"
	done
}
same_reports "threads" "$tmp/th.trace" "$tmp/th.v3"
for t in th.trace th.v3; do
	run_ab --workload replay --trace "$tmp/$t" --backend malloc,pool --repeat 1 -q -f json -o "$tmp/$t.json"
	check "replay of $t exits 0" test "$rc" = 0
done
for k in 'results[0].checksum' 'results[1].checksum' 'results[0].peak_live_bytes' \
	 'results[1].peak_live_bytes' 'results[0].status'; do
	check "replay: $k the same" test "$(jq_get "$tmp/th.trace.json" "$k")" = "$(jq_get "$tmp/th.v3.json" "$k")"
done
# The 32-bit measuring program reads no trace: it maps the steps allocbench
# made of it, version 3's as well (it has no libzstd). Its replay of these
# 5 threads' 129,000 calls died (a slot's 8-byte meta mapped as 4-byte
# pointers) or, per thread, waited for ever (the slots' versions likewise);
# the pool's, whose pools each reserved 1 GiB, ran out of address space.
test_lazy_prereq ABI32 '
	"$AB" --abi 32 --sizes 4 --total 4K --repeat 1 --backend arena -q -f json \
		>"$tmp/.abi32.json" 2>"$tmp/.abi32.err" && exit 0
	tail -n 1 "$tmp/.abi32.err"; exit 1'
if test_have_prereq ABI32; then
	for m in global per-thread; do
		run_ab --workload replay --trace "$tmp/th.v3" --backend malloc,pool --abi 32 --replay-threads $m \
			--repeat 1 -q -f json -o "$tmp/v3.32.json"
		check "--abi 32 replays a version 3 trace ($m): the same steps as the 64-bit replay" \
			sh -c '[ "$1" = 0 ] && [ "$2" = "$3" ] && [ "$4" = ok/ok ]' sh "$rc" \
			"$(jq_get "$tmp/v3.32.json" 'results[0].checksum')" \
			"$(jq_get "$tmp/th.v3.json" 'results[0].checksum')" \
			"$(jq_get "$tmp/v3.32.json" 'results[0].status')/$(jq_get "$tmp/v3.32.json" 'results[1].status')"
	done
else
	skip "--abi 32 replays a version 3 trace" "$prereq_why"
fi
# Ranks near the least they can cost: 5000 pairs of chunks freed, pair by
# pair, in a random order (as a hash's entries are). Naming that order takes
# log2(5000!) bits, 6779 bytes; ranks between the records and no free
# "near the last" (before the planes) took 16111.
awk 'function rec(line) { if (r++ % 500 == 0) printf "chunk base=%d\n", s - 1; print line; s++ }
BEGIN { srand(29); n = 5000; print "header threads=1"; s = 1
	for (i = 0; i < n; i++) {
		rec(sprintf("malloc seq=%d size=8 ret=0x%x", s, 4096 + 64 * i))
		rec(sprintf("malloc seq=%d size=40 ret=0x%x", s, 4096 + 64 * i + 16)); p[i] = i
	}
	for (i = n - 1; i > 0; i--) { j = int(rand() * (i + 1)); t = p[i]; p[i] = p[j]; p[j] = t }
	for (i = 0; i < n; i++) {
		rec(sprintf("free seq=%d ptr=0x%x", s, 4096 + 64 * p[i] + 16))
		rec(sprintf("free seq=%d ptr=0x%x", s, 4096 + 64 * p[i]))
	}
}' | "$ABBUILD/tests/tools/tracetool" make "$tmp/pairs.trace" 2
"$AB" record --convert "$tmp/pairs.trace" -o "$tmp/pairs.v3" 2>/dev/null
check "pairs freed in a random order: at most 1.5 times log2(5000!) bits ($(wc -c <"$tmp/pairs.v3") bytes)" \
	test "$(wc -c <"$tmp/pairs.v3")" -le 10000
same_reports "pairs" "$tmp/pairs.trace" "$tmp/pairs.v3"
run_ab --workload replay --trace "$tmp/pairs.trace" --backend pool --repeat 1 -q -f json -o "$tmp/p2.json"
run_ab --workload replay --trace "$tmp/pairs.v3" --backend pool --repeat 1 -q -f json -o "$tmp/p3.json"
check "pairs: the replays' checksums the same" \
	test "$(jq_get "$tmp/p2.json" 'results[0].checksum')" = "$(jq_get "$tmp/p3.json" 'results[0].checksum')"

# Reallocs open by the hundred thousand (a version 3 trace holds them in a
# few bytes each: 160000 in this 4 MB version 2 trace), their second
# halves due in the reverse order of their first: the writer and the
# reader keep them in time linear in the calls (a sorted array, moved at
# each end, took 27 s for half as many). timeout: quadratic time fails.
awk 'function rec(line) { if (r++ % 300 == 0) printf "chunk base=%d\n", s - 1; print line; s++ }
BEGIN { n = 160000; print "header threads=1"; s = 1
	for (i = 0; i < n; i++) rec(sprintf("malloc seq=%d size=8 ret=0x%x", s, 4096 + 64 * i))
	for (i = 0; i < n; i++)
		rec(sprintf("realloc seq=%d ptr=0x%x size=16 ret=0x%x done=%d", s,
			    4096 + 64 * i, 268435456 + 64 * i, 2 * (n - i)))
}' | "$ABBUILD/tests/tools/tracetool" make "$tmp/open.trace" 2
if command -v timeout >/dev/null; then
	timeout 60 "$AB" record --convert "$tmp/open.trace" -o "$tmp/open.v3" 2>/dev/null
	check "160000 reallocs open: converted (within 60 s)" test $? = 0
	timeout 60 "$AB" report "$tmp/open.v3" >/dev/null 2>&1
	check "... and reported (within 60 s)" test $? = 0
	same_reports "160000 reallocs open" "$tmp/open.trace" "$tmp/open.v3"
else
	skip "160000 reallocs open" "needs timeout"
fi
# Each realloc's second half at the next place: no gap record after it.
printf 'header threads=1\nchunk thread=0\nmalloc seq=1 size=8 ret=0x1000\nrealloc seq=2 ptr=0x1000 size=16 ret=0x1000\nfree seq=4 ptr=0x1000\n' |
	"$ABBUILD/tests/tools/tracetool" make "$tmp/r1.trace" 2
"$AB" record --convert "$tmp/r1.trace" -o "$tmp/r1.v3" 2>/dev/null
if command -v zstd >/dev/null; then
	# 6 bytes of records: malloc of a new size 8; realloc of a new size
	# 16; free of the newest. Then the ranks: width 1, the realloc's 0.
	check "a realloc's second half at the next place: no gap record after it" \
		test "$(tail -c +273 "$tmp/r1.v3" | zstd -dcq | od -An -tx1 | tr -d ' \n')" = "$(echo 06_0108_030010_04_01_00 | tr -d _)"
else
	skip "a realloc's second half at the next place" "needs zstd"
fi
same_reports "a realloc, its second half next" "$tmp/r1.trace" "$tmp/r1.v3"

# A header that claims more threads than its calls could have: refused, as
# version 2 refuses more than its chunks (a replay would start them all).
printf 'header threads=1\nchunk thread=0\nmalloc seq=1 size=8 ret=0x1000\n' |
	"$ABBUILD/tests/tools/tracetool" make "$tmp/one.trace" 2
"$AB" record --convert "$tmp/one.trace" -o "$tmp/one.v3" 2>/dev/null
"$ABBUILD/tests/tools/tracetool" threads "$tmp/one.v3" "$tmp/many.v3" 100000000
run_ab report "$tmp/one.v3"
check "a version 3 trace of one call and one thread reads" [ "$rc" -eq 0 ]
run_ab report "$tmp/many.v3"
check "... with 100000000 threads in its header: damaged, exit 2, said why" sh -c \
	'[ "$1" = 2 ] && grep -q "header field threads is 100000000, more than its 1 calls (and 0 lost) could hold" "$2"' \
	sh "$rc" "$tmp/err"

# A thread's index is handed out at its first call, recorded or lost: a
# header that says 100000000 calls were lost allows index 99999999 to the
# one call recorded (289 bytes). The report and the replay follow the
# threads that made calls: one row, one thread, in little memory (a row
# and a thread per index took 7.8 GB of text, or out of memory).
# Records: thread switch to 99999999 (00 ff c1 d7 2f), malloc of 8 (01 08).
"$ABBUILD/tests/tools/tracetool" v3 "$tmp/far.v3" 100000000 100000000 1 0700ffc1d72f0108
check_if !SANITIZED "a thread of index 99999999, 100000000 calls lost: report in 256 MiB" \
	sh -c '(ulimit -v 262144; "$1" report "$2" >"$3")' sh "$AB" "$tmp/far.v3" "$tmp/far.out"
check "... one row, the thread's index, 1 call" \
	sh -c '[ "$(grep -c "^  *99999999  *1  *1  *0  *8  *0$" "$1")" = 1 ] && [ "$(sed -n "/^threads (1;/,\$p" "$1" | wc -l)" = 3 ]' sh "$tmp/far.out"
run_ab report -f json "$tmp/far.v3"
check "... -f json: one thread, index 99999999" \
	test "$(jq_get "$tmp/out" 'threads[0].index') $(jq_get "$tmp/out" 'threads[1].index' 2>/dev/null)" = "99999999 "
run_ab --workload replay --trace "$tmp/far.v3" --backend malloc --repeat 1 -q -f json
check "... a replay of it runs one thread" \
	test "$rc $(jq_get "$tmp/out" 'config.replay.threads')" = "0 1"

# The converted file in place; then its first block's frame damaged.
cp "$tmp/th.trace" "$tmp/in.trace"
"$AB" record --convert "$tmp/in.trace" 2>/dev/null
check "converted in place: the same as into another file" cmp "$tmp/in.trace" "$tmp/th.v3"
"$AB" record --convert "$tmp/th.v3" -o "$tmp/again" 2>"$tmp/again.err"
check "a version 3 trace is not converted again" grep -q 'version 3 already' "$tmp/again.err"
# Through a symbolic link: its target converted, the link kept.
cp "$tmp/th.trace" "$tmp/target.trace"
ln -s target.trace "$tmp/link"
"$AB" record --convert "$tmp/link" 2>/dev/null
check "a symbolic link is converted through: the link kept, its target converted" \
	sh -c '[ -L "$1" ] && cmp -s "$2" "$3"' sh "$tmp/link" "$tmp/target.trace" "$tmp/th.v3"
printf '\377' | dd of="$tmp/in.trace" bs=1 seek=300 conv=notrunc 2>/dev/null
"$AB" report "$tmp/in.trace" >/dev/null 2>"$tmp/bad.err"
check "a damaged block is refused by its checksum" grep -q 'block 0 at byte 256: its checksum does not match' "$tmp/bad.err"
test_done
