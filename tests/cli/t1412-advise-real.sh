#!/bin/sh
# Issue 42 item 4: advise runs the program again under malloc and each
# installed drop-in allocator (--reruns, 3 each by default, interleaved),
# and these real runs, not the replay, answer for the drop-in choice: the
# program's peak anonymous memory (the replayed trace's process, found in
# the command's tree) and the command's wall time. Each is checked against
# tests/tools/peakanon's own runs of the same program under the same
# allocator (its median of 3): mtqueue, whose threads free each other's
# chunks under contention, and sparse, which mallocs 8 times what it
# touches (its replay writes what it wrote, within 5% of its real runs
# under each allocator); and what each allocator keeps after the peak, against
# tests/tools/keep's own reading. A run again cannot be made from a pipe,
# differs for a program that changes its files, and stops on SIGINT; each
# is said.
# Real programs under every allocator: once.
# check: once
. "$(dirname "$0")/lib.sh"
# advise reads where standard input comes from: not from the harness.
exec </dev/null

PEAKANON=$ABBUILD/tests/tools/peakanon
MTQUEUE=$ABBUILD/tests/tools/mtqueue
SPARSE=$ABBUILD/tests/tools/sparse
KEEP=$ABBUILD/tests/tools/keep
if ! test_have_prereq NOASAN; then
	skip "advise's real runs" "$prereq_why"
	test_done
	exit 0
fi

drop_in_allocators "$tmp/allocators"

# real_vs_peakanon NAME JSON PROGRAM ARGS...: each allocator's real runs in
# JSON are 3, and their median is within 5% of peakanon's median of 3, or,
# where peakanon's own three spread over 5%, their ranges overlap.
real_vs_peakanon() {
	f_name=$1 f_json=$2; shift 2
	while read -r f_a f_lib; do
		[ "$f_lib" = - ] && f_lib=
		for f_run in 1 2 3; do
			"$PEAKANON" -p "$f_lib" "$@" | awk '{ print $2 }' >>"$tmp/$f_name.$f_a"
		done
		f_real=$(sort -n "$tmp/$f_name.$f_a" | sed -n 2p)
		f_runs=$(jq_get "$f_json" "real_runs.rows[backend=$f_a].peak_anon_bytes.runs#")
		f_med=$(jq_get "$f_json" "real_runs.rows[backend=$f_a].peak_anon_bytes.median" |
			awk '{ printf "%.0f", $1 / 1024 }')
		f_near=$(near "$f_med" "$f_real" "$(awk -v r="$f_real" 'BEGIN { print r * 0.05 }')" && echo 1)
		# A program whose own peaks spread wider (mtqueue under tbbmalloc: 44840 to
		# 47608 KiB): the two ranges overlap.
		f_lo=$(jq_get "$f_json" "real_runs.rows[backend=$f_a].peak_anon_bytes.min" | awk '{ printf "%.0f", $1 / 1024 }')
		f_hi=$(jq_get "$f_json" "real_runs.rows[backend=$f_a].peak_anon_bytes.max" | awk '{ printf "%.0f", $1 / 1024 }')
		[ -z "$f_near" ] && awk -v lo="$f_lo" -v hi="$f_hi" \
			-v plo="$(sort -n "$tmp/$f_name.$f_a" | head -n 1)" -v phi="$(sort -n "$tmp/$f_name.$f_a" | tail -n 1)" \
			'BEGIN { exit !(phi > plo * 1.05 && lo <= phi && plo <= hi) }' && f_near=1
		# Fewer runs only for a row that says why it ran no more (check_race).
		f_want=3
		jq_absent "$f_json" "real_runs.rows[backend=$f_a].stopped" || f_want=fewer
		[ "$f_want" = fewer ] && [ "$f_runs" -lt 3 ] && f_runs=fewer
		check "$f_name under $f_a: $f_want real runs ($f_runs), median $f_med KiB within 5% of peakanon's $f_real KiB (or ranges overlapping where its own spread over 5%)" \
			[ "$f_runs/$(jq_get "$f_json" "real_runs.rows[backend=$f_a].ok")/$f_near" = $f_want/true/1 ]
	done <"$tmp/allocators"
}

