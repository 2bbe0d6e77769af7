#!/bin/sh
# Issue 42 item 3: a replay writes the pages the program wrote, not every
# byte it allocated. The recorder says, at the free of a chunk of 16 KiB or
# more, how many of the pages it spans are resident (mincore(2)) where some
# are not (TRACE_FREE_PAGES; version 3's pages record), and the replay
# writes that share of the chunk, from its start. tests/tools/sparse mallocs
# 64 MiB in 1 MiB chunks and writes the first eighth of each: before this,
# its replay held 64 MiB, 8 times the program's peak. Made-up traces check
# what the reader believes.
. "$(dirname "$0")/lib.sh"

TT=$ABBUILD/tests/tools/tracetool
SPARSE=$ABBUILD/tests/tools/sparse

# refused NAME PATTERN FILE: report FILE exits 2 saying PATTERN.
refused() {
	run_ab report "$3"
	check "$1" sh -c '[ "$1" = 2 ] && grep -Eq -- "$2" "$3"' sh "$rc" "$2" "$tmp/err"
}

# ---- made up: a 1 MiB chunk of which 33 of its 257 pages were written
printf 'header threads=1\nchunk\nmalloc seq=1 size=1048576 ret=0x10010\nfree seq=2 ptr=0x10010 pages=257 resident=33\n' |
	"$TT" make "$tmp/p.trace" 2
run_ab report -f json "$tmp/p.trace"
check "report: a free with its pages is a free" [ "$(jq_get "$tmp/out" calls.free)" = 1 ]
check "report: paged_frees 1, unwritten_bytes 224/257 of 1 MiB" \
	[ "$(jq_get "$tmp/out" paged_frees)/$(jq_get "$tmp/out" unwritten_bytes)" = 1/913933 ]
run_ab report "$tmp/p.trace"
check "report: the text says what was never written" \
	grep -q "never written: 913933 bytes of 1 freed chunks of 16 KiB or more" "$tmp/out"
printf 'header threads=1\nchunk\nmalloc seq=1 size=1048576 ret=0x10010\nfree seq=2 ptr=0x10010\n' |
	"$TT" make "$tmp/all.trace" 2
run_ab report -f json "$tmp/all.trace"
check "report: a plain free says nothing unwritten" \
	[ "$(jq_get "$tmp/out" paged_frees)/$(jq_get "$tmp/out" unwritten_bytes)" = 0/0 ]
"$AB" record --convert "$tmp/p.trace" -o "$tmp/p.v3" 2>"$tmp/conv.err"
check "version 3 keeps the pages" \
	sh -c '"$1" report -f json "$2" >"$3" && [ "$("$4" "$3" unwritten_bytes)" = 913933 ]' sh \
	"$AB" "$tmp/p.v3" "$tmp/p3.json" "$JSONQ"

for bad in 'resident=257 pages=257' 'resident=0 pages=0' 'resident=1 pages=72057594037927936'; do
	printf 'header threads=1\nchunk\nmalloc seq=1 size=1048576 ret=0x10010\nfree seq=2 ptr=0x10010 %s\n' "$bad" |
		"$TT" make "$tmp/bad.trace" 2
	refused "a free with $bad: damaged, the record named" \
		"is damaged: chunk 0, record at byte [0-9]+: a free" "$tmp/bad.trace"
done
printf 'header threads=1\nchunk\nfree seq=1 ptr=0 pages=4 resident=1\n' | "$TT" make "$tmp/null.trace" 2
refused "free(NULL) with its pages: damaged" "a free of NULL with its pages" "$tmp/null.trace"

# ---- recorded: sparse, replayed within 5% of its own peak, not 8 times it
if ! test_have_prereq NOASAN; then
	skip "sparse recorded and replayed" "$prereq_why"
	test_done
	exit 0
fi
ALLOCBENCH_TEST_RECORD_V2=1 record_trace "$tmp/sp.trace" "$SPARSE" 64 8 || not_ok "record sparse" "$(tail -n 3 "$tmp/record.err")"
run_ab report -f json "$tmp/sp.trace"
check "sparse: its 64 frees of 1 MiB said their pages" [ "$(jq_get "$tmp/out" paged_frees)" = 64 ]
check "sparse: 7/8 of its 64 MiB never written ($(jq_get "$tmp/out" unwritten_bytes) bytes)" \
	near "$(jq_get "$tmp/out" unwritten_bytes)" 58720256 1048576
run_ab --workload replay --trace "$tmp/sp.trace" --backend malloc --repeat 3 --counters none -q -f json -o "$tmp/r.json"
replay=$(jq_get "$tmp/r.json" fidelity.replay_peak_bytes)
anon=$(jq_get "$tmp/r.json" fidelity.program_peak_anon_bytes)
check "sparse replayed under malloc: its peak $replay B within 5% of the program's $anon B" \
	near "$replay" "$anon" "$(awk -v a="$anon" 'BEGIN { print a * 0.05 }')"
"$AB" record --convert "$tmp/sp.trace" -o "$tmp/sp.v3" 2>"$tmp/conv.err"
run_ab --workload replay --trace "$tmp/sp.v3" --backend malloc --repeat 3 --counters none -q -f json -o "$tmp/r3.json"
check "sparse, version 3: the same replay peak within 2% ($(jq_get "$tmp/r3.json" fidelity.replay_peak_bytes) B)" \
	near "$(jq_get "$tmp/r3.json" fidelity.replay_peak_bytes)" "$replay" "$(awk -v a="$replay" 'BEGIN { print a * 0.02 }')"

test_done
