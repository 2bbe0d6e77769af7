#!/bin/sh
# Issue 26: with --abi 32,64 each ABI's rows are judged against that ABI's
# own malloc, a verdict per size and ABI (main compared 32-bit rows with the
# 64-bit malloc).
. "$(dirname "$0")/lib.sh"

test_lazy_prereq ABI32 '
	"$AB" --abi 32 --sizes 4 --total 4K --repeat 1 --backend arena -q -f json \
		>"$tmp/.abi32.json" 2>"$tmp/.abi32.err" && exit 0
	tail -n 1 "$tmp/.abi32.err"; exit 1'
if ! test_have_prereq ABI32; then
	skip "a verdict per ABI" "$prereq_why"
	test_done
	exit 0
fi
run_ab --abi 32,64 --sizes 40 --backend malloc,arena --total 1M --repeat 2 -q \
	--export-json "$tmp/r.json" --export-markdown "$tmp/r.md"
check "--abi 32,64 exits 0" [ "$rc" -eq 0 ]
check "two verdicts at one size: one per ABI" [ "$(jq_get "$tmp/r.json" 'summary.verdicts#')" = 2 ]
for i in 0 1; do
	abi=$(jq_get "$tmp/r.json" "summary.verdicts[$i].abi")
	m=malloc; [ "$abi" = 32 ] && m=malloc/32
	check "verdict $i ($abi-bit): malloc's memory is $m's row" \
		[ "$(jq_get "$tmp/r.json" "summary.verdicts[$i].memory.malloc.median")" = \
		  "$(jq_get "$tmp/r.json" "results[backend=$m].overhead_bytes.median")" ]
	check "verdict $i ($abi-bit): the best is a row of that ABI" \
		sh -c 'case $1 in */32) [ "$2" = 32 ];; *) [ "$2" = 64 ];; esac' sh \
		"$(jq_get "$tmp/r.json" "summary.verdicts[$i].memory.best[0].backend")" "$abi"
done
check "the text says each ABI" sh -c "grep -q '^  40 B 32-bit memory, drop-in:' '$tmp/out' && grep -q '^  40 B 64-bit memory, drop-in:' '$tmp/out'"
check "arena/32 needs code changes, as the arena does" \
	sh -c "tr '\n' ' ' <'$tmp/out' | tr -s ' ' | grep -q '32-bit memory, with code changes: arena/32 '"
check "Markdown says each ABI" grep -q '^- 40 B 32-bit memory, drop-in:' "$tmp/r.md"
awk 'started || /^allocbench [0-9]/ { started = 1; print }' >"$tmp/shown" <<EOT
$("$AB" show "$tmp/r.json")
EOT
check "show prints the run's text, the ABI line included" cmp -s "$tmp/shown" "$tmp/out"
test_done