# check_race JSON: after the first round, a row other than malloc whose
# first run is over the least first run by 10% in peak and in what it kept
# after the peak, and by 25% in time (RERUN_MEMORY_MARGIN, rerun.h), runs
# no more and says why; every other row runs again.
check_race() {
	for r_a in $(cut -d' ' -f1 "$tmp/allocators"); do
		r_line=$r_a
		for r_f in peak_anon_bytes low_anon_bytes wall_seconds; do
			r_line="$r_line $(jq_get "$1" "real_runs.rows[backend=$r_a].$r_f.runs" | tr -d '[] ' | cut -d, -f1)"
		done
		echo "$r_line $(jq_get "$1" "real_runs.rows[backend=$r_a].wall_seconds.runs#")"
	done >"$tmp/race"
	awk 'NR == FNR { for (f = 2; f <= 4; f++) if (NR == 1 || $f < least[f]) least[f] = $f; next }
	{ behind = $1 != "malloc" && $2 > least[2] * 1.1 && $3 > least[3] * 1.1 && $4 > least[4] * 1.25
	  print $1, behind ? "stops" : "runs", $5 }' "$tmp/race" "$tmp/race" >"$tmp/race.want"
	while read -r r_a r_want r_runs; do
		if [ "$r_want" = stops ]; then
			check "$r_a, behind on every figure after one run, ran no more and says why" \
				sh -c '[ "$1" = 1 ] && "$2" "$3" "$4" >/dev/null' sh "$r_runs" "$JSONQ" "$1" \
				"real_runs.rows[backend=$r_a].stopped"
		else
			check "$r_a, near the least on some figure after one run, ran again ($r_runs runs)" \
				[ "$r_runs" -gt 1 ]
		fi
	done <"$tmp/race.want"
}

# check_settle JSON: after the second round, where the wall time range of
# every row still running (none behind on every figure after one or two
# runs) overlaps malloc's and its two peaks agree within 2%
# (RERUN_PEAK_AGREE), all of them run no more; else they run a third.
check_settle() {
	for r_a in $(cut -d' ' -f1 "$tmp/allocators"); do
		r_stop=$("$JSONQ" "$1" "real_runs.rows[backend=$r_a].stopped" 2>/dev/null)
		case $r_stop in
		behind*) r_stop=behind ;;
		"after 2 runs every"*) r_stop=settled ;;
		"") r_stop=none ;;
		*) r_stop=other ;;
		esac
		echo "$r_a $(jq_get "$1" "real_runs.rows[backend=$r_a].wall_seconds.runs" | tr -d '[]' | tr , ' ' | cut -d' ' -f1,2) $(jq_get "$1" "real_runs.rows[backend=$r_a].wall_seconds.runs#") $r_stop $(jq_get "$1" "real_runs.rows[backend=$r_a].peak_anon_bytes.runs" | tr -d '[]' | tr , ' ' | cut -d' ' -f1,2)"
	done >"$tmp/settle"
	awk '$1 == "malloc" { lo = $2 < $3 ? $2 : $3; hi = $2 < $3 ? $3 : $2 }
	{ row[NR] = $0 } END {
		for (i = 1; i <= NR; i++) {
			split(row[i], f, " ")
			if (f[4] < 2 || f[5] == "behind") continue
			a = f[2] < f[3] ? f[2] : f[3]; b = f[2] < f[3] ? f[3] : f[2]
			if (a > hi || b < lo) over = "apart"
			p = f[6] < f[7] ? f[6] : f[7]; q = f[6] < f[7] ? f[7] : f[6]
			if (q > p * 1.02) over = "apart"
			want = want (want ? " " : "") f[1] ":" f[4] ":" f[5]
		}
		print (over ? "apart" : "overlap"), want }' "$tmp/settle" >"$tmp/settle.want"
	read -r r_over r_rows <"$tmp/settle.want"
	if [ "$r_over" = overlap ]; then
		check "after two runs every time overlaps malloc's: each ran no more ($r_rows)" \
			sh -c 'for r in $1; do case $r in *:2:settled) ;; *) exit 1 ;; esac; done' sh "$r_rows"
	else
		check "after two runs a time lies apart from malloc's, or two peaks disagree: each ran a third ($r_rows)" \
			sh -c 'for r in $1; do case $r in *:3:none) ;; *) exit 1 ;; esac; done' sh "$r_rows"
	fi
}

