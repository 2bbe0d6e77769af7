#!/bin/sh
# The GitHub Actions job of allocbench-compare(1), as its steps, for
# tests/cli/t0955-ci-recipe.sh and tests/gate-rates.sh:
#
#   sh tests/ci-recipe.sh DIR
#
# writes DIR/job.yml (the .EX block under ".SS GitHub Actions", unescaped:
# \- is -) and one shell script per step that runs allocbench:
# DIR/measure.sh (Measure), DIR/compare.sh (Compare...) and DIR/time.sh
# (Time...). A folded run (>-) is one line, a literal one (|) its lines.
set -u
cd "$(dirname "$0")/.." || exit 2
dir=$1
sed -n '/^\.SS GitHub Actions$/,/^\.S[HS] /p' man/allocbench-compare.1 |
	sed -n '/^\.EX$/,/^\.EE$/p' | sed '/^\.E[XE]$/d; s/\\-/-/g; s/\\e/\\/g' >"$dir/job.yml"
: >"$dir/measure.sh"; : >"$dir/compare.sh"; : >"$dir/time.sh"
awk -v dir="$dir" '
function flush() { if (file != "" && folded != "") print folded > file; folded = "" }
/^      - / { flush(); file = ""; mode = "" }
/^      - name: / {
	step = substr($0, 15)
	file = step == "Measure" ? "measure" : step ~ /^Compare/ ? "compare" : step ~ /^Time/ ? "time" : ""
	if (file != "") file = dir "/" file ".sh"
	next
}
file != "" && /^        run: >-$/ { mode = "folded"; next }
file != "" && /^        run: \|$/ { mode = "literal"; next }
file != "" && /^        [^ ]/ { flush(); mode = ""; next }
mode == "folded" { sub(/^ +/, ""); folded = folded (folded != "" ? " " : "") $0; next }
mode == "literal" { sub(/^          /, ""); print > file }
END { flush() }' "$dir/job.yml"
for f in measure compare time; do
	[ -s "$dir/$f.sh" ] || { echo "ci-recipe: the job has no $f step" >&2; exit 1; }
done
