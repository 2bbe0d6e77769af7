#!/bin/sh
# show and compare believe nothing of a saved report: rows deleted,
# reordered, repeated, renamed, results emptied are refused with the file
# and the field named, or shown as the grid they make; never read out of
# bounds (the sanitizer build runs this too). A replay's thread mode and
# trace must match for compare. Then 200 random damaged copies (a fixed
# seed) through show and compare: no crash, no sanitizer report.
. "$(dirname "$0")/lib.sh"

JSONMUTATE=$ABBUILD/tests/tools/jsonmutate

# tables FILE: show's output without the line naming the report.
tables() { awk 'started || /^allocbench [0-9]/ { started = 1; print }' "$1"; }
# clean: no sanitizer report in $tmp/err.
clean() { ! grep -Eq 'Sanitizer|runtime error' "$tmp/err"; }
# refused NAME PATTERN FILE: show FILE exits 2 naming FILE and PATTERN, cleanly.
refused() {
	run_ab show "$3"
	check "$1: show exits 2" [ "$rc" -eq 2 ]
	check "$1: the message names the file and the field" \
		grep -Eq "'$3': .*$2" "$tmp/err"
	check "$1: no sanitizer report" clean
}

r=$tmp/r.json
"$AB" --sizes 40,400 --backend malloc,pool,arena --total 256K --repeat 2 -q \
	-f json -o "$r" 2>/dev/null
run_ab show "$r"
tables "$tmp/out" >"$tmp/r.txt"
check "the report shows" [ "$rc" -eq 0 -a -s "$tmp/r.txt" ]

doctor "$r" 'results[0]' delete "$tmp/deleted.json"
refused "a row deleted" "results has no row for backend 'malloc' at size 40" "$tmp/deleted.json"
doctor "$r" results '=[]' "$tmp/empty.json"
refused "results empty" "results is empty" "$tmp/empty.json"
doctor "$r" 'results[1].backend' '="jemalloc"' "$tmp/renamed.json"
refused "a row's backend renamed" "results\[1\]\.backend 'jemalloc' is not in config.backends" \
	"$tmp/renamed.json"
doctor "$r" 'config.backends[1]' delete "$tmp/unnamed.json"
refused "a backend left out of config.backends" "results\[1\]\.backend 'pool' is not in config.backends" \
	"$tmp/unnamed.json"
doctor "$r" 'results[2]' "=$(jq_get "$r" 'results[0]')" "$tmp/repeated.json"
refused "a row repeated" "results\[2\] repeats results\[0\] \(backend 'malloc', size 40\)" \
	"$tmp/repeated.json"
doctor "$r" 'results[4].size' '=4000' "$tmp/resized.json"
refused "a row's size not in config.sizes" "results\[4\]\.size 4000 is not in config.sizes" \
	"$tmp/resized.json"
doctor "$r" 'config.sizes[1]' delete "$tmp/nosize.json"
refused "a size left out of config.sizes" "results\[3\]\.size 400 is not in config.sizes" \
	"$tmp/nosize.json"
doctor "$r" 'config.backends[2]' '="pool"' "$tmp/twice.json"
refused "config.backends naming one twice" "config.backends names 'pool' twice" "$tmp/twice.json"

# Reordered rows: the same tables, each row where its backend and size put it.
doctor "$r" 'results[0]' "=$(jq_get "$r" 'results[5]')" "$tmp/half.json"
doctor "$tmp/half.json" 'results[5]' "=$(jq_get "$r" 'results[0]')" "$tmp/swapped.json"
run_ab show "$tmp/swapped.json"
tables "$tmp/out" >"$tmp/swapped.txt"
check "rows reordered: show exits 0" [ "$rc" -eq 0 ]
check "rows reordered: the same tables and verdict" cmp -s "$tmp/swapped.txt" "$tmp/r.txt"
check "rows reordered: no sanitizer report" clean
# A row of a backend named consistently elsewhere too: still one grid.
doctor "$r" 'config.backends' delete "$tmp/nobackends.json"
run_ab show "$tmp/nobackends.json"
tables "$tmp/out" >"$tmp/nobackends.txt"
check "no config.backends: the rows' names, in their order" cmp -s "$tmp/nobackends.txt" "$tmp/r.txt"

