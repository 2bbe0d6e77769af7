#!/bin/sh
# --help and --version: stdout, exit 0; every option documented in the man page.
. "$(dirname "$0")/lib.sh"

run_ab --help
check "--help exits 0" [ "$rc" -eq 0 ]
check "--help prints usage to stdout" grep -q '^usage: allocbench' "$tmp/out"
check "--help writes nothing to stderr" [ ! -s "$tmp/err" ]
for opt in --sizes --backend --total --repeat --touch --align --pool-block --format --output --quiet; do
	check "--help documents $opt" grep -q -- "$opt" "$tmp/out"
done
for b in malloc pool arena; do
	check "--help lists backend $b" grep -Eq "^ +$b " "$tmp/out"
done
missing=
for opt in $(grep -o -- '--[a-z][a-z0-9-]*' "$tmp/out" | sort -u); do
	grep -q -- "${opt#--}" "$top/man/allocbench-run.1" || missing="$missing $opt"
done
check "every --help option is in the man page${missing:+ (missing:$missing)}" [ -z "$missing" ]

run_ab run --help
check "run --help is the same help" grep -q '^usage: allocbench' "$tmp/out"

run_ab --version
check "--version exits 0" [ "$rc" -eq 0 ]
check "--version prints the version" grep -Eq '^allocbench [0-9]+\.[0-9]+\.[0-9]+$' "$tmp/out"
check "man page version matches" grep -q "$(cut -d' ' -f2 "$tmp/out")" "$top/man/allocbench.1"

test_done
