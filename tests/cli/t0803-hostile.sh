#!/bin/sh
# The sweep of hostile input (issue 45): every trace or report found to
# cost unbounded time or memory, each read by the commands that read it,
# under one bound: exit 0 or 2 (refused, said why), within
# $HOSTILE_SECONDS (default 60; make bench runs this sweep with 10) and
# in 512 MiB of address space (ulimit -v; not under the sanitizers, whose
# shadow memory needs terabytes of it). Each case prints its time. The
# cases' own outputs are checked where they were found: t0667 (reports),
# t1405 (signals while reading), t1406 (exec chains), t1408 (version 3),
# t0668 (escapes, SIZE_MAX).
#
# tests/hostile/live-20m.v3 (1590 bytes): 20 million mallocs of 24 bytes,
# none freed (tracegen F 20000000 20000000 fifo, then record --convert).
# A live set of 20 million chunks needs more than 512 MiB: refused as out
# of memory (it took 1.6 GB and 20 s, unbounded in the file's size).
. "$(dirname "$0")/lib.sh"

TOOL=$ABBUILD/tests/tools/tracetool
seconds=${HOSTILE_SECONDS:-60}
command -v timeout >/dev/null || { skip "the hostile input sweep" "needs timeout"; test_done; exit 0; }
limit=524288
test_have_prereq !SANITIZED || limit=unlimited

# bounded NAME STATUS PATTERN COMMAND...: allocbench COMMAND exits STATUS
# (0 or 2) within the bounds, and its standard error matches PATTERN (if
# not empty).
bounded() {
	name=$1 want=$2 pattern=$3; shift 3
	start=$(date +%s.%N)
	(ulimit -v $limit; exec timeout -s KILL "$seconds" "$AB" "$@" >"$tmp/out" 2>"$tmp/err")
	rc=$?
	took=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }')
	echo "# $name: exit $rc in $took s"
	if [ "$rc" = 137 ]; then
		not_ok "$name" "killed after $seconds s (or out of memory): allocbench $*"
	elif [ "$rc" != "$want" ]; then
		not_ok "$name" "exit status $rc, expected $want: allocbench $*: $(tail -n 2 "$tmp/err")"
	elif [ -n "$pattern" ] && ! grep -Eq -- "$pattern" "$tmp/err"; then
		not_ok "$name" "stderr '$(tail -n 2 "$tmp/err")' does not match '$pattern'"
	else
		ok "$name"
	fi
}
replay() { echo --workload replay --trace "$1" --backend malloc --repeat 1 -q -f json -o "$tmp/r.json"; }

# ---- traces
big=$top/tests/hostile/live-20m.v3
if test_have_prereq !SANITIZED; then
	bounded "20 million live chunks in 1590 bytes: report refuses, out of memory" \
		2 "cannot be analysed: out of memory" report "$big"
	bounded "... report -f json" 2 "out of memory" report -f json "$big"
	bounded "... a replay" 2 "out of memory" $(replay "$big")
else
	skip "20 million live chunks in 1590 bytes" "$prereq_why: it would take gigabytes"
fi

# 50000 reallocs open at once, their second halves due in the reverse
# order of their first: converting took 30 s, the version 3 decoder was
# quadratic in them (minutes for a 377-byte trace).
awk 'function rec(line) { if (r++ % 300 == 0) printf "chunk base=%d\n", s - 1; print line; s++ }
BEGIN { n = 50000; print "header threads=1"; s = 1
	for (i = 0; i < n; i++) rec(sprintf("malloc seq=%d size=8 ret=0x%x", s, 4096 + 64 * i))
	for (i = 0; i < n; i++)
		rec(sprintf("realloc seq=%d ptr=0x%x size=16 ret=0x%x done=%d", s,
			    4096 + 64 * i, 268435456 + 64 * i, 2 * (n - i)))
}' | "$TOOL" make "$tmp/open.trace" 2
bounded "50000 reallocs open: record --convert" 0 "" record --convert "$tmp/open.trace" -o "$tmp/open.v3"
bounded "... report of the version 3 trace" 0 "" report "$tmp/open.v3"
bounded "... its replay" 0 "" $(replay "$tmp/open.v3")

