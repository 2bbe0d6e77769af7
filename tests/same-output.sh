#!/bin/sh
# same-output.sh OLD NEW: whether two allocbench binaries print the same
# thing, byte for byte, for every command, format and workload that prints
# from saved inputs (issue 44: a change of shape must not change an output,
# unless its commit names the change and why).
#
#   sh tests/same-output.sh /tmp/old/build/default/allocbench build/default/allocbench
#
# The inputs are made once, by OLD: a report of each workload (fill,
# churn, random, threads, replay global and per thread, --abi 32 where it
# runs), data/*.json, a copy of one with a figure moved (for compare and
# history), traces tracegen makes (one thread, four) and a recording of a
# shell pipeline. Then each command below runs under both binaries: show in
# every format, compare and history in theirs, plot, report of each trace,
# counters, backends, each command's --help, and refusals of bad input. For
# each: stdout, stderr (the binary's name masked) and the exit status.
# Measuring commands (run, ab, advise) are not compared: their figures are
# times. Prints each difference, then "N same, M differ"; exits 1 when any
# differ, 2 on bad usage or an input OLD could not make.
set -u
[ $# -eq 2 ] && [ -x "$1" ] && [ -x "$2" ] || {
	echo "usage: sh tests/same-output.sh OLD_ALLOCBENCH NEW_ALLOCBENCH" >&2
	exit 2
}
old=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
new=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
top=$(cd "$(dirname "$0")/.." && pwd)
tools=$(dirname "$new")/tests/tools
tmp=$(mktemp -d)
[ -n "${KEEP-}" ] && echo "inputs and outputs kept in $tmp" || trap 'rm -rf "$tmp"' EXIT
in=$tmp/in
mkdir "$in" "$tmp/old" "$tmp/new"

# ---- the inputs, made once by OLD
cp "$top"/data/baseline.json "$top"/data/baseline-churn.json "$top"/data/baseline-random.json \
	"$top"/data/overhead.json "$in/"
mk() { name=$1; shift; "$old" "$@" --repeat 2 -q -f json -o "$in/$name.json" 2>/dev/null || rm -f "$in/$name.json"; }
mk fill --sizes 16,64,4000 --total 1M --counters allocbench
mk churn --workload churn --sizes 64 --total 1M --backend malloc,pool,arena
mk random --workload random --sizes 24:70,48:30 --total 1M --backend malloc,pool,arena
mk threads --workload threads --threads 2 --rounds 2 --sizes 64 --total 1M --backend malloc,pool,pool-locked
mk abi32 --sizes 64 --total 1M --abi 32,64 --backend malloc,pool
"$tools/tracegen" "$in/one.trace" 20000 500 2>/dev/null
"$tools/tracegen" "$in/four.trace" 20000 500 4 2>/dev/null
mk replay --workload replay --trace "$in/one.trace" --backend malloc,pool,arena
mk replaypt --workload replay --trace "$in/four.trace" --backend malloc,pool --replay-threads per-thread
"$old" record -o "$in/rec.trace" -- sh -c 'ls / | sort | head -n 3' >/dev/null 2>&1
# A second fill report with one figure moved: compare and history have
# something to say.
"$tools/jsonset" "$in/fill.json" 'results[backend=malloc,size=64].overhead_bytes.median' '=999' \
	>"$in/fill-moved.json" 2>/dev/null
# Each input must be there (abi32 only where OLD measures --abi 32 here):
# a comparison of two failures would say nothing.
missing=
for f in fill churn random threads replay replaypt fill-moved; do
	[ -s "$in/$f.json" ] || missing="$missing $f.json"
done
for f in one.trace four.trace rec.trace; do
	[ -s "$in/$f" ] || missing="$missing $f"
done
if [ -n "$missing" ]; then
	echo "same-output.sh: OLD did not make:$missing" >&2
	exit 2
fi
[ -s "$in/abi32.json" ] || echo "same-output.sh: no --abi 32 report (OLD cannot measure it here): left out"
mkdir "$in/hist"
cp "$in/fill.json" "$in/hist/a.json"
cp "$in/fill-moved.json" "$in/hist/b.json"

# ---- the commands, each under both binaries
same=0
differ=0
n=0
# out ARGS...: runs ARGS under both binaries and compares what each printed.
out() {
	n=$((n + 1))
	for side in old new; do
		eval "bin=\$$side"
		(cd "$in" && "$bin" "$@" >"$tmp/$side/$n.out" 2>"$tmp/$side/$n.err"; echo "exit $?" >>"$tmp/$side/$n.out")
		# The file written by -o, where one is.
		[ -f "$in/o.out" ] && { cat "$in/o.out" >>"$tmp/$side/$n.out"; rm -f "$in/o.out"; }
		sed "s|$bin|ALLOCBENCH|g" "$tmp/$side/$n.err" >"$tmp/$side/$n.e"
	done
	if cmp -s "$tmp/old/$n.out" "$tmp/new/$n.out" && cmp -s "$tmp/old/$n.e" "$tmp/new/$n.e"; then
		same=$((same + 1))
	else
		differ=$((differ + 1))
		echo "differ: allocbench $*"
		diff "$tmp/old/$n.out" "$tmp/new/$n.out" | head -n 8 | sed 's/^/    /'
		diff "$tmp/old/$n.e" "$tmp/new/$n.e" | head -n 8 | sed 's/^/    /'
	fi
}

reports=$(cd "$in" && ls ./*.json | sed 's|^\./||')
for r in $reports; do
	for f in text json csv markdown; do
		out show -f "$f" "$r"
	done
	out plot "$r" -o o.out
done
out show fill.json churn.json
for f in text json markdown; do
	out compare -f "$f" fill.json fill-moved.json
	out compare -f "$f" fill.json fill.json
done
for f in text json svg; do
	out history -f "$f" hist
done
out compare fill.json churn.json
out plot fill.json fill-moved.json --label a --label b -o o.out
out plot replay.json replaypt.json -o o.out
out plot --metric overhead_bytes,alloc_ns fill.json -o o.out
for t in one.trace four.trace rec.trace; do
	for f in text json; do
		out report "$t" -f "$f"
	done
done
for f in text json; do
	out counters -f "$f"
	out backends -f "$f"
done
for c in run compare show plot counters backends record report advise history ab; do
	out "$c" --help
done
out --dump-options
# Refusals: each names the bad input, exit 2.
out --sizes 0
out --backend nosuch
out --workload nosuch
out show nosuch.json
out compare fill.json
out report nosuch.trace
out plot --metric nosuch fill.json
out history -f nosuch hist

echo "$same same, $differ differ"
[ "$differ" -eq 0 ]
