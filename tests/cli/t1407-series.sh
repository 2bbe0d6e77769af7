#!/bin/sh
# Issue 27 item 3: a replay's memory over time. A generated trace of known
# live bytes (tracegen fifo: 2000 mallocs of 24 bytes, then pairs of a free
# of the oldest chunk and a malloc, to 20000 calls: 48000 bytes alive from
# 10% of the calls to the end) replayed on two backends: JSON carries 200
# points per row, their progress increasing, the live bytes the trace's,
# the resident memory flat once the live set is; the text says where each
# backend peaked; plot draws a line per backend, seen in Chromium. A
# recorded program whose live bytes fall (tests/tools/keep): what each
# backend kept after the live peak, in JSON, the text and the chart.
# check: host
. "$(dirname "$0")/lib.sh"

# (The generator frees nothing before it exits: no leak report of a sanitizer build.)
ASAN_OPTIONS=detect_leaks=0 "$ABBUILD/tests/tools/tracegen" "$tmp/g.trace" 20000 2000 fifo
run_ab --workload replay --trace "$tmp/g.trace" --backend malloc,pool --repeat 1 -q -f json -o "$tmp/r.json"
check "replay exits 0" [ "$rc" -eq 0 ]
# series B FIELD: row B's series.FIELD, one number a line.
series() { jq_get "$tmp/r.json" "results[backend=$1].series.$2" | tr -d '[]' | tr , '\n'; }
for b in malloc pool; do
	series $b steps >"$tmp/$b.steps"
	series $b rss_bytes >"$tmp/$b.rss"
	series $b live_bytes >"$tmp/$b.live"
	check "$b: 200 points of each" sh -c "[ \$(wc -l <'$tmp/$b.steps') = 200 ] && [ \$(wc -l <'$tmp/$b.rss') = 200 ] && [ \$(wc -l <'$tmp/$b.live') = 200 ]"
	check "$b: evenly spaced, increasing, the last at the row's steps" \
		awk -v ops="$(jq_get "$tmp/r.json" "results[backend=$b].ops")" \
		'$1 != NR * 100 { exit 1 } END { exit !(NR == 200 && $1 == ops) }' "$tmp/$b.steps"
	check "$b: live bytes 2400 after 100 calls, 48000 from 10% (2000 calls) to the end" \
		awk 'NR == 1 && $1 != 2400 { exit 1 } NR >= 20 && $1 != 48000 { exit 1 } NR < 20 && $1 != NR * 2400 { exit 1 }' "$tmp/$b.live"
	check "$b: their peak is the row's peak live bytes" \
		[ "$(sort -n "$tmp/$b.live" | tail -n 1)" = "$(jq_get "$tmp/r.json" "results[backend=$b].peak_live_bytes")" ]
	# AddressSanitizer's malloc keeps freed chunks in quarantine: glibc's and the pool reuse them.
	if [ $b = pool ] || test_have_prereq GLIBC_MALLOC; then
		check "$b: resident memory flat from 10% of the calls on (the chunks freed are reused)" \
			[ "$(sed -n '20,200p' "$tmp/$b.rss" | sort -u | wc -l)" -eq 1 ]
	else
		skip "$b: resident memory flat from 10% of the calls on" "$prereq_why"
	fi
	if test_have_prereq RSS_EXACT,GLIBC_MALLOC,PAGE_4K,THP_NOT_ALWAYS; then
		# 100 chunks of 32 bytes are one page; 2000 are 16 (64000 bytes): a
		# page the reader touched for itself would show here.
		check "$b: one page after 100 calls, 16 from 10% on (no page of the reader's)" \
			awk 'NR == 1 && $1 != 4096 { exit 1 } NR >= 20 && $1 != 65536 { exit 1 }' "$tmp/$b.rss"
	else
		skip "$b: the series' exact pages" "$prereq_why"
	fi
done
check "the report validates against the schema" "$SCHEMACHECK" "$top/data/allocbench.schema.json" "$tmp/r.json"
"$AB" show "$tmp/r.json" >"$tmp/shown"
# Where each backend peaked: the series' highest point, said in the text and the chart.
for b in malloc pool; do
	pct=$(awk 'NR == 1 || $1 > max { max = $1; at = NR } END { printf "%.0f", at / 2 }' "$tmp/$b.rss")
	kib=$(awk '{ if ($1 > max) max = $1 } END { printf "%.1f", max / 1024 }' "$tmp/$b.rss")
	check "the text says where $b peaked ($kib KiB at $pct%)" \
		grep -Eq "^  $b +resident peak $kib KiB at $pct% of calls\$" "$tmp/shown"
	eval "pct_$b=$pct"
