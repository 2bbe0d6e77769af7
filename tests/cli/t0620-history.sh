#!/bin/sh
# allocbench history: a series of reports, oldest first, and the report
# where a gated figure stepped (E-divisive means, allocbench-history(1)).
# The series are made from one real run whose figures are then set, so
# that where the step is, and that there is none elsewhere, is known.
. "$(dirname "$0")/lib.sh"

run_ab --sizes 40,400 --backend malloc,pool --total 1M --repeat 3 --counters none -q \
	-f json -o "$tmp/base.json"
check "the run that the series are made of" [ "$rc" -eq 0 ]

# set FILE PATH VALUE: one member of a report, in place.
set1() { "$JSONSET" "$1" "$2" "$3" >"$1.new" && mv "$1.new" "$1"; }
# report DIR N [STEP [BACKEND]]: report N (created on day N, label cN) in
# DIR, the overhead of BACKEND (pool) at 40 B raised by STEP bytes per chunk.
report() {
	f=$1/r$2.json
	cp "$tmp/base.json" "$f"
	set1 "$f" created "=\"2026-11-$(printf %02d "$2")T10:00:00Z\""
	set1 "$f" label "=\"c$2\""
	if [ "${3:-0}" != 0 ]; then
		for k in median min max; do
			set1 "$f" "results[backend=${4:-pool},size=40].overhead_bytes.$k" "+$3"
		done
	fi
}
mkdir "$tmp/step" "$tmp/outlier" "$tmp/few" "$tmp/malloc"
# Ten reports, the step after five (four for malloc): a permutation p near
# 2/252 (2/210), far below 0.05 whatever the shuffles.
for i in 1 2 3 4 5 6 7 8 9 10; do
	if [ "$i" -ge 6 ]; then report "$tmp/step" "$i" 8; else report "$tmp/step" "$i"; fi
	if [ "$i" -ge 5 ]; then report "$tmp/malloc" "$i" 8 malloc; else report "$tmp/malloc" "$i"; fi
	if [ "$i" = 4 ]; then report "$tmp/outlier" "$i" 8; else report "$tmp/outlier" "$i"; fi
done
for i in 1 2 3; do report "$tmp/few" "$i"; done

run_ab history "$tmp/step"
check "history of a directory exits 0" [ "$rc" -eq 0 ]
check "it lists the reports oldest first, by label" \
	sh -c 'grep -q "^  #1   2026-11-01T10:00:00Z  c1$" "$1" && grep -q "^  #10  2026-11-10T10:00:00Z  c10$" "$1"' sh "$tmp/out"
check "it names the report where pool's overhead stepped, by how much, and that it is worse" \
	grep -Eq '^  pool +40 B  [0-9.]+ -> [0-9.]+; stepped \+8\.00 B/chunk( \([+0-9.]+%\))? at #6 \(c6\), p 0\.0[0-2][0-9]* \(worse\)$' "$tmp/out"
check "no other row of overhead stepped" \
	sh -c '[ "$(grep -c "stepped" "$1")" = 1 ]' sh "$tmp/out"
check "malloc's flat overhead has no step" grep -Eq '^  malloc +40 B  ([0-9.]+) -> \1; no step$' "$tmp/out"
cp "$tmp/out" "$tmp/dir.txt"

# The files in another order: the reports' creation times order them.
run_ab history "$tmp/step/r7.json" "$tmp/step/r2.json" "$tmp/step/r5.json" "$tmp/step/r1.json" \
	"$tmp/step/r8.json" "$tmp/step/r10.json" "$tmp/step/r3.json" "$tmp/step/r6.json" \
	"$tmp/step/r9.json" "$tmp/step/r4.json"
check "files given in any order: the same history as the directory's" cmp -s "$tmp/out" "$tmp/dir.txt"

run_ab history -f json "$tmp/step"
check "JSON: exit 0 and the schema" sh -c '[ "$1" = 0 ] && [ "$("$2" "$3" schema)" = allocbench-history/1 ]' \
	sh "$rc" "$JSONQ" "$tmp/out"
s='series[figure=overhead_bytes,backend=pool,size=40]'
check "JSON: the step's report is the sixth (index 5)" [ "$(jq_get "$tmp/out" "$s.steps[0].report")" = 5 ]
check "JSON: its change is 8 bytes per chunk" near "$(jq_get "$tmp/out" "$s.steps[0].change")" 8 1e-9
check "JSON: it made the figure worse" [ "$(jq_get "$tmp/out" "$s.worse")" = true ]
check "JSON: the sixth report's name" [ "$(jq_get "$tmp/out" 'reports[5].name')" = c6 ]
check "JSON: malloc's row has no step" \
	[ "$(jq_get "$tmp/out" 'series[figure=overhead_bytes,backend=malloc,size=40].steps[0]' 2>/dev/null)" = "" ]

run_ab history --metric overhead_bytes "$tmp/outlier"
check "one report out of line is not a step" \
	sh -c '[ "$1" = 0 ] && ! grep -q stepped "$2" && grep -q "no step" "$2"' sh "$rc" "$tmp/out"
check "--metric follows that figure only" sh -c '! grep -q "^alloc" "$1"' sh "$tmp/out"

run_ab history "$tmp/few"
check "three reports are too few to tell" grep -Eq '^  pool +40 B  ([0-9.]+) -> \1; too few reports to tell$' "$tmp/out"

run_ab history --metric overhead_bytes "$tmp/malloc"
check "malloc's step of 8 bytes per chunk is found, with its percentage" \
	grep -Eq '^  malloc +40 B  [0-9.]+ -> [0-9.]+; stepped \+8\.00 B/chunk \(\+[0-9.]+%\) at #5 \(c5\)' "$tmp/out"
