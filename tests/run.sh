#!/bin/sh
# Runs every unit test binary given as an argument and every CLI test
# tests/cli/t*.sh, counts their "ok"/"not ok" lines, shows the failures, and
# ends with one line: "N passed, M failed". Exit status 1 when M > 0.
#
# Each test ends with a TAP plan "1..N" (test_done in tests/cli/lib.sh,
# check_exit() in tests/unit/check.h), N its ok, not ok and skip lines: a
# test without its plan stopped early, one whose plan differs lost results;
# either is one more failure.
#
# TEST_JOBS tests run at once (default: the CPUs, nproc). Every test keeps
# its files in a directory of its own (mktemp) and no test asserts a time,
# so they run side by side as they run beside other work on a shared
# machine; the log is in the order of the list whatever the order of ending.
cd "$(dirname "$0")/.." || exit 2

# run.sh --one LOG TEST: runs TEST (a unit test binary, or a CLI test: *.sh)
# and writes its output and its verdicts to LOG.
if [ "${1-}" = --one ]; then
	log=$2 name=$3
	one=$log.out
	rc=0
	case $name in
	*.sh) sh "$name" >"$one" 2>&1 || rc=$? ;;
	*) "./$name" >"$one" 2>&1 || rc=$? ;;
	esac
	{
		printf '%s\n' "# $name"
		cat "$one"
		# A test that dies without reporting its checks is one failure.
		[ "$rc" -eq 0 ] || printf 'not ok - %s exited with status %s\n' "$name" "$rc"
		plan=$(grep -E '^1\.\.[0-9]+$' "$one" | tail -n 1)
		results=$(grep -Ec '^(ok|not ok|skip) ' "$one")
		if [ -z "$plan" ]; then
			printf 'not ok - %s stopped before its plan (%s results)\n' "$name" "$results"
		elif [ "${plan#1..}" -ne "$results" ]; then
			printf 'not ok - %s planned %s results and gave %s\n' "$name" "${plan#1..}" "$results"
		fi
	} >"$log.tmp"
	rm -f "$one"
	mv "$log.tmp" "$log"
	exit 0
fi

dir=$(mktemp -d) || exit 2
trap 'rm -rf "$dir"' EXIT
trap 'exit 130' INT TERM
jobs=${TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
case $jobs in
'' | *[!0-9]* | 0) echo "run.sh: TEST_JOBS must be a positive number, not '$jobs'" >&2; exit 2 ;;
esac

# Each test's log is named by its place in the list. The CLI tests start
# from the last: the newest, the real programs', are the longest, and
# started first they do not end alone after the rest.
set -- "$@" tests/cli/t*.sh
i=0
for t in "$@"; do
	i=$((i + 1))
	printf '%s/%05d %s\n' "$dir" "$i" "$t"
done | sort -r -k 2,2 | awk '{ print $1; print $2 }' |
	xargs -n 2 -P "$jobs" sh tests/run.sh --one

cat "$dir"/[0-9]* >"$dir/log"
log=$dir/log
# The failures under their test's name, each with what it printed of why
# ("#   " lines right after it).
grep -E '^(not ok|# )' "$log" | awk '
	/^#   / { if (after) print; next }
	/^# / { if ($2 ~ /tests\//) name = $0; after = 0; next }
	{ if (name != shown) print name; shown = name; print; after = 1 }'
passed=$(grep -c '^ok ' "$log")
failed=$(grep -c '^not ok' "$log")
# A test whose log is missing (run.sh --one killed) is one more failure.
missing=$(($# - $(ls "$dir" | grep -c '^[0-9]*$')))
[ "$missing" -eq 0 ] || { echo "not ok - $missing test(s) left no log"; failed=$((failed + missing)); }

skipped=$(grep -c '^skip ' "$log")
[ "$skipped" -eq 0 ] || { echo "skipped (not counted):"; grep '^skip ' "$log"; }
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