# compare: the damaged reports either way round, without crashing.
for f in deleted empty renamed unnamed repeated resized nosize twice swapped; do
	run_ab compare "$r" "$tmp/$f.json"
	a=$rc
	run_ab compare "$tmp/$f.json" "$r"
	check "compare with '$f' either way: no crash, no sanitizer report" \
		[ "$a" -lt 128 -a "$rc" -lt 128 ] && clean
done
run_ab compare "$r" "$tmp/swapped.json"
check "compare of reordered rows: no regression" [ "$rc" -eq 0 ]
run_ab compare "$r" "$tmp/deleted.json"
check "compare with a row deleted: the row is missing" \
	[ "$rc" -eq 1 ] && grep -q "1 missing" "$tmp/out"

# ---- a replay's thread mode and trace ----
test_lazy_prereq REPLAY 'test_have_prereq NOASAN || { echo "$prereq_why"; exit 1; }; record_trace "$tmp/th.trace" || { echo "cannot record $THREADS"; exit 1; }'
if test_have_prereq REPLAY; then
	for mode in global per-thread; do
		"$AB" --workload replay --trace "$tmp/th.trace" --replay-threads $mode \
			--backend malloc --repeat 1 -q -f json -o "$tmp/$mode.json" 2>/dev/null
	done
	run_ab compare "$tmp/global.json" "$tmp/per-thread.json"
	check "compare of a global and a per-thread replay: refused (2)" [ "$rc" -eq 2 ]
	check "... saying the thread mode differs" \
		grep -q "different replay thread mode (--replay-threads): global in the baseline" "$tmp/err"
	run_ab --workload replay --trace "$tmp/th.trace" --replay-threads per-thread \
		--backend malloc --repeat 1 -q --baseline "$tmp/global.json"
	check "run --baseline of the other thread mode: refused (2)" \
		[ "$rc" -eq 2 ] && grep -q "different replay thread mode" "$tmp/err"
	run_ab --workload replay --trace "$tmp/th.trace" --backend malloc --repeat 1 -q \
		--baseline "$tmp/global.json"
	check "run --baseline of the same replay: measured and compared" \
		[ "$rc" -lt 2 ] && grep -q "^result: " "$tmp/err"
	doctor "$tmp/global.json" config.replay.calls +1 "$tmp/other-trace.json"
	run_ab compare "$tmp/global.json" "$tmp/other-trace.json"
	check "compare of replays of two traces: refused (2) naming the trace" \
		[ "$rc" -eq 2 ] && grep -q "different trace (--trace)" "$tmp/err"
else
	skip "compare of replays" "$prereq_why"
fi

# ---- 200 damaged copies (seed 665) through show and compare ----
mkdir "$tmp/fuzz"
if ! "$JSONMUTATE" "$r" 665 200 "$tmp/fuzz" >"$tmp/fuzz.list"; then
	not_ok "jsonmutate wrote the damaged copies" "$JSONMUTATE failed"
else
	bad=
	formats="text csv markdown"
	i=0
	while IFS=: read -r f what; do
		i=$((i + 1))
		set -- $formats
		shift $((i % 3))
		format=${1:-text}
		"$AB" show --format "$format" "$tmp/fuzz/$f" >/dev/null 2>"$tmp/err"
		a=$?
		if [ $((i % 2)) = 0 ]; then
			"$AB" compare "$r" "$tmp/fuzz/$f" >/dev/null 2>>"$tmp/err"
		else
			"$AB" compare "$tmp/fuzz/$f" "$r" >/dev/null 2>>"$tmp/err"
		fi
		b=$?
		if [ "$a" -ge 128 ] || [ "$b" -ge 128 ] || ! clean; then
			bad="$bad $f (show $a, compare $b:$what)"
			cp "$tmp/err" "$tmp/fuzz.err"
		fi
	done <"$tmp/fuzz.list"
	check "200 damaged copies: no crash, no sanitizer report${bad:+:$bad}" [ -z "$bad" ]
	[ -z "$bad" ] || head -20 "$tmp/fuzz.err" | sed 's/^/#   /'
fi

test_done
