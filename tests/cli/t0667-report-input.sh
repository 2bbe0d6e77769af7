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

# A figure of the wrong type is refused, not read as "not measured".
doctor "$b" "results[1].marginal_bytes" '="fast"' "$tmp/str.json"
expect_usage "compare: an optional figure that is a string" \
	"'$tmp/str.json': results\[1\]\.marginal_bytes is a string \(expected a number or a statistic \{median, min, max, runs\}\)" \
	compare "$b" "$tmp/str.json"
doctor "$b" "results[2].alloc_ns" '={"fast": 1}' "$tmp/obj.json"
expect_usage "compare: a figure that is an object without a median" \
	"'$tmp/obj.json': results\[2\]\.alloc_ns is an object without a median \(expected a number" \
	compare "$tmp/obj.json" "$b"
doctor "$b" "results[0].overhead_bytes.median" '="x"' "$tmp/median.json"
expect_usage "compare: a median that is a string" \
	"'$tmp/median.json': results\[0\]\.overhead_bytes\.median is not a number" \
	compare "$b" "$tmp/median.json"
doctor "$b" "results[3].usable_bytes" '=[1, 2]' "$tmp/arr.json"
expect_usage "show: a breakdown figure that is an array" \
	"'$tmp/arr.json': results\[3\]\.usable_bytes is an array" show "$tmp/arr.json"
doctor "$b" "results[0].reserved_bytes" '=true' "$tmp/bool.json"
expect_usage "plot: a row's number that is true" "'$tmp/bool.json': results\[0\]\.reserved_bytes is true" \
	plot -o "$tmp/p.svg" "$tmp/bool.json"
doctor "$b" "floor[0].alloc_ns" '="slow"' "$tmp/floor.json"
expect_usage "show: a floor figure that is a string" "'$tmp/floor.json': floor\[0\]\.alloc_ns is a string" \
	show "$tmp/floor.json"
doctor "$b" "results[1].counters" '={"PAPI_TOT_CYC": {"alloc": "many"}}' "$tmp/ctr.json"
expect_usage "compare: a counter that is a string" \
	"'$tmp/ctr.json': results\[1\]\.counters\.PAPI_TOT_CYC\.alloc is a string" compare "$b" "$tmp/ctr.json"
# Absent or null (allocbench/1's "not measured") is no error: older reports lack figures.
doctor "$b" "results[1].marginal_bytes" delete "$tmp/absent.json"
doctor "$tmp/absent.json" "results[2].marginal_bytes" '=null' "$tmp/null.json"
run_ab compare "$b" "$tmp/null.json"
check "compare: an optional figure absent or null is not compared, exit 0" \
	sh -c '[ "$1" -eq 0 ] && grep -q "not gated" "$2"' sh "$rc" "$tmp/out"

# history DIR reads the regular *.json files only: a FIFO is skipped, named,
# never waited for (it blocked history forever). timeout: a hang fails.
mkdir "$tmp/dir"
cp "$b" "$tmp/dir/a.json"
cp "$b" "$tmp/dir/c.json"
if mkfifo "$tmp/dir/b.json" 2>/dev/null && command -v timeout >/dev/null; then
	timeout 60 "$AB" history "$tmp/dir" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	check "history DIR with a FIFO named b.json: exit 0, not a hang" [ "$rc" -eq 0 ]
	check "... a warning names the FIFO" \
		grep -q "^allocbench: warning: skipping '$tmp/dir/b.json': not a regular file$" "$tmp/err"
	check "... and the two reports make the history" grep -q "a.json" "$tmp/out"
	timeout 60 "$AB" show "$tmp/dir/b.json" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	check "show FIFO without a writer: exit 2, not a hang" \
		sh -c '[ "$1" -eq 2 ] && grep -q "empty file" "$2"' sh "$rc" "$tmp/err"
else
	skip "history DIR with a FIFO" "needs mkfifo and timeout"
fi

# A report too large to read, or one whose JSON does not fit in memory:
# said so, not "not valid JSON". (Sparse: 257 MiB of zeros, no disk.)
truncate -s 257M "$tmp/huge.json"
run_ab show "$tmp/huge.json"
check "a report above 256 MiB: exit 2, the cap named" \
	sh -c '[ "$1" = 2 ] && grep -q "larger than 256 MiB, the most a report is read in" "$2"' sh "$rc" "$tmp/err"
rm -f "$tmp/huge.json"
awk 'BEGIN { printf "{\"results\":["; for (i = 0; i < 3000000; i++) printf "{},"; printf "{}]}\n" }' \
	>"$tmp/many.json"
oom() {
	(ulimit -v 131072 && "$AB" show "$tmp/many.json") >"$tmp/out" 2>"$tmp/err"
	[ $? = 2 ] && grep -q "out of memory reading its 9000017 bytes of JSON" "$tmp/err"
}
check_if !ASAN "9 MB of JSON, 3 million objects, within ulimit -v 128 MiB: out of memory, said" oom
rm -f "$tmp/many.json"

# history says where the reports differ in what they measured, or where:
# one line per kind of difference, naming the first report that differs.
mkdir "$tmp/mixed"
for i in 1 2 3 4; do doctor "$b" created "=\"2026-11-0${i}T10:00:00Z\"" "$tmp/mixed/r$i.json"; done
doctor "$tmp/mixed/r3.json" config.total_bytes '=2097152' "$tmp/t.json"
mv "$tmp/t.json" "$tmp/mixed/r3.json"
doctor "$tmp/mixed/r4.json" config.total_bytes '=4194304' "$tmp/t.json"
doctor "$tmp/t.json" host.hostname '="elsewhere"' "$tmp/mixed/r4.json"
run_ab history "$tmp/mixed"
check "history of mixed reports: exit 0" [ "$rc" -eq 0 ]
check "... a warning names the other total and the first report with it" grep -q \
	"^allocbench: warning: different total (--total): 1048576 bytes in the oldest report '$tmp/mixed/r1.json', 2097152 bytes in '$tmp/mixed/r3.json'" \
	"$tmp/err"
check "... once: r4's other total is not said again" \
	[ "$(grep -c "different total" "$tmp/err")" -eq 1 ]
check "... and the other host" grep -q \
	"^allocbench: warning: different host name: .* in the oldest report '$tmp/mixed/r1.json', elsewhere in '$tmp/mixed/r4.json'" \
	"$tmp/err"
check "... nothing else" [ "$(wc -l <"$tmp/err")" -eq 2 ]
run_ab history "$tmp/mixed/r1.json" "$tmp/mixed/r2.json"
check "history of reports alike: not a word on standard error" \
	sh -c '[ "$1" -eq 0 ] && [ ! -s "$2" ]' sh "$rc" "$tmp/err"

test_done
