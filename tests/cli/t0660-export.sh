#!/bin/sh
# --export-json, --export-csv, --export-markdown: the --format report on
# standard output and the same measurement in other formats in files, in
# one run (as hyperfine's --export-*).
. "$(dirname "$0")/lib.sh"

run_ab --sizes 40,400 --backend malloc,pool --total 1M --repeat 2 -q \
	--export-json "$tmp/r.json" --export-csv "$tmp/r.csv" --export-markdown "$tmp/r.md"
check "a run with three exports exits 0" [ "$rc" -eq 0 ]
check "the text report is still on standard output" grep -q '^pool  *40 ' "$tmp/out"
check "--export-json writes a JSON report" [ "$(jq_get "$tmp/r.json" schema)" = allocbench/2 ]
check "--export-json has every row" [ "$(jq_get "$tmp/r.json" 'results#')" -eq 4 ]
check "--export-csv writes a header and one line per row" [ "$(wc -l <"$tmp/r.csv")" -eq 5 ]
check "--export-markdown writes a GitHub table" grep -q '^| pool | 40 |' "$tmp/r.md"
# The files hold the same measurement: a time is the same number in JSON and CSV.
json_ns=$(jq_get "$tmp/r.json" 'results[backend=malloc,size=400].alloc_ns.median')
csv_ns=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "alloc_ns_median") c = i }
	$2 == "malloc" && $3 == 400 { print $c }' "$tmp/r.csv")
check "JSON and CSV exports hold the same measurement" near "$json_ns" "$csv_ns" 1e-9
text_ns=$(awk '$1 == "malloc" && $2 == 400 { print $6; exit }' "$tmp/out")
check "the text report is the same measurement" near "$json_ns" "$text_ns" 0.51

# --format json to standard output with a CSV export.
run_ab --sizes 40 --backend pool --total 1M --repeat 1 -q -f json --export-csv "$tmp/j.csv"
check "--format json with --export-csv: JSON on standard output" \
	[ "$(jq_get "$tmp/out" schema)" = allocbench/2 ]
check "--format json with --export-csv: the CSV file" [ "$(wc -l <"$tmp/j.csv")" -eq 2 ]

# An unwritable export is refused before anything is measured.
run_ab --sizes 40 --backend pool --total 1M -q --export-json "$tmp/no/such/dir/r.json"
check "an unwritable --export-json exits 2" [ "$rc" -eq 2 ]
check "an unwritable --export-json measures nothing" [ ! -s "$tmp/out" ]
check "an unwritable --export-json names the file" grep -q "no/such/dir/r.json" "$tmp/err"

expect_usage "--export-json given twice" "--export-json is given twice" \
	--total 1M --export-json "$tmp/a.json" --export-json "$tmp/b.json"
expect_usage "one file for -o and an export" "'$tmp/a' is given to both --output and --export-csv" \
	--total 1M -o "$tmp/a" --export-csv "$tmp/a"
expect_usage "one file for two exports" "given to both --export-json and --export-markdown" \
	--total 1M --export-json "$tmp/a" --export-markdown "$tmp/a"
expect_usage "an export to standard output" "--export-csv '-'" --total 1M --export-csv -
expect_usage "an empty export file name" "empty file name for --export-markdown" \
	--total 1M --export-markdown ''

# A failed write leaves no file: /dev/full takes the export in place.
if [ -w /dev/full ]; then
	run_ab --sizes 40 --backend pool --total 1M --repeat 1 -q --export-csv /dev/full
	check "an export that cannot be written exits 1" [ "$rc" -eq 1 ]
	check "an export that cannot be written says so" grep -q "cannot write the report" "$tmp/err"
else
	skip "an export that cannot be written" "needs a writable /dev/full"
	skip "an export that cannot be written says so" "needs a writable /dev/full"
fi
test_done
