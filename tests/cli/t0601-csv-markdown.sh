#!/bin/sh
# --format csv and --format markdown: a header, one line per result, the same
# number of fields on every line, units in the column names; -o works.
# check: host
. "$(dirname "$0")/lib.sh"

# csv_fields FILE: the number of fields of each line, RFC 4180 quoting
# understood (a quoted field may hold commas and doubled quotes).
csv_fields() {
	awk '{
		n = 1; q = 0
		for (i = 1; i <= length($0); i++) {
			c = substr($0, i, 1)
			if (c == "\"") q = !q
			else if (c == "," && !q) n++
		}
		print n
	}' "$1"
}

run_ab --sizes 4,40,4000 --total 1M --repeat 2 -q -f csv -o "$tmp/r.csv"
check "csv run exits 0" [ "$rc" -eq 0 ]
check "csv -o leaves stdout empty" [ ! -s "$tmp/out" ]
c=$tmp/r.csv
head=$(head -n 1 "$c")
check "csv header starts with the row's identity" \
	sh -c "echo '$head' | grep -q '^workload,backend,size_bytes,count,align_bytes,status,resolution_bytes,'"
for col in overhead_bytes_median overhead_bytes_min overhead_bytes_max alloc_ns_median alloc_ns_min \
	alloc_ns_max free_ns_median page_faults_median free_page_faults_max x_floor_median \
	warm_alloc_ns_median warm_free_ns_max warm_page_faults_min \
	rss_before_bytes rss_after_bytes reserved_bytes; do
	check "csv has column $col" sh -c "echo '$head' | tr , '\n' | grep -qx $col"
done
check "csv last column is error" sh -c "echo '$head' | grep -q ',error\$'"
check "csv has a header and one line per result" [ "$(wc -l <"$c")" -eq 13 ]
ncol=$(echo "$head" | awk -F, '{ print NF }')
# 7 identity columns, 9 fill metrics x (median, min, max), 4 parts of the
# malloc family's overhead x (median, min, max), the allocator, 3 RSS
# columns, error.
check "csv header has 60 columns" [ "$ncol" -eq 60 ]
check "csv has no column of another workload" sh -c "! echo '$head' | grep -Eq 'churn|op_ns|ops_per_s'"
check "every csv line has the header's column count" [ "$(csv_fields "$c" | sort -u)" = "$ncol" ]
check "csv lines end with LF only" [ "$(tr -cd '\r' <"$c" | wc -c)" -eq 0 ]
col() { echo "$head" | tr , '\n' | grep -nx "$1" | cut -d: -f1; }
row() { grep "^fill,$1,$2," "$c"; }
field() { row "$1" "$2" | cut -d, -f"$(col "$3")"; }
for b in malloc pool pool-locked arena; do
	for s in 4 40 4000; do
		check "csv $b $s status ok" [ "$(field $b $s status)" = ok ]
		check "csv $b $s count = total / size" [ "$(field $b $s count)" = $((1048576 / s)) ]
		check "csv $b $s min <= median <= max" sh -c "awk -v a=$(field $b $s alloc_ns_min) \
			-v b=$(field $b $s alloc_ns_median) -v c=$(field $b $s alloc_ns_max) 'BEGIN{exit !(a<=b && b<=c)}'"
	done
done
# (AddressSanitizer's shadow memory adds pages, as in t0004.)
check_if RSS_EXACT,THP_NOT_ALWAYS "csv pool 40 overhead within the resolution" \
	le "$(field pool 40 overhead_bytes_median)" "$(field pool 40 resolution_bytes)"
check "csv ok rows have an empty error" [ -z "$(field pool 40 error)" ]
# The split of the overhead and the allocator that served malloc, as the
# text's second table gives them: for the malloc family only.
for col in usable_bytes_median slack_bytes_min metadata_bytes_max marginal_metadata_bytes_median allocator; do
	check "csv has column $col" sh -c "echo '$head' | tr , '\n' | grep -qx $col"
done
check "csv pool has no usable size" [ -z "$(field pool 40 usable_bytes_median)" ]
check "csv pool has no allocator" [ -z "$(field pool 40 allocator)" ]
check "csv malloc slack = usable - size" \
	[ "$(awk -v u="$(field malloc 40 usable_bytes_median)" 'BEGIN { print u - 40 }')" = "$(field malloc 40 slack_bytes_median)" ]
