#!/bin/sh
# allocbench compare: identical and repeated runs compare clean, a byte more
# per 40-byte chunk is caught, time noise is not flagged while a significant
# slowdown is, rows in one file only are listed, every output format.
# check: host
. "$(dirname "$0")/lib.sh"
# listed_first A B: the output has a line matching A before any matching B.
line_of() { grep -n -m1 -- "$1" "$tmp/out" | cut -d: -f1; }
listed_first() {
	first_at=$(line_of "$1"); then_at=$(line_of "$2")
	[ -n "$first_at" ] && [ -n "$then_at" ] && [ "$first_at" -lt "$then_at" ]
}


run_ab --sizes 4,40 --backend malloc,pool,arena --total 1M --repeat 3 -q -f json -o "$tmp/base.json"
check "baseline run exits 0" [ "$rc" -eq 0 ]
run_ab --sizes 4,40 --backend malloc,pool,arena --total 1M --repeat 3 -q -f json -o "$tmp/again.json"
check "second run exits 0" [ "$rc" -eq 0 ]
b=$tmp/base.json
# The tolerance the tool must derive for pool 40: 2 pages over the count plus
# the baseline's min-max spread (0.3125 B at 1 MiB; more under AddressSanitizer,
# whose shadow memory spreads the runs).
r="results[backend=pool,size=40]"
tol=$(awk -v res="$(jq_get "$b" "$r.resolution_bytes")" -v lo="$(jq_get "$b" "$r.overhead_bytes.min")" \
	-v hi="$(jq_get "$b" "$r.overhead_bytes.max")" 'BEGIN { printf "%.4f", 2 * res + hi - lo }')
check_if RSS_EXACT,PAGE_4K,THP_NOT_ALWAYS "pool 40: the spread is 0 and the tolerance 0.3125" [ "$tol" = 0.3125 ]

run_ab compare "$b" "$b"
check "identical files: exit 0" [ "$rc" -eq 0 ]
check "identical files: no regression" grep -q '^result: no regression$' "$tmp/out"
check "identical files: six rows unchanged" grep -q '^6 rows: 0 regressed, 0 failed, 0 improved, 6 unchanged, 0 missing, 0 new$' "$tmp/out"
check "compare text fits 80 columns" [ "$(awk 'length > 80' "$tmp/out" | wc -l)" -eq 0 ]
# Long host names and paths (from the reports, any length) are wrapped too.
long=$tmp/a-directory-whose-name-is-long-enough-to-pass-eighty-columns-on-its-own-and-more
mkdir -p "$long"
"$JSONSET" "$b" host.hostname '="a-build-host-with-a-long-name.ci.example.org"' >"$long/baseline.json"
"$JSONSET" "$b" host.hostname '="another-build-host-with-a-long-name.ci.example.org"' >"$long/current.json"
run_ab compare "$long/baseline.json" "$long/current.json"
check "compare text with long names and paths: exit 0" [ "$rc" -eq 0 ]
check "compare text with long names and paths fits 80 columns" [ "$(awk 'length > 80' "$tmp/out" | wc -l)" -eq 0 ]
check "... and says first that the host changed" listed_first '^what changed (another host: times not gated, --allow-host-change gates them):$' '^baseline:'
check "... which field, from what to what" sh -c "tr '\n' ' ' <'$tmp/out' | tr -s ' ' | grep -q 'host name: a-build-host-with-a-long-name.ci.example.org -> another-build-host-with-a-long-name.ci.example.org'"
run_ab compare --gate-time "$b" "$b"
check "identical files: three lines per row" [ "$(grep -Ec '^(malloc|pool|arena) +(4|40) +(overhead B|alloc ns|free ns) ' "$tmp/out")" -eq 18 ]
check "the table has a heading" grep -Eq '^backend +size B +metric +baseline +current +change +limit +verdict$' "$tmp/out"
check "the tolerance is stated per row (2 pages over 26214 chunks + spread)" grep -Eq "^pool +40 +overhead B .* tol $tol +unchanged\$" "$tmp/out"
check "3 and 3 runs: time not gated, said so" grep -q 'time: not gated in 12 of 12 places: 3 and 3 runs reach p = 0.05 at best' "$tmp/out"
# Twelve tests corrected together (Holm) need p < 0.05/12: 5 and 5 runs give 1/252.
check "... with the p Holm's correction of 12 tests needs, and ab named" sh -c "tr '\n' ' ' <'$tmp/out' | tr -s ' ' | grep -q 'needs p < 0.00417; gating on the other figures there (allocbench ab gates times side by side)'"
check "... and how many tests ran, with the family-wise rate" sh -c "tr '\n' ' ' <'$tmp/out' | tr -s ' ' | grep -q \"Holm's correction over this comparison's tests: 0 ran, a false alarm on any of them at most 0.05 (family-wise)\""
check "compare writes nothing on stderr" [ ! -s "$tmp/err" ]

