#!/bin/sh
# One palette and one XML escaping (src/report/svg.c) for every chart: the
# replay bars draw in the size charts' colours and escape as they do. (The
# size rules of files and functions are t0990's, over all of src/.)
. "$(dirname "$0")/lib.sh"

cd "$top" || exit 2
check "one palette: only src/report/svg.c spells a chart colour as a string" \
	test "$(grep -rlE '"#[0-9a-fA-F]{6}"' src)" = src/report/svg.c
check "one XML escaping: only src/report/svg.c writes an entity for '<'" \
	test "$(grep -rl '&lt;' src)" = src/report/svg.c

# A replay report drawn as bars: its colours are the palette's, its labels escaped.
record_trace "$tmp/t.trace" -- "$THREADS" 1 200
"$AB" --workload replay --trace "$tmp/t.trace" --backend malloc,pool,arena --repeat 1 -q \
	-f json -o "$tmp/r.json" 2>"$tmp/err"
check "a replay report to draw" test -s "$tmp/r.json"
run_ab plot "$tmp/r.json" "$tmp/r.json" --label 'one <&>' --label "two'\"" -o "$tmp/bars.svg"
check "plot draws the replay bars" test "$rc" -eq 0
palette=$(sed -n '/svg_colours\[SVG_COLOURS\] = {/,/};/p' src/report/svg.c | grep -oE '#[0-9a-fA-F]{6}' | sort -u)
fills=$(grep -oE '<rect [^>]*fill="#[0-9a-fA-F]{6}"' "$tmp/bars.svg" | grep -oE '#[0-9a-fA-F]{6}' | sort -u)
others=$(printf '%s\n' "$fills" | grep -vxF "$palette")
check "the bars are drawn in the palette's colours" test -n "$fills" -a -z "$others"
check "a bar's label escapes as the size charts' do" \
	grep -q '(one &lt;&amp;&gt;)</text>' "$tmp/bars.svg"
check "quotes in a bar's label are entities" grep -q '(two&apos;&quot;)</text>' "$tmp/bars.svg"
if command -v xmllint >/dev/null 2>&1; then
	check "the replay bars are well-formed XML" xmllint --noout "$tmp/bars.svg"
else
	skip "the replay bars are well-formed XML" "no xmllint"
fi

test_done
