#!/bin/sh
# --export FORMAT=FILE (repeatable, one file per format, FORMAT from the
# list of report formats: text, json, csv, markdown) writes the run's
# report in FORMAT to FILE as -f FORMAT -o FILE would; --export-json,
# --export-csv and --export-markdown FILE are its aliases. A bad format is
# named, with the formats there are.
. "$(dirname "$0")/lib.sh"

quick="--sizes 64 --total 64K --repeat 1 --backend arena -q"

# shellcheck disable=SC2086
run_ab $quick -f json -o "$tmp/o.json" --export text="$tmp/e.txt" --export json="$tmp/e.json" \
	--export csv="$tmp/e.csv" --export markdown="$tmp/e.md"
check "--export of every format, exit 0" test "$rc" = 0
check "... the JSON export is the -f json report, byte for byte" cmp -s "$tmp/o.json" "$tmp/e.json"
check "... the text export is a text report" grep -q '^arena ' "$tmp/e.txt"
check "... the CSV export has its header" sh -c 'head -1 "$1" | grep -q "^workload,"' sh "$tmp/e.csv"
check "... the Markdown export is a table" grep -q '^| arena ' "$tmp/e.md"

# shellcheck disable=SC2086
run_ab $quick -f markdown -o "$tmp/o.md" --export-markdown "$tmp/a.md" --export text="$tmp/a.txt"
check "--export-markdown FILE still works beside --export" \
	sh -c '[ "$1" = 0 ] && cmp -s "$2" "$3" && [ -s "$4" ]' sh "$rc" "$tmp/o.md" "$tmp/a.md" "$tmp/a.txt"

expect_usage "an unknown format is named, with the list" \
	"invalid format 'yaml' in --export 'yaml=x.yaml' \(expected text, json, csv or markdown\)" \
	--export yaml=x.yaml
expect_usage "no '=': FORMAT=FILE expected" "invalid --export 'json' \(expected FORMAT=FILE" \
	--export json
expect_usage "an empty file name" "empty file name for --export json" --export json=
expect_usage "one format twice" "is given twice \('$tmp/1' and '$tmp/2'\)" \
	--export json="$tmp/1" --export-json "$tmp/2"
expect_usage "standard output is the --format report's" "--export text '-': standard output" \
	--export text=-
expect_usage "an export over -o" "--export csv" -o "$tmp/same" --export csv="$tmp/same"

test_done