# check_least WHAT JSON MEMBER: lines "MIN MAX ALLOCATOR" on standard
# input, the programs' own figures under each allocator; where the least
# lies 2% apart from the next, real_runs.MEMBER.best[0] in JSON names it.
check_least() {
	l_all=$(sort -n)
	l_list=$(echo "$l_all" | paste -sd, -)
	l_first=$(echo "$l_all" | head -n 1)
	l_second=$(echo "$l_all" | sed -n 2p)
	if [ -n "$l_second" ] && le "$(echo "$l_first" | awk '{ print $2 * 1.02 }')" "$(echo "$l_second" | cut -d' ' -f1)"; then
		check "the answer's least $1 is $(echo "$l_first" | cut -d' ' -f3), the program's own ($l_list)" \
			[ "$(jq_get "$2" "real_runs.$3.best[0]")" = "$(echo "$l_first" | cut -d' ' -f3)" ]
	else
		skip "the answer's least $1" "the program's own figures lie within 2% ($l_list)"
	fi
}

# Threads that free each other's chunks; the drop-in allocators alone (a
# program of several threads also gets candidates with settings by
# default: t1415).
run_ab advise -q --repeat 1 -f json -o "$tmp/mt.json" \
	--backend "pool,arena,$(cut -d' ' -f1 "$tmp/allocators" | paste -sd, -)" -- "$MTQUEUE"
check "advise -- mtqueue: exit 0, the report valid against the schema" \
	sh -c '[ "$1" = 0 ] && "$2" "$3/data/allocbench.schema.json" "$4"' sh "$rc" "$SCHEMACHECK" "$top" "$tmp/mt.json"
check "real_runs names the program and the runs" \
	sh -c '[ "$1" = "$2" ] && [ "$3" = 3 ]' sh "$(jq_get "$tmp/mt.json" real_runs.program)" "$MTQUEUE" \
	"$(jq_get "$tmp/mt.json" real_runs.runs)"
check "a row per drop-in allocator, none for pool or arena" \
	[ "$(jq_get "$tmp/mt.json" 'real_runs.rows#')" = "$(wc -l <"$tmp/allocators")" ]
real_vs_peakanon mtqueue "$tmp/mt.json" "$MTQUEUE"
check_race "$tmp/mt.json"

