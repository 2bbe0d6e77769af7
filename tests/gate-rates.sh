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
# and the recipe's measuring time (Measure and Time) in (a): at most 3 min;
#
#   (d) allocbench history on three series of 30 reports measured back to
#       back: churn on malloc at the Time step's first size, with a preload
#       from the 16th report on that adds about 10% to that figure
#       (calibrated here on it),
#       the fill on the pool with the 8-byte larger pool from the 16th, and
#       churn with nothing changed: named when the first two step at their
#       16th report and nowhere else, and the third steps nowhere. The time
#       series are of ab comparisons (each report's variant against the
#       one before, 16 pairs), as the CI job's Time step makes them; the
#       bytes series of run's reports, as its Measure step does.
#
#   sh tests/gate-rates.sh [RUNS [PARTS]]    (PARTS: some of abcd; default all)
set -u
LC_ALL=C
export LC_ALL
cd "$(dirname "$0")/.." || exit 2
top=$PWD
runs=${1:-20}
parts=${2:-abcd}
JSONQ=${JSONQ:-build/default/tests/tools/jsonq}
part() { case $parts in *"$1"*) return 0;; esac; return 1; }
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

echo "allocbench gate-rates on $(uname -n), $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%M:%SZ), $runs runs each of $parts"
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
# calibrate PERCENT MEASURE: the spin that adds PERCENT (within 15% of it)
# by MEASURE SPIN, searched from 4, each try said; into $spin.
calibrate() {
	spin=4
	for i in 1 2 3 4 5; do
		p=$($2 "$spin")
		echo "calibration: spin $spin adds $p% (aim $1%)"
		next=$(awk -v k="$spin" -v p="$p" -v a="$1" 'BEGIN { if (p >= a * 0.85 && p <= a * 1.15) { print k; exit }
			n = int(k * a / (p < 2 ? 2 : p) + 0.5); if (n > 4 * k) n = 4 * k; print n < 1 ? 1 : n }')
		[ "$next" = "$spin" ] && break
		spin=$next
	done
}
if part b; then
	calibrate 20 percent
	# The side measurement, per size, of the spin chosen.
	percent "$spin" >/dev/null
	while read -r s b w p; do
		printf 'side measurement, malloc %s B: %.2f ns, %.2f ns with the preload spinning %s: %+.1f%% (median of 5 pairs; aim about +20%%)\n' \
			"$s" "$b" "$w" "$spin" "$p"
	done <"$tmp/side"
fi

# A checkout as the job has it: data/baseline.json, ./base/allocbench (the
# base branch's build: this one, copied), ./allocbench and the allocbench
# on PATH (the change: VARIANT).
mkdir -p "$tmp/job/data" "$tmp/job/base" "$tmp/bin"
cp data/baseline.json "$tmp/job/data/"
cp allocbench "$tmp/job/base/allocbench"
cp allocbench "$tmp/unchanged"
# wrapper SPIN FILE: the change slowed, an allocbench at FILE whose runs get
# the preload spinning SPIN; its ab does not, for ab runs ./base/allocbench
# too, which would inherit LD_PRELOAD and be slowed alike.
wrapper() {
	cat >"$2" <<EOF
#!/bin/sh
[ "\$1" = ab ] && exec $top/allocbench "\$@"
LD_PRELOAD=$tmp/libslow_malloc.so ALLOCBENCH_SLOW_SPIN=$1 exec $top/allocbench "\$@"
EOF
	chmod +x "$2"
}
wrapper "$spin" "$tmp/slow"
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
part a && for i in $(seq 1 "$runs"); do
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
part b && for i in $(seq 1 "$runs"); do
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
part c && for i in $(seq 1 "$runs"); do
	step measure && step compare; c=$?
	if [ $c -eq 1 ] && grep -q '^regressed: .*pool' "$tmp/compare.log"; then
		bytes=$((bytes + 1))
		echo "(c) run $i: caught: $(grep '^regressed:' "$tmp/compare.log")"
	else
		echo "(c) run $i: MISSED (exit $c)"
	fi
done

