#!/bin/sh
# A damaged, truncated or hostile trace is never believed: report and replay
# refuse it (exit 2) naming the trace and the field, never crash (status
# 128 and up), hang or blame an option the user did not give; a trace that
# changes while it is read, or between the parent's reading and a measuring
# process's, is said to have changed. Version 1 traces still read.
# tests/trace-damage-big.sh runs the same sweep at 10000 flips.
. "$(dirname "$0")/lib.sh"

TT=$ABBUILD/tests/tools/tracetool
SHIM=$ABBUILD/tests/tools/libfileshim.so

# refused NAME PATTERN FILE [ARGS...]: report FILE exits 2 within 5 s, saying PATTERN.
refused() {
	name=$1; pattern=$2; file=$3; shift 3
	timeout 5 "$AB" report "$file" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" = 2 ] && grep -Eq -- "$pattern" "$tmp/err" && ! grep -Eq -- "--(sizes|total)" "$tmp/err"; then
		ok "$name"
	else
		not_ok "$name" "exit status $rc: $(head -c 300 "$tmp/err")"
	fi
}
# replay_refused NAME PATTERN FILE [ARGS...]: the same for a replay of FILE.
replay_refused() {
	name=$1; pattern=$2; file=$3; shift 3
	timeout 5 "$AB" --workload replay --trace "$file" --backend malloc --repeat 1 -q "$@" \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" = 2 ] && grep -Eq -- "$pattern" "$tmp/err" && ! grep -Eq -- "--(sizes|total)" "$tmp/err"; then
		ok "$name"
	else
		not_ok "$name" "exit status $rc: $(head -c 300 "$tmp/err")"
	fi
}
# make FILE VERSION: a trace from the lines on standard input (tracetool make).
make_trace() { "$TT" make "$1" "$2"; }

# ---- what issue 25 found, in version 1 traces (what the recorder wrote before)

printf 'header threads=1\nchunk thread=4294967295\nmalloc seq=1 size=8 ret=0x1000\n' | make_trace "$tmp/t1.trace" 1
refused "thread index 0xFFFFFFFF: damaged, the chunk, its byte and the field named" \
	"trace '.*t1.trace' is damaged: chunk 0 at byte 256: thread 4294967295 out of range \(1 thread\)" "$tmp/t1.trace"
printf 'header threads=1\nchunk thread=100000\nmalloc seq=1 size=8 ret=0x1000\n' | make_trace "$tmp/t2.trace" 1
replay_refused "a thread index of 100000: per-thread replay refuses it, starting no thread" \
	"thread 100000 out of range" "$tmp/t2.trace" --replay-threads per-thread
printf 'header threads=1\nchunk thread=2147483648\nmalloc seq=1 size=8 ret=0x1000\nfree seq=2 ptr=0x1000\n' | make_trace "$tmp/t3.trace" 1
replay_refused "a thread index of 2^31: damaged, not 'out of memory' or 'too many allocations'" \
	"thread 2147483648 out of range" "$tmp/t3.trace"
printf 'header threads=1\nchunk\nmalloc seq=1 size=8 ret=0x1000\nrealloc seq=2 ptr=0x1000 size=16 ret=0x2000 done=0\n' | make_trace "$tmp/r.trace" 1
refused "a realloc done before it started: damaged (report)" "record at byte [0-9]+: a realloc done 0 calls after it started" "$tmp/r.trace"
replay_refused "a realloc done before it started: damaged (replay)" "a realloc done 0 calls" "$tmp/r.trace"
printf 'header threads=1\nchunk\nmemalign seq=1 align=9223372036854775809 size=8 ret=0x1000\n' | make_trace "$tmp/a.trace" 1
refused "an alignment above 2^63: damaged, no endless loop" "memalign of alignment 9223372036854775809 returned a chunk" "$tmp/a.trace"
printf 'header threads=1\nchunk\nposix_memalign seq=1 align=64 size=8 ret=0x1010\n' | make_trace "$tmp/a2.trace" 1
refused "a chunk not aligned as asked: damaged" "returned 0x1010, not so aligned" "$tmp/a2.trace"
printf 'header threads=1\nchunk\nmalloc seq=1 size=4611686018427387904 ret=0x1000\n' | make_trace "$tmp/s.trace" 1
replay_refused "a 2^62-byte chunk returned: the trace is damaged, --sizes is not named" \
	"trace '.*s.trace' is damaged: .*a malloc of 4611686018427387904 bytes returned a chunk" "$tmp/s.trace"
{ echo "header threads=1"; echo chunk; s=1; for i in $(seq 300); do
	echo "malloc seq=$s size=72057594037927936 ret=0x10000000"; echo "free seq=$((s + 1)) ptr=0x10000000"; s=$((s + 2))
  done; } | make_trace "$tmp/sum.trace" 1
