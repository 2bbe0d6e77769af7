#!/bin/sh
# compare on unusable input: exit 2, nothing on stdout, a message that names
# the file and the problem (or the setting that differs and both values).
. "$(dirname "$0")/lib.sh"

run_ab --sizes 4,40 --backend malloc,pool --total 1M --repeat 2 -q -f json -o "$tmp/b.json"
check "baseline run exits 0" [ "$rc" -eq 0 ]
b=$tmp/b.json

expect_usage "missing file" "'$tmp/nope.json': cannot read: No such file or directory" compare "$b" "$tmp/nope.json"
printf '{"schema": "allocbench/1", "results": [}]}' >"$tmp/bad.json"
expect_usage "malformed JSON" "'$tmp/bad.json': not valid JSON \(error near byte [0-9]+\)" compare "$tmp/bad.json" "$b"
head -c 700 "$b" >"$tmp/trunc.json"
expect_usage "truncated file" "'$tmp/trunc.json': not valid JSON: truncated at byte 700" compare "$b" "$tmp/trunc.json"
: >"$tmp/empty.json"
expect_usage "empty file" "'$tmp/empty.json': empty file, not an allocbench JSON report" compare "$b" "$tmp/empty.json"
printf '{"benchmarks": [{"name": "BM_malloc", "real_time": 12.5}]}\n' >"$tmp/other.json"
expect_usage "another tool's JSON" "'$tmp/other.json': not an allocbench report \(no \"schema\" field\)" compare "$b" "$tmp/other.json"
printf '[1, 2, 3]\n' >"$tmp/array.json"
expect_usage "a JSON array" "'$tmp/array.json': not an allocbench report" compare "$b" "$tmp/array.json"
doctor "$b" schema '="allocbench/3"' "$tmp/v3.json"
expect_usage "another schema major" "'$tmp/v3.json': schema \"allocbench/3\" is not supported \(this allocbench reads allocbench/1 to allocbench/2\)" compare "$b" "$tmp/v3.json"
doctor "$b" schema '="benchbench/1"' "$tmp/other2.json"
expect_usage "another tool's schema" "'$tmp/other2.json': not an allocbench report \(schema \"benchbench/1\"\)" compare "$tmp/other2.json" "$b"

# Missing fields.
doctor "$b" "results[backend=pool,size=40].overhead_bytes" delete "$tmp/no-ovh.json"
expect_usage "an ok row without overhead_bytes" "'$tmp/no-ovh.json': results\[3\] \(pool, 40 B\) has status \"ok\" but no \"overhead_bytes\"" compare "$b" "$tmp/no-ovh.json"
doctor "$b" "results[backend=malloc,size=4].alloc_ns" delete "$tmp/no-alloc.json"
expect_usage "an ok row without alloc_ns" "'$tmp/no-alloc.json': results\[0\] \(malloc, 4 B\) has status \"ok\" but no \"alloc_ns\"" compare "$tmp/no-alloc.json" "$b"
doctor "$b" "results[backend=pool,size=4].resolution_bytes" delete "$tmp/no-res.json"
expect_usage "an ok row without resolution_bytes" "'$tmp/no-res.json': results\[1\] \(pool, 4 B\) has no \"resolution_bytes\"" compare "$b" "$tmp/no-res.json"
doctor "$b" "results[1].backend" delete "$tmp/no-backend.json"
expect_usage "a row without backend" "'$tmp/no-backend.json': results\[1\]: missing \"backend\"" compare "$b" "$tmp/no-backend.json"
doctor "$b" "results[2].size" delete "$tmp/no-size.json"
expect_usage "a row without size" "'$tmp/no-size.json': results\[2\]: missing or negative \"size\"" compare "$b" "$tmp/no-size.json"
doctor "$b" results delete "$tmp/no-results.json"
expect_usage "no results" "'$tmp/no-results.json': no \"results\" array" compare "$b" "$tmp/no-results.json"
doctor "$b" config.total_bytes delete "$tmp/no-total.json"
expect_usage "no config.total_bytes" "'$tmp/no-total.json': no \"config.total_bytes\"" compare "$b" "$tmp/no-total.json"
doctor "$b" config.touch delete "$tmp/no-touch.json"
expect_usage "no config.touch" "'$tmp/no-touch.json': no \"config.touch\"" compare "$tmp/no-touch.json" "$b"

