#!/bin/sh
# Issue 27 item 2: a replay's memory figure is what the program would pay.
# Real programs, measured both ways here: each run for real under malloc
# and under each installed drop-in allocator (three runs each, peak
# anonymous memory polled by tests/tools/peakanon), and recorded once and
# replayed once on each (a replay's memory repeats to the page). Each allocator's replay
# peak is within 2% of the program's own peak under it, and where the real
# runs' ranges do not overlap, the replay ranks the two allocators the same
# way. Without the allocator's set-up in the figure, tcmalloc's replay of
# sqlite3 falls 15% short (its 3.8 MiB page heap).
. "$(dirname "$0")/lib.sh"

PEAKANON=$ABBUILD/tests/tools/peakanon
if ! test_have_prereq NOASAN; then
	skip "fidelity" "$prereq_why"
	test_done
	exit 0
fi

# The allocators installed here: NAME LIBRARY (malloc: none).
"$AB" backends --format json >"$tmp/backends.json" || not_ok "backends --format json" ""
echo "malloc -" >"$tmp/allocators"
for b in jemalloc mimalloc tcmalloc; do
	[ "$(jq_get "$tmp/backends.json" "backends[name=$b].available")" = true ] || continue
	echo "$b $(jq_get "$tmp/backends.json" "backends[name=$b].what" | sed 's/.*library //')" \
		>>"$tmp/allocators"
done
backends=$(cut -d' ' -f1 "$tmp/allocators" | paste -sd, -)

# fidelity NAME COMMAND ARGS...: records COMMAND, runs it for real three
# times under each allocator, replays the recording on them, and checks.
fidelity() {
	prog=$1
	shift
	if ! record_trace "$tmp/$prog.trace" "$@"; then
		not_ok "$prog: record" "$(tail -n 3 "$tmp/record.err")"
		return
	fi
	while read -r f_a f_lib; do
		[ "$f_lib" = - ] && f_lib=
		: >"$tmp/$prog.$f_a"
		for f_run in 1 2 3; do
			"$PEAKANON" -p "$f_lib" "$@" | head -n 1 | cut -d' ' -f2 >>"$tmp/$prog.$f_a"
		done
	done <"$tmp/allocators"
	"$AB" --workload replay --trace "$tmp/$prog.trace" --backend "$backends" --repeat 1 \
		--counters none -q -f json -o "$tmp/$prog.json"
	check "$prog: replayed on $backends" [ $? -eq 0 ]
	while read -r f_a f_lib; do
		f_real=$(sort -n "$tmp/$prog.$f_a" | sed -n 2p)
		f_replay=$(jq_get "$tmp/$prog.json" "results[backend=$f_a].peak_rss_bytes.median")
		f_replay=$(awk -v b="$f_replay" 'BEGIN { printf "%.0f", b / 1024 }')
		check "$prog under $f_a: the replay's peak $f_replay KiB within 2% of the program's $f_real KiB" \
			near "$f_replay" "$f_real" "$(awk -v r="$f_real" 'BEGIN { print r * 0.02 }')"
		echo "$f_a $(sort -n "$tmp/$prog.$f_a" | sed -n '1p;$p' | paste -sd' ' -) $f_replay" \
			>>"$tmp/$prog.ranges"
	done <"$tmp/allocators"
	# A, B: real min and max, replay median; where A's real runs all lie
	# below B's, the replay puts A below B too.
	while read -r f_a f_amin f_amax f_arep; do
		while read -r f_b f_bmin f_bmax f_brep; do
			[ "$f_amax" -lt "$f_bmin" ] || continue
			check "$prog: $f_a below $f_b for real ($f_amin-$f_amax < $f_bmin-$f_bmax KiB), in the replay too ($f_arep < $f_brep)" \
				[ "$f_arep" -lt "$f_brep" ]
		done <"$tmp/$prog.ranges"
	done <"$tmp/$prog.ranges"
}

# sqlite3 building an index over 200,000 rows.
test_lazy_prereq SQLITE3 'command -v sqlite3 >/dev/null || { echo "no sqlite3 (Debian: sqlite3)"; exit 1; }'
if test_have_prereq SQLITE3; then
	cat >"$tmp/index.sql" <<-'EOF'
	CREATE TABLE t(a INTEGER, b TEXT);
	WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 200000)
	INSERT INTO t SELECT x, hex(randomblob(16)) FROM c;
	CREATE INDEX tb ON t(b);
	EOF
	fidelity sqlite3 sqlite3 :memory: -init "$tmp/index.sql" .quit
else
	skip "fidelity on sqlite3" "$prereq_why"
fi

# jq summing a field over a 3 MB array of 40,000 objects.
test_lazy_prereq JQ 'command -v jq >/dev/null || { echo "no jq (Debian: jq)"; exit 1; }'
if test_have_prereq JQ; then
	jq -n -c '[range(40000) | {id: ., name: "n\(.)", tags: [range(5) | "x\(.)"], v: (. * 7 % 1000 / 1000)}]' \
		>"$tmp/big.json"
	fidelity jq jq -c 'map(.v) | add' "$tmp/big.json"
else
	skip "fidelity on jq" "$prereq_why"
fi

test_done
