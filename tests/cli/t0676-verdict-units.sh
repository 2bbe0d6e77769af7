#!/bin/sh
# Issue 26: the verdict gives a figure in the unit its table shows it in
# (random's peak RSS in KiB, threads' rates in Mops/s), and the threads
# notes say how the speed-up of several runs combines.
. "$(dirname "$0")/lib.sh"

run_ab --workload random --sizes 24,48 --backend malloc,pool --total 1M --repeat 2 -q
check "random exits 0" [ "$rc" -eq 0 ]
tr '\n' ' ' <"$tmp/out" | tr -s ' ' | sed 's/.*verdict (median//; s/no clear winner: //g' >"$tmp/v"
check "random's memory verdict is in KiB" grep -q 'memory, drop-in: [^;]* KiB' "$tmp/v"
check "... not in bytes" sh -c "! grep -q ' bytes' '$tmp/v'"
best=$(grep -o 'memory, drop-in: [a-z-]*' "$tmp/v" | head -n 1 | cut -d' ' -f3)
med=$(grep -o 'memory, drop-in: [^;]*' "$tmp/v" | grep -o '[0-9.]* \[' | head -n 1 | cut -d' ' -f1)
check "the best's median ($med) is its peak KiB column" \
	grep -Eq "^$best +[0-9]+ +[0-9.]+~? +$med " "$tmp/out"

run_ab --workload threads --sizes 40 --threads 2 --backend malloc,pool --total 1M --repeat 2 -q
check "threads exits 0" [ "$rc" -eq 0 ]
tr '\n' ' ' <"$tmp/out" | tr -s ' ' | sed 's/.*verdict (median//; s/no clear winner: //g' >"$tmp/v"
check "threads' verdict is in Mops/s" grep -q 'time, drop-in: [^;]* Mops/s' "$tmp/v"
check "... not in ops/s" sh -c "! grep -q ' ops/s' '$tmp/v'"
best=$(grep -o 'time, drop-in: [a-z-]*' "$tmp/v" | head -n 1 | cut -d' ' -f3)
med=$(grep -o 'time, drop-in: [^;]*' "$tmp/v" | grep -o '[0-9.]* \[' | head -n 1 | cut -d' ' -f1)
check "the best's median ($med) is its all-threads column" \
	grep -Eq "^$best +40 +[0-9]+ +$med~? " "$tmp/out"
check "the notes say the speed-up is a median of each run's ratio" \
	sh -c "tr '\n' ' ' <'$tmp/out' | tr -s ' ' | grep -q 'speed-up: each run.s all-threads rate over its own 1-thread rate, the median of those ratios'"
test_done
