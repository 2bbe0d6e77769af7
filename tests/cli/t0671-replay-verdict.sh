#!/bin/sh
# Issue 26: a replay of two or more backends has a verdict like random's:
# memory by peak RSS, time by ns per step, in the text, the JSON summary
# and Markdown (main printed none: "verdicts": []).
. "$(dirname "$0")/lib.sh"

need_trace "replay verdict"
run_ab --workload replay --trace "$tmp/th.trace" --backend malloc,pool --repeat 2 -q \
	--export-json "$tmp/r.json" --export-markdown "$tmp/r.md"
check "replay of two backends exits 0" [ "$rc" -eq 0 ]
check "the JSON summary has one verdict (one column)" \
	[ "$(jq_get "$tmp/r.json" 'summary.verdicts#')" = 1 ]
check "its memory is judged by peak_rss_bytes" \
	[ "$(jq_get "$tmp/r.json" 'summary.verdicts[0].memory.metric')" = peak_rss_bytes ]
check "its time by op_ns" [ "$(jq_get "$tmp/r.json" 'summary.verdicts[0].time.metric')" = op_ns ]
check "malloc's figure is malloc's row" \
	[ "$(jq_get "$tmp/r.json" 'summary.verdicts[0].memory.malloc.median')" = \
	  "$(jq_get "$tmp/r.json" 'results[backend=malloc].peak_rss_bytes.median')" ]
check "the text has the verdict's heading" grep -q '^verdict (median \[min-max\]' "$tmp/out"
check "the text judges memory in KiB, as its table shows peak RSS" \
	grep -Eq '^  memory, drop-in: .* KiB' "$tmp/out"
check "the text judges time in ns/op" grep -Eq '^  time, with code changes: .*ns/op' "$tmp/out"
check "Markdown has the verdict too" grep -q '^- memory, drop-in: ' "$tmp/r.md"
run_ab --workload replay --trace "$tmp/th.trace" --backend malloc --repeat 1 -q -f json
check "one backend: no verdict" jq_absent "$tmp/out" summary
test_done
