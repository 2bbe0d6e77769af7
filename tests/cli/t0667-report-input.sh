#!/bin/sh
# The one reader of JSON reports on hostile or unusual input (issue 45):
# text after the report, keys given twice, a figure of the wrong type, a
# directory entry that is not a regular file, a history of reports that
# differ in what they measured. Each is refused or said, never passed
# over in silence, whichever command reads the report.
. "$(dirname "$0")/lib.sh"

run_ab --sizes 4,40 --backend malloc,pool --total 1M --repeat 2 -q -f json -o "$tmp/b.json"
check "the report the cases are made of" [ "$rc" -eq 0 ]
b=$tmp/b.json
len=$(wc -c <"$b")

# Text after the document: one report per file.
cat "$b" "$b" >"$tmp/two.json"
expect_usage "compare: two reports in one file" \
	"'$tmp/two.json': text after the report at byte $len " compare "$b" "$tmp/two.json"
expect_usage "show: two reports in one file" "'$tmp/two.json': text after the report" \
	show "$tmp/two.json"
{ cat "$b"; printf 'x'; } >"$tmp/x.json"
expect_usage "compare: a stray byte after the report" \
	"'$tmp/x.json': text after the report at byte $len " compare "$tmp/x.json" "$b"
expect_usage "plot: a stray byte after the report" "'$tmp/x.json': text after the report" \
	plot -o "$tmp/p.svg" "$tmp/x.json"
{ cat "$b"; printf '\n \t\r\n'; } >"$tmp/ws.json"
run_ab compare "$b" "$tmp/ws.json"
check "white space after the report is fine" [ "$rc" -eq 0 ]

# A key given twice: cJSON would read the first and drop the other.
sed '0,/"schema":/s//"results": [], "schema":/' "$b" >"$tmp/dupresults.json"
expect_usage "compare: a top-level key given twice" \
	"'$tmp/dupresults.json': duplicate key \"results\" in the top level" \
	compare "$b" "$tmp/dupresults.json"
awk '/"results":/ { rows = 1 }
     rows && /"alloc_ns":/ && !done { sub(/"alloc_ns":/, "\"alloc_ns\": 1, \"alloc_ns\":"); done = 1 } 1' \
	"$b" >"$tmp/dupalloc.json"
expect_usage "show: a figure given twice in a row" \
	"'$tmp/dupalloc.json': duplicate key \"alloc_ns\" in results\[0\]" show "$tmp/dupalloc.json"
# An object of 100000 keys, one of them twice: found (sorted, not pairwise).
{
	awk 'BEGIN { printf "{\"extra\": {\"k\": 1"; for (i = 0; i < 100000; i++)
		printf ", \"k%d\": %d", i, i; print ", \"k77777\": 0}," }'
	tail -n +2 "$b"
} >"$tmp/many.json"
expect_usage "compare: one key twice among 100000" \
	"'$tmp/many.json': duplicate key \"k77777\" in extra" compare "$tmp/many.json" "$b"

test_done