# Settings that differ: which one, and both values.
run_ab --sizes 4,40 --backend malloc,pool --total 2M --repeat 2 -q -f json -o "$tmp/2m.json"
expect_usage "another total" "different total \(--total\): 1048576 bytes in the baseline '$b', 2097152 bytes in '$tmp/2m.json'" compare "$b" "$tmp/2m.json"
run_ab --sizes 4,40 --backend malloc,pool --total 1M --repeat 2 --touch full -q -f json -o "$tmp/full.json"
expect_usage "another touch policy" "different touch policy \(--touch\): pages in the baseline '$b', full in '$tmp/full.json'" compare "$b" "$tmp/full.json"
doctor "$b" config.align '=16' "$tmp/a16.json"
expect_usage "another alignment" "different alignment \(--align\): natural in the baseline '$b', 16 in '$tmp/a16.json'" compare "$b" "$tmp/a16.json"
doctor "$b" config.pool_block_bytes '=65536' "$tmp/pb.json"
expect_usage "another pool block" "different pool block \(--pool-block\): 1048576 bytes in the baseline '$b', 65536 bytes in '$tmp/pb.json'" compare "$b" "$tmp/pb.json"
doctor "$b" tool.sanitizers '="thread"' "$tmp/tsan.json"
expect_usage "another build (sanitizers)" "different sanitizers \(tool.sanitizers\): '$sanitizers' in the baseline '$b', 'thread' in '$tmp/tsan.json'" compare "$b" "$tmp/tsan.json"
doctor "$b" "results[3].backend" '="malloc"' "$tmp/p1.json"
doctor "$tmp/p1.json" "results[3].size" '=4' "$tmp/dup.json"
expect_usage "a repeated row" "'$tmp/dup.json': results\[3\] repeats results\[0\] \(workload 'fill', backend 'malloc', size 4\)" compare "$tmp/dup.json" "$b"

# Bad usage.
expect_usage "one report only" "compare needs two reports, BASELINE and CURRENT \(got 1" compare "$b"
expect_usage "three reports" "compare needs two reports, BASELINE and CURRENT \(got 3" compare "$b" "$b" "$b"
expect_usage "both from stdin" "only one of BASELINE and CURRENT can be standard input" compare - -
expect_usage "--max-overhead abc" "invalid --max-overhead 'abc': not a number \(expected bytes per chunk" compare --max-overhead abc "$b" "$b"
expect_usage "--max-overhead -1" "invalid --max-overhead '-1'" compare --max-overhead -1 "$b" "$b"
expect_usage "--max-overhead 5%%" "invalid --max-overhead '5%%'" compare --max-overhead 5%% "$b" "$b"
expect_usage "--max-time x" "invalid --max-time 'x': not a number \(expected a percentage" compare --max-time x "$b" "$b"
expect_usage "--alpha 0" "invalid --alpha '0': not between 0 and 1 \(expected a probability between 0 and 1" compare --alpha 0 "$b" "$b"
expect_usage "--alpha 1.5" "invalid --alpha '1.5'" compare --alpha 1.5 "$b" "$b"
expect_usage "--format csv is not for compare" "invalid --format 'csv' for compare \(expected text, json or markdown\)" compare -f csv "$b" "$b"
expect_usage "--backend that matches nothing" "--backend 'jemalloc' matches no row of '$b' or '$b'" compare --backend jemalloc "$b" "$b"
expect_usage "--backend empty item" "empty item in --backend 'pool,'" compare --backend pool, "$b" "$b"
expect_usage "unknown compare option" "unknown option '--bogus' \(see allocbench compare --help\)" compare --bogus "$b" "$b"
expect_usage "missing option value" "option '--max-time' needs a value" compare "$b" "$b" --max-time
expect_usage "unwritable -o" "cannot write '$tmp/no/dir/c.txt'" compare -o "$tmp/no/dir/c.txt" "$b" "$b"

test_done
