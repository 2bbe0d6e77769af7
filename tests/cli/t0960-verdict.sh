#!/bin/sh
# The verdict after a run with more than one backend: per size, for memory
# and for time, the best drop-in choice and the best with code changes
# (pool, arena), each with what it saves over the C library's malloc in its
# unit and per cent, with the spreads; "no clear winner" (or a tie) where
# the ranges overlap; the JSON's "summary" says the same and agrees with the
# results it summarises.
# check: host
. "$(dirname "$0")/lib.sh"

run_ab --backend malloc,pool,arena --sizes 40,4000 --total 1M --repeat 2 -q -f json -o "$tmp/v.json"
j=$tmp/v.json
check "run exits 0" [ "$rc" -eq 0 ]
check "the report validates with the summary" "$SCHEMACHECK" "$top/data/allocbench.schema.json" "$j"
check "summary: the workload" [ "$(jq_get "$j" summary.workload)" = fill ]
check "summary: one verdict per size" [ "$(jq_get "$j" 'summary.verdicts#')" = 2 ]
check "summary: sizes in order" [ "$(jq_get "$j" 'summary.verdicts[0].size')" = 40 -a "$(jq_get "$j" 'summary.verdicts[1].size')" = 4000 ]
m='summary.verdicts[0].memory'
check "memory by overhead_bytes, B/chunk" [ "$(jq_get "$j" "$m.metric")" = overhead_bytes -a "$(jq_get "$j" "$m.unit")" = B/chunk ]
best=$(jq_get "$j" "$m.best[0].backend")
check "memory: the best is pool or arena ($best)" sh -c "[ '$best' = pool ] || [ '$best' = arena ]"
check "memory: its adoption needs code changes" [ "$(jq_get "$j" "$m.best[0].adoption")" = "needs code changes" ]
check "memory: its median is its row's" \
	near "$(jq_get "$j" "$m.best[0].median")" "$(jq_get "$j" "results[backend=$best,size=40].overhead_bytes.median")" 1e-9
check "memory: malloc's figure is malloc's row" \
	near "$(jq_get "$j" "$m.malloc.median")" "$(jq_get "$j" 'results[backend=malloc,size=40].overhead_bytes.median')" 1e-9
check "memory: less than malloc = malloc - best" \
	near "$(jq_get "$j" "$m.less_than_malloc")" "$(awk -v a="$(jq_get "$j" "$m.malloc.median")" -v b="$(jq_get "$j" "$m.best[0].median")" 'BEGIN { printf "%.12g", a - b }')" 1e-9