replay_refused "sizes summing past 2^64: the trace named, not --total" "trace '.*sum.trace' \(a peak of" "$tmp/sum.trace"
printf 'header threads=1\nchunk\nmalloc seq=1 size=8 ret=0x1000\n' | make_trace "$tmp/h.trace" 1
printf '\000\002' | dd of="$tmp/h.trace" bs=1 seek=12 conv=notrunc 2>/dev/null
refused "a header size of 512: damaged, the field named, not 'another version'" \
	"is damaged: header field header_bytes is 512 \(expected 256\)" "$tmp/h.trace"
printf 'header threads=1\nchunk\nmalloc seq=1 size=8 ret=0x1000\nmalloc seq=1 size=8 ret=0x2000\n' | make_trace "$tmp/d.trace" 1
refused "one place in the order taken twice: damaged" "seq 1 is taken twice" "$tmp/d.trace"
printf 'header threads=1\nchunk\nmalloc seq=1 size=8 ret=0x1000\nchunk base=5\nfree seq=6 ptr=0x1000\n' | make_trace "$tmp/g.trace" 1
refused "a thread's chunk missing: damaged" "records go on from seq 5, but its chunk before \(0\) ends at seq 1" "$tmp/g.trace"

# ---- version 2: what the header says of lost calls; what may be unsealed
printf 'header threads=1 lost=5 lost_why=2 lost_errno=28\nchunk\nmalloc seq=1 size=8 ret=0x1000\n' | make_trace "$tmp/l.trace" 2
run_ab report "$tmp/l.trace"
check "incomplete: the calls not recorded and why" \
	grep -q "incomplete: 5 calls not recorded (the file could not be written: No space left on device)" "$tmp/out"
# cut_short SEALED...: 10 chunks of thread 0 in a trace cut short, those given sealed.
cut_short() {
	echo "header threads=1 state=0"; s=0
	for c in 1 2 3 4 5 6 7 8 9 10; do
		seal=0; for k in "$@"; do [ "$k" = "$c" ] && seal=1; done
		echo "chunk base=$s seal=$seal"; echo "malloc seq=$((s + 1)) size=8 ret=0x1000"
		echo "free seq=$((s + 2)) ptr=0x1000"; s=$((s + 2))
	done
}
cut_short 1 2 | make_trace "$tmp/w.trace" 2
run_ab report "$tmp/w.trace"
check "cut short: its last 8 chunks unsealed (the window) read" \
	sh -c '[ '"$rc"' = 0 ] && grep -q "8 chunks not sealed" "$1"' sh "$tmp/out"
cut_short 1 3 | make_trace "$tmp/w.trace" 2
refused "cut short: an unsealed chunk not among its thread's last 8 is damaged" \
	"chunk 1 at byte 4352: not sealed \(check 0\), yet not one of thread 0's last 8 chunks" "$tmp/w.trace"

# ---- a real trace, sealed, cut at many offsets and flipped a bit at a time
if ! test_have_prereq NOASAN; then
	skip "a recorded trace cut and flipped" "$prereq_why"
	test_done
	exit 0
fi
ALLOCBENCH_TEST_RECORD_V2=1 record_trace "$tmp/ls.trace" ls / || not_ok "record ls /" "$(cat "$tmp/record.err")"
"$TT" reseal "$tmp/ls.trace" "$tmp/v2.trace"
"$TT" v1 "$tmp/ls.trace" "$tmp/v1.trace"
run_ab report "$tmp/v2.trace"
check "a sealed trace reads" test "$rc" = 0
run_ab report "$tmp/v1.trace"
# Version 1 has no room for the program's own figures: their line left out.
no_program() { awk '/^  program: /{ skip = 1; next } skip && /^    /{ next } { skip = 0; print }'; }
tail -n +2 "$tmp/out" | no_program >"$tmp/v1.out"
"$AB" report "$tmp/v2.trace" | tail -n +2 | no_program >"$tmp/v2.out"
check "its version 1 copy reads the same, but for the program's own figures" \
	sh -c '[ '"$rc"' = 0 ] && cmp -s "$1" "$2"' sh "$tmp/v2.out" "$tmp/v1.out"
check "... which it says it has not" grep -q "^  program: the program's own figures are not in this trace" "$tmp/out"
size=$(wc -c <"$tmp/v2.trace")

# sweep FILE STEP: cuts at every STEP-th offset of the header and of the
# first chunk's header, every 29th * STEP beyond, and at the last 10; prints
# the ones not refused (tests/trace-damage-big.sh cuts at every offset).
sweep() {
	n=0
	while [ "$n" -lt "$size" ]; do
		head -c "$n" "$1" >"$tmp/cut.trace"
		timeout 5 "$AB" report "$tmp/cut.trace" >/dev/null 2>"$tmp/cut.err"
		r=$?
		if [ "$r" != 2 ] || ! grep -Eq "is (truncated|damaged)" "$tmp/cut.err"; then
			echo "cut at $n: exit $r: $(cat "$tmp/cut.err")"
		fi
		if [ "$n" -ge $((size - 10)) ]; then n=$((n + 1));
		elif [ "$n" -lt 300 ]; then n=$((n + $2)); else n=$((n + 29 * $2)); fi
	done
}
sweep "$tmp/v2.trace" 3 >"$tmp/sweep2"
check "every cut of a sealed trace ($size bytes) is truncated or damaged (exit 2)" \
	sh -c '[ "$1" -gt 4096 ] && [ ! -s "$2" ]' sh "$size" "$tmp/sweep2"
