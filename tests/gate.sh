#!/bin/sh
# The CI regression gate (make gate): measures the deterministic backends,
# pool, pool-locked and arena, with the settings of the committed baseline and compares
# their overhead with it. Exit status: 0 no regression, 1 a regression or a
# failed measurement, 2 an unusable baseline.
#
#   sh tests/gate.sh [BASELINE]     compare with BASELINE (default data/baseline.json)
#   sh tests/gate.sh --record       measure data/baseline.json anew (malloc too, for reference)
#
# Why these backends and settings: the pool's and the arena's overhead is a
# property of their code, the same to the byte on every run (glibc's malloc
# is too, but it belongs to the C library, not to this project). 4 MiB keeps
# the gate to a second or two while a byte more per chunk still shows (a tolerance
# of 0.08 byte at 40 bytes). Three runs are too few for the time test, so
# the gate is on the overhead: times on a shared CI machine are not a gate.
set -u
cd "$(dirname "$0")/.." || exit 2
AB=${AB:-./allocbench}
SETTINGS="--sizes 4,40,400,4000 --total 4M --repeat 3"
GATED=pool,pool-locked,arena

if [ "${1:-}" = --record ]; then
	exec "$AB" $SETTINGS --backend malloc,$GATED -q -f json -o data/baseline.json
fi
baseline=${1:-data/baseline.json}
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

"$AB" $SETTINGS --backend $GATED -q -f json -o "$tmp/current.json"
rc=$?
if [ $rc -ne 0 ]; then
	echo "allocbench gate: the measurement failed (exit $rc)" >&2
	exit $rc
fi
"$AB" compare --backend $GATED "$baseline" "$tmp/current.json"