# The replays and the real runs disagree on memory only where neither's
# leader is among the other's best: a drop-in allocator whose real peak
# lies 1% under malloc's is among the best with it, the replays' leader
# malloc then agrees; 10% under, it does not. Peaks in bytes, doctored.
# stat_of V N: a figure of N runs, each V.
stat_of() {
	echo "={\"median\":$1,\"min\":$1,\"max\":$1,\"runs\":[$(yes "$1" | head -n "$2" | paste -sd, -)]}"
}
# doctor FILE MEMBER V: FILE's figure MEMBER set to V in each of its runs.
doctor() {
	"$JSONSET" "$1" "$2" "$(stat_of "$3" "$(jq_get "$1" "$2.runs#")")" >"$1.new" && mv "$1.new" "$1"
}
d_a=$(sed -n 2p "$tmp/allocators" | cut -d' ' -f1)
if [ -n "$d_a" ]; then
	cp "$tmp/mt.json" "$tmp/d.json"
	# Every real run's row: the drop-in allocators and the settings advise tried.
	d_i=0
	while [ "$d_i" -lt "$(jq_get "$tmp/mt.json" 'real_runs.rows#')" ]; do
		d_b=$(jq_get "$tmp/mt.json" "real_runs.rows[$d_i].backend")
		[ "$d_b" = malloc ] && d_real=10000000 d_replay=5000000 || d_real=20000000 d_replay=30000000
		doctor "$tmp/d.json" "real_runs.rows[$d_i].peak_anon_bytes" $d_real
		doctor "$tmp/d.json" "results[backend=$d_b].peak_rss_bytes" $d_replay
		d_i=$((d_i + 1))
	done
	for d_pc in 1 10; do
		cp "$tmp/d.json" "$tmp/d-$d_pc.json"
		doctor "$tmp/d-$d_pc.json" "real_runs.rows[backend=$d_a].peak_anon_bytes" $((10000000 - 100000 * d_pc))
		"$AB" show "$tmp/d-$d_pc.json" | tr '\n' ' ' | tr -s ' ' >"$tmp/d-$d_pc.txt"
	done
	d_what="real runs: $d_a 1% under malloc is among the best with it, the replays' leader: no line of disagreement"
	if grep -q "memory, drop-in, measured: no clear winner: $d_a .*malloc is among them" "$tmp/d-1.txt" &&
	   ! grep -q "the replays put" "$tmp/d-1.txt"; then ok "$d_what"
	else not_ok "$d_what" "$(grep -o 'memory, drop-in, measured: [^;]*;.\{0,60\}\|the replays put.\{0,120\}' "$tmp/d-1.txt")"; fi
	check "... 10% under: the line says the replays put malloc first, the real runs $d_a" \
		grep -q " the replays put malloc first for memory, the real runs $d_a:" "$tmp/d-10.txt"
else
	skip "the replays and the real runs disagree" "no drop-in allocator installed"
fi
# show prints an advise report as advise printed it: the answer first, from
# the real runs the report keeps, then their table, then the replays'.
run_ab show "$tmp/mt.json"
check "show of advise's report: the answer first, the real runs' lines" \
	sh -c 'awk "/^answer \\(median \\[min-max\\]; drop-in as measured, with code changes as replayed;\$/ { a = NR }
		/^allocbench [0-9]/ { b = NR } END { exit !(a && b && a < b) }" "$1"' sh "$tmp/out"
check "... its memory line names real_runs.memory's best ($(jq_get "$tmp/mt.json" 'real_runs.memory.best[0]'))" \
	sh -c 'tr "\n" " " <"$1" | tr -s " " | grep -q "memory, drop-in, measured: $2\( \|: \)"' sh "$tmp/out" \
	"$(jq_get "$tmp/mt.json" 'real_runs.memory.best[0]')"
check "... the real runs' table, a row per real_runs row" sh -c '[ "$(sed -n "/^backend .* vs real\$/,/^\$/p" "$1" |
	grep -c "\[")" = "$2" ]' sh "$tmp/out" "$(jq_get "$tmp/mt.json" 'real_runs.rows#')"
check "... then the replays' report, its verdict not repeated after them" \
	sh -c 'grep -q "^allocbench .*: replay" "$1" && ! grep -q "^verdict (" "$1"' sh "$tmp/out"
run_ab show -f markdown "$tmp/mt.json"
check "show -f markdown of it: the real runs too" grep -q '^\*\*Real runs\*\*' "$tmp/out"
"$JSONSET" "$tmp/mt.json" 'real_runs.rows[0].backend' '="nosuch"' >"$tmp/mt-bad.json"
run_ab show "$tmp/mt-bad.json"
check "... a real_runs row of a backend config.backends does not name: refused (exit 2)" \
	sh -c '[ "$1" = 2 ] && grep -q "real_runs.rows\[0\].backend is not in config.backends" "$2"' sh "$rc" "$tmp/err"
