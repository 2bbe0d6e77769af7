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
for opt in --metric --label --output --help; do
	check "plot --help documents $opt" grep -q -- "$opt" "$tmp/out"
done
missing=
for opt in $(grep -o -- '--[a-z][a-z0-9-]*' "$tmp/out" | sort -u); do
	grep -q -- "${opt#--}" "$top/man/allocbench.1" || missing="$missing $opt"
done
check "every plot --help option is in the man page${missing:+ (missing:$missing)}" [ -z "$missing" ]
check "the man page has a plot section" grep -q '^\.SS.*plot' "$top/man/allocbench.1"

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
check "the second file's line is dashed" sh -c "sed -n '/data-label=\"after/,/<\\/g>/p' '$tmp/two.svg' | grep -q 'class=\"line\".*stroke-dasharray'"
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
check "failed row: malloc has 2 points, a cross and a broken line" grep -q "^overhead .* malloc 2 1 1 2\$" "$tmp/s.txt"
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
expect_refused "only size mixes" "'$tmp/mixonly.json': no plottable points" "$tmp/mixonly.json"
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
run_ab --workload churn --sizes 16,64 --backend pool,malloc --total 1M --rounds 2 --repeat 1 -q -f json -o "$tmp/churn.json"
run_ab plot "$tmp/churn.json" -o "$tmp/churn.svg"
check "a churn report plots without --metric" [ "$rc" -eq 0 ]
check "... with the churn panels" grep -q 'churn_ns' "$tmp/churn.svg"
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
}
if test_have_prereq CHROMIUM; then
	browser_view
else
	skip "the chart renders in a browser" "$prereq_why"
fi

test_done
