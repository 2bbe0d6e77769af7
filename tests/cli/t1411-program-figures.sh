#!/bin/sh
# Issue 27 item 2: the recording keeps each recorded process's own figures
# (its peak anonymous memory, sampled by record; VmHWM and its wall time,
# read by the recording library at its end; its calls), report shows them,
# and every replay report says how close the replay under malloc comes to
# the program's peak anonymous memory. Checked against an independent
# measurement: tests/tools/peakanon polling the same program run alone
# (tests/record/peakhold, which holds a known peak for 100 ms and prints
# its own VmHWM). A trace without the figures (an older recording, a
# process killed) says so in one line. Tolerances cover the kernel's RSS
# counters, which are per CPU and read approximately (NOTES.md).
. "$(dirname "$0")/lib.sh"

PEAKANON=$ABBUILD/tests/tools/peakanon
HEAD=$ABBUILD/tests/record/tracehead
TRACETOOL=$ABBUILD/tests/tools/tracetool
PROG=$ABBUILD/tests/record/peakhold
KIB=4000

# field NAME: NAME=VALUE of tracehead's line in $h.
field() { printf '%s\n' "$h" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
# tol KIB: the tolerance on a peak of KIB KiB read twice: 3%, and 128 KiB
# for the kernel's per-CPU RSS counters.
tol() { awk -v r="$1" 'BEGIN { print r * 0.03 + 128 }'; }
# joined FILE: FILE's lines as one, the wrapping undone.
joined() { tr '\n' ' ' <"$1" | sed 's/  */ /g'; }

# Figures written by hand into a made-up trace (any build, sanitizers
# included, reads them): at byte 240, little-endian, run_ns 500000000,
# hwm_kib 6000, anon_peak_kib 4000; the header sealed again.
ASAN_OPTIONS=detect_leaks=0 "$ABBUILD/tests/tools/tracegen" "$tmp/g.raw" 20000 5000
printf '\000\145\315\035\000\000\000\000\160\027\000\000\240\017\000\000' |
	dd of="$tmp/g.raw" bs=1 seek=240 conv=notrunc 2>/dev/null
"$TRACETOOL" reseal "$tmp/g.raw" "$tmp/g.trace"
run_ab report "$tmp/g.trace"
joined "$tmp/out" >"$tmp/g.txt"
check "report reads the figures of the header's last 16 bytes" \
	grep -q "program: peak anonymous memory 4000 KiB, peak resident set 6000 KiB, 0.500 s, 20000 calls" \
	"$tmp/g.txt"
"$AB" --workload replay --trace "$tmp/g.trace" --backend malloc --repeat 1 --counters none -q \
	-f json -o "$tmp/g.json"
greplay=$(jq_get "$tmp/g.json" "results[backend=malloc].peak_rss_bytes.median")
gline="replay under malloc reproduces the program's peak anonymous memory within $(awk -v r="$greplay" \
	'BEGIN { d = r - 4096000; if (d < 0) d = -d; printf "%.1f", 100 * d / 4096000 }')% (replay $(awk \
	-v r="$greplay" 'BEGIN { printf "%.0f", r / 1024 }') KiB, program 4000 KiB)"
"$AB" show "$tmp/g.json" >"$tmp/g-show.txt"
check "its replay holds malloc's peak against them: $gline" \
	grep -qF "program: $gline" "$(joined "$tmp/g-show.txt" >"$tmp/g-show1"; echo "$tmp/g-show1")"
check "... JSON config.replay.program" \
	[ "$(jq_get "$tmp/g.json" config.replay.program.peak_anon_bytes) $(jq_get "$tmp/g.json" config.replay.program.hwm_bytes) $(jq_get "$tmp/g.json" config.replay.program.wall_seconds)" = "4096000 6144000 0.5" ]

if ! test_have_prereq NOASAN; then
	skip "the program's own figures recorded" "$prereq_why"
	test_done
	exit 0
fi

# The program alone: its peak anonymous memory, the middle of three runs.
for r in 1 2 3; do
	"$PEAKANON" "$PROG" $KIB | awk '{ print $2 }'
done | sort -n >"$tmp/real"
real=$(sed -n 2p "$tmp/real")
check "peakhold alone, polled by peakanon: three peaks ($(paste -sd' ' "$tmp/real") KiB)" \
	[ "$(wc -l <"$tmp/real")" = 3 ]

# Recorded: the trace's header keeps the figures (read by tracehead, not allocbench).
t0=$(date +%s%N)
ALLOCBENCH_TEST_RECORD_V2=1 record_trace "$tmp/p.trace" "$PROG" $KIB
rc=$?
t1=$(date +%s%N)
check "record peakhold" [ $rc -eq 0 ]
h=$("$HEAD" "$tmp/p.trace")
anon=$(field anon_peak_kib); hwm=$(field hwm_kib); run_ns=$(field run_ns)
own_hwm=$(sed -n 's/^hwm //p' "$tmp/record.out")
check "the trace keeps the peak anonymous memory, $anon KiB, within 3% + 128 KiB of peakanon's $real KiB" \
	near "$anon" "$real" "$(tol "$real")"
check "... and VmHWM at the end, $hwm KiB, within 3% + 128 KiB of what the program read of its own ($own_hwm KiB)" \
	near "$hwm" "$own_hwm" "$(tol "$own_hwm")"
check "... at least its peak anonymous memory ($anon KiB, give or take 256 KiB of counter drift)" \
	le "$anon" $((hwm + 256))
check "... and its wall time, $run_ns ns: at least the 100 ms it holds its peak, at most record's whole run" \
	sh -c '[ "$1" -ge 100000000 ] && [ "$1" -le "$2" ]' sh "$run_ns" $((t1 - t0))

# report: the figures, in text and JSON.
run_ab report "$tmp/p.trace"
joined "$tmp/out" >"$tmp/report.txt"
check "report shows the program's figures" \
	grep -q "program: peak anonymous memory $anon KiB, peak resident set $hwm KiB, [0-9.]* s, [0-9]* calls" \
	"$tmp/report.txt"
run_ab report -f json "$tmp/p.trace"
cp "$tmp/out" "$tmp/report.json"
j=$(for f in trace.program.peak_anon_bytes trace.program.hwm_bytes trace.program.calls \
	calls.total calls.malloc; do jq_get "$tmp/report.json" $f; done | paste -sd' ' -)
check "report's JSON: trace.program.peak_anon_bytes, hwm_bytes, calls as the trace's ($j)" \
	sh -c 'set -- $1 "$2" "$3" "$4"
	       [ "$1" = $(($6 * 1024)) ] && [ "$2" = $(($7 * 1024)) ] && [ "$3" = "$4" ] &&
	       [ "$5" -ge $(($8 * 16)) ]' sh "$j" "$anon" "$hwm" $KIB
printf '{"$ref": "#/$defs/trace_report", "$defs": %s}\n' \
	"$("$JSONQ" "$top/data/allocbench.schema.json" '$defs')" >"$tmp/ts.json"
check "... valid against the schema's trace_report" "$SCHEMACHECK" "$tmp/ts.json" "$tmp/report.json"

# A replay under malloc, held against the program.
"$AB" --workload replay --trace "$tmp/p.trace" --backend malloc --repeat 1 --counters none -q \
	-f json -o "$tmp/r.json"
check "replay peakhold's trace under malloc" [ $? -eq 0 ]
replay=$(jq_get "$tmp/r.json" "results[backend=malloc].peak_rss_bytes.median")
pct=$(awk -v r="$replay" -v p="$anon" 'BEGIN { d = r - p * 1024; if (d < 0) d = -d; printf "%.1f", 100 * d / (p * 1024) }')
j=$(for f in fidelity.backend fidelity.program_peak_anon_bytes fidelity.replay_peak_bytes \
	config.replay.program.peak_anon_bytes; do jq_get "$tmp/r.json" $f; done | paste -sd' ' -)
check "JSON fidelity: malloc's peak ($replay B) against the program's ($anon KiB): $j" \
	[ "$j" = "malloc $((anon * 1024)) $replay $((anon * 1024))" ]
check "... difference_percent, $pct% as the figures give it" \
	near "$(jq_get "$tmp/r.json" fidelity.difference_percent)" "$pct" 0.051
check "... valid against the schema" "$SCHEMACHECK" "$top/data/allocbench.schema.json" "$tmp/r.json"
line="replay under malloc reproduces the program's peak anonymous memory within $pct% (replay $(awk -v r="$replay" 'BEGIN { printf "%.0f", r / 1024 }') KiB, program $anon KiB)"
"$AB" show "$tmp/r.json" >"$tmp/show.txt"
check "the replay's text says it: $line" grep -qF "program: $line" "$(joined "$tmp/show.txt" >"$tmp/show1"; echo "$tmp/show1")"
check "... and a program of mostly allocations is reproduced within 5% ($pct%)" le "$pct" 5
"$AB" show -f markdown "$tmp/r.json" >"$tmp/show.md"
check "... and its Markdown" grep -qF "Program: $line." "$tmp/show.md"
"$AB" advise --trace "$tmp/p.trace" --backend malloc --repeat 1 -q >"$tmp/advise.txt"
check "advise --trace prints the line too" \
	grep -q "program: replay under malloc reproduces the program's peak anonymous memory within [0-9.]*% (replay [0-9]* KiB, program $anon KiB)" \
	"$(joined "$tmp/advise.txt" >"$tmp/advise1"; echo "$tmp/advise1")"

# Each process's peak is its own: a shell, and peakhold which then execs.
record_trace "$tmp/x.trace" sh -c '"$0" "$1" exec; :' "$PROG" $KIB
check "record a shell starting peakhold, which execs true" [ $? -eq 0 ]
h=$("$HEAD" "$(ls "$tmp/x.trace.peakhold".* | head -n 1)")
xanon=$(field anon_peak_kib)
check "peakhold's trace ended by exec ($(field state))" [ "$(field state)" = 2 ]
check "... keeps its own peak ($xanon KiB, peakanon $real)" \
	near "$xanon" "$real" "$(tol "$real")"
h=$("$HEAD" "$(ls "$tmp/x.trace".*sh.* | head -n 1)")
check "the shell's trace keeps its own, far below ($(field anon_peak_kib) KiB)" \
	sh -c '[ "$1" -gt 0 ] && [ "$1" -lt $(($2 / 4)) ]' sh "$(field anon_peak_kib)" "$xanon"

# Version 3, as record leaves it, carries them over.
"$AB" record -o "$tmp/v3.trace" "$PROG" $KIB >/dev/null 2>"$tmp/err"
h=$("$HEAD" "$tmp/v3.trace")
check "a trace converted to version 3 keeps them ($(field anon_peak_kib) KiB)" \
	sh -c '[ "$1" = 3 ] && [ "$2" -gt 0 ] && [ "$3" -gt 0 ] && [ "$4" -gt 0 ]' sh \
	"$(field version)" "$(field anon_peak_kib)" "$(field hwm_kib)" "$(field run_ns)"

# A trace without them: as an older allocbench wrote it (the header's last
# 16 bytes zero, sealed again), and one whose process was killed.
cp "$tmp/p.trace" "$tmp/old.raw"
dd if=/dev/zero of="$tmp/old.raw" bs=1 seek=240 count=16 conv=notrunc 2>/dev/null
"$TRACETOOL" reseal "$tmp/old.raw" "$tmp/old.trace"
h=$("$HEAD" "$tmp/old.trace")
check "an old trace: no figures, its header sealed" \
	sh -c '[ "$1" = 0 ] && [ "$2" = 0 ] && [ "$3" = ok ]' sh "$(field anon_peak_kib)" "$(field run_ns)" \
	"$(field header)"
run_ab report "$tmp/old.trace"
check "report on it says the figures are absent, in one line" \
	sh -c '[ "$1" = 0 ] && [ "$(grep -c "program: the program.s own figures are not in this trace" "$2")" = 1 ]' \
	sh "$rc" "$tmp/out"
"$AB" advise --trace "$tmp/old.trace" --backend malloc --repeat 1 -q -f json -o "$tmp/old.json"
check "its replay (advise --trace) has no figures to compare" \
	sh -c '! grep -q program_peak_anon_bytes "$1" && ! grep -q "\"program\"" "$1"' sh "$tmp/old.json"
check "... and says why" \
	sh -c 'printf "%s\n" "$1" | grep -q "^no comparison with the program itself: the program.s own figures are not in this trace"' \
	sh "$(jq_get "$tmp/old.json" fidelity.text)"
"$AB" record -o "$tmp/k.trace" "$PROG" $KIB kill >/dev/null 2>"$tmp/err"
check "peakhold killed: record exits 137" [ $? -eq 137 ]
h=$("$HEAD" "$tmp/k.trace")
run_ab report "$tmp/k.trace"
joined "$tmp/out" >"$tmp/k.txt"
check "its trace has no figures, and report says it ended without an exit hook" \
	sh -c '[ "$1" = 0 ] && [ "$2" = 0 ] && [ "$3" = 0 ] &&
	       grep -q "program: the program.s own figures are not kept: it ended without exit, exec or _exit" "$4"' \
	sh "$(field anon_peak_kib)" "$(field hwm_kib)" "$(field run_ns)" "$tmp/k.txt"

test_done