# (d) The series, of one time figure: churn on malloc at the Time step's
# first size (DSIZE). churn_pct SPIN: what SPIN adds to the figure, the
# median ratio of 8 ab pairs (interleaved runs, as the series measures it).
dsize=${sizes%% *}
churn_pct() {
	wrapper "$1" "$tmp/slowcal"
	./allocbench ab ./allocbench "$tmp/slowcal" --pairs 8 -f json -o "$tmp/cal.json" \
		-- --workload churn --backend malloc --sizes "$dsize" --total "$total"
	[ $? -le 1 ] || return 1
	"$JSONQ" "$tmp/cal.json" 'series[figure=churn_ns].slowdown.median' | awk '{ printf "%.1f", ($1 - 1) * 100 }'
}
# series NAME: runs 30 reports into $tmp/NAME/ with step N (1 to 30) as
# "$@" N; prints the history's steps (lines with "stepped").
series() {
	name=$1; shift
	mkdir -p "$tmp/$name"
	for n in $(seq 1 30); do
		"$@" "$n" "$tmp/$name/r$(printf %02d "$n").json" || return 1
	done
	./allocbench history $hmetric "$tmp/$name" >"$tmp/$name.txt" || return 1
	grep stepped "$tmp/$name.txt"
}
# link OLD NEW N OUT: the Nth report of a time series, an ab comparison of
# the variant of N (NEW) with that of N - 1 (OLD) on the figure,
# as the CI job's Time step measures each change (exit 1, slower, is data).
link() {
	./allocbench ab "$1" "$2" --pairs 16 --max-time 5 --label "r$(printf %02d "$3")" -f json -o "$4" \
		-- --workload churn --backend malloc --sizes "$dsize" --total "$total"
	[ $? -le 1 ]
}
slow10() {
	old=./allocbench; new=./allocbench
	[ "$1" -ge 16 ] && new=$tmp/slow10
	[ "$1" -ge 17 ] && old=$tmp/slow10
	link "$old" "$new" "$@"
}
plain() { link ./allocbench ./allocbench "$@"; }
pool8() {
	exe=./allocbench
	[ "$1" -ge 16 ] && exe=$tmp/plus8/allocbench
	"$exe" --backend pool --sizes 40 --total "$total" --repeat 1 -q -f json -o "$2" \
		--label "$(basename "$2" .json)"
}
# named FILE ROWS: FILE has a line per row, ROWS of them, each naming the
# 16th report and no other.
named() {
	[ "$(wc -l <"$1")" -eq "$2" ] &&
		awk '{ if (gsub(/stepped/, "&") != 1 || $0 !~ / at #16 /) bad = 1 } END { exit bad }' "$1"
}
hist_time=-; hist_bytes=-; hist_none=-
if part d; then
	calibrate 10 churn_pct
	wrapper "$spin" "$tmp/slow10"
	hmetric="--metric churn_ns"
	series time slow10 >"$tmp/d.time"; echo "(d) time series, preload from #16:"; sed 's/^/    /' "$tmp/d.time"
	named "$tmp/d.time" 1 && hist_time=named || hist_time=MISSED
	series none plain >"$tmp/d.none"; echo "(d) time series, nothing changed:"; sed 's/^/    /' "$tmp/d.none"
	[ -s "$tmp/d.none" ] && hist_none=MISSED || hist_none=met
	hmetric="--metric overhead_bytes"
	series bytes pool8 >"$tmp/d.bytes"; echo "(d) bytes series, pool +8 B from #16:"; sed 's/^/    /' "$tmp/d.bytes"
	named "$tmp/d.bytes" 1 && hist_bytes=named || hist_bytes=MISSED
fi

echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
part a && printf 'false alarms, unchanged build: %s of %s  (target <= 1 in 20: %s)\n' "$alarms" "$runs" \
	"$(verdict "$((alarms * 20))" "$runs" '<=')"
part b && printf 'malloc +20%% caught on the malloc rows: %s of %s  (target >= 19 in 20: %s)\n' "$caught" "$runs" \
	"$(verdict "$((caught * 20))" "$((runs * 19))" '>=')"
part c && printf 'pool +8 B per chunk caught: %s of %s  (target >= 19 in 20: %s)\n' "$bytes" "$runs" \
	"$(verdict "$((bytes * 20))" "$((runs * 19))" '>=')"
part a && printf "the recipe's measuring (Measure and Time), slowest of (a): %s s  (target <= 180 s: %s)\n" "$worst" \
	"$(verdict "$worst" 180 '<=')"
part d && printf 'history, 30 reports: +%s%% churn from #16: %s; +8 B pool from #16: %s; no change, no step: %s\n' \
	"10" "$hist_time" "$hist_bytes" "$hist_none"
exit 0