"$JSONSET" "$tmp/mt.json" 'real_runs.rows[0].wall_seconds.runs' '=[1]' >"$tmp/mt-bad.json"
run_ab show "$tmp/mt-bad.json"
check "... and one whose figures have not as many runs each: refused" \
	sh -c '[ "$1" = 2 ] && grep -q "real_runs.rows\[0\].wall_seconds.runs is not a list" "$2"' sh "$rc" "$tmp/err"
# The answer's memory pick is peakanon's least, where that lies 2% apart from every other.
for a in $(cut -d' ' -f1 "$tmp/allocators"); do
	echo "$(sort -n "$tmp/mtqueue.$a" | sed -n '1p;$p' | paste -sd' ' -) $a"
done | check_least memory "$tmp/mt.json" memory

# A program that mallocs 8 times what it touches.
# Three replays, their median: now and then one tcmalloc process takes 2 MiB
# more of its own metadata (t0013), once 14741504 B against 12468224 real.
run_ab advise -q --repeat 3 -f json -o "$tmp/sp.json" -- "$SPARSE" 64 8
check "advise -- sparse 64 8: exit 0" [ "$rc" = 0 ]
real_vs_peakanon sparse "$tmp/sp.json" "$SPARSE" 64 8
check_settle "$tmp/sp.json"
# Where the real runs answer, a drop-in allocator is replayed once, and
# --repeat times where that one missed its real runs by over 5%; malloc,
# pool and arena --repeat times.
while read -r s_a s_lib; do
	s_first=$(jq_get "$tmp/sp.json" "results[backend=$s_a].peak_rss_bytes.runs" | tr -d '[] ' | cut -d, -f1)
	s_runs=$(jq_get "$tmp/sp.json" "results[backend=$s_a].peak_rss_bytes.runs#")
	s_real=$(jq_get "$tmp/sp.json" "real_runs.rows[backend=$s_a].peak_anon_bytes.median")
	s_off=$(near "$s_first" "$s_real" "$(awk -v r="$s_real" 'BEGIN { print r * 0.05 }')" && echo within || echo off)
	[ "$s_a" = malloc ] && s_off=malloc
	check "sparse under $s_a: $s_runs replays ($s_off: the first $s_first B, the real runs $s_real B)" \
		sh -c 'case $1 in malloc/3|within/1|off/3) ;; *) exit 1 ;; esac' sh "$s_off/$s_runs"
