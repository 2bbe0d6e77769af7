#!/bin/sh
# allocbench ab: two variants measured side by side, pair by pair, and the
# times gated on the ratios within the pairs. A preload that spins for a
# few microseconds in every malloc is a slowdown no load can hide (tens of
# times a churn pair), so the verdict is certain without an absolute time.
. "$(dirname "$0")/lib.sh"

run="--workload churn --sizes 16 --total 1M --rounds 2 --counters none"

# Identical variants: nothing is slower; the report's shape. (--max-time
# 1000: 6 pairs all slower by chance, 1 in 64 per series, with a median
# above the default --max-time is a false alarm a test run now and then would
# meet; a median of 11 times never.)
# shellcheck disable=SC2086
run_ab ab malloc malloc --pairs 6 --max-time 1000 -- $run
check "identical variants: exit 0" [ "$rc" -eq 0 ]
check "the text says what was compared and how" \
	grep -q "^ab: malloc (old) against malloc (new), churn workload, 6 pairs of runs" "$tmp/out"
check "a row per gated time: churn and cold" \
	sh -c 'grep -Eq "^malloc 16 B +churn ns " "$1" && grep -Eq "^malloc 16 B +cold ns " "$1"' sh "$tmp/out"
check "the family and its level are said" grep -q "2 tests, one-sided Wilcoxon signed-rank on the pairs, Holm-corrected: family-wise alpha 0.05" "$tmp/out"
check "the verdict line" grep -q "^verdict: ok (0 of 2 slower)$" "$tmp/out"
check "a line per pair on standard error, as it ends" \
	sh -c '[ "$(grep -c "^ab: pair [1-6] of 6: old [0-9.]* s, new [0-9.]* s$" "$1")" = 6 ]' sh "$tmp/err"

# A gate that cannot fail is refused before anything is measured: 5 pairs
# give a least p of 1/32, twice that over 2 tests is above 0.05.
expect_usage "--pairs 5 over 2 tests cannot reach 0.05: refused, naming the pairs needed" \
	"--pairs 5 cannot find a slowdown at --alpha 0.05: over 2 gated times the least p, Holm-corrected, is 0.0625; use --pairs 6 or more" \
	ab malloc malloc --pairs 5 -- $run
expect_usage "--pairs 2 alone cannot reach it" "use --pairs 6 or more" ab malloc pool --pairs 2 -- $run
expect_usage "the rows count: 2 sizes, 4 tests, 7 pairs" "use --pairs 7 or more" \
	ab malloc pool --pairs 6 -- --workload churn --sizes 16,32 --total 1M
check "... refused before a run: nothing on standard output" [ ! -s "$tmp/out" ]
expect_usage "--alpha decides it too" "--pairs 6 cannot find a slowdown at --alpha 0.01" \
	ab malloc pool --alpha 0.01 --pairs 6 -- $run

if test_have_prereq CC,!ASAN; then
	cat >"$tmp/slow.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
static void *(*next_malloc)(size_t);
void *malloc(size_t n)
{
	if (!next_malloc)
		next_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
	for (volatile int i = 0; i < SPIN; i++)
		;
	return next_malloc(n);
}
EOF
	${CC:-cc} -O2 -shared -fPIC -DSPIN=0 -o "$tmp/libplain.so" "$tmp/slow.c" -ldl &&
	${CC:-cc} -O2 -shared -fPIC -DSPIN=4000 -o "$tmp/libslow.so" "$tmp/slow.c" -ldl
	# shellcheck disable=SC2086
	run_ab ab "old=$tmp/libplain.so" "new=$tmp/libslow.so" --pairs 8 -f json -o "$tmp/ab.json" -- \
		$run
	check "a malloc thousands of spins slower: exit 1" [ "$rc" -eq 1 ]
	check "JSON: the schema, 8 pairs, 2 tests" sh -c '[ "$("$1" "$2" schema)" = allocbench-ab/1 ] &&
		[ "$("$1" "$2" pairs)" = 8 ] && [ "$("$1" "$2" tests)" = 2 ]' sh "$JSONQ" "$tmp/ab.json"
	check "JSON: the churn row is slower" \
		[ "$(jq_get "$tmp/ab.json" 'series[figure=churn_ns].verdict')" = slower ]
	check "JSON: its Holm p is below alpha" \
		le "$(jq_get "$tmp/ab.json" 'series[figure=churn_ns].q_slower')" 0.05
	check "JSON: each pair's figures are kept" \
		[ -n "$(jq_get "$tmp/ab.json" 'series[figure=churn_ns].old[7]')" ]
	check "JSON: a regression" [ "$(jq_get "$tmp/ab.json" regression)" = true ]
	# shellcheck disable=SC2086
	run_ab ab "old=$tmp/libslow.so" "new=$tmp/libplain.so" --pairs 8 -- $run
	check "the other way round: faster, exit 0" \
		sh -c '[ "$1" = 0 ] && grep -Eq "^old -> new 16 B +churn ns .* faster$" "$2"' sh "$rc" "$tmp/out"
