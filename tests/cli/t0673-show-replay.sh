#!/bin/sh
# Issue 26: show of a replay report prints what the run printed: the trace,
# its calls, threads and peak live bytes in the header, the peak-live column
# (main printed "replay: (null), 0 calls of 0 threads" and a column of 0).
. "$(dirname "$0")/lib.sh"

tables() { awk 'started || /^allocbench [0-9]/ { started = 1; print }' "$1"; }

need_trace "show of a replay"
"$AB" report "$tmp/th.trace" -f json >"$tmp/report.json"
calls=$(jq_get "$tmp/report.json" calls.total)
peak=$(jq_get "$tmp/report.json" peak_live_bytes)
run_ab --workload replay --trace "$tmp/th.trace" --backend malloc,arena --repeat 1 -q \
	--export-json "$tmp/r.json" --export-markdown "$tmp/r.md" --export-csv "$tmp/r.csv"
cp "$tmp/out" "$tmp/r.txt"
run_ab show "$tmp/r.json"
tables "$tmp/out" >"$tmp/shown"
tr '\n' ' ' <"$tmp/shown" | tr -s ' ' >"$tmp/joined"
check "show names the trace, its calls and peak live bytes" \
	grep -q "replay: $tmp/th.trace, $calls calls of [1-9][0-9]* threads, .* peak live $peak bytes" "$tmp/joined"
kib=$(awk -v p="$peak" 'BEGIN { printf "%.0f", p / 1024 }')
check "show's peak live column, after peak RSS and set-up, is the trace's ($kib KiB)" \
	grep -Eq "^malloc +[0-9]+ +[0-9.]+ +[0-9]+ +[0-9]+ +$kib " "$tmp/shown"
check "show prints the text the run printed" cmp -s "$tmp/shown" "$tmp/r.txt"
run_ab show --format markdown "$tmp/r.json"
check "show --format markdown is the run's Markdown" cmp -s "$tmp/out" "$tmp/r.md"
run_ab show --format csv "$tmp/r.json"
check "show --format csv is the run's CSV" cmp -s "$tmp/out" "$tmp/r.csv"
test_done