run_ab compare "$b" "$tmp/again.json"
check "two real runs of one build: exit 0" [ "$rc" -eq 0 ]
check "two real runs: no overhead line regressed" [ "$(grep -c 'overhead B.*regressed' "$tmp/out")" -eq 0 ]

# One byte more per 40-byte chunk, in every run of one row.
for be in pool malloc; do
	doctor "$b" "results[backend=$be,size=40].overhead_bytes" +1 "$tmp/plus1.json"
	run_ab compare "$b" "$tmp/plus1.json"
	check "$be 40 +1 B: exit 1" [ "$rc" -eq 1 ]
	check "$be 40 +1 B: its overhead line regressed" grep -Eq "^$be +40 +overhead B .* \+1\.0000 +tol [0-9.]+ +regressed\$" "$tmp/out"
	check "$be 40 +1 B: the other rows unchanged" grep -q '^6 rows: 1 regressed, 0 failed, 0 improved, 5 unchanged' "$tmp/out"
	check "$be 40 +1 B: says REGRESSION" grep -q '^result: REGRESSION$' "$tmp/out"
done
run_ab compare "$tmp/plus1.json" "$b"
check "1 B less: improved, exit 0" sh -c "[ $rc -eq 0 ] && grep -Eq '^malloc +40 +overhead B .* -1\.0000 .* improved\$' '$tmp/out'"
doctor "$b" "results[backend=pool,size=40].overhead_bytes" +0.25 "$tmp/plus025.json"
run_ab compare "$b" "$tmp/plus025.json"
check "+0.25 B, within 2 pages over the count: exit 0" [ "$rc" -eq 0 ]

# --max-overhead: bytes, or a percentage of the baseline's bytes per chunk.
doctor "$b" "results[backend=pool,size=40].overhead_bytes" +1 "$tmp/plus1.json"
run_ab compare --max-overhead 2 "$b" "$tmp/plus1.json"
check "--max-overhead 2 lets +1 B pass" [ "$rc" -eq 0 ]
check "--max-overhead is stated as the limit" grep -Eq '^pool +40 +overhead B .* tol 2\.0000 \(option\) +unchanged$' "$tmp/out"
run_ab compare --max-overhead 0.5 "$b" "$tmp/plus1.json"
check "--max-overhead 0.5 catches +1 B" [ "$rc" -eq 1 ]
run_ab compare --max-overhead 5% "$b" "$tmp/plus1.json"
check "--max-overhead 5% (of 40 B) lets +1 B pass" [ "$rc" -eq 0 ]
run_ab compare --max-overhead 1% "$b" "$tmp/plus1.json"
check "--max-overhead 1% (of 40 B) catches +1 B" [ "$rc" -eq 1 ]

# Rows in one file only are listed, not dropped; a failure now is a regression.
doctor "$b" "results[backend=arena,size=4]" delete "$tmp/less.json"
run_ab compare "$b" "$tmp/less.json"
check "a row only in the baseline: exit 1 (the gate covers less)" [ "$rc" -eq 1 ]
check "a row only in the baseline: missing" grep -Eq '^arena +4 +- +ok +- +- +- +missing$' "$tmp/out"
run_ab compare --allow-missing "$b" "$tmp/less.json"
check "... with --allow-missing: exit 0" [ "$rc" -eq 0 ]
run_ab compare "$tmp/less.json" "$b"
check "a row only in the current: new" grep -Eq '^arena +4 +- +- +ok +- +- +new$' "$tmp/out"
check "... counted" grep -q '^6 rows: 0 regressed, 0 failed, 0 improved, 5 unchanged, 0 missing, 1 new$' "$tmp/out"
doctor "$b" "results[backend=arena,size=40].status" '="failed"' "$tmp/f1.json"
doctor "$tmp/f1.json" "results[backend=arena,size=40].error" '="cannot map, it says"' "$tmp/failed.json"
run_ab compare "$b" "$tmp/failed.json"
check "a row failed in the current: exit 1" [ "$rc" -eq 1 ]
check "a row failed in the current: verdict failed" grep -Eq '^arena +40 +- +ok +failed +- +- +failed$' "$tmp/out"
check "... and why" grep -q '^failed: arena 40 B: cannot map, it says$' "$tmp/out"

