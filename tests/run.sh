#!/bin/sh
# Runs every unit test binary given as an argument and every CLI test
# tests/cli/t*.sh, counts their "ok"/"not ok" lines, shows the failures, and
# ends with one line: "N passed, M failed". Exit status 1 when M > 0.
cd "$(dirname "$0")/.." || exit 2
log=$(mktemp) || exit 2
trap 'rm -f "$log"' EXIT INT TERM

run_one() {
	name=$1; shift
	printf '%s\n' "# $name" >>"$log"
	if "$@" >>"$log" 2>&1; then :; else
		rc=$?
		# A test that dies without reporting its checks is one failure.
		printf 'not ok - %s exited with status %s\n' "$name" "$rc" >>"$log"
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