check "csv malloc names its allocator" [ -n "$(field malloc 40 allocator)" ]
check_if GLIBC_MALLOC "csv malloc 4: glibc's 24-byte chunk, 20 B of slack" \
	sh -c "[ '$(field malloc 4 usable_bytes_median)' = 24 ] && [ '$(field malloc 4 slack_bytes_median)' = 20 ]"
check_if GLIBC_MALLOC "csv malloc's allocator is glibc and its version" \
	sh -c "echo '$(field malloc 4 allocator)' | grep -Eq '^glibc [0-9]+\.[0-9]+'"

# A failed measurement (the arena out of memory, by the fault hook): empty
# figures, the reason in the last column.
ALLOCBENCH_TEST_FAULT=nomem:arena "$AB" --sizes 4096 --total 1M --backend arena --repeat 1 -q -f csv \
	>"$tmp/f.csv" 2>"$tmp/err"
check "csv run with a failure exits 1" [ $? -eq 1 ]
check "csv failed row says failed" [ "$(cut -d, -f6 "$tmp/f.csv" | tail -n 1)" = failed ]
check "csv failed row keeps the column count" [ "$(csv_fields "$tmp/f.csv" | sort -u)" = 60 ]
check "csv failed row says why" grep -Eq ",,,,cannot map the arena's region of [0-9]+ bytes\$" "$tmp/f.csv"

run_ab --sizes 4,40 --total 1M --repeat 1 -q -f markdown
check "markdown run exits 0" [ "$rc" -eq 0 ]
m=$tmp/out
check "markdown names the run" grep -q '^\*\*allocbench [0-9.]*\*\*: fill, 1 MiB per measurement, touch pages' "$m"
check "markdown table heading" grep -q '^| backend | size (B) | count | total (KiB) | overhead (B/chunk) | marginal (B/chunk) | one-time (B) | linearity (B) | alloc (ns) | free (ns) | page faults | x floor | warm (ns) |$' "$m"
check "markdown alignment row" grep -q '^|:--|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|$' "$m"
# The first table: the lines from its heading to the first blank line.
awk '/^\| backend \| size \(B\) \| count/ { on = 1 } on && /^$/ { exit } on' "$m" >"$tmp/first.md"
check "markdown has one table line per result" [ "$(grep -Ec '^\| (malloc|pool|pool-locked|arena) \| (4|40) \| ' "$tmp/first.md")" -eq 8 ]
check "every markdown table line has 14 pipes" \
	[ "$(awk -F'|' '{ print NF - 1 }' "$tmp/first.md" | sort -u)" = 14 ]
# The second table: where malloc's overhead goes, and who served malloc.
check "markdown has the slack table's heading" \
	grep -q '^| backend | size (B) | usable (B) | slack (B) | metadata (B) | marginal metadata (B) | allocator |$' "$m"
awk '/^\| backend \| size \(B\) \| usable/ { on = 1 } on && /^$/ { exit } on' "$m" >"$tmp/slack.md"
check "markdown's slack table: one line per malloc row" \
	[ "$(grep -Ec '^\| malloc \| (4|40) \| [0-9.]+ \| [0-9.]+ \| -?[0-9.]+(\\\*)? \| -?[0-9.]+ \| [^|]+ \|$' "$tmp/slack.md")" -eq 2 ]
check "markdown's slack table: no line for pool" sh -c "! grep -q '^| pool' '$tmp/slack.md'"
check_if GLIBC_MALLOC "markdown's slack table names glibc" grep -Eq '^\| malloc \| 4 \| 24\.00 \| 20\.00 \| .* \| glibc [0-9.]+ \|$' "$m"
check "markdown table is preceded by a blank line" sh -c "grep -B1 '^| backend' '$m' | head -n 1 | grep -q '^\$'"
check_if GLIBC_MALLOC "markdown malloc 4 overhead is 28 B" grep -Eq '^\| malloc \| 4 \| 262144 \| [0-9]+ \| 28\.[0-9]+ \|' "$m"
check "markdown ends with the floor" grep -q '^Floor (this loop filling one fresh mapping, no allocator), ns per chunk: 4 B [0-9.]*, 40 B [0-9.]*\.$' "$m"

run_ab --sizes 4 --backend pool --total 1M --repeat 1 -q -f markdown -o "$tmp/r.md"
check "markdown -o writes the file" grep -q '^| pool | 4 |' "$tmp/r.md"
check "markdown without the malloc family has no slack table" sh -c "! grep -q 'usable (B)' '$tmp/r.md'"
expect_usage "unknown format lists csv and markdown" "invalid --format 'xml'.*text, json, csv or markdown" --format xml

test_done