run_ab history --metric overhead_bytes --min-step 100000 "$tmp/malloc"
check "--min-step above it (100000%) keeps it out" sh -c '! grep -q stepped "$1"' sh "$tmp/out"

# A long series takes seconds, not minutes: beyond 128 reports each of the
# 199 shuffles of a series was searched in O(n^3), 858 s for 1000 reports.
# Here 1000 reports, pool's overhead stepping after the 500th, and the
# times and marginal bytes of every row flickering by 1 from one report to
# the next: 13 series searched (some 20 s each, before), one step. The shell
# writes them from four documents, without a run each. A hang fails.
if command -v timeout >/dev/null; then
	mkdir "$tmp/long"
	report "$tmp" 1
	report "$tmp" 2 8
	for t in 1 2; do
		cp "$tmp/r$t.json" "$tmp/r${t}x.json"
		for row in malloc,size=40 malloc,size=400 pool,size=40 pool,size=400; do
			for fig in alloc_ns free_ns marginal_bytes; do
				set1 "$tmp/r${t}x.json" "results[backend=$row].$fig" +1
			done
		done
	done
	flat1=$(cat "$tmp/r1.json") flick1=$(cat "$tmp/r1x.json")
	flat2=$(cat "$tmp/r2.json") flick2=$(cat "$tmp/r2x.json")
	i=0
	while [ "$i" -lt 1000 ]; do
		if [ "$i" -lt 500 ]; then flat=$flat1 flick=$flick1; else flat=$flat2 flick=$flick2; fi
		case $i in
		*[13579]) printf '%s\n' "$flick" >"$tmp/long/r$((1000 + i)).json" ;;
		*) printf '%s\n' "$flat" >"$tmp/long/r$((1000 + i)).json" ;;
		esac
		i=$((i + 1))
	done
	timeout -s KILL 60 "$AB" history "$tmp/long" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	check "1000 reports: exit 0 well within 60 s" [ "$rc" -eq 0 ]
	check "... pool's step is found at the 501st" \
		grep -Eq '^  pool +40 B  [0-9.]+ -> [0-9.]+; stepped \+8\.00 B/chunk.* at #501 \(c2\)' "$tmp/out"
	check "... and no other step (a flicker is none)" \
		sh -c '[ "$(grep -c "stepped" "$1")" = 1 ]' sh "$tmp/out"
	# SIGTERM or SIGINT while it reads them or searches a series ends it
	# there, by the signal, with nothing printed (it went on to the end).
	# The signal goes once it has read 1 MiB (of the reports' 20 MiB):
	# waiting to see a report's descriptor open in /proc missed every one
	# on a faster machine, and the signal came after the end.
	for s in TERM:143 INT:130; do
		"$AB" history "$tmp/long" >"$tmp/sig.out" 2>"$tmp/sig.err" &
		pid=$!
		i=0
		while [ $i -lt 500 ] && [ "$(awk '/^rchar:/ { print $2 }' /proc/$pid/io 2>/dev/null || echo 0)" -lt 1048576 ]; do
			sleep 0.01
			i=$((i + 1))
		done
		kill -${s%:*} $pid
		wait $pid
		rc=$?
		check "SIG${s%:*} while history reads 1000 reports: exit ${s#*:}, nothing printed" \
			sh -c '[ "$1" = "$2" ] && [ ! -s "$3" ] && [ ! -s "$4" ]' sh "$rc" "${s#*:}" "$tmp/sig.out" "$tmp/sig.err"
	done
else
	skip "1000 reports in seconds" "needs timeout"
fi

run_ab history -f svg -o "$tmp/h.svg" "$tmp/step"
check "svg: exit 0, a chart with the step marked" \
	sh -c '[ "$1" = 0 ] && grep -q "^<svg " "$2" && grep -q "step at c6" "$2" && tail -n 1 "$2" | grep -q "^</svg>$"' \
	sh "$rc" "$tmp/h.svg"
if command -v xmllint >/dev/null; then
	check "svg: well-formed XML" xmllint --noout "$tmp/h.svg"
else
	skip "svg: well-formed XML" "xmllint is not installed"
fi

# A report of another workload, and bad options: exit 2, naming what is wrong.
run_ab --workload churn --sizes 40 --backend malloc --total 1M --repeat 1 --rounds 2 -q \
	-f json -o "$tmp/churn.json"
expect_usage "reports of two workloads are refused, naming both" \
	"'$tmp/step/r1.json' is a fill report and '$tmp/churn.json' a churn one" \
	history "$tmp/step/r1.json" "$tmp/churn.json"
expect_usage "an unknown --metric is named" "unknown --metric 'nope'" history --metric nope "$tmp/step"
expect_usage "a figure of another workload is refused" "churn_ns is not a figure of the fill workload" \
	history --metric churn_ns "$tmp/step"
expect_usage "--alpha out of range is named" "invalid --alpha '1'" history --alpha 1 "$tmp/step"
expect_usage "--min-step that is not a number is named" "invalid --min-step 'x'" history --min-step x "$tmp/step"
expect_usage "no report at all" "history needs reports" history
expect_usage "a file that is not a report is named" "$tmp/h.svg" history "$tmp/h.svg" "$tmp/step/r1.json"
mkdir "$tmp/empty"
expect_usage "a directory without reports is named" "'$tmp/empty' holds no \*.json report" history "$tmp/empty"

test_done
