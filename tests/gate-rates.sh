#!/bin/sh
# make gate-rates: the rates of the CI recipe (allocbench-compare(1), GitHub
# Actions), measured, not tested: a miss is reported, never a failure. Under
# the load of a second busy process (a busy loop started here and killed at
# the end), RUNS times (default 20) each:
#
#   (a) the whole recipe on an unchanged build (./base/allocbench a copy of
#       ./allocbench): a failed step is a false alarm (target <= 1 in 20);
#   (b) its Time step with the new build's malloc slowed by a preload
#       (tests/bench/slow_malloc.c) that spins about 20% of a malloc's time
#       in each call, calibrated here and checked by a side measurement
#       (tests/bench/malloc_cost.c): caught when a malloc row is slower
#       (target >= 19 in 20);
#   (c) its Measure and Compare steps with a pool 8 bytes larger per chunk (a
#       build of this tree with pool_stride() adding 8): caught when a pool
#       row's overhead regressed (target >= 19 in 20);
#
# and the recipe's measuring time (Measure and Time) in (a): at most 3 min.
#
#   sh tests/gate-rates.sh [RUNS]
set -u
LC_ALL=C
export LC_ALL
cd "$(dirname "$0")/.." || exit 2
top=$PWD
runs=${1:-20}
tmp=$(mktemp -d) || exit 2
busy=
trap '[ -n "$busy" ] && kill -KILL $busy 2>/dev/null; rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
CC=${CC:-cc}