# Times: five runs each, set by hand so that the test's outcome is known.
five='{"median":10,"min":9.6,"max":10.4,"runs":[10,9.8,10.2,9.6,10.4]}'
doctor "$b" "results[backend=pool,size=40].alloc_ns" "=$five" "$tmp/t5.json"
run_ab compare --gate-time "$tmp/t5.json" "$tmp/t5.json"
check "5 runs against 3: the test runs for that row" grep -Eq '^pool +40 +alloc ns .* p [0-9.]+ +unchanged$' "$tmp/out"
doctor "$tmp/t5.json" "results[backend=pool,size=40].alloc_ns" x1.05 "$tmp/t5-noise.json"
run_ab compare --gate-time "$tmp/t5.json" "$tmp/t5-noise.json"
check "+5% on every run (below --max-time 10): exit 0" [ "$rc" -eq 0 ]
check "+5%: significant (p < 0.05) but unchanged" grep -Eq '^pool +40 +alloc ns +10\.00 +10\.50 +\+5\.0% +p 0\.0[0-4][0-9] +unchanged$' "$tmp/out"
# +5% (0.5 ns) is within the baseline's own spread (9.6 to 10.4): never a change.
run_ab compare --gate-time --max-time 3 "$tmp/t5.json" "$tmp/t5-noise.json"
check "+5% with --max-time 3, within the baseline's spread: exit 0" [ "$rc" -eq 0 ]
doctor "$tmp/t5.json" "results[backend=pool,size=40].alloc_ns" x1.09 "$tmp/t5-9.json"
run_ab compare --gate-time "$tmp/t5.json" "$tmp/t5-9.json"
check "+9%, beyond the spread, below --max-time 10: exit 0" [ "$rc" -eq 0 ]
run_ab compare --gate-time --max-time 3 "$tmp/t5.json" "$tmp/t5-9.json"
check "+9% with --max-time 3: exit 1" [ "$rc" -eq 1 ]
doctor "$tmp/t5.json" "results[backend=pool,size=40].alloc_ns" x1.5 "$tmp/t5-slow.json"
run_ab compare --gate-time "$tmp/t5.json" "$tmp/t5-slow.json"
check "+50%, every run slower: exit 1" [ "$rc" -eq 1 ]
check "+50%: alloc regressed at p = 1/252" grep -Eq '^pool +40 +alloc ns +10\.00 +15\.00 +\+50\.0% +p 0\.004 +regressed$' "$tmp/out"
# Times measured at other moments drift: gated only when asked.
run_ab compare "$tmp/t5.json" "$tmp/t5-slow.json"
check "without --gate-time, +50% in every run: exit 0" [ "$rc" -eq 0 ]
check "... the time is not gated, and the row says why" \
	grep -Eq '^pool +40 +alloc ns +10\.00 +15\.00 +\+50\.0% +no --gate-time +not gated$' "$tmp/out"
check "... the criteria say so and name ab" sh -c "tr '\n' ' ' <'$tmp/out' | tr -s ' ' | grep -q 'time: not gated: measured at other moments they drift on a shared machine beyond any threshold; allocbench ab gates them side by side, pair by pair (--gate-time gates them here)'"
run_ab compare -f json "$tmp/t5.json" "$tmp/t5-slow.json"
check "... JSON: criteria.time.gate_time false, 12 times not asked" \
	[ "$(jq_get "$tmp/out" criteria.time.gate_time)/$(jq_get "$tmp/out" summary.time_not_asked)" = false/12 ]