check_if RSS_EXACT,GLIBC_MALLOC "memory: pool and arena tie (0 bytes each): no clear winner" \
	[ "$(jq_get "$j" "$m.clear_winner")" = false -a "$(jq_get "$j" "$m.best#")" = 2 ]
t='summary.verdicts[0].time'
check "time by alloc_ns" [ "$(jq_get "$j" "$t.metric")" = alloc_ns -a "$(jq_get "$j" "$t.higher_is_better")" = false ]
check "time: a best with its range" le "$(jq_get "$j" "$t.best[0].min")" "$(jq_get "$j" "$t.best[0].median")"
check "time: malloc's speed-up stated" le 0 "$(jq_get "$j" "$t.times_faster_than_malloc")"
# clear_winner agrees with the ranges: false exactly when another backend's range overlaps the best's.
check "memory: the best drop-in choice is malloc, saving nothing" \
	[ "$(jq_get "$j" "$m.drop_in.best[0].backend")" = malloc -a "$(jq_get "$j" "$m.drop_in.saves")" = 0 -a \
	  "$(jq_get "$j" "$m.drop_in.beyond_noise")" = false ]
check "memory: the best with code changes is the best" \
	[ "$(jq_get "$j" "$m.code_changes.best[0].backend")" = "$best" -a "$(jq_get "$j" "$m.code_changes.beyond_noise")" = true ]
check "memory: it saves what less_than_malloc says, in per cent of malloc's" \
	near "$(jq_get "$j" "$m.code_changes.saves_percent")" "$(awk -v a="$(jq_get "$j" "$m.code_changes.saves")" -v m="$(jq_get "$j" "$m.malloc.median")" 'BEGIN { printf "%.12g", a / m * 100 }')" 1e-9
check "time: clear_winner means one best" sh -c "[ \"\$('$JSONQ' '$j' '$t.clear_winner')\" = true ] && [ \"\$('$JSONQ' '$j' '$t.best#')\" = 1 ] || [ \"\$('$JSONQ' '$j' '$t.clear_winner')\" = false ]"

# The text says the same after the tables, within 80 columns.
run_ab --backend malloc,pool,arena --sizes 40 --total 1M --repeat 2 -q
check "text: the verdict heading" grep -q '^verdict (median \[min-max\] of the runs; pool, pool-locked and arena need$' "$tmp/out"
for a in "memory, drop-in" "memory, with code changes" "time, drop-in" "time, with code changes"; do
	check "text: a line for 40 B $a" grep -q "^  40 B $a: " "$tmp/out"
done
check_if RSS_EXACT,GLIBC_MALLOC "text: pool and arena tie, less than malloc, in per cent" \
	sh -c "sed -n '/^  40 B memory, with/,/^  40 B time/p' '$tmp/out' | tr '\n' ' ' | tr -s ' ' | grep -Eq 'memory, with code changes: (pool, arena|arena, pool) tie at 0.00 \[0.00-0.00\] B/chunk; [0-9.]+ B/chunk \(100%\) less than malloc'"
check_if RSS_EXACT,GLIBC_MALLOC "text: malloc is the best drop-in choice" \
	grep -q '^  40 B memory, drop-in: malloc [0-9.]* \[[0-9.-]*\] B/chunk; malloc is the best' "$tmp/out"
check "text: within 80 columns" [ "$(awk 'length > 80' "$tmp/out" | wc -l)" -eq 0 ]

# One backend: nothing to choose between.
run_ab --backend pool --sizes 40 --total 1M --repeat 1 -q -f json
check "one backend: no summary" [ "$(jq_get "$tmp/out" summary 2>/dev/null)" = "" ]
run_ab --backend pool --sizes 40 --total 1M --repeat 1 -q
check "one backend: no verdict in the text" sh -c "! grep -q '^verdict' '$tmp/out'"

# Other workloads: churn and threads by time alone, random by peak RSS and ns/op.
run_ab --workload churn --backend malloc,arena --sizes 64 --total 1M --rounds 3 --repeat 1 -q -f json
check "churn: time by churn_ns, no memory" [ "$(jq_get "$tmp/out" 'summary.verdicts[0].time.metric')" = churn_ns ] &&
	! "$JSONQ" "$tmp/out" 'summary.verdicts[0].memory' >/dev/null 2>&1
run_ab --workload random --backend malloc,pool --sizes 16,64 --total 1M --repeat 1 -q -f json
check "random: one verdict, size 0, peak RSS and ns/op" [ "$(jq_get "$tmp/out" 'summary.verdicts#')" = 1 -a \
	"$(jq_get "$tmp/out" 'summary.verdicts[0].size')" = 0 -a \
	"$(jq_get "$tmp/out" 'summary.verdicts[0].memory.metric')" = peak_rss_bytes -a \
	"$(jq_get "$tmp/out" 'summary.verdicts[0].time.metric')" = op_ns ]

# Issue 27: the fill's verdict names the best drop-in allocator too (main
# named only pool, pool-locked and arena: "tie at 0.00 (all need code
# changes)"), and tcmalloc's 4 B chunks cost less than glibc's.
test_lazy_prereq TCMALLOC '"$AB" backends 2>/dev/null | grep -q "^tcmalloc .*yes" || { echo "tcmalloc is not installed here (or this build cannot preload)"; exit 1; }'
if test_have_prereq TCMALLOC; then
	run_ab --backend malloc,tcmalloc,pool --sizes 4 --total 1M --repeat 2 -q
	check "4 B: tcmalloc, the best drop-in choice, saves over malloc" \
		sh -c "tr '\n' ' ' <'$tmp/out' | tr -s ' ' | grep -Eq '4 B memory, drop-in: tcmalloc [0-9.]+ \[[0-9.-]+\] B/chunk; [0-9.]+ B/chunk \([0-9.]+%\) less than malloc'"
	check "... and the best with code changes is the pool" grep -q '^  4 B memory, with code changes: pool ' "$tmp/out"
else
	skip "fill names the best drop-in allocator" "$prereq_why"
fi
test_done