done <"$tmp/allocators"
for s_a in pool arena; do
	check "sparse under $s_a: 3 replays" [ "$(jq_get "$tmp/sp.json" "results[backend=$s_a].peak_rss_bytes.runs#")" = 3 ]
done
# A program whose memory is mostly its own mapping: each drop-in
# allocator's one replay misses its real runs by far, and is made again.
run_ab advise --repeat 2 --reruns 1 -f json -o "$tmp/ms.json" -- "$ABBUILD/tests/tools/mapspin" 16 0.02 1000
check "advise -- mapspin 16 0.02 1000: exit 0" [ "$rc" = 0 ]
for s_a in $(cut -d' ' -f1 "$tmp/allocators" | grep -vx malloc); do
	check "mapspin under $s_a: its replay far below its real runs, made twice" \
		[ "$(jq_get "$tmp/ms.json" "results[backend=$s_a].peak_rss_bytes.runs#")" = 2 ]
	check "... and the log says so, once its second is done" \
		grep -q "^allocbench: $s_a: 2 of 2 runs done, again: its first replay's peak was [0-9]*% off its real runs'\$" "$tmp/err"
done
# Its replay writes only what it wrote (t1413): each allocator's within 5% of its real runs.
while read -r s_a s_lib; do
	s_replay=$(jq_get "$tmp/sp.json" "real_runs.rows[backend=$s_a].replay_peak_bytes")
	s_real=$(jq_get "$tmp/sp.json" "real_runs.rows[backend=$s_a].peak_anon_bytes.median")
	check "sparse under $s_a: the replay's peak $s_replay B within 5% of the real runs' $s_real B" \
		near "$s_replay" "$s_real" "$(awk -v r="$s_real" 'BEGIN { print r * 0.05 }')"
done <"$tmp/allocators"

# What each allocator keeps after the peak (issue 43 item 4): keep frees
# seven eighths of its 32 MiB and, 100 ms later, appends its own RssAnon
# to a file, after its LD_PRELOAD: each allocator's real runs end on the
# figures its runs wrote (medians within 5%), their lowest after the peak
# is no higher, and the answer's least kept is the least written, where
# that lies 2% apart from the next.
run_ab advise -q --repeat 1 -f json -o "$tmp/kp.json" -- "$KEEP" 32 "$tmp/own"
check "advise -- keep 32: exit 0, the report valid against the schema" \
	sh -c '[ "$1" = 0 ] && "$2" "$3/data/allocbench.schema.json" "$4"' sh "$rc" "$SCHEMACHECK" "$top" "$tmp/kp.json"
while read -r k_a k_lib; do
	# The median of its runs' readings (fewer than 3 where advise stopped it early).
	k_own=$(awk -v l="$k_lib" '$1 == l { print $2 }' "$tmp/own" | sort -n |
		awk '{ v[NR] = $1 } END { if (NR) print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
	echo "$k_own $k_own $k_a" >>"$tmp/kept"
	k_row="real_runs.rows[backend=$k_a]"
	k_end=$(jq_get "$tmp/kp.json" "$k_row.end_anon_bytes.median" | awk '{ printf "%.0f", $1 / 1024 }')
	k_low=$(jq_get "$tmp/kp.json" "$k_row.low_anon_bytes.median" | awk '{ printf "%.0f", $1 / 1024 }')
	check "keep under $k_a: at the end $k_end KiB, within 5% of what its runs read of themselves ($k_own KiB)" \
		near "$k_end" "${k_own:-0}" "$(awk -v r="${k_own:-0}" 'BEGIN { print r * 0.05 }')"
	check "keep under $k_a: the lowest after the peak ($k_low KiB) is no higher" le "$k_low" "$k_end"
done <"$tmp/allocators"
check_least "kept after the peak" "$tmp/kp.json" kept_after_peak <"$tmp/kept"
# In text, a line of the answer and a table; in Markdown, columns.
run_ab advise --repeat 1 --reruns 1 -- "$KEEP" 16
check "text: the answer's line on what is kept after the peak" \
	sh -c 'tr "\n" " " <"$1" | tr -s " " | grep -Eq " kept after the peak, drop-in, measured: [a-z]+ [0-9.]+ \[[0-9.]+-[0-9.]+\]"' sh "$tmp/err"
check "text: the table of what each kept, at its lowest and at the end" \
	sh -c 'grep -q "^backend  *KiB  *KiB  *back$" "$1" &&
	       grep -Eq "^malloc +[0-9.]+ \[[0-9.]+-[0-9.]+\] +[0-9.]+ \[[0-9.]+-[0-9.]+\] +[0-9]+%$" "$1"' sh "$tmp/err"
run_ab advise -q --repeat 1 --reruns 1 -f markdown -- "$KEEP" 16
check "markdown: the real runs' table has the lowest after the peak and the end" \
	grep -q '^| backend | peak anon (KiB) | wall (ms) | replay (KiB) | replay vs real | lowest after the peak (KiB) | at the end (KiB) | given back |$' "$tmp/err"
check "markdown: the answer's line on what is kept" grep -q '^- kept after the peak, drop-in, measured: ' "$tmp/err"

# The text: the measured lines first, then the replay's with code changes, then the table.
# 100,000 lines: sort runs some 50 ms, long enough to be read on a busy
# machine (sort /etc/services, 5 ms, was once not seen in 3 tries under
# malloc while other tests ran).
awk 'BEGIN { for (i = 0; i < 100000; i++) print (i * 7919) % 100003 }' >"$tmp/lines"
sort --parallel=1 "$tmp/lines" >"$tmp/sorted"
run_ab advise --repeat 1 --reruns 2 -- sort --parallel=1 "$tmp/lines"
check "advise -- sort: standard output is sort's output once" cmp -s "$tmp/out" "$tmp/sorted"
sed -n '/^answer/,/^allocbench [0-9]/p' "$tmp/err" >"$tmp/ans"
check "the answer's heading says what is measured and what replayed" \
	grep -q '^answer (median \[min-max\]; drop-in as measured, with code changes as replayed;' "$tmp/ans"
for a in memory time; do
	check "the answer: $a, drop-in, measured, against malloc" \
		sh -c 'tr "\n" " " <"$1" | tr -s " " | grep -Eq " $2, drop-in, measured: .*(KiB|s); (malloc is|[0-9.]+ [KiBms]+ less than malloc .*% of the program.s|no gain over malloc)"' \
		sh "$tmp/ans" $a
	check "... no replayed drop-in line for $a" sh -c '! grep -q "^  $2, drop-in: " "$1"' sh "$tmp/ans" $a
	check "... and the replay's line with code changes" grep -q "^  $a, with code changes: " "$tmp/ans"
done
check "the table of the real runs, each allocator's replay beside it" \
	sh -c 'grep -q "^real runs: /usr/bin/sort, the program the trace is of, run again 2" "$1" &&
	       grep -Eq "^malloc +[0-9.]+ \[[0-9.]+-[0-9.]+\] +[0-9.]+ \[[0-9.]+-[0-9.]+\] +[0-9]+ +[-+][0-9]+%$" "$1"' sh "$tmp/ans"
check "in a log, a line per candidate as its runs end" \
	grep -q "^allocbench: sort under malloc: 2 of 2 runs done ([0-9] of [0-9] candidates)$" "$tmp/err"

# Standard input: a file is read again from where it started (the awk
# program, like grep -q, exits 1 when it reads no needle; it then counts to
# a million, about 20 ms, as grep, which ends within a millisecond, was
# not seen running in 3 tries on a loaded machine); a pipe cannot be, and
# the answer says so.
printf 'a\nneedle\n' >"$tmp/in"
"$AB" advise -q --repeat 1 --backend malloc,arena -f json -o "$tmp/in.json" -- \
	awk '/needle/ { f = 1 } END { while (i++ < 1000000) s += i; exit !f }' <"$tmp/in" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "advise -- awk <FILE: every real run found the needle (exit 0)" \
	sh -c '[ $1 = 0 ] && [ "$("$2" "$3" "real_runs.rows[backend=malloc].ok")" = true ]' sh $rc "$JSONQ" "$tmp/in.json"
[ $rc = 0 ] || sed 's/^/# /' "$tmp/err" "$tmp/in.json"
# Markdown: the program's path as it is named, HTML's characters as
# entities, Markdown's escaped; one round is "once".
mkdir "$tmp/a<b>&c" && cp "$SPARSE" "$tmp/a<b>&c/sp_arse"
run_ab advise -q --repeat 1 --reruns 1 --backend malloc,arena -f markdown -- "$tmp/a<b>&c/sp_arse" 4 2
check "markdown: the program's path escaped, one round said once" \
	grep -q "^\*\*Real runs\*\*: .*/a&lt;b&gt;&amp;c/sp\\\\_arse, the program the trace is of, run again once under" "$tmp/err"
printf 'needle\n' | "$AB" advise --repeat 1 --backend malloc,arena -- grep -q needle >"$tmp/out" 2>"$tmp/err"
check "... from a pipe: exit 0, no real runs, and why" \
	sh -c '[ $1 = 0 ] && tr "\n" " " <"$2" | tr -s " " | grep -q "no real runs: its standard input is a pipe, which it read once"' \
	sh $? "$tmp/err"
check "... and the drop-in line is the replay's" grep -q "^  memory, drop-in: " "$tmp/err"
run_ab advise -q --repeat 1 --backend malloc,arena --reruns 0 -f json -- sort /etc/services
check "--reruns 0: no runs, and why" \
	sh -c '[ "$1" = 0 ] && [ "$2" = 0 ] && [ "$3" = "--reruns 0: the program was not run again" ]' sh "$rc" \
	"$(jq_get "$tmp/err" real_runs.runs)" "$(jq_get "$tmp/err" real_runs.why)"
record_trace "$tmp/k.trace" sort /etc/services
run_ab advise -q --repeat 1 --backend malloc,arena -f json --trace "$tmp/k.trace"
check "--trace: nothing to run again, no real_runs" sh -c '[ "$1" = 0 ] && ! grep -q real_runs "$2"' sh "$rc" "$tmp/out"

# A program that changes its files does not run the same again: exit 1, each row says so.
run_ab advise --repeat 1 --backend malloc,arena -- sh -c 'test -e "$1" && exit 3; : >"$1"' sh "$tmp/made"
check "a program that cannot run again: exit 1, the row says why and what to do" \
	sh -c '[ "$1" = 1 ] && tr "\n" " " <"$2" | tr -s " " | grep -q "^.*malloc failed: run 1 exited with status 3, the recorded run with 0: it does not run the same again (--reruns 0 for a program that cannot)"' \
	sh "$rc" "$tmp/err"
check "... and the answer falls back to the replay" \
	sh -c 'grep -q "the real runs failed (the table below says why)" "$1" && grep -q "^  memory, drop-in: " "$1"' sh "$tmp/err"

# A program never seen in its real runs (here it runs outside the command's
# process tree, as one that ends within a fraction of a millisecond can on
# a loaded machine): no real runs after 10 runs under the first allocator,
# exit 0, the answer says why and is replayed. Its subshell, left behind,
# waits 0.1 s before it becomes awk: by then it is outside the tree. The
# command waits for it, so that its trace is complete when the recording
# ends.
run_ab advise --repeat 1 --backend malloc,arena -- \
	sh -c '( (sleep 0.1; exec awk "BEGIN { for (i = 0; i < 5000; i++) a[i] = i \"x\" }") & ); sleep 0.4'
check "a program never seen: exit 0, no real runs, and why" \
	sh -c '[ "$1" = 0 ] && tr "\n" " " <"$2" | tr -s " " | grep -q "no real runs: $3 was not seen running in 10 runs under malloc (it ends within a fraction of a millisecond, or runs outside the command.s process tree); the drop-in lines are replayed"' \
	sh "$rc" "$tmp/err" "$(readlink -f "$(command -v awk)")"
check "... said as it happens, and the drop-in line is the replay's" \
	sh -c 'grep -q "^allocbench: [a-z]* under malloc: not seen in 10 runs, no real runs: the drop-in lines are replayed$" "$1" &&
	       grep -q "^  memory, drop-in: " "$1"' sh "$tmp/err"

# SIGINT while the real runs run: they stop, and nothing of them is left.
"$AB" advise -q --repeat 1 --backend malloc,arena -- sleep 1.37 >"$tmp/out" 2>"$tmp/err" &
pid=$!
sleep 2.2
kill -INT $pid
wait $pid
rc=$?
sleep 0.2
check "SIGINT during the real runs: exit 130, said" \
	sh -c '[ "$1" = 130 ] && grep -q "interrupted by SIGINT: the real runs were stopped and no answer was written" "$2"' \
	sh $rc "$tmp/err"
check "... and no run is left" sh -c '! pgrep -f "^sleep 1\.37$" >/dev/null'

# Bad values, refused before anything runs.
expect_usage "--reruns x" "invalid --reruns 'x': not a number \(expected a whole number from 0 to 100\)" \
	advise --reruns x -- touch "$tmp/ran"
expect_usage "--reruns 101" "invalid --reruns '101'" advise --reruns 101 -- touch "$tmp/ran"
check "... neither ran COMMAND" [ ! -e "$tmp/ran" ]
test_done
