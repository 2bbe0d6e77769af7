#!/bin/sh
# The JSON report, schema allocbench/2: what was not measured is left out
# (allocbench/1 wrote null), allocbench's own counters that restate the row
# are left out unless --counters asks for them, and every reader (compare,
# plot, show, --baseline) still reads the committed allocbench/1 reports.
# check: host
. "$(dirname "$0")/lib.sh"
present() { "$JSONQ" "$1" "$2" >/dev/null 2>&1; }

ALLOCBENCH_TEST_FAULT=nomem:arena "$AB" --sizes 40,4096 --backend malloc,pool,arena --total 1M \
	--repeat 2 -q -f json -o "$tmp/r.json" 2>/dev/null
j=$tmp/r.json
check "the report says allocbench/2" [ "$(jq_get "$j" schema)" = allocbench/2 ]
check "a failed row is in the report" [ "$(jq_get "$j" 'results[backend=arena,size=4096].status')" = failed ]
check "no null anywhere: what was not measured is absent" sh -c "! grep -q ':[[:space:]]*null' '$j'"
check "a failed row has no figures" jq_absent "$j" 'results[backend=arena,size=4096].overhead_bytes'
check "... and says why" present "$j" 'results[backend=arena,size=4096].error'
check "pool has no allocator (not the malloc family)" jq_absent "$j" 'results[backend=pool,size=40].allocator'
check "malloc names its allocator" present "$j" 'results[backend=malloc,size=40].allocator.name'
check "the report validates against the schema" "$SCHEMACHECK" "$top/data/allocbench.schema.json" "$j"

# allocbench's own counters: what restates the row is left out by default.
# (allocbench's own events are counted through PAPI's SDE component.)
if test_have_prereq PAPI; then
	for e in allocs frees bytes_requested; do
		check "default counters: allocbench::$e (= the count) is left out" \
			jq_absent "$j" "results[backend=pool,size=40].counters.sde:::allocbench::$e"
	done
	check "default counters: malloc's pool_blocks (0, not its own) is left out" \
		jq_absent "$j" 'results[backend=malloc,size=40].counters.sde:::allocbench::pool_blocks'
	check "default counters: the pool's pool_blocks stays" \
		[ "$(jq_get "$j" 'results[backend=pool,size=40].counters.sde:::allocbench::pool_blocks.alloc_total.median')" -ge 1 ]
	check "default counters: their status is still ok" \
		[ "$(jq_get "$j" 'counters_status.sde:::allocbench::allocs')" = ok ]
	run_ab --sizes 40 --backend pool --total 1M --repeat 1 -q -f json --counters allocbench
	check "--counters given: allocbench::allocs is kept" \
		[ "$(jq_get "$tmp/out" 'results[0].counters.sde:::allocbench::allocs.alloc_total.median')" = "$(jq_get "$tmp/out" 'results[0].count')" ]
else
	for n in 1 2 3 4 5 6 7; do skip "allocbench's own counters ($n)" "$prereq_why"; done
fi

# Smaller: 40 sizes on 4 backends of 1 MiB, 3 runs; allocbench/1 wrote
# 222 KB of it, allocbench/2 155 to 160 KB. What a row holds, not what it
# measured: the rows written compact with every number as 0 (56332 bytes at
# 0ea5ed1, the same in every run). The whole file varies with the values'
# digits, the summary's ties and the host's strings (160259 bytes once on
# a busy host).
run_ab --sizes 8..4096 --backend malloc,pool,pool-locked,arena --total 1M --repeat 3 -q -f json -o "$tmp/40.json"
size=$(jq_get "$tmp/40.json" results | sed -E 's/-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?/0/g' | wc -c)
check "160 rows' fields take less than 58000 bytes ($size)" [ "$size" -lt 58000 ]

# Every figure a row holds, in every workload, is in the man page's table of
# units and scopes.
sed -n '/^field  *unit  *scope$/,/^\.fi$/p' "$top/man/allocbench-run.1" >"$tmp/table"
check "the man page has the table of units and scopes" [ -s "$tmp/table" ]
for w in "fill --sizes 40" "churn --sizes 40 --rounds 2" "random --sizes 24,48" "threads --sizes 40 --threads 2 --rounds 2"; do
	# shellcheck disable=SC2086
	"$AB" --workload $w --backend malloc,pool --total 256K --repeat 1 -q -f json -o "$tmp/w.json"
	"$JSONQ" "$tmp/w.json" 'results[0]' | grep -o '"[a-z0-9_]*":' | tr -d '":' | sort -u |
		grep -E '_bytes$|_ns$|_faults$|^x_floor$|^fragmentation$|^speedup$|^ops|^count$|^live_bytes$' >"$tmp/fields"
	missing=$(while read -r f; do grep -q "\b$f\b" "$tmp/table" || printf ' %s' "$f"; done <"$tmp/fields")
	check "${w%% *}: every figure has its unit and scope in the man page${missing:+ (missing:$missing)}" \
		sh -c "[ -s '$tmp/fields' ] && [ -z '$missing' ]"
done

# The readers read allocbench/1: the committed reports.
for f in baseline.json baseline-churn.json baseline-random.json overhead.json; do
	check "data/$f is an allocbench/1 report" [ "$(jq_get "$top/data/$f" schema)" = allocbench/1 ]
done
run_ab compare "$top/data/baseline.json" "$top/data/baseline.json"
check "compare reads allocbench/1" [ "$rc" -eq 0 ]
run_ab show "$top/data/baseline-churn.json"
check "show reads allocbench/1" [ "$rc" -eq 0 ]
run_ab plot "$top/data/overhead.json" -o "$tmp/o.svg"
check "plot reads allocbench/1" [ "$rc" -eq 0 ]
# An allocbench/1 baseline against an allocbench/2 run, as make gate compares
# them (the baseline was measured without sanitizers: a sanitizer build's
# run is another setting, refused as such).
if test_have_prereq '!SANITIZED'; then
	run_ab --sizes 4,40,400,4000 --total 4M --backend malloc,pool,pool-locked,arena --repeat 1 -q \
		-f json -o "$tmp/now.json" --baseline "$top/data/baseline.json"
	check "--baseline reads allocbench/1 (exit 0 or 1, not 2)" [ "$rc" -le 1 ]
	check "--baseline compares every row" grep -q '^16 rows: ' "$tmp/err"
	run_ab compare "$top/data/baseline.json" "$tmp/now.json"
	check "compare of allocbench/1 against /2: every overhead row compared" \
		[ "$(grep -c '^pool  *[0-9]* overhead B .* unchanged$' "$tmp/out")" -eq 4 ]
else
	for n in 1 2 3; do skip "an allocbench/1 baseline against this run ($n)" "$prereq_why"; done
fi
test_done
