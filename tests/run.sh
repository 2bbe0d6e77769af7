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
# Before it, a line names the TEST_SLOWEST (default 5) slowest tests and
# their seconds. TEST_JOBS tests run at once (default: the CPUs, nproc).
# Every test keeps its files in a directory of its own (mktemp) and no test
# asserts a time, so they run side by side as they run beside other work on
# a shared machine; the log is in the order of the list whatever the order
# of ending. TEST_SET (below) runs some of them.
cd "$(dirname "$0")/.." || exit 2

# run.sh --one LOG TEST: runs TEST (a unit test binary, or a CLI test: *.sh)
# and writes its output and its verdicts to LOG.
if [ "${1-}" = --one ]; then
	log=$2 name=$3
	one=$log.out
	rc=0
	start=$(date +%s.%N)
	case $name in
	*.sh) sh "$name" >"$one" 2>&1 || rc=$? ;;
	*) "./$name" >"$one" 2>&1 || rc=$? ;;
	esac
	end=$(date +%s.%N)
	{
		printf '%s\n' "# $name"
		printf '# seconds %s\n' "$(echo "$start $end" | awk '{ printf "%.1f", $2 - $1 }')"
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
slowest=${TEST_SLOWEST:-5}
for v in "TEST_JOBS $jobs" "TEST_SLOWEST $slowest"; do
	case ${v#* } in
	'' | *[!0-9]* | 0) echo "run.sh: ${v% *} must be a positive number, not '${v#* }'" >&2; exit 2 ;;
	esac
done

# TEST_SET chooses the tests: all (the default); variants, all but the
# CLI tests tagged "# check: once" (their result cannot depend on the build
# or the host state: a second build runs the rest); host, only the CLI tests
# tagged "# check: host" (they read the host's state: counters, memory, CPU
# model, exact bytes under load), for a run in another host state.
list=0
[ "${1-}" != --list ] || { list=1; shift; }
set -- "$@" tests/cli/t*.sh
case ${TEST_SET:=all} in
all) ;;
variants | host)
	all=$#
	for t do
		shift
		case $TEST_SET,$t in
		variants,*.sh) ! grep -qx '# check: once' "$t" || continue ;;
		host,*.sh) grep -qx '# check: host' "$t" || continue ;;
		host,*) continue ;;
		esac
		set -- "$@" "$t"
	done
	[ "$list" = 1 ] || echo "TEST_SET=$TEST_SET: $# of $all tests" ;;
*) echo "run.sh: TEST_SET must be all, variants or host, not '$TEST_SET'" >&2; exit 2 ;;
esac
# run.sh --list [UNIT_TEST...]: the tests it would run, one a line.
[ "$list" = 0 ] || { printf '%s\n' "$@"; exit 0; }

# Each test's log is named by its place in the list. The CLI tests start
# from the last: the newest, the real programs', are the longest, and
# started first they do not end alone after the rest.
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

# The slowest tests, where a check's time goes.
grep '^# ' "$log" | awk '
	$2 == "seconds" { print $3, name; next } $2 ~ /tests\// { name = $2 }' |
	sort -rn | head -n "$slowest" |
	awk '{ s = s sep $2 " " $1 " s"; sep = ", " } END { print "slowest: " s }'
skipped=$(grep -c '^skip ' "$log")
[ "$skipped" -eq 0 ] || { echo "skipped (not counted):"; grep '^skip ' "$log"; }
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
