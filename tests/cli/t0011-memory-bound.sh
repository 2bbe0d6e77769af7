#!/bin/sh
# The memory guard: its bound (memory_bound_bytes in every JSON row) is an
# upper bound of what the measuring process really holds at its peak
# (peak_memory_bytes, the process's VmHWM), for every backend and workload,
# including the cases it once underestimated (the pool at 1 to 3 bytes: a
# 4-byte stride; random with the arena, which never reuses); and a --total
# whose chunks cannot be represented is refused, --force or not.
. "$(dirname "$0")/lib.sh"

if test_have_prereq '!ASAN'; then
	for w in fill churn random threads; do
		case $w in
		churn|threads) rounds="--rounds 2" ;;
		*) rounds= ;;
		esac
		# shellcheck disable=SC2086
		run_ab --workload $w --sizes 1,3,4000 --total 1M $rounds --backend all --repeat 1 -q -f json
		check "$w: exit 0" [ "$rc" -eq 0 ]
		cp "$tmp/out" "$tmp/$w.json"
		n=$(jq_get "$tmp/$w.json" 'results#')
		i=0
		while [ "$i" -lt "$n" ]; do
			r="results[$i]"
			b=$(jq_get "$tmp/$w.json" "$r.backend") s=$(jq_get "$tmp/$w.json" "$r.size")
			peak=$(jq_get "$tmp/$w.json" "$r.peak_memory_bytes")
			bound=$(jq_get "$tmp/$w.json" "$r.memory_bound_bytes")
			check "$w $b $s B: peak $peak B within the guard's bound $bound B" \
				sh -c "[ '$peak' != null ] && awk -v p='$peak' -v b='$bound' 'BEGIN { exit !(p > 0 && p <= b) }'"
			i=$((i + 1))
		done
	done
else
	skip "the guard's bound covers every measurement" "$prereq_why: the sanitizer's shadow memory and quarantine are not in it"
fi

# Arithmetic that would wrap: refused up front (exit 2), naming the value,
# with or without --force.
expect_usage "2^61 + 512 chunks of 1 byte: refused" \
	"--total 2305843009213694464 cannot be measured at size 1: .*more than a process can address" \
	--total 2305843009213694464 --sizes 1
expect_usage "... --force does not lift it" "--total 2305843009213694464 cannot be measured" \
	--total 2305843009213694464 --sizes 1 --force
expect_usage "2^64 - 1 bytes for the pool: refused" \
	"--total 18446744073709551615 cannot be measured at size 4" \
	--total 18446744073709551615 --sizes 4 --backend pool
expect_usage "random: more live chunks than the sequence can name" \
	"--total 1099511627776 is too large for the random workload: 549755813888 chunks" \
	--workload random --total 1T --sizes 1,2 --force

test_done
