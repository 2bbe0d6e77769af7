#!/bin/sh
# --label and the report's provenance: the label is kept in every format and
# shown by compare and plot; the JSON records the command line, the build
# and the version.
. "$(dirname "$0")/lib.sh"

run_ab run --sizes 40 --backend pool --total 1M --repeat 1 -q --label 'before the fix' \
	--export-json "$tmp/a.json" --export-markdown "$tmp/a.md"
check "a labelled run exits 0" [ "$rc" -eq 0 ]
check "the text header shows the label" grep -q '^label: before the fix$' "$tmp/out"
check "the Markdown shows the label" grep -q '^\*\*before the fix\*\*$' "$tmp/a.md"
check "the JSON keeps the label" [ "$(jq_get "$tmp/a.json" label)" = 'before the fix' ]
check "the JSON records the command line word by word" [ "$(jq_get "$tmp/a.json" command_line)" = \
	"[\"allocbench\",\"run\",\"--sizes\",\"40\",\"--backend\",\"pool\",\"--total\",\"1M\",\"--repeat\",\"1\",\"-q\",\"--label\",\"before the fix\",\"--export-json\",\"$tmp/a.json\",\"--export-markdown\",\"$tmp/a.md\"]" ]
check "the JSON records the version" [ "$(jq_get "$tmp/a.json" tool.version)" = "$("$AB" --version | cut -d' ' -f2)" ]
check "the JSON records the compiler" sh -c "\"$JSONQ\" '$tmp/a.json' tool.build.compiler | grep -Eq '^(gcc|clang) [0-9]'"
check "the JSON records the flags" sh -c "\"$JSONQ\" '$tmp/a.json' tool.build.flags | grep -q -- '-std=c11'"
papi=$(jq_get "$tmp/a.json" tool.build.papi)
if "$AB" counters 2>/dev/null | grep -q 'not built with PAPI'; then want=false; else want=true; fi
check "the JSON says whether PAPI is in ($want)" [ "$papi" = "$want" ]
check "the labelled report passes the schema" "$SCHEMACHECK" "$top/data/allocbench.schema.json" "$tmp/a.json"

run_ab --sizes 40 --backend pool --total 1M --repeat 1 -q -f json -o "$tmp/b.json"
check "without --label the JSON has none (absent, not null)" sh -c "! \"$JSONQ\" '$tmp/b.json' label >/dev/null 2>&1"
check "without run, the command line starts allocbench --sizes" \
	[ "$(jq_get "$tmp/b.json" 'command_line[1]')" = --sizes ]
check "the text header has no label line" sh -c "! \"$AB\" --sizes 40 --backend pool --total 1M --repeat 1 -q | grep -q '^label:'"

run_ab compare "$tmp/a.json" "$tmp/b.json"
check "compare names the labelled baseline" grep -q "^baseline: 'before the fix', allocbench" "$tmp/out"
check "compare names an unlabelled current as before" grep -q "^current:  allocbench" "$tmp/out"
run_ab compare "$tmp/a.json" "$tmp/b.json" -f json
check "compare --format json gives the label" [ "$(jq_get "$tmp/out" baseline.label)" = 'before the fix' ]
run_ab compare "$tmp/a.json" "$tmp/b.json" -f markdown
check "compare --format markdown gives the label" grep -q '(before the fix; allocbench' "$tmp/out"

run_ab plot "$tmp/a.json" "$tmp/b.json" -o "$tmp/p.svg"
check "plot names a labelled report by its label" grep -q '>before the fix<' "$tmp/p.svg"
check "plot names an unlabelled report by its file" grep -q "b.json<" "$tmp/p.svg"
run_ab plot "$tmp/a.json" "$tmp/b.json" --label one --label two -o "$tmp/q.svg"
check "plot's own --label wins" sh -c "grep -q '>one<' '$tmp/q.svg' && ! grep -q 'before the fix' '$tmp/q.svg'"

expect_usage "an empty --label" "empty --label" --label '' --total 1M
test_done
