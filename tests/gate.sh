#!/bin/sh
# The CI regression gate (make gate): measures the deterministic backends,
# pool, pool-locked and arena, with the settings of the committed baselines
# and compares them: fill (data/baseline.json: the overhead), churn
# (data/baseline-churn.json: page faults and reserved bytes where every run
# agrees) and random (data/baseline-random.json: peak RSS and RSS/live).
# Exit status: 0 no regression, 1 a regression or a failed measurement, 2 an
# unusable baseline.
#
#   sh tests/gate.sh [BASELINE]     compare the fill run with BASELINE
#                                   (default data/baseline.json) and the others
#                                   with their committed baselines
#   sh tests/gate.sh --record       measure the three baselines anew (malloc
#                                   too, for reference)
#
# Why these backends and settings: the pool's and the arena's memory is a
# property of their code, the same to the byte on every run (glibc's malloc
# is too, but it belongs to the C library, not to this project). 4 MiB keeps
# the gate to seconds while a byte more per chunk still shows (a tolerance
# of 0.08 byte at 40 bytes). Three runs are too few for the time test, so
# the gate is on memory and counts: times on a shared CI machine are not a
# gate.
set -u
cd "$(dirname "$0")/.." || exit 2
AB=${AB:-./allocbench}
GATED=pool,pool-locked,arena
# workload NAME: its settings and its baseline.
settings() {
	case $1 in
	fill) echo "--sizes 4,40,400,4000 --total 4M --repeat 3" ;;
	churn) echo "--workload churn --sizes 16,64,400 --total 4M --rounds 20 --repeat 3" ;;
	random) echo "--workload random --sizes 16,64,400 --total 4M --repeat 3" ;;
	esac
}
baseline_of() {
	case $1 in
	fill) echo "${fill_baseline:-data/baseline.json}" ;;
	*) echo "data/baseline-$1.json" ;;
	esac
}
workloads="fill churn random"

if [ "${1:-}" = --record ]; then
	for w in $workloads; do
		# shellcheck disable=SC2046
		"$AB" $(settings $w) --backend malloc,$GATED -q -f json -o "$(baseline_of $w)" || exit $?
	done
	exit 0
fi
fill_baseline=${1:-}
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

status=0
for w in $workloads; do
	# shellcheck disable=SC2046
	"$AB" $(settings $w) --backend $GATED -q -f json -o "$tmp/$w.json"
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "allocbench gate: the $w measurement failed (exit $rc)" >&2
		exit $rc
	fi
	"$AB" compare --backend $GATED "$(baseline_of $w)" "$tmp/$w.json"
	rc=$?
	[ $rc -gt $status ] && status=$rc
done
exit $status
