#!/bin/sh
# Issue 26: Markdown, the format for pull-request comments, carries the
# verdict the text prints, for every workload, where two or more backends ran.
. "$(dirname "$0")/lib.sh"

for w in "fill --sizes 40,400" "churn --sizes 40" "random --sizes 24,48" "threads --sizes 40 --threads 2"; do
	wl=${w%% *}
	# shellcheck disable=SC2086
	run_ab --workload $w --backend malloc,arena --total 1M --repeat 2 -q \
		--export-markdown "$tmp/$wl.md"
	check "$wl: run exits 0" [ "$rc" -eq 0 ]
	check "$wl: Markdown has the verdict's heading" grep -q '^\*\*Verdict\*\* (median' "$tmp/$wl.md"
	# The same aspects, line for line, as the text's verdict.
	sed -n '/^verdict (median/,$p' "$tmp/out" | grep -Eo '^  [0-9]* ?B? ?(memory|time), [a-z -]*:' |
		sed 's/^  //' >"$tmp/text.aspects"
	grep -Eo '^- [0-9]* ?B? ?(memory|time), [a-z -]*:' "$tmp/$wl.md" | sed 's/^- //' >"$tmp/md.aspects"
	check "$wl: Markdown judges what the text judges" cmp -s "$tmp/text.aspects" "$tmp/md.aspects"
	check "$wl: ... which is something" [ -s "$tmp/md.aspects" ]
done
run_ab --sizes 40 --backend malloc --total 1M --repeat 1 -q -f markdown
check "one backend: no verdict in Markdown" sh -c "! grep -q Verdict '$tmp/out'"
test_done