done
check "... and where the live bytes did" grep -q "^  live bytes .* 46\\.9 KiB at 10% of calls" "$tmp/shown"

run_ab plot "$tmp/r.json" -o "$tmp/r.svg"
check "plot exits 0" [ "$rc" -eq 0 ]
for b in malloc pool; do
	check "plot draws $b's line of 200 points, its peak at $(eval echo \$pct_$b)%" \
		grep -q "^<g class=\"timeline\" data-name=\"$b\" data-points=\"200\" data-peak-pct=\"$(eval echo \$pct_$b)\"" "$tmp/r.svg"
done
check "... and the live bytes once, dashed" \
	[ "$(grep -c '^<g class="live" .*data-points="200" data-peak-pct="10"' "$tmp/r.svg")" -eq 1 ]
check "... with each peak in the legend" grep -q ">pool: peak [0-9.]* KiB at $pct_pool% of calls<" "$tmp/r.svg"

# A PNG's rows of pixels (ROWS, W by H, BPP bytes each), for the checks in
# Chromium's screenshots below: each appends what it reads of them.
cat >"$tmp/png.py" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
w, h, depth, ctype = struct.unpack(">IIBB", data[16:26])
idat, pos = b"", 8
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    if kind == b"IDAT":
        idat += data[pos + 8:pos + 8 + n]
    pos += 12 + n
