#!/bin/sh
# allocbench show: the tables of saved JSON reports, the same text (and
# Markdown) the run that made them printed.
. "$(dirname "$0")/lib.sh"

# tables FILE: show's output without the line (or lines) naming the report.
tables() { awk 'started || /^allocbench [0-9]/ { started = 1; print }' "$1"; }

for w in "fill --sizes 40,400 --backend malloc,pool,arena" \
	 "churn --sizes 40 --backend malloc,pool,arena" \
	 "random --sizes 24,48 --backend malloc,pool"; do
	wl=${w%% *}
	# shellcheck disable=SC2086
	run_ab --workload $w --total 1M --repeat 2 -q --label "the $wl run" \
		--export-json "$tmp/$wl.json" --export-markdown "$tmp/$wl.md" \
		--export-csv "$tmp/$wl.csv"
	cp "$tmp/out" "$tmp/$wl.txt"
	run_ab show "$tmp/$wl.json"
	check "$wl: show exits 0" [ "$rc" -eq 0 ]
	# (The line is wrapped at 80 columns: read as one.)
	tr '\n' ' ' <"$tmp/out" | tr -s ' ' >"$tmp/joined"
	check "$wl: show names the file and its command line" \
		grep -q "^report '$tmp/$wl.json', created [0-9-]*T[0-9:]*Z: allocbench --workload $wl .* --label 'the $wl run' --export-json" "$tmp/joined"
	tables "$tmp/out" >"$tmp/shown"
	check "$wl: show prints the text the run printed" cmp -s "$tmp/shown" "$tmp/$wl.txt"
	check "$wl: show keeps the label" grep -q "^label: the $wl run$" "$tmp/shown"
	run_ab show --format markdown "$tmp/$wl.json"
	check "$wl: show --format markdown is the run's Markdown" cmp -s "$tmp/out" "$tmp/$wl.md"
	run_ab show --format csv "$tmp/$wl.json"
	# The JSON keeps 15 significant digits where CSV wrote 17: the fields, not the digits.
	check "$wl: show --format csv has the run's header" \
		[ "$(head -n 1 "$tmp/out")" = "$(head -n 1 "$tmp/$wl.csv")" ]
	check "$wl: show --format csv has the run's rows" \
		[ "$(cut -d, -f1-7 "$tmp/out")" = "$(cut -d, -f1-7 "$tmp/$wl.csv")" ]
done

# A failed row (the fault hook: the arena cannot map its region) is shown as the run showed it.
ALLOCBENCH_TEST_FAULT=nomem:arena "$AB" --sizes 4,4096 --total 1M --backend malloc,arena \
	--repeat 1 -q --export-json "$tmp/f.json" >"$tmp/f.txt" 2>/dev/null
run_ab show "$tmp/f.json"
check "show of a report with a failed row exits 0" [ "$rc" -eq 0 ]
tables "$tmp/out" >"$tmp/shown"
check "show prints a failed row as the run did" cmp -s "$tmp/shown" "$tmp/f.txt"
check "the failed row says why" grep -q '^arena  *4096 .*failed: cannot map' "$tmp/shown"

# Several reports, one after the other; standard input; -o.
run_ab show "$tmp/fill.json" - <"$tmp/churn.json"
check "show of two reports exits 0" [ "$rc" -eq 0 ]
check "show of two reports names both" [ "$(grep -c '^report ' "$tmp/out")" -eq 2 ]
check "show reads standard input as '-'" grep -q "^report '-'" "$tmp/out"
run_ab show -o "$tmp/shown.txt" "$tmp/fill.json"
check "show -o writes the file" [ -s "$tmp/shown.txt" ] && check "show -o leaves stdout empty" [ ! -s "$tmp/out" ]
run_ab show --format csv "$tmp/fill.json" "$tmp/fill.json"
check "show --format csv of two reports: one header" [ "$(grep -c '^workload,' "$tmp/out")" -eq 1 ]

# The committed reports, made before the command line was recorded.
run_ab show "$top/data/baseline.json"
check "show reads the committed baseline" [ "$rc" -eq 0 ]
check "an older report says it has no command line" sh -c "tr -s ' \\n' ' ' <'$tmp/out' | grep -q '(no command line recorded)'"
check "the committed baseline's pool row: no overhead at 4 B" \
	grep -Eq '^pool +4 +1048576 +[0-9]+ +0\.00 ' "$tmp/out"

# Bad input.
expect_usage "show without a report" "show needs a JSON report" show
echo '{"not": "a report"}' >"$tmp/bad.json"
expect_usage "show of a file that is not a report names it" "'$tmp/bad.json': not an allocbench report" \
	show "$tmp/bad.json"
expect_usage "show of a missing file names it" "$tmp/missing.json" show "$tmp/fill.json" "$tmp/missing.json"
expect_usage "show --format csv of two workloads" "is a churn report after a fill one" \
	show --format csv "$tmp/fill.json" "$tmp/churn.json"
# --format json (issue 26: one list of formats for run and show): the
# document as the run wrote it, one report at a time.
run_ab show --format json "$tmp/fill.json"
check "show --format json is the run's JSON, byte for byte" cmp -s "$tmp/out" "$tmp/fill.json"
expect_usage "show --format json of two reports" "takes one report" \
	show --format json "$tmp/fill.json" "$tmp/churn.json"
expect_usage "show -o onto its input" "" show -o "$tmp/fill.json" "$tmp/fill.json"
test_done
