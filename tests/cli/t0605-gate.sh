#!/bin/sh
# make gate (tests/gate.sh): the committed baseline passes on this machine,
# and a baseline doctored to be one byte per 40-byte chunk cheaper fails.
. "$(dirname "$0")/lib.sh"

if test_have_prereq SANITIZED; then
	skip "make gate" "built with -fsanitize=$sanitizers, the baseline without (compare refuses that, exit 2)"
	test_done
	exit 0
fi
AB=$AB sh "$top/tests/gate.sh" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "the gate passes against data/baseline.json" [ "$rc" -eq 0 ]
check "... comparing the pool, pool-locked and arena rows" grep -q '^12 rows: 0 regressed, 0 failed, 0 improved, 12 unchanged, 0 missing, 0 new$' "$tmp/out"
# Time is not gated (no --gate-time: times measured at other moments drift), said so.
check "... on the overhead (time not gated, said so)" grep -q '^time: not gated: measured at other moments' "$tmp/out"

"$JSONSET" "$top/data/baseline.json" 'results[backend=arena,size=40].overhead_bytes' +-1 >"$tmp/doctored.json"
AB=$AB sh "$top/tests/gate.sh" "$tmp/doctored.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "a doctored baseline fails the gate (exit 1)" [ "$rc" -eq 1 ]
check "... naming the row" grep -Eq '^arena +40 +overhead B .* \+1\.0000 +tol 0\.0781 +regressed$' "$tmp/out"
check "... REGRESSION" grep -q '^result: REGRESSION$' "$tmp/out"

"$JSONSET" "$top/data/baseline.json" config.total_bytes '=8388608' >"$tmp/8m.json"
AB=$AB sh "$top/tests/gate.sh" "$tmp/8m.json" >"$tmp/out" 2>"$tmp/err"
check "a baseline of other settings: exit 2" [ $? -eq 2 ]
check "... saying which" grep -q 'different total (--total): 8388608 bytes in the baseline' "$tmp/err"

test_done