# 289 bytes: one call, by thread 99999999 of a header that says 100000000
# calls were lost (7.8 GB of text, 23.6 GB of JSON before).
"$TOOL" v3 "$tmp/far.v3" 100000000 100000000 1 0700ffc1d72f0108
bounded "one call by thread 99999999: report" 0 "" report "$tmp/far.v3"
bounded "... report -f json" 0 "" report -f json "$tmp/far.v3"
bounded "... its replay" 0 "" $(replay "$tmp/far.v3")

# A header of 100000000 threads and one call (a replay started them all).
printf 'header threads=1\nchunk thread=0\nmalloc seq=1 size=8 ret=0x1000\n' | "$TOOL" make "$tmp/one.trace" 2
"$AB" record --convert "$tmp/one.trace" -o "$tmp/one.v3" 2>/dev/null
"$TOOL" threads "$tmp/one.v3" "$tmp/many.v3" 100000000
bounded "100000000 threads in a version 3 header: report refuses" 2 "header field threads" report "$tmp/many.v3"
bounded "... a replay refuses" 2 "header field threads" $(replay "$tmp/many.v3")
"$TOOL" threads "$tmp/one.trace" "$tmp/many.trace" 100000000
bounded "100000000 threads in a version 2 header: report refuses" 2 "header field threads" report "$tmp/many.trace"

# An address handed out again while live (three mallocs); a failed
# malloc(SIZE_MAX - 10), whose size bucket overflowed; realloc(p, 0)
# returning a chunk (mimalloc's), which replayed as a double free.
printf '%s\n' 'header threads=1' 'chunk thread=0' 'malloc seq=1 size=8 ret=0x1000' \
	'malloc seq=2 size=8 ret=0x1000' 'malloc seq=3 size=16 ret=0x2000' \
	'malloc seq=4 size=18446744073709551605 ret=0' \
	'realloc seq=5 ptr=0x2000 size=0 ret=0x3000 done=1' 'free seq=7 ptr=0x3000' |
	"$TOOL" make "$tmp/odd.trace" 2
bounded "an address handed out twice, malloc(SIZE_MAX - 10), realloc(p, 0): report" 0 "" report "$tmp/odd.trace"
bounded "... record --convert" 0 "" record --convert "$tmp/odd.trace" -o "$tmp/odd.v3"
bounded "... report of the version 3 trace" 0 "" report "$tmp/odd.v3"
bounded "... a replay" 0 "" $(replay "$tmp/odd.v3")

# ---- reports
run_ab --sizes 4 --backend pool --total 64K --repeat 1 -q -f json -o "$tmp/b.json"
# 300 MiB of white space after a report, in a sparse file: the 256 MiB cap.
cp "$tmp/b.json" "$tmp/huge.json"
truncate -s 300M "$tmp/huge.json"
bounded "a report of 300 MiB: show refuses" 2 "larger than 256 MiB" show "$tmp/huge.json"
bounded "... compare refuses" 2 "larger than 256 MiB" compare "$tmp/b.json" "$tmp/huge.json"
# 100000 nested arrays.
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "["; for (i = 0; i < 100000; i++) printf "]" }' >"$tmp/deep.json"
bounded "100000 nested arrays: show refuses" 2 "deep.json" show "$tmp/deep.json"
bounded "... plot refuses" 2 "deep.json" plot -o "$tmp/p.svg" "$tmp/deep.json"
# A FIFO named *.json among a history's reports (it blocked forever).
mkdir "$tmp/dir"
cp "$tmp/b.json" "$tmp/dir/a.json"
cp "$tmp/b.json" "$tmp/dir/c.json"
if mkfifo "$tmp/dir/b.json" 2>/dev/null; then
	bounded "a FIFO among history's reports: skipped" 0 "not a regular file" history "$tmp/dir"
else
	skip "a FIFO among history's reports" "mkfifo failed"
fi
test_done
