# Common setup of the CLI tests (sourced): strict shell, C locale, a temporary
# directory removed on exit, the binary under test, and helpers that print one
# "ok - NAME" or "not ok - NAME" line each, counted by tests/run.sh.
set -u
LC_ALL=C
export LC_ALL
top=$(cd "$(dirname "$0")/../.." && pwd)
AB=${AB:-$top/allocbench}
JSONQ=$top/tests/tools/jsonq
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

# Every result is also counted in $tmp/.results (subshells included), so
# that test_done can print the plan: tests/run.sh fails a script whose plan
# is missing (it stopped early) or does not match its results.
ok() { printf 'ok - %s\n' "$1"; echo ok >>"$tmp/.results"; }
not_ok() {
	printf 'not ok - %s\n' "$1"; echo not_ok >>"$tmp/.results"
	[ $# -gt 1 ] && printf '#   %s\n' "$2"; return 0
}

# check NAME COMMAND...: passes when COMMAND succeeds.
check() {
	name=$1; shift
	if "$@"; then ok "$name"; else not_ok "$name" "failed: $*"; fi
}

# run_ab ARGS...: runs allocbench, leaving stdout in $tmp/out, stderr in
# $tmp/err and the exit status in $rc.
run_ab() {
	"$AB" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# expect_usage NAME PATTERN ARGS...: allocbench ARGS exits 2, prints nothing
# on stdout, and its stderr matches the grep -E PATTERN (naming the bad value).
expect_usage() {
	name=$1; pattern=$2; shift 2
	run_ab "$@"
	if [ "$rc" -ne 2 ]; then
		not_ok "$name" "exit status $rc, expected 2: allocbench $*"
	elif [ -s "$tmp/out" ]; then
		not_ok "$name" "wrote to stdout on bad usage: allocbench $*"
	elif ! grep -Eq -- "$pattern" "$tmp/err"; then
		not_ok "$name" "stderr '$(cat "$tmp/err")' does not match '$pattern'"
	else
		ok "$name"
	fi
}

# jq_get FILE PATH: one value of a JSON file.
jq_get() { "$JSONQ" "$1" "$2"; }

# near A B TOLERANCE: |A - B| <= TOLERANCE.
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'; }

# le A B: A <= B.
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }

# skip NAME REASON: a check that cannot run here; shown, not counted.
skip() { printf 'skip - %s: %s\n' "$1" "$2"; echo skip >>"$tmp/.results"; }

# test_done: the last line of every script, the TAP plan "1..N" where N
# counts its ok, not ok and skip lines.
test_done() {
	printf '1..%d\n' "$(cat "$tmp/.results" 2>/dev/null | wc -l)"
}

# Prerequisites, as git's test_lazy_prereq: test_lazy_prereq NAME 'SCRIPT'
# declares NAME; SCRIPT runs once, in a subshell, the first time a test asks
# for NAME. NAME holds when SCRIPT exits 0; otherwise the last line SCRIPT
# printed is the reason a test that needs it gives for skipping.
# test_have_prereq NAME[,NAME...] (a NAME may be !NAME) holds when every NAME
# does; when not, $prereq_why says which did not and why.
# check_if PREREQS NAME COMMAND...: check NAME COMMAND where PREREQS hold,
# "skip - NAME: why" elsewhere.
test_lazy_prereq() {
	eval "prereq_script_$1=\$2"
}
prereq_eval() {
	eval "state=\${prereq_state_$1-}"
	if [ -z "$state" ]; then
		eval "script=\${prereq_script_$1-}"
		[ -n "$script" ] || { echo "prerequisite $1 is not declared" >&2; exit 2; }
		out=$( (eval "$script") 2>/dev/null; printf '\n#rc=%d' $?)
		[ "${out##*#rc=}" = 0 ] && state=yes || state=no
		why=$(printf '%s\n' "$out" | grep -v '^#rc=' | grep . | tail -n 1)
		eval "prereq_state_$1=\$state; prereq_reason_$1=\$why"
	fi
	[ "$state" = yes ]
}
test_have_prereq() {
	prereq_why=
	for p in $(echo "$1" | tr ',' ' '); do
		case $p in
		!*)
			if prereq_eval "${p#!}"; then
				eval "r=\${prereq_reason_${p#!}-}"
				prereq_why="needs not ${p#!}${r:+ ($r)}"
				return 1
			fi ;;
		*)
			if ! prereq_eval "$p"; then
				eval "r=\${prereq_reason_$p-}"
				prereq_why="needs $p${r:+: $r}"
				return 1
			fi ;;
		esac
	done
	return 0
}
check_if() {
	prereqs=$1; shift
	if test_have_prereq "$prereqs"; then check "$@"; else skip "$1" "$prereq_why"; fi
}

# The sanitizers the binary was built with ("" for none): under
# AddressSanitizer malloc is the sanitizer's, and address-space limits break it.
sanitizers=$("$AB" --sizes 4 --total 4K --repeat 1 --backend arena -f json 2>/dev/null |
	"$JSONQ" - tool.sanitizers 2>/dev/null)
asan=0
case $sanitizers in *address*) asan=1 ;; esac
test_lazy_prereq ASAN '[ $asan = 1 ] || { echo "built without AddressSanitizer"; exit 1; }; echo "built with AddressSanitizer"'

