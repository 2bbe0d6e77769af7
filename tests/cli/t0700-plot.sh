#!/bin/sh
# allocbench plot: reports in, one standalone SVG out. The SVG must be XML,
# hold one series per file and backend in each panel with one marker per
# measured size, mark failed sizes, escape outside text, and bad input must
# exit 2 and write nothing. A screenshot in headless Chromium, when it is
# installed, shows that the chart renders.
. "$(dirname "$0")/lib.sh"

# xml_ok FILE: FILE is well-formed XML (xmllint, else python3).
if test_have_prereq XMLLINT; then
	xml_ok() { xmllint --noout "$1" 2>/dev/null; }
elif test_have_prereq PYTHON3; then
	xml_ok() { python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$1" 2>/dev/null; }
else
	xml_ok() { return 0; }
	skip "the SVG is XML" "neither xmllint (libxml2-utils) nor python3 is installed"
fi

# series SVG: one line per series in each panel:
#   METRIC LABEL BACKEND MARKERS GAPS LINE_BREAKS DATA_POINTS
# where MARKERS counts <use class="point">, GAPS the failed sizes' crosses,
# LINE_BREAKS the times the line starts again after the first.
series() {
	awk '
	function attr(name,   m) {
		if (!match($0, name "=\"[^\"]*\"")) return "-"
		m = substr($0, RSTART + length(name) + 2, RLENGTH - length(name) - 3)
		gsub(/ /, "_", m)
		return m
	}
	/^<g class="panel"/ { metric = attr("data-metric") }
	/^<g class="series"/ { in_s = 1; label = attr("data-label"); backend = attr("data-backend")
		dp = attr("data-points"); markers = 0; gaps = 0; breaks = 0; next }
	in_s && /^<use class="point"/ { markers++ }
	in_s && /^<path class="gap"/ { gaps++ }
	in_s && /^<path class="line"/ { s = $0; breaks = gsub(/M/, "", s) - 1 }
	in_s && /^<\/g>/ { print metric, label, backend, markers, gaps, breaks, dp; in_s = 0 }
	' "$1"
}

# y_scale SVG METRIC: "log" or "linear", as the panel says.
y_scale() { grep "^<g class=\"panel\" data-metric=\"$2\"" "$1" | sed 's/.*data-y-scale="\([a-z]*\)".*/\1/'; }

# A hand-made report, for figures a real run cannot promise.
# stat V: a statistic of one run.
stat() { printf '{"median":%s,"min":%s,"max":%s,"runs":[%s]}' "$1" "$1" "$1" "$1"; }
# row BACKEND SIZE OVERHEAD ALLOC_NS [EXTRA]: a result that succeeded.
row() {
	printf '{"workload":"fill","backend":"%s","size":%s,"count":1000,"status":"ok",' "$1" "$2"
	printf '"overhead_bytes":%s,"alloc_ns":%s,"free_ns":%s,"page_faults":%s%s}' \
		"$(stat "$3")" "$(stat "$4")" "$(stat 2)" "$(stat 260)" "${5:+,$5}"
}
# failed BACKEND SIZE WHY: a result that failed.
failed() {
	printf '{"workload":"fill","backend":"%s","size":%s,"count":1000,"status":"failed",' "$1" "$2"
	printf '"error":"%s","overhead_bytes":null,"alloc_ns":null,"free_ns":null,"page_faults":null}' "$3"
}
# report FILE HOSTNAME ROW...: a whole allocbench/1 report.
report() {
	f=$1 h=$2
	shift 2
	rows=$(IFS=,; printf '%s' "$*")
	printf '{"schema":"allocbench/1","tool":{"name":"allocbench","version":"0.1.0"},' >"$f"
	printf '"created":"2026-01-01T00:00:00Z","host":{"hostname":"%s","kernel":"Linux 6.1",' "$h" >>"$f"
	printf '"machine":"x86_64","cpus":2},"config":{"workload":"fill","total_bytes":1048576,' >>"$f"
	printf '"touch":"pages","repeat":1},"results":[%s]}\n' "$rows" >>"$f"
}

# ---- help ------------------------------------------------------------------

run_ab plot --help
check "plot --help exits 0" [ "$rc" -eq 0 ]
check "plot --help prints usage to stdout" grep -q '^usage: allocbench plot' "$tmp/out"
check "plot --help writes nothing to stderr" [ ! -s "$tmp/err" ]
for opt in --metric --label --x --facet --output --help; do
	check "plot --help documents $opt" grep -q -- "$opt" "$tmp/out"
done
missing=
for opt in $(grep -o -- '--[a-z][a-z0-9-]*' "$tmp/out" | sort -u); do
	grep -q -- "${opt#--}" "$top/man/allocbench-plot.1" || missing="$missing $opt"
done
check "every plot --help option is in the man page${missing:+ (missing:$missing)}" [ -z "$missing" ]
check "plot has a man page of its own" grep -q '^\.TH ALLOCBENCH-PLOT ' "$top/man/allocbench-plot.1"

# ---- real reports ----------------------------------------------------------

run_ab --sizes 8..1024 --backend malloc,pool,arena --total 1M --repeat 1 -q -f json -o "$tmp/a.json"
check "first report measured" [ "$rc" -eq 0 ]
run_ab --sizes 16..256 --backend pool,arena --total 1M --repeat 2 -q -f json -o "$tmp/b.json"
check "second report measured" [ "$rc" -eq 0 ]

# From a pipe, as in: allocbench --format json | allocbench plot > overhead.svg
"$AB" plot <"$tmp/a.json" >"$tmp/pipe.svg" 2>"$tmp/err"
rc=$?
check "plot from a pipe exits 0" [ "$rc" -eq 0 ]
check "plot from a pipe is quiet" [ ! -s "$tmp/err" ]
check "plot from a pipe is XML" xml_ok "$tmp/pipe.svg"
check "the SVG starts with its declaration" [ "$(head -c 5 "$tmp/pipe.svg")" = "<?xml" ]
check "the SVG is an svg document" grep -q '^<svg xmlns="http://www.w3.org/2000/svg"' "$tmp/pipe.svg"
series "$tmp/pipe.svg" >"$tmp/s.txt"
check "one series per backend in each of the two default panels" [ "$(wc -l <"$tmp/s.txt")" -eq 6 ]
for b in malloc pool arena; do
	for m in overhead alloc_ns; do
		check "$m panel: $b has one marker per size (8)" \
			grep -q "^$m standard_input $b 8 0 0 8\$" "$tmp/s.txt"
	done
done
check "overhead has a linear y axis" [ "$(y_scale "$tmp/pipe.svg" overhead)" = linear ]
check "the overhead axis says linear" grep -q 'class="y-label".*>bytes per chunk (linear)<' "$tmp/pipe.svg"
check "the size axis is labelled with its unit and scale" grep -q '>chunk size, bytes (log scale' "$tmp/pipe.svg"
check "the title says what was measured" grep -q '<text class="title"[^>]*>allocbench: overhead per chunk and time per allocation by chunk size<' "$tmp/pipe.svg"
check "the subtitle names the host" grep -q "<text class=\"host\"[^>]*>host $(jq_get "$tmp/a.json" host.hostname):" "$tmp/pipe.svg"
check "the subtitle says how much was measured" \
	grep -Eq '>fill, 1 MiB per measurement, touch pages, 1 run( \(allocbench built with -fsanitize=[a-z,]+\))?<' "$tmp/pipe.svg"
check "a legend entry per backend" [ "$(grep -c '<g class="legend-entry"' "$tmp/pipe.svg")" -eq 3 ]
check "no script" sh -c "! grep -qi '<script' '$tmp/pipe.svg'"
check "no external file, font or image" sh -c "! grep -Eqi 'url\\(|@import|@font-face|<image|href=\"[a-z]+:' '$tmp/pipe.svg'"
check "markers differ in shape per backend" [ "$(grep -o '<use class="point" href="#marker[0-9]*"' "$tmp/pipe.svg" | sort -u | wc -l)" -eq 3 ]

run_ab plot - <"$tmp/a.json"
check "plot - reads standard input" sh -c '[ "$1" -eq 0 ] && cmp -s "$2" "$3"' _ "$rc" "$tmp/out" "$tmp/pipe.svg"

# Several files with labels, into -o.
run_ab plot "$tmp/a.json" "$tmp/b.json" --label before --label 'after <&>' -o "$tmp/two.svg"
check "two files exit 0" [ "$rc" -eq 0 ]
check "-o leaves stdout empty" [ ! -s "$tmp/out" ]
check "-o leaves no temporary file" [ "$(ls "$tmp" | grep -c tmp)" -eq 0 ]
check "two files: XML" xml_ok "$tmp/two.svg"
series "$tmp/two.svg" >"$tmp/s.txt"
check "two files: 3 + 2 series per panel" [ "$(wc -l <"$tmp/s.txt")" -eq 10 ]
check "first file's pool: 8 points" grep -q '^overhead before pool 8 0 0 8$' "$tmp/s.txt"
check "second file's pool: 5 points, labelled, escaped" grep -q '^overhead after_&lt;&amp;&gt; pool 5 0 0 5$' "$tmp/s.txt"
check "second file's arena in the time panel" grep -q '^alloc_ns after_&lt;&amp;&gt; arena 5 0 0 5$' "$tmp/s.txt"
check "the second file has no malloc series" sh -c "! grep -q '^overhead after.* malloc ' '$tmp/s.txt'"
check "the legend names each file" [ "$(grep -c '<text class="legend-file"' "$tmp/two.svg")" -eq 2 ]
check "the data-file attribute holds the path" grep -q "data-file=\"$tmp/b.json\"" "$tmp/two.svg"
# markers LABEL BACKEND: the marker shapes of that series in two.svg.
markers() { sed -n "/data-label=\"$1\" data-backend=\"$2\"/,/<\/g>/p" "$tmp/two.svg" | grep -o 'href="#marker[0-9]*"' | sort -u; }
check "a backend keeps its marker across files" [ "$(markers before pool)" = "$(markers 'after \&lt;\&amp;\&gt;' pool)" ]
check "backends differ in marker" [ "$(markers before pool)" != "$(markers before arena)" ]
# A sparse size axis is drawn as points, not lines that suggest values in between.
check "sparse series: points, no line" sh -c "! grep -q '<path class=\"line\"' '$tmp/two.svg'"
check "sparse series: the legend shows the marker, no line" \
	sh -c "! sed -n '/<g class=\"legend\">/,/^<\\/g>\$/p' '$tmp/two.svg' | grep -q 'd=\"M[0-9.]* [0-9.]*h36\"'"
check "the second file's markers are hollow" sh -c "sed -n '/data-label=\"after/,/<\\/g>/p' '$tmp/two.svg' | grep -q 'class=\"point\".*fill=\"#ffffff\"'"
check "the first file's markers are filled" sh -c "! sed -n '/data-label=\"before\"/,/<\\/g>/p' '$tmp/two.svg' | grep 'class=\"point\"' | grep -q 'fill=\"#ffffff\"'"
check "repetitions drawn as min-max bars" grep -q '<path class="range"' "$tmp/two.svg"

run_ab plot "$tmp/a.json" --metric overhead,alloc_ns,free_ns,page_faults,free_page_faults,x_floor
check "six panels" [ "$(grep -c '^<g class="panel"' "$tmp/out")" -eq 6 ]
check "--metric names map to fields" grep -q 'data-metric="overhead" data-field="overhead_bytes"' "$tmp/out"

# ---- hand-made reports: scales, gaps, mixes, counters, outside text ----------

report "$tmp/neg.json" h \
	"$(row pool 8 0 2)" "$(row pool 4096 -512 200)" "$(row pool 65536 -4000 900)" \
	"$(row arena 8 0 20)" "$(row arena 4096 -512 30)" "$(row arena 65536 -4000 40)"
run_ab plot "$tmp/neg.json"
check "negative overhead plots" [ "$rc" -eq 0 ]
check "negative overhead: a zero line" grep -q '<path class="zero"' "$tmp/out"
check "negative overhead: negative ticks" grep -q 'text-anchor="end">-4000<' "$tmp/out"
check "ns over 2 decades: log y" [ "$(y_scale "$tmp/out" alloc_ns)" = log ]
check "the log axis says so" grep -q '>ns per allocation (log scale)<' "$tmp/out"
check "a log axis over three decades labels 2 and 5 too" \
	sh -c "grep -q 'text-anchor=\"end\">5<' '$tmp/out' && grep -q 'text-anchor=\"end\">200<' '$tmp/out' && grep -q 'text-anchor=\"end\">1k<' '$tmp/out'"
check "the negative value is drawn below the zero line" sh -c "
	zero=\$(sed -n 's/.*class=\"zero\".*d=\"M[0-9.]* \([0-9.]*\)H.*/\1/p' '$tmp/out')
	low=\$(grep 'data-size=\"65536\" data-value=\"-4000\"' '$tmp/out' | head -1 | sed 's/.* y=\"\([0-9.]*\)\".*/\1/')
	awk -v z=\"\$zero\" -v l=\"\$low\" 'BEGIN { exit !(z != \"\" && l != \"\" && l + 0 > z + 0) }'"

report "$tmp/lin.json" h "$(row pool 8 0 10)" "$(row pool 64 0 50)" "$(row pool 512 0 900)"
run_ab plot "$tmp/lin.json"
check "ns within 2 decades: linear y" [ "$(y_scale "$tmp/out" alloc_ns)" = linear ]

report "$tmp/gap.json" 'bad<host> & \"co\"' \
	"$(row malloc 8 24 20)" "$(failed malloc 64 'allocation 3 of 9 failed: <no memory> & more')" \
	"$(row malloc 512 16 300)" "$(row malloc 0 50 50)" \
	"$(row pool 8 0 5)" "$(row pool 64 0 20)" "$(row pool 512 0 200)"
run_ab plot "$tmp/gap.json" -o "$tmp/gap.svg"
check "a report with a failed row plots the rest" [ "$rc" -eq 0 ]
check "failed row: XML with the escaped host and error" xml_ok "$tmp/gap.svg"
series "$tmp/gap.svg" >"$tmp/s.txt"
check "failed row: malloc has 2 points, a cross and no line" grep -q "^overhead .* malloc 2 1 0 2\$" "$tmp/s.txt"
check "failed row: pool is whole" grep -q "^overhead .* pool 3 0 0 3\$" "$tmp/s.txt"
check "failed row: the cross sits at its size" grep -q '<path class="gap" data-size="64"' "$tmp/gap.svg"
check "failed row: the note says why" grep -q 'class="note-failed".*malloc at 64 B: allocation 3 of 9 failed: &lt;no memory&gt; &amp; more' "$tmp/gap.svg"
check "failed row: the legend counts it" grep -q '>malloc (1 failed: ' "$tmp/gap.svg"
check "size 0 (a size mix) is noted, not plotted" grep -q 'class="note-mixed".*1 result of a size mix' "$tmp/gap.svg"
check "host name escaped" grep -q 'host bad&lt;host&gt; &amp; &quot;co&quot;' "$tmp/gap.svg"
check "no raw outside markup" sh -c "! grep -q '<host>\\|<no memory>' '$tmp/gap.svg'"

# Outside text that is not valid UTF-8 or holds control characters.
printf '{"schema":"allocbench/1","host":{"hostname":"x\377\001y"},"results":[%s]}' \
	"$(row pool 8 0 5)" >"$tmp/bytes.json"
cp "$tmp/bytes.json" "$tmp/we<ird & \"na'me.json"
run_ab plot "$tmp/we<ird & \"na'me.json" -o "$tmp/bytes.svg"
check "invalid UTF-8 and odd file names: exit 0" [ "$rc" -eq 0 ]
check "invalid UTF-8 and odd file names: still XML" xml_ok "$tmp/bytes.svg"
check "invalid bytes replaced" grep -q "host x$(printf '\357\277\275\357\277\275')y" "$tmp/bytes.svg"
check "the odd file name escaped" grep -q 'data-file="[^"]*we&lt;ird &amp; &quot;na&apos;me.json"' "$tmp/bytes.svg"

counters='"counters":{"PAPI_TOT_CYC":{"alloc":{"median":1500,"min":1400,"max":1600,"runs":[1400,1500,1600]}}}'
report "$tmp/cnt.json" h "$(row pool 8 0 5 "$counters")" "$(row pool 64 0 9 "$counters")" \
	"$(row arena 8 0 5)"
run_ab plot "$tmp/cnt.json" --metric overhead,counters.PAPI_TOT_CYC.alloc
check "a dotted counter metric plots" [ "$rc" -eq 0 ]
series "$tmp/out" >"$tmp/s.txt"
check "counter panel: the rows that have it" grep -q '^counters.PAPI_TOT_CYC.alloc .* pool 2 0 0 2$' "$tmp/s.txt"
check "counter panel: arena lacks it" grep -q '^counters.PAPI_TOT_CYC.alloc .* arena 0 0 0 0$' "$tmp/s.txt"
check "counter panel: missing values noted" grep -q 'class="note-missing".*1 successful result without a value for counters.PAPI_TOT_CYC.alloc' "$tmp/out"

report "$tmp/wl.json" h "$(row pool 8 0 5)" \
	"$(row pool 8 0 9 | sed 's/"workload":"fill"/"workload":"churn"/')"
run_ab plot "$tmp/wl.json"
check "two workloads in one file: a series each" [ "$(grep -c '^<g class="series".*data-workload=' "$tmp/out")" -eq 4 ]

# ---- dense sweeps: lines without markers, steps, width, --x, --facet ---------

# sweep FILE N STEP: a report of N sizes from 1, STEP apart, for four
# backends whose size classes are 16, 32, 64 and 128 bytes wide: overhead
# chunk - size (a sawtooth: the chunk is a staircase), time growing with the
# size. Written by awk: 4096 rows in a fraction of a second.
sweep() {
	awk -v n="$2" -v step="$3" 'BEGIN {
		printf "{\"schema\":\"allocbench/1\",\"tool\":{\"name\":\"allocbench\",\"version\":\"0.1.0\"},"
		printf "\"host\":{\"hostname\":\"h\"},\"config\":{\"workload\":\"fill\",\"total_bytes\":65536,"
		printf "\"touch\":\"pages\",\"repeat\":1},\"results\":["
		split("malloc jemalloc mimalloc tcmalloc", b, " ")
		for (k = 1; k <= 4; k++) {
			w = 8 * 2 ^ k
			for (i = 0; i < n; i++) {
				s = 1 + i * step; c = int((s + w - 1) / w) * w
				printf "%s{\"workload\":\"fill\",\"backend\":\"%s\",\"size\":%d,\"status\":\"ok\",", (k > 1 || i) ? "," : "", b[k], s
				printf "\"overhead_bytes\":{\"median\":%d,\"min\":%d,\"max\":%d},", c - s, c - s, c - s
				printf "\"alloc_ns\":{\"median\":%d,\"min\":%d,\"max\":%d}}", 20 + s / 4, 20 + s / 4, 20 + s / 4
			}
		}
		printf "]}\n"
	}' >"$1"
}
sweep "$tmp/s128.json" 128 8      # 1..1024:+8
sweep "$tmp/s1024.json" 1024 1    # 1..1024:+1
# panel_of SVG METRIC FACET: the lines of that panel, up to the next one.
panel_of() {
	awk -v m="$2" -v f="$3" '
	/^<g class="panel"/ { in_p = index($0, "data-metric=\"" m "\"") && index($0, "data-facet=\"" f "\"") }
	/^<g class="legend"/ { in_p = 0 }
	in_p' "$1"
}
svg_width() { sed -n 's/^<svg .* width="\([0-9]*\)".*/\1/p' "$1"; }
# line_of SVG METRIC BACKEND: the d of that series' line in that panel.
line_of() {
	awk -v m="$2" -v b="$3" '
	/^<g class="panel"/ { in_p = index($0, "data-metric=\"" m "\"") > 0 }
	in_p && /^<g class="series"/ { in_s = index($0, "data-backend=\"" b "\"") > 0 }
	in_p && in_s && /^<path class="line"/ { sub(/.* d="/, ""); sub(/".*/, ""); print; exit }' "$1"
}

run_ab plot "$tmp/s128.json" -o "$tmp/d128.svg"
check "128 sizes per series: exit 0" [ "$rc" -eq 0 ]
check "128 sizes: XML" xml_ok "$tmp/d128.svg"
series "$tmp/d128.svg" >"$tmp/s.txt"
check "128 sizes: every series has its 128 points and no marker" \
	[ "$(grep -c ' 0 0 0 128$' "$tmp/s.txt")" -eq 8 ]
check "128 sizes: no marker in the legend either" sh -c "! sed -n '/class=\"legend\"/,/^<\\/g>/p' '$tmp/d128.svg' | grep -q '<use '"
check "128 sizes: overhead is drawn in steps" \
	[ "$(grep -c 'class="series" .*data-line="steps" data-points="128"' "$tmp/d128.svg")" -eq 4 ]
check "128 sizes: times are drawn straight" \
	[ "$(grep -c 'class="series" .*data-line="straight" data-points="128"' "$tmp/d128.svg")" -eq 4 ]
# malloc's 16-byte classes, sizes 8 apart: the chunk is held, then steps at
# each size (127 of them), and the hold falls 8 bytes: 15 to 7 at 17, then up to 15.
l=$(line_of "$tmp/d128.svg" overhead malloc)
check "the overhead line steps at every size after the first (127 V)" \
	[ "$(printf '%s' "$l" | tr -cd V | wc -c)" -eq 127 ]
l=$(line_of "$tmp/d128.svg" alloc_ns malloc)
check "times have no steps" sh -c "[ -n '$l' ] && [ -z \"\$(printf '%s' '$l' | tr -cd V)\" ]"
check "128 sizes fit the usual width (960)" [ "$(svg_width "$tmp/d128.svg")" -eq 960 ]
check "128 sizes: log axis by default, ticks at powers of two" \
	sh -c "grep -q 'data-x-scale=\"log\"' '$tmp/d128.svg' && grep -q 'text-anchor=\"middle\">512<' '$tmp/d128.svg' && grep -q '>chunk size, bytes (log scale' '$tmp/d128.svg'"
"$AB" plot "$tmp/a.json" >"$tmp/a.svg"
run_ab plot "$tmp/a.json" --x log
check "--x log is the default" sh -c '[ "$1" -eq 0 ] && cmp -s "$2" "$3"' _ "$rc" "$tmp/out" "$tmp/a.svg"

run_ab plot "$tmp/s128.json" --x linear -o "$tmp/lin128.svg"
check "--x linear: exit 0" [ "$rc" -eq 0 ]
check "--x linear: the panels say so" [ "$(grep -c '^<g class="panel".*data-x-scale="linear"' "$tmp/lin128.svg")" -eq 2 ]
check "--x linear: the axis label says so" grep -q '>chunk size, bytes (linear; K = 1024)<' "$tmp/lin128.svg"
# The size ticks of the first panel, in order.
sed -n '/class="ticks"/,/<\/g>/p' "$tmp/lin128.svg" | grep 'text-anchor="middle"' |
	sed 's/.*>\([^<]*\)<.*/\1/' | head -9 | tr '\n' ' ' >"$tmp/ticks"
check "--x linear: ticks every 128 B from 0 to 1K ($(cat "$tmp/ticks"))" \
	[ "$(cat "$tmp/ticks")" = "0 128 256 384 512 640 768 896 1K " ]
check "--x linear: evenly spaced sizes are evenly spaced" sh -c "
	grep 'class=\"ticks\"' -A9 '$tmp/lin128.svg' | grep 'text-anchor=\"middle\"' | head -3 |
	sed 's/.* x=\"\\([0-9.]*\\)\".*/\\1/' | awk 'NR == 1 { a = \$1 } NR == 2 { b = \$1 } NR == 3 { c = \$1 }
		END { d = (c - b) - (b - a); exit !(b > a && d < 0.2 && d > -0.2) }'"

run_ab plot "$tmp/s1024.json" --x linear -o "$tmp/lin1024.svg"
check "1024 sizes per series: exit 0" [ "$rc" -eq 0 ]
check "1024 sizes: XML" xml_ok "$tmp/lin1024.svg"
series "$tmp/lin1024.svg" >"$tmp/s.txt"
check "1024 sizes: every series has its 1024 points and no marker" \
	[ "$(grep -c ' 0 0 0 1024$' "$tmp/s.txt")" -eq 8 ]
check "1024 sizes: the chart widens to its maximum (2476 px: a 2048 px plot area)" \
	[ "$(svg_width "$tmp/lin1024.svg")" -eq 2476 ]
check "1024 sizes: the plot area's frame is that wide" grep -q '<rect x="84.0" y="[0-9.]*" width="2076.0"' "$tmp/lin1024.svg"

run_ab plot "$tmp/s128.json" --x linear --facet backend -o "$tmp/facet.svg"
check "--facet backend: exit 0" [ "$rc" -eq 0 ]
check "--facet backend: XML" xml_ok "$tmp/facet.svg"
check "--facet backend: 2 metrics x 4 backends = 8 panels" [ "$(grep -c '^<g class="panel"' "$tmp/facet.svg")" -eq 8 ]
check "--facet backend: one series per panel" [ "$(grep -c '^<g class="series"' "$tmp/facet.svg")" -eq 8 ]
for b in malloc jemalloc mimalloc tcmalloc; do
	panel_of "$tmp/facet.svg" overhead "$b" | grep '^<g class="series"' >"$tmp/ps"
	check "--facet backend: $b's overhead panel holds $b's series only" \
		sh -c "[ \$(grep -c . '$tmp/ps') -eq 1 ] && grep -q 'data-backend=\"$b\"' '$tmp/ps'"
	panel_of "$tmp/facet.svg" overhead "$b" | grep 'text-anchor="end"' |
		sed 's/.*>\([^<]*\)<.*/\1/' | tr '\n' ' ' >"$tmp/y-$b"
done
check "--facet backend: one y axis for a metric ($(cat "$tmp/y-malloc"))" \
	sh -c "[ -s '$tmp/y-malloc' ] && cmp -s '$tmp/y-malloc' '$tmp/y-tcmalloc'"
check "--facet backend: the headings name the backend" grep -q '>jemalloc — Overhead: resident bytes' "$tmp/facet.svg"
cp "$tmp/s128.json" "$tmp/s128b.json"
run_ab plot "$tmp/s128.json" "$tmp/s128b.json" --facet backend --metric overhead -o "$tmp/facet2.svg"
panel_of "$tmp/facet2.svg" overhead mimalloc | grep '^<g class="series"' >"$tmp/ps"
check "--facet backend with two files: 4 panels, a series per file in each" sh -c "
	[ \$(grep -c '^<g class=\"panel\"' '$tmp/facet2.svg') -eq 4 ] &&
	[ \$(grep -c '^<g class=\"series\"' '$tmp/facet2.svg') -eq 8 ] &&
	[ \$(grep -c 'data-backend=\"mimalloc\"' '$tmp/ps') -eq 2 ] &&
	grep -q 'data-file=\"$tmp/s128b.json\"' '$tmp/ps'"
run_ab plot "$tmp/a.json" --facet none
check "--facet none is the default" sh -c '[ "$1" -eq 0 ] && cmp -s "$2" "$3"' _ "$rc" "$tmp/out" "$tmp/a.svg"

# ---- bad input: exit 2, a message naming it, nothing written -----------------

echo hello >"$tmp/text.txt"
echo '{"benchmarks":[{"name":"BM_malloc"}]}' >"$tmp/gbench.json"
report "$tmp/empty.json" h
report "$tmp/allfailed.json" h "$(failed pool 8 boom)" "$(failed arena 8 boom)"
report "$tmp/mixonly.json" h "$(row pool 0 1 1)"
printf '{"schema":"allocbench/1","results":[' >"$tmp/trunc.json"

# expect_refused NAME PATTERN ARGS...: exit 2, stderr matches, no -o file.
expect_refused() {
	name=$1
	pattern=$2
	shift 2
	rm -f "$tmp/bad.svg"
	expect_usage "$name" "$pattern" plot "$@" -o "$tmp/bad.svg"
	check "$name: no output file" sh -c "! ls '$tmp' | grep -q '^bad.svg'"
}
expect_refused "not JSON" "'$tmp/text.txt': not valid JSON" "$tmp/text.txt"
expect_refused "truncated JSON" "'$tmp/trunc.json': not valid JSON" "$tmp/trunc.json"
expect_refused "another tool's JSON" "'$tmp/gbench.json': not an allocbench report" "$tmp/gbench.json"
expect_refused "an empty results list" "'$tmp/empty.json': the results list is empty" "$tmp/empty.json"
expect_refused "every row failed" "'$tmp/allfailed.json': no plottable points" "$tmp/allfailed.json"
# A report without a size axis is drawn as bars; beside one with sizes it has no place.
expect_refused "a size mix beside sizes" "'$tmp/mixonly.json': no plottable points" "$tmp/a.json" "$tmp/mixonly.json"
expect_refused "one bad file among good ones" "'$tmp/allfailed.json': no plottable points" "$tmp/a.json" "$tmp/allfailed.json"
expect_refused "a missing file" "'$tmp/nosuch.json': cannot read" "$tmp/nosuch.json"
expect_refused "unknown --metric" "unknown metric 'bogus' in --metric" "$tmp/a.json" --metric bogus
expect_refused "absent dotted --metric" "unknown metric 'counters.PAPI_L1_DCM.alloc'" "$tmp/cnt.json" --metric counters.PAPI_L1_DCM.alloc
expect_refused "bad --metric name" "unknown metric 'a b' in --metric" "$tmp/a.json" --metric 'a b'
expect_refused "empty --metric item" "empty item in --metric 'overhead,'" "$tmp/a.json" --metric overhead,
expect_refused "duplicate --metric" "metric 'overhead_bytes' appears more than once" "$tmp/a.json" --metric overhead,overhead_bytes
expect_refused "too many --label" "2 --label for 1 input file" "$tmp/a.json" --label x --label y
expect_refused "empty --label" "empty --label" "$tmp/a.json" --label ''
expect_refused "stdin twice" "standard input \('-'\) is given 2 times" - -
expect_refused "unknown option" "unknown option '--bogus'" "$tmp/a.json" --bogus
expect_refused "bad --x" "invalid --x 'lin' \(expected log or linear\)" "$tmp/a.json" --x lin
expect_refused "bad --facet" "invalid --facet 'file' \(expected backend or none\)" "$tmp/a.json" --facet file
expect_refused "empty stdin" "'-': empty file" </dev/null
expect_usage "unwritable -o" "cannot write '$tmp/no/such/dir/x.svg'" plot "$tmp/a.json" -o "$tmp/no/such/dir/x.svg"
expect_usage "empty -o" "empty file name for --output" plot "$tmp/a.json" -o ''

echo old >"$tmp/keep.svg"
run_ab plot "$tmp/text.txt" -o "$tmp/keep.svg"
check "refused plot exits 2" [ "$rc" -eq 2 ]
check "refused plot leaves -o untouched" [ "$(cat "$tmp/keep.svg")" = old ]
run_ab plot "$tmp/a.json" -o "$tmp/keep.svg"
check "-o replaces the file with the chart" sh -c '[ "$1" -eq 0 ] && grep -q "^<svg " "$2"' _ "$rc" "$tmp/keep.svg"
run_ab plot "$tmp/a.json" -o /dev/full
check_if DEV_FULL "a failed write exits 1 and says so" sh -c '[ "$1" -eq 1 ] && grep -q "cannot write" "$2"' _ "$rc" "$tmp/err"

# Without --metric, the panels follow the first report's workload.
# Reports without a size axis (the random workload mixes its sizes): a bar
# per backend and file, on a linear axis from 0, instead of nothing.
run_ab --workload random --sizes 24,48 --backend malloc,pool,arena --total 1M --repeat 2 -q -f json -o "$tmp/rnd1.json"
run_ab --workload random --sizes 24,48 --backend malloc,pool --total 1M --repeat 2 -q -f json -o "$tmp/rnd2.json"
run_ab plot "$tmp/rnd1.json" "$tmp/rnd2.json" -o "$tmp/bars.svg"
check "random reports plot as bars" [ "$rc" -eq 0 ]
check "bars: XML" xml_ok "$tmp/bars.svg"
check "bars: the random panels by default" \
	sh -c "grep -q 'data-metric=\"op_ns\"' '$tmp/bars.svg' && grep -q 'data-metric=\"fragmentation\"' '$tmp/bars.svg'"
check "bars: one bar per backend and file in each panel (2 x 5)" [ "$(grep -c '^<rect class="bar"' "$tmp/bars.svg")" -eq 10 ]
check "bars: no size axis" sh -c "grep -q 'data-x-scale=\"none\"' '$tmp/bars.svg' && ! grep -q 'chunk size, bytes' '$tmp/bars.svg'"
check "bars: the title says by backend" grep -q '<text class="title"[^>]*>allocbench: time per operation and resident growth over live bytes by backend<' "$tmp/bars.svg"
check "bars: each bar named under it" [ "$(grep -c '^<text x="[0-9.]*" y="[0-9.]*" text-anchor="middle">\(malloc\|pool\|arena\)</text>' "$tmp/bars.svg")" -eq 10 ]
check "bars: a linear y axis" [ "$(y_scale "$tmp/bars.svg" op_ns)" = linear ]
check "bars: the second file's bars are hollow" \
	sh -c "sed -n '/data-file=\"[^\"]*rnd2.json\"/,/<\\/g>/p' '$tmp/bars.svg' | grep '^<rect class=\"bar\"' | grep -q 'fill=\"#ffffff\"'"
# A bar stands on 0: its bottom edge is the same for every bar of a panel.
check "bars: every bar of a panel starts at 0" [ "$(awk '/^<g class="panel"/ { on = /data-metric="op_ns"/ } on' "$tmp/bars.svg" |
	sed -n 's/^<rect class="bar" x="[0-9.]*" y="\([0-9.]*\)" width="[0-9.]*" height="\([0-9.]*\)".*/\1 \2/p' |
	awk '{ printf "%.0f\n", $1 + $2 }' | sort -u | wc -l)" -eq 1 ]
run_ab plot "$tmp/mixonly.json"
check "a hand-made report of one size mix: one bar" sh -c "[ $rc -eq 0 ] && [ \$(grep -c '^<rect class=\"bar\"' '$tmp/out') -eq 2 ]"

run_ab --workload churn --sizes 16,64 --backend pool,malloc --total 1M --rounds 2 --repeat 1 -q -f json -o "$tmp/churn.json"
run_ab plot "$tmp/churn.json" -o "$tmp/churn.svg"
check "a churn report plots without --metric" [ "$rc" -eq 0 ]
check "... with the churn panels" grep -q 'churn_ns' "$tmp/churn.svg"
# Panel titles and axes in words and units, not field names.
check "... titled in words" grep -q '>Time per create and destroy pair, fastest of rounds 2 and later<' "$tmp/churn.svg"
check "... its y axis in units" grep -q '>ns per pair (l[a-z ]*)<' "$tmp/churn.svg"
check "... no field name as a heading or axis" sh -c "! grep -q '>churn_ns\|>churn_cold_ns' '$tmp/churn.svg'"
check "... one series per backend and panel" [ "$(grep -c 'class="series"' "$tmp/churn.svg")" -eq 4 ]
run_ab --workload threads --threads 2 --sizes 16,64 --backend pool --total 1M --rounds 1 --repeat 1 -q -f json -o "$tmp/thr.json"
run_ab plot "$tmp/thr.json" -o "$tmp/thr.svg"
check "a threads report plots without --metric" [ "$rc" -eq 0 ]
check "... with the threads panels" grep -q 'speedup' "$tmp/thr.svg"

# ---- the browser's view -----------------------------------------------------

# Where Chromium is installed; a function, so that a missing browser skips
# these checks only (it once ended the script, hiding everything after it).
chromium=/usr/bin/chromium
browser_view() {
	# shot SVG PNG: a 1000x800 screenshot of SVG in headless Chromium.
	shot() {
		timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
			--disable-background-networking --disable-component-update --disable-sync \
			--user-data-dir="$tmp/prof" --screenshot="$2" --window-size=1000,800 \
			"file://$1" >/dev/null 2>&1
	}
	height=$(sed -n 's/^<svg .* height="\([0-9]*\)".*/\1/p' "$tmp/pipe.svg")
	printf '<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="960" height="%s"><rect width="960" height="100%%" fill="#ffffff"/></svg>\n' \
		"$height" >"$tmp/blank.svg"
	# The same chart without its data: the series must show up in the picture.
	grep -v '^<use class="point"\|^<path class="line"\|^<path class="range"' "$tmp/pipe.svg" >"$tmp/nodata.svg"
	shot "$tmp/pipe.svg" "$tmp/plot.png"
	shot "$tmp/blank.svg" "$tmp/blank.png"
	shot "$tmp/nodata.svg" "$tmp/nodata.png"
	if [ ! -s "$tmp/plot.png" ] || [ ! -s "$tmp/blank.png" ] || [ ! -s "$tmp/nodata.png" ]; then
		not_ok "headless Chromium takes screenshots" "no PNG from $chromium"
		return 0
	fi
	ok "headless Chromium takes screenshots"
	size() { wc -c <"$1" | tr -d ' '; }
	check "the chart is not blank ($(size "$tmp/plot.png") vs $(size "$tmp/blank.png") bytes)" \
		[ "$(size "$tmp/plot.png")" -gt $(( 4 * $(size "$tmp/blank.png") + 10000 )) ]
	check "the data is drawn ($(size "$tmp/plot.png") vs $(size "$tmp/nodata.png") bytes without it)" \
		sh -c "! cmp -s '$tmp/plot.png' '$tmp/nodata.png' && [ $(size "$tmp/plot.png") -gt $(( $(size "$tmp/nodata.png") + 2000 )) ]"

	# Dense sweeps, each shot at its own size: 128 sizes per series in a
	# panel per backend, 1024 in the widened chart. Without its lines (a
	# dense series has nothing else), or without one backend's, the picture
	# must change: every panel's line is drawn, none hides another.
	dense_shot() {
		w=$(sed -n 's/^<svg .* width="\([0-9]*\)".*/\1/p' "$1")
		h=$(sed -n 's/^<svg .* height="\([0-9]*\)".*/\1/p' "$1")
		timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
			--disable-background-networking --disable-component-update --disable-sync \
			--user-data-dir="$tmp/prof" --screenshot="$2" --window-size="$w,$h" \
			"file://$1" >/dev/null 2>&1
	}
	for d in facet lin1024; do
		grep -v '^<path class="line"' "$tmp/$d.svg" >"$tmp/$d-nolines.svg"
		awk '/^<g class="series".*data-backend="mimalloc"/ { skip = 1 } !skip; skip && /^<\/g>/ { skip = 0 }' \
			"$tmp/$d.svg" >"$tmp/$d-nomimalloc.svg"
		for v in "" -nolines -nomimalloc; do
			dense_shot "$tmp/$d$v.svg" "$tmp/$d$v.png"
		done
		check "$d: the dense lines are drawn ($(size "$tmp/$d.png") vs $(size "$tmp/$d-nolines.png") bytes without them)" \
			sh -c "[ -s '$tmp/$d.png' ] && [ $(size "$tmp/$d.png") -gt $(( $(size "$tmp/$d-nolines.png") + 5000 )) ]"
		check "$d: mimalloc's line shows in the picture" \
			sh -c "[ -s '$tmp/$d-nomimalloc.png' ] && ! cmp -s '$tmp/$d.png' '$tmp/$d-nomimalloc.png'"
	done
	check "the 1024-size chart is shot at its full width (2476 px)" \
		sh -c "[ \"\$(od -An -tu1 -j16 -N4 '$tmp/lin1024.png' | awk '{ print \$1 * 16777216 + \$2 * 65536 + \$3 * 256 + \$4 }')\" -eq 2476 ]"
}
if test_have_prereq CHROMIUM,ONCE; then
	browser_view
else
	skip "the chart renders in a browser" "$prereq_why"
fi

test_done
