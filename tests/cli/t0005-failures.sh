#!/bin/sh
# A measurement that fails: its row says why, the others still run, exit 1.
. "$(dirname "$0")/lib.sh"

if [ $asan = 1 ]; then
	skip "failures under an address-space limit" "AddressSanitizer cannot start under ulimit -v"
	exit 0
fi

# 2 GiB of 4-byte chunks needs 4 GiB of pointers and 16 GiB of glibc chunks:
# under a 3 GiB address-space limit malloc fails, the pool and arena too.
(ulimit -v 3000000; "$AB" --sizes 4,4096 --total 512M --backend malloc,arena --repeat 1 -q -f json) \
	>"$tmp/f.json" 2>"$tmp/err"
rc=$?
check "a failed measurement exits 1" [ "$rc" -eq 1 ]
check "the failed row says failed" [ "$(jq_get "$tmp/f.json" 'results[backend=malloc,size=4].status')" = failed ]
check "the failed row says why" sh -c "\"$JSONQ\" '$tmp/f.json' 'results[backend=malloc,size=4].error' | grep -Eq 'allocation [0-9]+ of [0-9]+ \(4 bytes\) failed|cannot map'"
check "a failed row has null figures" [ "$(jq_get "$tmp/f.json" 'results[backend=malloc,size=4].overhead_bytes')" = null ]
check "the other rows still ran" [ "$(jq_get "$tmp/f.json" 'results[backend=arena,size=4096].status')" = ok ]

(ulimit -v 3000000; "$AB" --sizes 4,4096 --total 512M --backend malloc,arena --repeat 1 -q) >"$tmp/f.txt" 2>&1
check "the text row says failed and why" grep -Eq '^malloc +4 +134217728 +failed: ' "$tmp/f.txt"

test_done
