#!/bin/sh
# Issue 26: each figure is defined once. Its JSON name appears as a string
# in src/model/figure.c and nowhere else in src/: compare, plot and the replay
# bars read the figure table too.
# check: once
. "$(dirname "$0")/lib.sh"

src=$top/src
names=$(sed -n 's/^[[:space:]]*\.name = "\([a-z0-9_]*\)".*/\1/p' "$src/model/figure.c")
check "figure.c defines the figures" [ "$(echo "$names" | wc -l)" -ge 20 ]
for n in $names; do
	where=$(grep -rl --include='*.c' --include='*.h' "\"$n\"" "$src" |
		grep -v -e '/figure\.c$' |
		sed "s|^$top/||" | tr '\n' ' ')
	check "\"$n\" is spelt in figure.c alone${where:+ (also in $where)}" [ -z "$where" ]
done
# Every figure the JSON writes is in the table: a run's rows hold no other statistic.
"$AB" --sizes 40 --total 64K --repeat 1 --backend malloc,arena -q -f json -o "$tmp/r.json"
for n in overhead_bytes alloc_ns x_floor; do
	check "the fill report has $n" [ -n "$(jq_get "$tmp/r.json" "results[0].$n.median")" ]
done
test_done