raw = zlib.decompress(idat)
bpp = {2: 3, 6: 4}[ctype]
stride, rows, prev = w * bpp, [], bytearray(w * bpp)
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        p = a + b - c
        pr = a if abs(p - a) <= abs(p - b) and abs(p - a) <= abs(p - c) else b if abs(p - b) <= abs(p - c) else c
        line[i] = (line[i] + (0, a, b, (a + b) // 2, pr)[f]) & 255
    rows.append(line)
    prev = line
PY

# One shot in headless Chromium: the series panel shows each line's colour
# (svg.c's first two, then the live bytes' #333), counted in its pixels.
if test_have_prereq CHROMIUM,PYTHON3; then
	# The panel alone (from its heading, 300 px): fewer pixels to count.
	w=$(sed -n 's/^<svg .* width="\([0-9]*\)".*/\1/p' "$tmp/r.svg")
	ptop=$(sed -n 's/^<text x="70" y="\([0-9]*\)" font-weight="bold">memory over.*/\1/p' "$tmp/r.svg")
	sed "1s/width=\"[0-9]*\" height=\"[0-9]*\" viewBox=\"[0-9 ]*\"/width=\"$w\" height=\"300\" viewBox=\"0 $((ptop - 20)) $w 300\"/" \
		"$tmp/r.svg" >"$tmp/panel.svg"
	timeout 120 /usr/bin/chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$tmp/prof" --screenshot="$tmp/r.png" --window-size="$w,300" \
		"file://$tmp/panel.svg" >/dev/null 2>&1
	# pixels PNG FROM_Y RGB...: how many pixels below FROM_Y are near each colour.
	{ cat "$tmp/png.py"; cat <<'PY'; } | python3 - "$tmp/r.png" 0 0072B2 D55E00 333333 >"$tmp/pixels"
for hexc in sys.argv[3:]:
    want = [int(hexc[k:k + 2], 16) for k in (0, 2, 4)]
    n = sum(1 for y in range(int(sys.argv[2]), h) for x in range(w)
            if all(abs(rows[y][x * bpp + k] - want[k]) < 24 for k in range(3)))
    print(hexc, n)
PY
	for c in 0072B2 D55E00 333333; do
		check "Chromium shows the series panel's #$c line ($(grep "^$c " "$tmp/pixels" | cut -d' ' -f2) px)" \
			[ "$(grep "^$c " "$tmp/pixels" | cut -d' ' -f2)" -gt 100 ]
	done
else
	skip "the series in a browser" "$prereq_why"
fi
# What each backend kept after the live bytes' peak: keep (16 MiB, seven
# eighths freed, newest first) recorded and replayed; low_rss_bytes is the
# least of the series from the live peak on, end_rss_bytes its last point,
# as the text says and the chart marks (a square at the lowest point).
if test_have_prereq NOASAN; then
	record_trace "$tmp/kp.trace" "$ABBUILD/tests/tools/keep" 16 ||
		not_ok "record keep" "$(tail -n 3 "$tmp/record.err")"
	run_ab --workload replay --trace "$(ls "$tmp"/kp.trace.keep.* | head -n 1)" --backend malloc,pool \
		--repeat 1 -q -f json -o "$tmp/k.json"
	check "replay of keep exits 0" [ "$rc" -eq 0 ]
	check "... its report valid against the schema" "$SCHEMACHECK" "$top/data/allocbench.schema.json" "$tmp/k.json"
	"$AB" show "$tmp/k.json" >"$tmp/kshown"
	"$AB" plot "$tmp/k.json" -o "$tmp/k.svg"
	for b in malloc pool; do
		jq_get "$tmp/k.json" "results[backend=$b].series.rss_bytes" | tr -d '[]' | tr , '\n' >"$tmp/k.rss"
		jq_get "$tmp/k.json" "results[backend=$b].series.live_bytes" | tr -d '[]' | tr , '\n' |
			paste - "$tmp/k.rss" >"$tmp/k.both"
		want=$(awk '$1 > peak { peak = $1; low = $2 } $2 < low { low = $2 } { end = $2 } END { print low, end }' "$tmp/k.both")
		got="$(jq_get "$tmp/k.json" "results[backend=$b].low_rss_bytes.median") $(jq_get "$tmp/k.json" "results[backend=$b].end_rss_bytes.median")"
		check "$b: low_rss_bytes and end_rss_bytes are the series' after the live peak ($want)" [ "$got" = "$want" ]
		eval "want_$b=\$want"
		check "$b: the text says them" grep -Eq "^  $b +lowest $(echo "$want" | awk '{ printf "%.1f MiB, at the end %.1f MiB", $1 / 1048576, $2 / 1048576 }')\$" "$tmp/kshown"
	done
	"$AB" show -f markdown "$tmp/k.json" >"$tmp/k.md"
	check "Markdown: the table's last two columns are what each kept" \
		grep -q '| lowest after the live peak (KiB) | at the end (KiB) |$' "$tmp/k.md"
	check "... malloc's, in KiB" grep -q "^| malloc | .* | $(echo "$want_malloc" | awk '{ printf "%.0f | %.0f", $1 / 1024, $2 / 1024 }') |\$" "$tmp/k.md"
	check "the text says why a replay keeps what the program may give back" \
		sh -c 'tr "\n" " " <"$1" | tr -s " " | grep -q "after the live bytes. peak, resident at its lowest and at the end (the replay runs faster than the program"' sh "$tmp/kshown"
	check "the chart marks each backend's lowest point after the live peak" \
		[ "$(grep -c '^<rect class="low" ' "$tmp/k.svg")" -eq 2 ]
	check "... and its legend says it" grep -q '>malloc: peak [0-9.]* MiB at [0-9]*% of calls; after the live peak, lowest [0-9.]* MiB (the square), at the end [0-9.]* MiB<' "$tmp/k.svg"
	# In Chromium, the square: 200 px around the last one drawn (over every
	# line, and over another square where two backends keep the same) at
	# 1:1, its centre white, its left and right edges in its colour.
	if test_have_prereq CHROMIUM,PYTHON3; then
		sq=$(grep '^<rect class="low" ' "$tmp/k.svg" | tail -n 1)
		sx=$(echo "$sq" | sed 's/.* x="\([0-9.]*\)".*/\1/')
		sy=$(echo "$sq" | sed 's/.* y="\([0-9.]*\)".*/\1/')
		sc=$(echo "$sq" | sed 's/.* stroke="#\([0-9A-F]*\)".*/\1/')
		vb=$(awk -v x="$sx" -v y="$sy" 'BEGIN { printf "%.1f %.1f 200 200", x + 4 - 100, y + 4 - 100 }')
		sed "1s/width=\"[0-9]*\" height=\"[0-9]*\" viewBox=\"[0-9 ]*\"/width=\"200\" height=\"200\" viewBox=\"$vb\"/" \
			"$tmp/k.svg" >"$tmp/sq.svg"
		timeout 120 /usr/bin/chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
			--disable-background-networking --disable-component-update --disable-sync \
			--user-data-dir="$tmp/prof2" --screenshot="$tmp/sq.png" --window-size=200,200 \
			"file://$tmp/sq.svg" >/dev/null 2>&1
		{ cat "$tmp/png.py"; cat <<'PY'; } | python3 - "$tmp/sq.png" "$sc" >"$tmp/sq.px"
want = [int(sys.argv[2][k:k + 2], 16) for k in (0, 2, 4)]
def near(x, y, rgb):
    return all(abs(rows[y][x * bpp + k] - rgb[k]) < 48 for k in range(3))
print("centre", int(near(100, 100, [255, 255, 255])))
print("edges", int(near(96, 100, want) and near(104, 100, want)))
PY
		check "Chromium draws the square: its centre white ($(sed -n 's/^centre //p' "$tmp/sq.px")), its edges #$sc ($(sed -n 's/^edges //p' "$tmp/sq.px"))" \
			[ "$(tr '\n' ' ' <"$tmp/sq.px")" = "centre 1 edges 1 " ]
	else
		skip "the square in a browser" "$prereq_why"
	fi
	check "malloc keeps all of it and pool needs code changes: the verdict has no kept line" \
		sh -c '! grep -q "kept after the peak" "$1"' sh "$tmp/kshown"
	if test_have_prereq GLIBC_MALLOC; then
		# Each 1000-byte chunk a mapping of its own: glibc gives them back as they are freed.
		run_ab --workload replay --trace "$(ls "$tmp"/kp.trace.keep.* | head -n 1)" \
			--backend malloc,malloc:mmap_threshold=512 --repeat 1 -q
		check "where a drop-in backend gives memory back, the verdict names what each keeps after the peak" \
			sh -c 'tr "\n" " " <"$1" | tr -s " " | grep -Eq "kept after the peak, drop-in: malloc:mmap_threshold=512 [0-9.]+ \[[0-9.]+-[0-9.]+\] KiB; [0-9.]+ KiB \([0-9.]+%\) less than malloc "' sh "$tmp/out"
	else
		skip "the verdict's kept line" "$prereq_why"
	fi
	check "a replay whose live bytes do not fall marks nothing" sh -c '! grep -q "class=\"low\"" "$1"' sh "$tmp/r.svg"
	check "... and says nothing of it" sh -c '! grep -q "after the live bytes" "$1"' sh "$tmp/shown"
else
	skip "what a replay kept after the live peak" "$prereq_why"
fi

# A replay large enough that most of its points are not read exactly (70
# MiB: each smaps_rollup reading costs about 0.2 ms, 200 of them far more
# than 5% of its loop) but from statm's change since the last exact one:
# each point is at least the bytes alive then and at most the row's peak,
# give or take statm's error (up to max(32, 2 x CPUs) pages per CPU where
# the kernel does not sum its counters) and a page per 64 chunks alive.
"$ABBUILD/tests/tools/tracegen" "$tmp/big.trace" 2000000 700000
run_ab --workload replay --trace "$tmp/big.trace" --backend malloc --repeat 1 --replay-threads global \
	-q -f json -o "$tmp/big.json"
check "a replay of 70 MiB exits 0" [ "$rc" = 0 ]
for a in rss_bytes live_bytes; do
	jq_get "$tmp/big.json" "results[0].series.$a" | tr -d '[]' | tr , '\n' >"$tmp/big.$a"
done
big_peak=$(jq_get "$tmp/big.json" "results[0].peak_rss_bytes.median")
big_tol=$(awk -v n="$(nproc)" 'BEGIN { b = 2 * n > 32 ? 2 * n : 32; print n * b * 4096 }')
check "its 200 points lie between the bytes alive and its peak, within $big_tol B" \
	sh -c 'paste "$1" "$2" | awk -v peak="$3" -v tol="$4" "
		\$1 < \$2 * 0.98 - tol || \$1 > peak * 1.02 + tol { bad++ } END { exit NR != 200 || bad }"' \
	sh "$tmp/big.rss_bytes" "$tmp/big.live_bytes" "$big_peak" "$big_tol"
test_done
