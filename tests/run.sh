#!/bin/sh
# Runs every unit test binary given as an argument and every CLI test
# tests/cli/t*.sh, counts their "ok"/"not ok" lines, shows the failures, and
# ends with one line: "N passed, M failed". Exit status 1 when M > 0.
#
# Each test ends with a TAP plan "1..N" (test_done in tests/cli/lib.sh,
# check_exit() in tests/unit/check.h), N its ok, not ok and skip lines: a
# test without its plan stopped early, one whose plan differs lost results;
# either is one more failure.
cd "$(dirname "$0")/.." || exit 2
log=$(mktemp) || exit 2
one=$(mktemp) || exit 2
trap 'rm -f "$log" "$one"' EXIT INT TERM

run_one() {
	name=$1; shift
	printf '%s\n' "# $name" >>"$log"
	rc=0
	"$@" >"$one" 2>&1 || rc=$?
	cat "$one" >>"$log"
	if [ "$rc" -ne 0 ]; then
		# A test that dies without reporting its checks is one failure.
		printf 'not ok - %s exited with status %s\n' "$name" "$rc" >>"$log"
	fi
	plan=$(grep -E '^1\.\.[0-9]+$' "$one" | tail -n 1)
	results=$(grep -Ec '^(ok|not ok|skip) ' "$one")
	if [ -z "$plan" ]; then
		printf 'not ok - %s stopped before its plan (%s results)\n' "$name" "$results" >>"$log"
	elif [ "${plan#1..}" -ne "$results" ]; then
		printf 'not ok - %s planned %s results and gave %s\n' "$name" "${plan#1..}" "$results" >>"$log"
	fi
}

for bin in "$@"; do
	run_one "$bin" "./$bin"
done
for t in tests/cli/t*.sh; do
	run_one "$t" sh "$t"
done

grep -E '^(not ok|# )' "$log" | awk '/^# /{name=$0; next} {print name; print}' | uniq
passed=$(grep -c '^ok ' "$log")
failed=$(grep -c '^not ok' "$log")

skipped=$(grep -c '^skip ' "$log")
[ "$skipped" -eq 0 ] || { echo "skipped (not counted):"; grep '^skip ' "$log"; }
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