else
	skip "a slower preload is caught" "$prereq_why"
fi

# Another build as a variant: a copy of this one. (The same build on both
# sides: --max-time 1000 for the reason above.)
cp "$AB" "$tmp/allocbench-copy"
# shellcheck disable=SC2086
run_ab ab "$tmp/allocbench-copy" "$AB" --pairs 6 --max-time 1000 -- --backend pool $run
check "a variant can be another allocbench build" sh -c '[ "$1" = 0 ] && grep -Eq "^pool 16 B +churn ns" "$2"' sh "$rc" "$tmp/out"

# A variant's own standard output is not ab's: its report stays whole.
printf '#!/bin/sh\necho "a variant that talks"\nexec "%s" "$@"\n' "$AB" >"$tmp/talker"
chmod +x "$tmp/talker"
mkdir "$tmp/tmpdir"
# shellcheck disable=SC2086
TMPDIR=$tmp/tmpdir run_ab ab "$tmp/talker" "$AB" --pairs 6 --max-time 1000 -f json -- --backend pool $run
check "ab -f json of a variant that prints: valid JSON on standard output" \
	sh -c '[ "$1" = 0 ] && [ "$("$2" "$3" schema)" = allocbench-ab/1 ]' sh "$rc" "$JSONQ" "$tmp/out"
check "... the variant's words on standard error" grep -q "^a variant that talks$" "$tmp/err"
check "... and nothing is left in \$TMPDIR" [ -z "$(ls -A "$tmp/tmpdir")" ]

# A run that fails: named, exit 1, nothing left behind.
printf '#!/bin/sh\nexit 3\n' >"$tmp/broken"
chmod +x "$tmp/broken"
TMPDIR=$tmp/tmpdir run_ab ab "$tmp/allocbench-copy" "$tmp/broken" --pairs 6 -- --backend pool $run
check "a variant whose run fails: exit 1, named" \
	sh -c '[ "$1" = 1 ] && grep -q "the run of $2 failed (exit status 3)" "$3"' sh "$rc" "$tmp/broken" "$tmp/err"
check "... nothing is left in \$TMPDIR" [ -z "$(ls -A "$tmp/tmpdir")" ]
TMPDIR=$tmp/no/such/dir run_ab ab malloc pool --pairs 6 -- $run
check "an unusable \$TMPDIR is named: exit 1" \
	sh -c '[ "$1" = 1 ] && grep -q "cannot make a temporary directory in .$2/no/such/dir." "$3"' \
	sh "$rc" "$tmp" "$tmp/err"
# SIGTERM while a pair runs: ab ends with 143 and takes its directory along.
printf '#!/bin/sh\nexec sleep 30\n' >"$tmp/sleeper"
chmod +x "$tmp/sleeper"
TMPDIR=$tmp/tmpdir "$AB" ab "$tmp/sleeper" "$AB" --pairs 6 -- --backend pool $run >"$tmp/out" 2>"$tmp/err" &
abpid=$!
for _ in $(seq 100); do [ -n "$(ls -A "$tmp/tmpdir")" ] && break; sleep 0.1; done
kill -TERM $abpid
wait $abpid
check "SIGTERM: exit 143" [ $? -eq 143 ]
check "... nothing is left in \$TMPDIR" [ -z "$(ls -A "$tmp/tmpdir")" ]

expect_usage "an unknown backend as a variant: exit 2 before any run" \
	"unknown backend 'nosuch' in --backend" ab malloc nosuch --pairs 6 -- $run
expect_usage "one variant is not enough" "ab needs two variants" ab malloc
expect_usage "--pairs 1 is refused" "invalid --pairs '1'" ab malloc pool --pairs 1
expect_usage "ab sets --repeat itself" "'--repeat' is ab's to set" ab malloc pool -- --repeat 3
expect_usage "ab sets -o itself" "'-o' is ab's to set" ab malloc pool -- -o x.json
expect_usage "backend variants name the backends" "'--backend=arena': the variants name the backends" \
	ab malloc pool -- --backend=arena
: >"$tmp/plain-file"
expect_usage "a path that is not an executable is named" "invalid variant '$tmp/plain-file'" ab "$tmp/plain-file" malloc
expect_usage "NAME=PATH needs a name" "invalid variant '=x.so'" ab =x.so malloc
expect_usage "--max-time must be a number" "invalid --max-time 'x'" ab malloc pool --max-time x

test_done