verdict() { awk -v v="$1" -v t="$2" -v op="$3" 'BEGIN { ok = op == "<=" ? v <= t : v >= t; print ok ? "met" : "MISSED" }'; }
median() { sort -n | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
now() { date +%s.%N; }
since() { awk -v s="$1" -v e="$(now)" 'BEGIN { printf "%.1f", e - s }'; }

sh tests/ci-recipe.sh "$tmp" || exit 2
sizes=$(sed -n 's/.*--sizes \([0-9,]*\).*/\1/p' "$tmp/time.sh" | tr , ' ')
total=$(sed -n 's/.*--total \([^ ]*\).*/\1/p' "$tmp/time.sh")
[ -n "$sizes" ] && [ -n "$total" ] || { echo "gate-rates: the Time step names no --sizes or --total" >&2; exit 2; }

echo "allocbench gate-rates on $(uname -n), $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%M:%SZ), $runs runs each"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "the Time step: $(cat "$tmp/time.sh")"

# The preload, the side measurement and the build with the larger pool.
$CC -O2 -shared -fPIC -o "$tmp/libslow_malloc.so" tests/bench/slow_malloc.c || exit 2
$CC -O2 -o "$tmp/malloc_cost" tests/bench/malloc_cost.c || exit 2
mkdir -p "$tmp/plus8"
cp -R Makefile src "$tmp/plus8/"
sed -i 's/return round_up(size, align);/return round_up(size + 8, align);/' "$tmp/plus8/src/measure/pool.c"
grep -q 'round_up(size + 8, align)' "$tmp/plus8/src/measure/pool.c" ||
	{ echo "gate-rates: pool_stride() in src/measure/pool.c no longer reads as this script expects" >&2; exit 2; }
make -s -C "$tmp/plus8" CHILD32=0 allocbench >"$tmp/plus8.log" 2>&1 ||
	{ tail -n 5 "$tmp/plus8.log"; exit 2; }

sh -c 'while :; do :; done' &
busy=$!

# malloc_cost SIZE [SPIN]: ns per malloc, warm, as the churn workload calls it.
cost() {
	n=$(awk -v t="$total" -v s="$1" 'BEGIN { m = t ~ /K/ ? 1024 : t ~ /M/ ? 1048576 : 1; print int(t * m / s) }')
	LD_PRELOAD="$tmp/libslow_malloc.so" ALLOCBENCH_SLOW_SPIN=${2:-0} "$tmp/malloc_cost" "$1" "$n" 50
}
# The spin that adds 20% to a malloc of the recipe's sizes: a few iterations
# hide in the call's own work, so the spin is searched for, not computed.
# percent SPIN: what it adds, the median of 5 pairs with and without it
# (interleaved) per size, averaged over the sizes; per size in $tmp/side.
percent() {
	: >"$tmp/side"
	for s in $sizes; do
		: >"$tmp/ratio"; : >"$tmp/b"; : >"$tmp/w"
		for i in 1 2 3 4 5; do
			b=$(cost "$s"); w=$(cost "$s" "$1")
			echo "$b" >>"$tmp/b"; echo "$w" >>"$tmp/w"
			awk -v b="$b" -v w="$w" 'BEGIN { print (w / b - 1) * 100 }' >>"$tmp/ratio"
		done
		echo "$s $(median <"$tmp/b") $(median <"$tmp/w") $(median <"$tmp/ratio")" >>"$tmp/side"
	done
	awk '{ t += $4 } END { printf "%.1f", t / NR }' "$tmp/side"
}
spin=4
for i in 1 2 3 4 5; do
	p=$(percent "$spin")
	echo "calibration: spin $spin adds $p%"
	next=$(awk -v k="$spin" -v p="$p" 'BEGIN { if (p >= 17 && p <= 23) { print k; exit }
		n = int(k * 20 / (p < 2 ? 2 : p) + 0.5); if (n > 4 * k) n = 4 * k; print n < 1 ? 1 : n }')
	[ "$next" = "$spin" ] && break
	spin=$next
done
# The side measurement, per size, of the spin chosen.
percent "$spin" >/dev/null
while read -r s b w p; do
	printf 'side measurement, malloc %s B: %.2f ns, %.2f ns with the preload spinning %s: %+.1f%% (median of 5 pairs; aim about +20%%)\n' \
		"$s" "$b" "$w" "$spin" "$p"
done <"$tmp/side"

# A checkout as the job has it: data/baseline.json, ./base/allocbench (the
# base branch's build: this one, copied), ./allocbench and the allocbench
# on PATH (the change: VARIANT).
mkdir -p "$tmp/job/data" "$tmp/job/base" "$tmp/bin"
cp data/baseline.json "$tmp/job/data/"
cp allocbench "$tmp/job/base/allocbench"
cp allocbench "$tmp/unchanged"
# The change slowed: its runs get the preload, its ab does not, for ab runs
# ./base/allocbench too, which would inherit LD_PRELOAD and be slowed alike.
cat >"$tmp/slow" <<EOF
#!/bin/sh
[ "\$1" = ab ] && exec $top/allocbench "\$@"
LD_PRELOAD=$tmp/libslow_malloc.so ALLOCBENCH_SLOW_SPIN=$spin exec $top/allocbench "\$@"
EOF
chmod +x "$tmp/slow"
variant() {
	rm -f "$tmp/job/allocbench" "$tmp/bin/allocbench"
	ln -s "$1" "$tmp/job/allocbench"
	ln -s "$1" "$tmp/bin/allocbench"
}
step() {
	[ "$1" = measure ] && rm -f "$tmp/job/current.json" "$tmp/job/comparison.md"
	(cd "$tmp/job" && PATH="$tmp/bin:$PATH" GITHUB_STEP_SUMMARY="$tmp/summary.md" sh "$tmp/$1.sh") >"$tmp/$1.log" 2>&1
}

alarms=0; worst=0
variant "$tmp/unchanged"
for i in $(seq 1 "$runs"); do
	start=$(now)
	step measure; m=$?
	t0=$(since "$start")
	step compare; c=$?
	start=$(now)
	step time; t=$?
	wall=$(awk -v a="$t0" -v b="$(since "$start")" 'BEGIN { printf "%.1f", a + b }')
	worst=$(awk -v a="$worst" -v b="$wall" 'BEGIN { print (b > a ? b : a) }')
	if [ $m -ne 0 ] || [ $c -ne 0 ] || [ $t -ne 0 ]; then
		alarms=$((alarms + 1))
		echo "(a) run $i: FALSE ALARM (measure $m, compare $c, time $t), ${wall} s:"
		grep -E 'regressed|slower$' "$tmp/compare.log" "$tmp/time.log" | sed 's/^/    /'
	else
		echo "(a) run $i: passed, ${wall} s measuring"
	fi
done

caught=0
variant "$tmp/slow"
for i in $(seq 1 "$runs"); do
	step time; t=$?
	if [ $t -eq 1 ] && grep -Eq '^malloc .* slower$' "$tmp/time.log"; then
		caught=$((caught + 1))
		echo "(b) run $i: caught: $(grep -E '^malloc .* slower$' "$tmp/time.log" | awk '{ printf "%s%s %s B %s %s", (NR > 1 ? "; " : ""), $1, $2, $4, $6 }')"
	else
		echo "(b) run $i: MISSED (exit $t): $(grep -E '^malloc [0-9]+ B +churn ns' "$tmp/time.log" | awk '{ printf "%s%s %s B %s", (NR > 1 ? "; " : ""), $1, $2, $6 }')"
	fi
done

bytes=0
variant "$tmp/plus8/allocbench"
for i in $(seq 1 "$runs"); do
	step measure && step compare; c=$?
	if [ $c -eq 1 ] && grep -q '^regressed: .*pool' "$tmp/compare.log"; then
		bytes=$((bytes + 1))
		echo "(c) run $i: caught: $(grep '^regressed:' "$tmp/compare.log")"
	else
		echo "(c) run $i: MISSED (exit $c)"
	fi
done

echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
printf 'false alarms, unchanged build: %s of %s  (target <= 1 in 20: %s)\n' "$alarms" "$runs" \
	"$(verdict "$((alarms * 20))" "$runs" '<=')"
printf 'malloc +20%% caught on the malloc rows: %s of %s  (target >= 19 in 20: %s)\n' "$caught" "$runs" \
	"$(verdict "$((caught * 20))" "$((runs * 19))" '>=')"
printf 'pool +8 B per chunk caught: %s of %s  (target >= 19 in 20: %s)\n' "$bytes" "$runs" \
	"$(verdict "$((bytes * 20))" "$((runs * 19))" '>=')"
printf "the recipe's measuring (Measure and Time), slowest of (a): %s s  (target <= 180 s: %s)\n" "$worst" \
	"$(verdict "$worst" 180 '<=')"
