#!/bin/sh
# A measurement that fails: its row says why, the others still run, exit 1.
# The failure is made by the fault hook, the same on every machine:
# ALLOCBENCH_TEST_FAULT=nomem:malloc limits the malloc children's address
# space to what they map before the loop, so that malloc returns NULL as in
# a child out of memory (an address-space limit of the whole run, ulimit -v,
# depended on the machine's MemAvailable and could not run under ASan).
. "$(dirname "$0")/lib.sh"

# The arena out of memory: its mapping fails, in every build.
ALLOCBENCH_TEST_FAULT=nomem:arena "$AB" --sizes 4,4096 --total 1M --backend malloc,arena \
	--repeat 1 -q -f json >"$tmp/f.json" 2>"$tmp/err"
rc=$?
check "a failed measurement exits 1" [ "$rc" -eq 1 ]
check "the failed row says failed" [ "$(jq_get "$tmp/f.json" 'results[backend=arena,size=4096].status')" = failed ]
check "the failed row says why" sh -c "\"$JSONQ\" '$tmp/f.json' 'results[backend=arena,size=4096].error' | grep -Eq '^cannot map the arena.s region of [0-9]+ bytes$'"
check "a failed row has no figures (absent, not null)" jq_absent "$tmp/f.json" 'results[backend=arena,size=4096].overhead_bytes'
check "the other rows still ran" [ "$(jq_get "$tmp/f.json" 'results[backend=malloc,size=4096].status')" = ok ] &&
	[ "$(jq_get "$tmp/f.json" 'results[backend=malloc,size=4].status')" = ok ]
check "the floor still ran" [ "$(jq_get "$tmp/f.json" 'floor[0].status')" = ok ]

# malloc out of memory: the C library's malloc returns NULL in the loop, and
# the row says which allocation failed. Not under AddressSanitizer, whose
# allocator maps within the space it reserved at start (the limit does not
# reach it).
if test_have_prereq '!ASAN'; then
	ALLOCBENCH_TEST_FAULT=nomem:malloc "$AB" --sizes 4,4096 --total 1M --backend malloc,arena \
		--repeat 1 -q -f json >"$tmp/f.json" 2>"$tmp/err"
	check "malloc out of memory exits 1" [ $? -eq 1 ]
	check "malloc out of memory: the row says which allocation failed" sh -c "\"$JSONQ\" '$tmp/f.json' 'results[backend=malloc,size=4].error' | grep -Eq '^allocation [0-9]+ of 262144 \(4 bytes\) failed$'"
	check "malloc out of memory: no figures" jq_absent "$tmp/f.json" 'results[backend=malloc,size=4].overhead_bytes'
	check "malloc 4096 fails too" [ "$(jq_get "$tmp/f.json" 'results[backend=malloc,size=4096].status')" = failed ]
	check "malloc out of memory: the arena rows ran" [ "$(jq_get "$tmp/f.json" 'results[backend=arena,size=4096].status')" = ok ]
	ALLOCBENCH_TEST_FAULT=nomem:malloc "$AB" --sizes 4,4096 --total 1M --backend malloc,arena \
		--repeat 1 -q >"$tmp/f.txt" 2>&1
	check "the text row says failed and why" grep -Eq '^malloc +4 +262144 +failed: allocation [0-9]+ of 262144 \(4 bytes\) failed$' "$tmp/f.txt"
	check "the text report still fits 80 columns" [ "$(awk 'length > 80' "$tmp/f.txt" | wc -l)" -eq 0 ]
else
	skip "malloc out of memory" "$prereq_why: AddressSanitizer's allocator maps within the space it reserved at start"
fi

# Every backend (malloc where it is the C library's), the floor and every
# workload fail their row the same way.
backends=pool,pool-locked,arena
test_have_prereq '!ASAN' && backends=malloc,$backends
for w in fill churn random threads; do
	case $w in
	churn) opts="--rounds 2" ;;
	threads) opts="--threads 2 --rounds 1" ;;
	*) opts= ;;
	esac
	# shellcheck disable=SC2086
	ALLOCBENCH_TEST_FAULT=nomem "$AB" --workload $w --sizes 64 --total 1M --backend $backends $opts \
		--repeat 1 -q -f json >"$tmp/w.json" 2>"$tmp/err"
	check "$w: out of memory everywhere exits 1" [ $? -eq 1 ]
	check "$w: every row failed with a reason" \
		[ "$(grep -c '"status":[[:space:]]*"failed"' "$tmp/w.json")" -ge 3 ]
	check "$w: no row ok" sh -c "! grep -q '\"status\":[[:space:]]*\"ok\"' '$tmp/w.json'"
done
ALLOCBENCH_TEST_FAULT=nomem:bogus_backend "$AB" --sizes 4 --total 64K --repeat 1 --backend arena -q >"$tmp/out2" 2>&1
check "a fault for another backend changes nothing" [ $? -eq 0 ]
ALLOCBENCH_TEST_FAULT=bogus "$AB" --sizes 4 --total 64K --repeat 1 --backend arena -q >"$tmp/out" 2>"$tmp/err"
check "an unknown fault is named" grep -q "invalid ALLOCBENCH_TEST_FAULT 'bogus' (expected crash, abort, kill, hang or nomem" "$tmp/err"

test_done
