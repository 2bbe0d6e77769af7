#!/bin/sh
# Cross-thread frees of the pool under ThreadSanitizer, where it builds.
. "$(dirname "$0")/lib.sh"

cc=${CC:-cc}
if ! $cc -std=c11 -D_GNU_SOURCE -pthread -g -O1 -fsanitize=thread -I"$top/src" \
	-o "$tmp/pool_tsan" "$top/tests/unit/test_pool_threads.c" "$top/src/measure/pool.c" \
	"$top/src/platform/probe.c" "$top/src/platform/util.c" 2>"$tmp/cc.err"; then
	skip "pool cross-thread free under ThreadSanitizer" "cannot build with -fsanitize=thread"
	test_done
	exit 0
fi
TSAN_OPTIONS=halt_on_error=1 "$tmp/pool_tsan" >"$tmp/tsan.out" 2>&1
rc=$?
if grep -q 'FATAL: ThreadSanitizer: unexpected memory mapping' "$tmp/tsan.out"; then
	skip "pool cross-thread free under ThreadSanitizer" "ThreadSanitizer cannot run on this kernel's memory layout"
	test_done
	exit 0
fi
check "pool cross-thread free is race-free under ThreadSanitizer" [ "$rc" -eq 0 ]
check "ThreadSanitizer reports nothing" sh -c "! grep -q 'WARNING: ThreadSanitizer' '$tmp/tsan.out'"
check "the pool checks passed under ThreadSanitizer" sh -c "! grep -q '^not ok' '$tmp/tsan.out' && grep -q '^ok' '$tmp/tsan.out'"

test_done
