#!/bin/sh
# data/allocbench.schema.json describes what allocbench writes: real output
# (every workload, ok and failed rows, natural and explicit alignment,
# counters) and data/*.json validate; a report with a field removed, of the
# wrong type or not described by the schema does not.
# The checker is tests/tools/schemacheck (C, cJSON); when the jsonschema
# command (Debian: python3-jsonschema) is there, it checks the same files.
# check: host
. "$(dirname "$0")/lib.sh"
SCHEMA=$top/data/allocbench.schema.json
CHECKER=$SCHEMACHECK

valid() { "$CHECKER" "$SCHEMA" "$1" 2>"$tmp/why"; }
# invalid NAME FILE PATTERN: the checker rejects FILE (exit 1) saying PATTERN.
invalid() {
	"$CHECKER" "$SCHEMA" "$2" 2>"$tmp/why"
	r=$?
	if [ $r -ne 1 ]; then not_ok "$1" "schemacheck exit $r, expected 1"
	elif ! grep -Eq -- "$3" "$tmp/why"; then not_ok "$1" "'$(head -n 3 "$tmp/why")' does not match '$3'"
	else ok "$1"; fi
}

check "the schema is JSON of draft 2020-12" [ "$("$JSONQ" "$SCHEMA" '$schema')" = https://json-schema.org/draft/2020-12/schema ]
check "the schema describes allocbench/1 and /2" grep -q 'allocbench/\[12\]' "$SCHEMA"

run_ab --sizes 4,40,4000 --total 1M --repeat 2 -q -f json -o "$tmp/r.json"
check "a real report validates" valid "$tmp/r.json"
run_ab --sizes 40 --backend pool,arena --total 1M --repeat 1 --align 64 --touch none -q -f json -o "$tmp/a64.json"
check "a report with --align 64 and --touch none validates" valid "$tmp/a64.json"
# A row of many sizes (random, replay) has size 0, and align 0 when natural per request.
run_ab --workload random --sizes 16,64 --total 1M --backend malloc,pool --repeat 1 -q -f json -o "$tmp/rnd.json"
check "a random report validates" valid "$tmp/rnd.json"
ASAN_OPTIONS=detect_leaks=0 "$ABBUILD/tests/tools/tracegen" "$tmp/g.trace" 2000 200 fifo
run_ab --workload replay --trace "$tmp/g.trace" --backend malloc,pool,arena --repeat 1 -q -f json -o "$tmp/rep.json"
check "a replay report validates" valid "$tmp/rep.json"
check "... whose rows have size 0" [ "$(jq_get "$tmp/rep.json" 'results[backend=arena].size')" = 0 ]
"$JSONSET" "$tmp/rep.json" 'results[backend=malloc].size' '=24' >"$tmp/rep-size.json"
invalid "a replay row with a chunk size is refused" "$tmp/rep-size.json" '/results/0: not valid under any schema of anyOf'
"$JSONSET" "$tmp/r.json" 'results[backend=pool,size=40].size' '=0' >"$tmp/fill0.json"
invalid "a fill row of size 0 is refused" "$tmp/fill0.json" '/results/5: not valid under any schema of anyOf'
"$JSONSET" "$tmp/r.json" 'results[0].x_floor' '=null' >"$tmp/nofloor.json"
check "an ok row whose x_floor is null (no floor) validates" valid "$tmp/nofloor.json"
for f in baseline.json baseline-churn.json baseline-random.json overhead.json; do
	check "data/$f validates" valid "$top/data/$f"
done
# Every workload's report, with the members only it writes (churn's and
# threads' rounds, threads' rates, the counters of an event PAPI counts).
run_ab --workload churn --sizes 64 --backend malloc,pool --total 1M --repeat 1 -q -f json -o "$tmp/churn.json"
check "a churn report validates" valid "$tmp/churn.json"
run_ab --workload threads --threads 2 --rounds 2 --sizes 64 --backend malloc,pool-locked --total 1M --repeat 1 -q \
	-f json -o "$tmp/threads.json"
check "a threads report validates" valid "$tmp/threads.json"
run_ab --sizes 64 --counters allocbench --backend malloc,pool --total 1M --repeat 1 -q -f json -o "$tmp/counted.json"
check "a report with counters validates" valid "$tmp/counted.json"
if test_have_prereq PAPI; then
	check "... whose rows count them" \
		[ "$(jq_get "$tmp/counted.json" 'results[backend=pool].counters.sde:::allocbench::allocs.alloc.median')" = 1 ]
else
	skip "... whose rows count them" "$prereq_why"
fi
# A failed row (the arena out of memory, by the fault hook).
ALLOCBENCH_TEST_FAULT=nomem:arena "$AB" --sizes 4,4096 --total 1M --backend arena,malloc --repeat 1 -q \
	-f json >"$tmp/f.json" 2>/dev/null
check "a report with a failed row validates" valid "$tmp/f.json"
check "... which has one" [ "$(jq_get "$tmp/f.json" 'results[0].status')" = failed ]
"$JSONSET" "$tmp/f.json" 'results[0].status' '="ok"' >"$tmp/f-ok.json"
invalid "an ok row without figures is refused" "$tmp/f-ok.json" '/results/0: valid under 0 schemas of oneOf'
"$JSONSET" "$tmp/r.json" host.mem_available_bytes '=null' >"$tmp/nomem.json"
check "a host whose MemAvailable is unknown (null) validates" valid "$tmp/nomem.json"
"$JSONSET" "$tmp/r.json" host.mem_available_bytes '="lots"' >"$tmp/bad.json"
invalid "a MemAvailable that is a string" "$tmp/bad.json" '/host/mem_available_bytes'

d() { "$JSONSET" "$tmp/r.json" "$1" "$2" >"$tmp/bad.json"; }
d 'results[backend=pool,size=40].status' delete
invalid "a row without status" "$tmp/bad.json" '/results/5: required member "status" is missing'
d 'results[backend=pool,size=40].size' '="forty"'
invalid "a size that is a string" "$tmp/bad.json" '/results/5/size: not of type "integer"'
d 'results[backend=pool,size=40].overhead_bytes.runs' '=["a"]'
invalid "a run that is a string" "$tmp/bad.json" '/results/5/overhead_bytes/runs/0: not of type "number"'
d 'results[backend=arena,size=4].alloc_ns.median' delete
invalid "a statistic without its median" "$tmp/bad.json" '/results/3/alloc_ns: required member "median" is missing'
d config.touch '="sometimes"'
invalid "an unknown touch policy" "$tmp/bad.json" '/config/touch: not one of the enum values'
d config.align '="wide"'
invalid "an alignment neither a number nor natural" "$tmp/bad.json" '/config/align: not valid under any schema of anyOf'
d schema '="allocbench/3"'
invalid "another schema major" "$tmp/bad.json" '/schema: "allocbench/3" does not match'
d host.page_size '=0'
invalid "a page size of 0" "$tmp/bad.json" '/host/page_size: 0 fails minimum 1'
d floor delete
invalid "no floor" "$tmp/bad.json" 'required member "floor" is missing'

# The schema follows the writer: a member allocbench writes that the schema
# does not describe is refused (the schema allows it for readers of later
# reports; the checker, for what allocbench itself writes, does not).
d 'results[backend=pool,size=40].usable' '=8'
invalid "a row's member the schema does not describe" "$tmp/bad.json" "/results/5: member 'usable' is not described"
d 'config.rounds_auto' '=true'
invalid "a member of config the schema does not describe" "$tmp/bad.json" "/config: member 'rounds_auto' is not described"

# The schema requires what the writer always writes (allocbench/2; /1
# wrote less): over every report above, each of a single backend, of drop-in
# allocators without malloc, and advise's with no real runs and with a
# real run that failed, no member is in every object at its place and left
# out of "required". Left out on a path these reports do not take: MemAvailable
# (a kernel before 3.14), the recorded program's figures (a trace that does
# not keep them), a real run's replay_peak_bytes (its replay failed).
run_ab --sizes 64 --backend pool --total 1M --repeat 1 -q -f json -o "$tmp/one.json"
# A drop-in allocator that is installed, for the report without malloc.
dropin=
for a in jemalloc mimalloc tcmalloc tbbmalloc; do
	if test_have_prereq "$(echo $a | tr a-z A-Z)"; then dropin=$a; break; fi
done
if ! test_have_prereq NOASAN; then
	skip "every member always written is required" "$prereq_why"
elif [ -z "$dropin" ]; then
	skip "every member always written is required" "no drop-in allocator installed (apt-get install libjemalloc2)"
else
	run_ab --sizes 64 --backend arena,$dropin --total 1M --repeat 1 -q -f json -o "$tmp/nomalloc.json"
	"$AB" advise -q --reruns 0 -f json -o "$tmp/adv0.json" -- "$ABBUILD/tests/tools/sparse" 16 4 >/dev/null 2>&1
	# Run again under LD_PRELOAD it exits otherwise than recorded: malloc's real run fails.
	"$AB" advise -q --reruns 1 -f json -o "$tmp/adv1.json" -- \
		sh -c '"$0" 16 4 && [ -z "$LD_PRELOAD" ]' "$ABBUILD/tests/tools/sparse" >/dev/null 2>&1
	set --
	for f in r a64 rnd rep churn threads counted f one nomalloc adv0 adv1; do
		set -- "$@" "$tmp/$f.json"
	done
	check "... a real run failed in adv1.json" [ "$(jq_get "$tmp/adv1.json" 'real_runs.rows[backend=malloc].ok')" = false ]
	"$CHECKER" --always --optional /host/mem_available_bytes \
		--optional /config/replay/program/peak_anon_bytes --optional /config/replay/program/hwm_bytes \
		--optional /config/replay/program/wall_seconds --optional '/real_runs/rows/*/replay_peak_bytes' \
		"$SCHEMA" "$@" >"$tmp/always" 2>&1
	r=$?
	if [ $r -eq 0 ]; then ok "every member always written is required"
	else not_ok "every member always written is required" "exit $r: $(head -n 5 "$tmp/always" | tr '\n' ' ')"; fi
fi
"$JSONSET" "$tmp/r.json" 'results[0].notes' delete >"$tmp/bad.json"
invalid "an allocbench/2 row without notes" "$tmp/bad.json" '/results/0: required member "notes" is missing'
"$JSONSET" "$tmp/bad.json" schema '="allocbench/1"' >"$tmp/bad1.json"
check "... is valid as allocbench/1, which did not always write them" valid "$tmp/bad1.json"
# The same reports against the schema with a row's notes no longer required.
"$JSONSET" "$SCHEMA" '$defs.written.properties.results.items.required' '=["abi","memory_bound_bytes","counters"]' \
	>"$tmp/no-notes.json"
"$CHECKER" --always --optional /host/mem_available_bytes "$tmp/no-notes.json" "$tmp/r.json" "$tmp/one.json" \
	>"$tmp/always" 2>&1
check "--always: exit 1 where a member always written is not required" [ $? -eq 1 ]
check "... naming it" grep -qE '^/results/\*/notes: in every object there \([0-9]+\), and not required$' "$tmp/always"

# The checker refuses a schema keyword it does not implement, rather than ignore it.
printf '{"type": "object", "dependentRequired": {"a": ["b"]}}\n' >"$tmp/unknown-kw.json"
"$CHECKER" "$tmp/unknown-kw.json" "$tmp/r.json" 2>"$tmp/why"
check "an unimplemented keyword: exit 2" [ $? -eq 2 ]
check "... named" grep -q "unsupported keyword 'dependentRequired'" "$tmp/why"

# A second opinion from an independent implementation, where there is one.
if test_have_prereq JSONSCHEMA; then
	check "jsonschema agrees: a real report is valid" jsonschema -i "$tmp/r.json" "$SCHEMA"
	check "jsonschema agrees: data/baseline.json is valid" jsonschema -i "$top/data/baseline.json" "$SCHEMA"
	d 'results[backend=pool,size=40].status' delete
	check "jsonschema agrees: a row without status is not" sh -c "! jsonschema -i '$tmp/bad.json' '$SCHEMA' >/dev/null 2>&1"
else
	skip "jsonschema cross-check" "$prereq_why"
fi 2>/dev/null

test_done