overlap='{"median":13,"min":9.7,"max":14,"runs":[13,9.7,14,10.1,13.5]}'
doctor "$tmp/t5.json" "results[backend=pool,size=40].alloc_ns" "=$overlap" "$tmp/t5-overlap.json"
run_ab compare --gate-time "$tmp/t5.json" "$tmp/t5-overlap.json"
check "+30% median but overlapping runs: not significant, exit 0" [ "$rc" -eq 0 ]
doctor "$b" "results[backend=pool,size=40].alloc_ns" x1.5 "$tmp/slow3.json"
run_ab compare --gate-time "$b" "$tmp/slow3.json"
check "+50% with 3 and 3 runs: not tested, exit 0" [ "$rc" -eq 0 ]
check "+50% with 3 and 3 runs: the verdict says not gated and why" grep -Eq '^pool +40 +alloc ns .* \+50\.0% +3 runs, need 5 +not gated$' "$tmp/out"
check "+50% with 3 and 3 runs: no time line claims unchanged" sh -c "! grep -E ' (alloc|free) ns .*unchanged' '$tmp/out'"
doctor "$b" "results[backend=pool,size=40].alloc_ns" '={"median":10,"min":9,"max":11,"runs":[9,11]}' "$tmp/two.json"
run_ab compare --gate-time "$b" "$tmp/two.json"
check "3 against 2 runs: says both counts" grep -Eq '^pool +40 +alloc ns .*runs 3/2, need 5 +not gated$' "$tmp/out"

# --backend: only those rows.
run_ab compare --backend pool,arena "$b" "$tmp/plus1.json"
check "--backend pool,arena: four rows" grep -q '^4 rows: 1 regressed' "$tmp/out"
check "the summary names the regressed row and metric" grep -q '^regressed: pool 40 B (overhead B)$' "$tmp/out"
doctor "$tmp/plus1.json" "results[backend=arena,size=4].overhead_bytes" +1 "$tmp/plus2.json"
run_ab compare --backend pool,arena "$b" "$tmp/plus2.json"
check "... and every regressed row" grep -q '^regressed: arena 4 B (overhead B), pool 40 B (overhead B)$' "$tmp/out"
check "--backend: no malloc line" [ "$(grep -c '^malloc ' "$tmp/out")" -eq 0 ]

# JSON for machines.
run_ab compare --gate-time -f json "$b" "$tmp/plus1.json"
j=$tmp/out
check "json: exit 1 on the regression" [ "$rc" -eq 1 ]
check "json: schema" [ "$(jq_get "$j" schema)" = allocbench-compare/1 ]
check "json: regression true" [ "$(jq_get "$j" regression)" = true ]
check "json: six rows" [ "$(jq_get "$j" 'rows#')" = 6 ]
r="rows[backend=pool,size=40]"
check "json: row verdict" [ "$(jq_get "$j" "$r.verdict")" = regressed ]
check "json: overhead change" near "$(jq_get "$j" "$r.overhead_bytes.change")" 1 1e-9
check "json: tolerance stated" near "$(jq_get "$j" "$r.overhead_bytes.tolerance_bytes")" "$tol" 1e-4
check_if RSS_EXACT "json: no percentage of a zero overhead" [ "$(jq_get "$j" 'rows[backend=pool,size=4].overhead_bytes.change_percent')" = null ]
check "json: derived tolerance" [ "$(jq_get "$j" "$r.overhead_bytes.tolerance_source")" = derived ]
check "json: time not tested with 3 runs" [ "$(jq_get "$j" "$r.alloc_ns.tested")" = false ]
check "json: ... its verdict not gated" [ "$(jq_get "$j" "$r.alloc_ns.verdict")" = "not gated" ]
check "json: ... gated false" [ "$(jq_get "$j" "$r.alloc_ns.gated")" = false ]
check "json: ... and why" [ "$(jq_get "$j" "$r.alloc_ns.why_not_gated")" = "3 runs, need 5" ]
check "json: a gated metric says so" [ "$(jq_get "$j" "$r.overhead_bytes.gated")" = true ]
check "json: p-value of the untested time still given" near "$(jq_get "$j" "$r.alloc_ns.p_slower")" 0.5 0.5
check "json: criteria" near "$(jq_get "$j" criteria.time.alpha)" 0.05 1e-12
check "json: runs the test needs (12 tests: Holm)" [ "$(jq_get "$j" criteria.time.min_runs)" = 5 ]
check "json: the correction" [ "$(jq_get "$j" criteria.time.correction)" = holm ]
check "json: the tests that ran" [ "$(jq_get "$j" criteria.time.tests)" = 0 ]
check "json: the family-wise rate" near "$(jq_get "$j" criteria.time.family_wise_alpha)" 0.05 1e-12
check "json: summary, regressed" [ "$(jq_get "$j" summary.regressed)" = 1 ]
check "json: summary, unchanged" [ "$(jq_get "$j" summary.unchanged)" = 5 ]
check "json: settings, total" [ "$(jq_get "$j" settings.total_bytes)" = 1048576 ]
check "json: settings, touch" [ "$(jq_get "$j" settings.touch)" = pages ]
run_ab compare -f json "$b" "$b"
check "json: identical files, regression false" [ "$(jq_get "$tmp/out" regression)" = false ]

