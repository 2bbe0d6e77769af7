#!/bin/sh
# The long run of tests/cli/t1403-trace-damage.sh, by hand (not in make
# check): a recorded trace (sqlite3 if installed, else ls), sealed, cut at
# every offset and flipped at FLIPS (default 10000) bits that mean
# something, each through `allocbench report` under timeout 5: a cut must be
# truncated or damaged, a flip damaged, never a crash (128 and up) or a
# hang. Prints the failures and one line of counts; exit 1 on any failure.
# With MODE=replay, each goes through a replay on the arena instead (STEP=N:
# every Nth cut only, as a replay costs a measuring process).
#   ABBUILD=build/default [MODE=replay] [STEP=N] sh tests/trace-damage-big.sh [FLIPS]
set -u
LC_ALL=C
export LC_ALL
top=$(cd "$(dirname "$0")/.." && pwd)
ABBUILD=${ABBUILD:-$top/build/default}
AB=$ABBUILD/allocbench
TT=$ABBUILD/tests/tools/tracetool
flips=${1:-10000}
mode=${MODE:-report}
step=${STEP:-1}
# read_trace FILE: report, or a replay of FILE, under timeout 5.
read_trace() {
	if [ "$mode" = replay ]; then
		timeout 5 "$AB" --workload replay --trace "$1" --backend arena --repeat 1 -q -o "$tmp/r.txt"
	else
		timeout 5 "$AB" report "$1"
	fi
}
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

if command -v sqlite3 >/dev/null; then
	"$AB" record -o "$tmp/rec.trace" sqlite3 :memory: \
		"create table t(a); insert into t values (1), (2); select * from t;" >/dev/null
else
	"$AB" record -o "$tmp/rec.trace" ls / >/dev/null
fi
"$TT" reseal "$tmp/rec.trace" "$tmp/v2.trace" || exit 2
"$AB" report "$tmp/v2.trace" >/dev/null || exit 2
size=$(wc -c <"$tmp/v2.trace")
failed=0 crashed=0 hung=0

n=0
while [ "$n" -lt "$size" ]; do
	head -c "$n" "$tmp/v2.trace" >"$tmp/cut.trace"
	read_trace "$tmp/cut.trace" >/dev/null 2>"$tmp/err"
	r=$?
	[ "$r" -ge 128 ] && crashed=$((crashed + 1))
	[ "$r" = 124 ] && hung=$((hung + 1))
	if [ "$r" != 2 ] || ! grep -Eq "is (truncated|damaged)" "$tmp/err"; then
		failed=$((failed + 1)); echo "cut at $n: exit $r: $(cat "$tmp/err")"
	fi
	n=$((n + step))
done
i=1
while [ "$i" -le "$flips" ]; do
	at=$("$TT" flip "$tmp/v2.trace" "$tmp/f.trace" "$i")
	read_trace "$tmp/f.trace" >/dev/null 2>"$tmp/err"
	r=$?
	[ "$r" -ge 128 ] && crashed=$((crashed + 1))
	[ "$r" = 124 ] && hung=$((hung + 1))
	if [ "$r" != 2 ] || ! grep -q "is damaged" "$tmp/err"; then
		failed=$((failed + 1)); echo "flip $i at byte $at: exit $r: $(cat "$tmp/err")"
	fi
	i=$((i + 1))
done
echo "$mode: $(( (size + step - 1) / step )) cuts, $flips flips of a $size-byte trace: $failed not refused as truncated or damaged, $crashed crashed, $hung hung"
[ "$failed" = 0 ]
