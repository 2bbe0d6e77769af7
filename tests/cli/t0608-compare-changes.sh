#!/bin/sh
# allocbench compare lists first what the two reports record differently
# (the host, the build flags, each backend's allocator), and gates no time
# across hosts unless --allow-host-change, while bytes still gate. The
# reports are doctored copies of one run: the host that runs this test
# does not matter.
# check: host
. "$(dirname "$0")/lib.sh"
# listed_first A B: the output has a line matching A before any matching B.
line_of() { grep -n -m1 -- "$1" "$tmp/out" | cut -d: -f1; }
listed_first() {
	first_at=$(line_of "$1"); then_at=$(line_of "$2")
	[ -n "$first_at" ] && [ -n "$then_at" ] && [ "$first_at" -lt "$then_at" ]
}

run_ab --sizes 40 --backend malloc,pool --total 256K --repeat 3 -q -f json -o "$tmp/run.json"
check "baseline run exits 0" [ "$rc" -eq 0 ]
# Five runs of pool's alloc on both sides, so that the time is tested.
r="results[backend=pool,size=40]"
doctor "$tmp/run.json" "$r.alloc_ns" '={"median":10,"min":9.6,"max":10.4,"runs":[10,9.8,10.2,9.6,10.4]}' "$tmp/b.json"
doctor "$tmp/b.json" "$r.alloc_ns" x1.5 "$tmp/slow.json"

run_ab compare --gate-time "$tmp/b.json" "$tmp/b.json"
check "the same report: nothing changed, nothing said" sh -c "! grep -qi 'what changed' '$tmp/out'"
run_ab compare --gate-time "$tmp/b.json" "$tmp/slow.json"
check "one host, +50% on every run: regressed, exit 1" [ "$rc" -eq 1 ]

# Another kernel: the host changed.
doctor "$tmp/slow.json" host.kernel '="Linux 9.9.9-other"' "$tmp/slow-host.json"
run_ab compare --gate-time "$tmp/b.json" "$tmp/slow-host.json"
check "another kernel, +50%: time not gated, exit 0" [ "$rc" -eq 0 ]
check "... said before anything else" listed_first '^what changed (another host: times not gated, --allow-host-change gates them):$' '^baseline:'
check "... the kernel, from what to what" grep -q '^  kernel: .* -> Linux 9\.9\.9-other$' "$tmp/out"
check "... the time line says why not gated" grep -Eq '^pool +40 +alloc ns .* \+50\.0% +other host +not gated$' "$tmp/out"
check "... and the criteria say so" sh -c "tr '\n' ' ' <'$tmp/out' | tr -s ' ' | grep -q 'time: not gated: the reports come from different hosts'"
run_ab compare --allow-host-change "$tmp/b.json" "$tmp/slow-host.json"
check "--allow-host-change: the time gated, exit 1" [ "$rc" -eq 1 ]
check "... the heading says so" grep -q '^what changed (another host: times gated anyway, --allow-host-change):$' "$tmp/out"
for field in host.cpu_model host.libc_version host.page_size host.thp; do
	doctor "$tmp/slow.json" "$field" '="other"' "$tmp/slow-other.json"
	run_ab compare --gate-time "$tmp/b.json" "$tmp/slow-other.json"
	check "another $field: time not gated (exit 0)" [ "$rc" -eq 0 ]
	check "another $field: a change of the host" grep -q '^what changed (another host' "$tmp/out"
done
# Bytes gate across hosts all the same.
doctor "$tmp/slow-host.json" "results[backend=pool,size=40].overhead_bytes" +2 "$tmp/plus2-host.json"
run_ab compare --gate-time "$tmp/b.json" "$tmp/plus2-host.json"
check "another kernel, +2 B per chunk (tolerance 1.25 at 256 KiB): exit 1" [ "$rc" -eq 1 ]
check "... the overhead regressed" grep -q '^regressed: pool 40 B (overhead B)$' "$tmp/out"

# The allocator of a backend: listed, not a change of host (times gated).
m="results[backend=malloc,size=40].allocator"
doctor "$tmp/b.json" "$m" '={"name":"glibc","version":"2.36","path":"/lib/libc.so.6"}' "$tmp/glibc.json"
doctor "$tmp/slow.json" "$m" '={"name":"jemalloc","version":"5.3.0","path":"/lib/libjemalloc.so.2"}' "$tmp/je.json"
run_ab compare --gate-time "$tmp/glibc.json" "$tmp/je.json"
check "another allocator: listed first" listed_first '^what changed:$' '^baseline:'
check "... from what to what" grep -q '^  allocator of malloc: glibc 2\.36 -> jemalloc 5\.3\.0$' "$tmp/out"
check "... and the times still gated (exit 1 on +50%)" [ "$rc" -eq 1 ]

# The build flags: the words only one side has.
if [ -n "$(jq_get "$tmp/b.json" tool.build.flags)" ]; then
	doctor "$tmp/b.json" tool.build.flags '="cc -std=c11 -O2 -g"' "$tmp/o2.json"
	doctor "$tmp/b.json" tool.build.flags '="cc -std=c11 -O0 -g -fno-inline"' "$tmp/o0.json"
	run_ab compare --gate-time "$tmp/o2.json" "$tmp/o0.json"
	check "other build flags: the words that differ" grep -q '^  build flags: -O2 -> -O0 -fno-inline$' "$tmp/out"
	check "... not a change of host: exit 0" [ "$rc" -eq 0 ]
	check "... times gated" sh -c "! grep -q 'other host' '$tmp/out'"
else
	skip "build flags" "the report records no tool.build.flags"
fi

# Markdown and JSON say the same.
run_ab compare -f markdown "$tmp/glibc.json" "$tmp/slow-host.json"
check "markdown: what changed after the heading" listed_first '^\*\*What changed\*\* (another host: times not gated' '^Baseline '
check "markdown: a list item per change" grep -q '^- kernel: `.*` -> `Linux 9\.9\.9-other`$' "$tmp/out"
run_ab compare --gate-time -f json "$tmp/b.json" "$tmp/slow-host.json"
j=$tmp/out
check "json: host_changed" [ "$(jq_get "$j" host_changed)" = true ]
check "json: the change" [ "$(jq_get "$j" 'changes[what=kernel].current')" = "Linux 9.9.9-other" ]
check "json: of the host" [ "$(jq_get "$j" 'changes[what=kernel].host')" = true ]
check "json: the time not gated, and why" [ "$(jq_get "$j" "rows[backend=pool,size=40].alloc_ns.why_not_gated")" = "other host" ]
check "json: counted" [ "$(jq_get "$j" summary.time_other_host)" -ge 1 ]
check "json: the option, off" [ "$(jq_get "$j" criteria.time.allow_host_change)" = false ]

test_done
