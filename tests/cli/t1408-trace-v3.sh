#!/bin/sh
# Trace format version 3 (record --trace-version 3's, and record --convert's): one recording,
# converted, gives
# the same report (all but the trace's own bytes and name) and the same replay (its
# memory figures and its steps' checksum) as the trace it was converted
# from; a damaged block is refused by its checksum; a version 3 trace is
# not converted again.
. "$(dirname "$0")/lib.sh"

if ! test_have_prereq NOASAN; then
	skip "trace format version 3" "$prereq_why"
	test_done
	exit 0
fi
record_trace "$tmp/th.trace" "$THREADS" ||
	not_ok "record $THREADS" "$(tail -n 3 "$tmp/record.err")"
record_trace "$tmp/d.trace" --trace-version 3 "$THREADS" || not_ok "record $THREADS" "$(tail -n 3 "$tmp/record.err")"
"$AB" report "$tmp/d.trace" -f json >"$tmp/d.json"
check "record --trace-version 3 writes version 3 once the program ended" \
	test "$(jq_get "$tmp/d.json" trace.format_version)" = 3
"$AB" report "$tmp/th.trace" -f json >"$tmp/th.json"
check "record writes version 2 by default" test "$(jq_get "$tmp/th.json" trace.format_version)" = 2
"$AB" record --convert "$tmp/th.trace" -o "$tmp/th.v3" 2>"$tmp/conv.err"
check "record --convert exits 0" test "$?" = 0
check "the converted trace is smaller" \
	test "$(wc -c <"$tmp/th.v3")" -lt "$(wc -c <"$tmp/th.trace")"
for f in text json; do
	"$AB" report "$tmp/th.trace" -f $f | grep -v 'bytes of trace\|"bytes"\|format_version\|"path"\|"advise_replays"\|^trace ' >"$tmp/r2.$f"
	"$AB" report "$tmp/th.v3" -f $f | grep -v 'bytes of trace\|"bytes"\|format_version\|"path"\|"advise_replays"\|^trace ' >"$tmp/r3.$f"
	check "report -f $f: the same but for the trace's bytes" cmp "$tmp/r2.$f" "$tmp/r3.$f"
done
for t in th.trace th.v3; do
	run_ab --workload replay --trace "$tmp/$t" --backend malloc,pool --repeat 1 -q -f json -o "$tmp/$t.json"
	check "replay of $t exits 0" test "$rc" = 0
done
for k in 'results[0].checksum' 'results[1].checksum' 'results[0].peak_live_bytes' \
	 'results[1].peak_live_bytes' 'results[0].status'; do
	check "replay: $k the same" test "$(jq_get "$tmp/th.trace.json" "$k")" = "$(jq_get "$tmp/th.v3.json" "$k")"
done
# The converted file in place; then its first block's frame damaged.
cp "$tmp/th.trace" "$tmp/in.trace"
"$AB" record --convert "$tmp/in.trace" 2>/dev/null
check "converted in place: the same as into another file" cmp "$tmp/in.trace" "$tmp/th.v3"
"$AB" record --convert "$tmp/th.v3" -o "$tmp/again" 2>"$tmp/again.err"
check "a version 3 trace is not converted again" grep -q 'version 3 already' "$tmp/again.err"
# Through a symbolic link: its target converted, the link kept.
cp "$tmp/th.trace" "$tmp/target.trace"
ln -s target.trace "$tmp/link"
"$AB" record --convert "$tmp/link" 2>/dev/null
check "a symbolic link is converted through: the link kept, its target converted" \
	sh -c '[ -L "$1" ] && cmp -s "$2" "$3"' sh "$tmp/link" "$tmp/target.trace" "$tmp/th.v3"
printf '\377' | dd of="$tmp/in.trace" bs=1 seek=300 conv=notrunc 2>/dev/null
"$AB" report "$tmp/in.trace" >/dev/null 2>"$tmp/bad.err"
check "a damaged block is refused by its checksum" grep -q 'block 0 at byte 256: its checksum does not match' "$tmp/bad.err"
test_done
