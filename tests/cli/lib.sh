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

ok() { printf 'ok - %s\n' "$1"; }
not_ok() { printf 'not ok - %s\n' "$1"; [ $# -gt 1 ] && printf '#   %s\n' "$2"; return 0; }

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
skip() { printf 'skip - %s: %s\n' "$1" "$2"; }

# The sanitizers the binary was built with ("" for none): under
# AddressSanitizer malloc is the sanitizer's, and address-space limits break it.
sanitizers=$("$AB" --sizes 4 --total 4K --repeat 1 --backend arena -f json 2>/dev/null |
	"$JSONQ" - tool.sanitizers 2>/dev/null)
asan=0
case $sanitizers in *address*) asan=1 ;; esac
