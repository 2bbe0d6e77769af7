#!/bin/sh
# Issue 26: every workload x every format x run and show. One run per
# workload writes text (stdout), JSON, CSV and Markdown; each has the
# sections of its format (the table, the verdict where two backends ran,
# the notes), and `show REPORT.json` in each format prints byte for byte
# what the run printed; compare and plot read every workload's report.
. "$(dirname "$0")/lib.sh"

# tables FILE: show's text without the line (or lines) naming the report.
tables() { awk 'started || /^allocbench [0-9]/ { started = 1; print }' "$1"; }

workloads="fill churn random threads"
if test_have_prereq NOASAN; then
	record_trace "$tmp/th.trace" || not_ok "record a trace to replay" "$(cat "$tmp/record.err")"
	workloads="$workloads replay"
else
	skip "replay x every format" "$prereq_why"
fi

for wl in $workloads; do
	case $wl in
	fill) opts="--sizes 40,400 --total 1M" ;;
	churn) opts="--sizes 40 --total 1M" ;;
	random) opts="--sizes 24,48 --total 1M" ;;
	threads) opts="--sizes 40 --threads 2 --total 1M" ;;
	replay) opts="--trace $tmp/th.trace" ;;  # the trace is the total
	esac
	# shellcheck disable=SC2086
	run_ab --workload $wl $opts --backend malloc,arena --repeat 2 -q \
		--export-json "$tmp/$wl.json" --export-csv "$tmp/$wl.csv" --export-markdown "$tmp/$wl.md"
	check "$wl: run exits 0" [ "$rc" -eq 0 ]
	cp "$tmp/out" "$tmp/$wl.text"

	# The sections of each format.
	check "$wl text: the table, a row per backend" \
		sh -c 'grep -q "^ *backend " "$1" && grep -q "^malloc " "$1" && grep -q "^arena " "$1"' sh "$tmp/$wl.text"
	check "$wl text: the notes" grep -q '^--format json gives min, max and every run$' "$tmp/$wl.text"
	check "$wl text: the verdict" grep -q '^verdict (median' "$tmp/$wl.text"
	check "$wl markdown: the table" grep -q '^| backend |' "$tmp/$wl.md"
	check "$wl markdown: the notes" grep -q '^Notes: ' "$tmp/$wl.md"
	check "$wl markdown: the verdict" grep -q '^\*\*Verdict\*\*' "$tmp/$wl.md"
	check "$wl json: the rows" [ "$(jq_get "$tmp/$wl.json" 'results#')" -ge 2 ]
	check "$wl json: the verdict" [ "$(jq_get "$tmp/$wl.json" 'summary.workload')" = "$wl" ]
	check "$wl json: the verdict judges something" [ "$(jq_get "$tmp/$wl.json" 'summary.verdicts#')" -ge 1 ]
	check "$wl csv: a header and one line per row" \
		[ "$(wc -l <"$tmp/$wl.csv")" -eq $(( $(jq_get "$tmp/$wl.json" 'results#') + 1 )) ]
	# The text and Markdown judge the same aspects.
	sed -n '/^verdict (median/,$p' "$tmp/$wl.text" | grep -Eo '^  [0-9]* ?B? ?(memory|time), [a-z -]*:' |
		sed 's/^  //' >"$tmp/a.text"
	grep -Eo '^- [0-9]* ?B? ?(memory|time), [a-z -]*:' "$tmp/$wl.md" | sed 's/^- //' >"$tmp/a.md"
	check "$wl: Markdown's verdict judges what the text's does" cmp -s "$tmp/a.text" "$tmp/a.md"

	# show, in every format, is the run's own output.
	run_ab show "$tmp/$wl.json"
	tables "$tmp/out" >"$tmp/shown"
	check "$wl: show is the run's text" cmp -s "$tmp/shown" "$tmp/$wl.text"
	for f in json csv markdown; do
		ext=$f; [ "$f" = markdown ] && ext=md
		run_ab show --format "$f" "$tmp/$wl.json"
		check "$wl: show --format $f is the run's $f" cmp -s "$tmp/out" "$tmp/$wl.$ext"
	done

	# compare and plot read every workload's report.
	run_ab compare "$tmp/$wl.json" "$tmp/$wl.json"
	check "$wl: compare reads the report (exit $rc)" [ "$rc" -eq 0 ]
	run_ab plot "$tmp/$wl.json" -o "$tmp/$wl.svg"
	check "$wl: plot draws the report (exit $rc)" test "$rc" -eq 0 -a -s "$tmp/$wl.svg"
done

# One backend: no verdict in any format, the rest as before.
run_ab --workload churn --sizes 40 --backend malloc --total 1M --repeat 1 -q \
	--export-json "$tmp/one.json" --export-markdown "$tmp/one.md"
check "one backend: no verdict in the text" sh -c "! grep -q '^verdict' '$tmp/out'"
check "one backend: no verdict in Markdown" sh -c "! grep -q 'Verdict' '$tmp/one.md'"
check "one backend: no summary in JSON" jq_absent "$tmp/one.json" summary
run_ab show --format markdown "$tmp/one.json"
check "one backend: show --format markdown is the run's" cmp -s "$tmp/out" "$tmp/one.md"
test_done
