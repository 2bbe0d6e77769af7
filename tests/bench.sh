#!/bin/sh
# make bench: the speed targets, printed as ratios from one run each. A
# benchmark is not a test: a miss is reported, never turned into a failure,
# because this machine is shared and noisy.
set -u
LC_ALL=C
export LC_ALL
cd "$(dirname "$0")/.." || exit 2
AB=./allocbench
JSONQ=tests/tools/jsonq
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
${CC:-cc} -O2 -o "$tmp/plain_malloc" tests/bench/plain_malloc.c || exit 2

verdict() { awk -v v="$1" -v t="$2" -v op="$3" 'BEGIN { ok = op == "<=" ? v <= t : v >= t; print ok ? "met" : "MISSED" }'; }

echo "allocbench bench on $(uname -n), $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo

start=$(date +%s.%N)
$AB -q -f json -o "$tmp/default.json" || echo "default run exited $?"
wall=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
echo "default run (5 sizes, 3 backends, repeat 3, 100 MiB): ${wall} s  (target < 15 s: $(verdict "$wall" 15 '<='))"

q() { $JSONQ "$tmp/default.json" "$1"; }
x=$(q 'results[backend=arena,size=4].x_floor.median')
printf 'arena 4 B cold 100 MiB: %.2f x floor  (target <= 1.3: %s)\n' "$x" "$(verdict "$x" 1.3 '<=')"
m=$(q 'results[backend=malloc,size=4].alloc_ns.median')
p=$(q 'results[backend=pool,size=4].alloc_ns.median')
r=$(awk -v m="$m" -v p="$p" 'BEGIN { print m / p }')
printf 'pool 4 B: %.2f ns vs malloc %.2f ns: %.1fx faster  (target >= 4: %s)\n' "$p" "$m" "$r" "$(verdict "$r" 4 '>=')"

# The tool's malloc figure against a hand-written loop, side by side: three
# fresh processes each, interleaved, medians compared.
for s in 4 40; do
	: >"$tmp/plain" ; : >"$tmp/tool"
	for i in 1 2 3; do
		"$tmp/plain_malloc" $s 104857600 >>"$tmp/plain"
		$AB -q -f json --sizes $s --backend malloc --repeat 1 -o "$tmp/one.json"
		$JSONQ "$tmp/one.json" 'results[0].alloc_ns.median' >>"$tmp/tool"
	done
	pm=$(sort -n "$tmp/plain" | sed -n 2p)
	tm=$(sort -n "$tmp/tool" | sed -n 2p)
	d=$(awk -v a="$tm" -v b="$pm" 'BEGIN { d = (a - b) / b * 100; print d < 0 ? -d : d }')
	printf 'malloc %s B: allocbench %.2f ns, plain loop %.2f ns: %.1f%% apart  (target <= 5%%: %s)\n' \
		"$s" "$tm" "$pm" "$d" "$(verdict "$d" 5 '<=')"
done