[ -s "$tmp/sweep2" ] && head -3 "$tmp/sweep2"
sweep "$tmp/v1.trace" 7 >"$tmp/sweep1"
check "every cut of a version 1 trace is truncated or damaged (exit 2)" \
	sh -c '[ "$1" -gt 4096 ] && [ ! -s "$2" ]' sh "$size" "$tmp/sweep1"
[ -s "$tmp/sweep1" ] && head -3 "$tmp/sweep1"
head -c 3000 "$tmp/v2.trace" >"$tmp/cut.trace"
replay_refused "replay refuses a truncated trace, saying where" \
	"trace '.*cut.trace' is truncated: it ends at byte 3000, its header's 1 chunks at byte 4352" "$tmp/cut.trace"

# 200 flips of a bit that means something (seeds 1..200): each damaged; 40
# of any bit: damaged, or (a byte after a chunk's used) the same report.
"$AB" report "$tmp/v2.trace" | tail -n +2 >"$tmp/good.out"
bad=$tmp/flips.bad
: >"$bad"
i=1
while [ "$i" -le 240 ]; do
	if [ "$i" -le 200 ]; then at=$("$TT" flip "$tmp/v2.trace" "$tmp/f.trace" "$i"); else at=$("$TT" flipany "$tmp/v2.trace" "$tmp/f.trace" "$i"); fi
	timeout 5 "$AB" report "$tmp/f.trace" >"$tmp/f.out" 2>"$tmp/f.err"
	r=$?
	case $at in
	*unused) [ "$r" = 0 ] && tail -n +2 "$tmp/f.out" | cmp -s - "$tmp/good.out" || echo "seed $i, byte $at: exit $r, not the same report" >>"$bad" ;;
	*) [ "$r" = 2 ] && grep -q "is damaged" "$tmp/f.err" || echo "seed $i, byte $at: exit $r: $(cat "$tmp/f.err")" >>"$bad" ;;
	esac
	if [ $((i % 30)) = 0 ] && [ "$r" = 2 ]; then
		timeout 5 "$AB" --workload replay --trace "$tmp/f.trace" --backend malloc --repeat 1 -q \
			>/dev/null 2>"$tmp/f.err"
		r=$?
		[ "$r" = 2 ] && grep -q "trace '.*f.trace' is damaged" "$tmp/f.err" ||
			echo "seed $i, byte $at: replay exit $r: $(cat "$tmp/f.err")" >>"$bad"
	fi
	i=$((i + 1))
done
check "240 bit flips of a sealed trace: each said to be damaged, in report and replay" test ! -s "$bad"
[ -s "$bad" ] && head -5 "$bad"

# ---- a trace that changes under its reader (a preload cuts or replaces it)
cp "$tmp/v1.trace" "$tmp/c.trace"
FILESHIM_PATH=$tmp/c.trace FILESHIM_SHRINK=300 LD_PRELOAD=$SHIM "$AB" report "$tmp/c.trace" >/dev/null 2>"$tmp/err"
rc=$?
check "a trace cut while report reads it: an error, not SIGBUS" \
	sh -c '[ '"$rc"' = 2 ] && grep -q "changed while it was read: it was '"$size"' bytes, it ends at byte 300 now" "$1"' sh "$tmp/err"
cp "$tmp/v1.trace" "$tmp/c.trace"
printf 'header threads=1\nchunk\nmalloc seq=1 size=64 ret=0x1000\nmalloc seq=2 size=128 ret=0x2000\n' | make_trace "$tmp/new.trace" 1
# The trace is read once, by allocbench: the measuring processes map the
# steps it made of it. Replaced after that first open, it changes nothing.
"$AB" --workload replay --trace "$tmp/c.trace" --backend malloc --repeat 1 -q -f json -o "$tmp/c.json"
FILESHIM_PATH=$tmp/c.trace FILESHIM_SWAP=$tmp/new.trace FILESHIM_NTH=2 FILESHIM_COUNT=$tmp/opens \
	LD_PRELOAD=$SHIM "$AB" --workload replay --trace "$tmp/c.trace" --backend malloc --repeat 3 -q \
	-f json -o "$tmp/sw.json" 2>"$tmp/err"
rc=$?
check "a trace replaced after allocbench read it (once): every run replays what it read ($(jq_get "$tmp/c.json" "results[0].ops") steps)" \
	sh -c '[ '"$rc"' = 0 ] && [ "$("$1" "$2" "results[0].ops")" = "$("$1" "$3" "results[0].ops")" ] &&
		[ "$(wc -c <"$4")" -eq 1 ]' sh "$JSONQ" "$tmp/sw.json" "$tmp/c.json" "$tmp/opens"

test_done