# Markdown for a pull request or a job summary.
run_ab compare -f markdown "$b" "$tmp/plus1.json"
m=$tmp/out
check "markdown: exit 1 on the regression" [ "$rc" -eq 1 ]
check "markdown: title says so" grep -q '^### allocbench compare: regression found$' "$m"
check "markdown: table heading" grep -q '^| backend | size (B) | metric | baseline | current | change | limit | verdict |$' "$m"
check "markdown: alignment row" grep -q '^|:--|--:|:--|--:|--:|--:|:--|:--|$' "$m"
check "markdown: 24 table lines (four metrics a row)" [ "$(grep -Ec '^\| (malloc|pool|arena) \| ' "$m")" -eq 24 ]
check "markdown: every table line has 9 pipes" [ "$(grep '^|' "$m" | awk -F'|' '{ print NF - 1 }' | sort -u)" = 9 ]
check "markdown: the regression in bold" grep -q '^| pool | 40 | overhead B | .* | \*\*regressed\*\* |$' "$m"
check "markdown: criteria as a list" grep -q '^- overhead, marginal: regressed when' "$m"
run_ab compare -f markdown "$b" "$b"
check "markdown: no regression title" grep -q '^### allocbench compare: no regression$' "$tmp/out"

run_ab compare -f markdown -o "$tmp/cmp.md" "$b" "$tmp/plus1.json"
check "-o: exit 1 still" [ "$rc" -eq 1 ]
check "-o: file written" grep -q '^### allocbench compare: regression found$' "$tmp/cmp.md"
# The job's log gets the gist: the rows per verdict, the regressed cells, the
# result and where the comparison went; not the table.
check "-o: stdout has the rows per verdict" grep -q '^6 rows: 1 regressed, 0 failed, 0 improved, 5 unchanged, 0 missing, 0 new$' "$tmp/out"
check "-o: ... the regressed cells" grep -q '^regressed: pool 40 B (overhead B)$' "$tmp/out"
check "-o: ... the result and where the comparison is" grep -qF "result: REGRESSION (the comparison in markdown: $tmp/cmp.md)" "$tmp/out"
check "-o: ... and nothing else: three lines" [ "$(wc -l <"$tmp/out")" -eq 3 ]
check "-o: nothing on stderr" [ ! -s "$tmp/err" ]
run_ab compare -o "$tmp/cmp.txt" "$b" "$b"
check "-o, no regression: exit 0" [ "$rc" -eq 0 ]
check "-o, no regression: said on stdout" grep -qF "result: no regression (the comparison in text: $tmp/cmp.txt)" "$tmp/out"
mknod "$tmp/full" c 1 7
"$AB" compare -o "$tmp/cmp.txt" "$b" "$b" >"$tmp/full" 2>"$tmp/err"
rc=$?
check "-o with a full standard output: exit 1" [ "$rc" -eq 1 ]
check "-o with a full standard output: said" grep -q 'cannot write the summary to standard output' "$tmp/err"
run_ab compare "$b" - <"$tmp/plus1.json"
check "'-' reads standard input" [ "$rc" -eq 1 ]

# Help: stdout, exit 0, every option in the man page.
run_ab compare --help
check "compare --help exits 0" [ "$rc" -eq 0 ]
check "compare --help prints its usage" grep -q '^usage: allocbench compare BASELINE.json CURRENT.json' "$tmp/out"
for opt in --max-overhead --max-time --alpha --backend --format --output; do
	check "compare --help documents $opt" grep -q -- "$opt" "$tmp/out"
done
missing=
for opt in $(grep -o -- '--[a-z][a-z0-9-]*' "$tmp/out" | sort -u); do
	grep -q -- "${opt#--}" "$top/man/allocbench-compare.1" || missing="$missing $opt"
done
check "every compare --help option is in the man page${missing:+ (missing:$missing)}" [ -z "$missing" ]
check "compare has a man page of its own" grep -q '^\.TH ALLOCBENCH-COMPARE ' "$top/man/allocbench-compare.1"
run_ab --help
check "the main help names compare" grep -q 'allocbench compare BASELINE.json CURRENT.json' "$tmp/out"

test_done
