#!/bin/sh
# allocbench record and report: every call a program makes is in the trace,
# checked against the tests' own counting library (tests/record/count.c),
# either preloaded in a separate run of the same deterministic program or
# stacked under the recorder in the same run (the recorder calls the
# counter's malloc, which calls the C library's); real Debian programs
# nobody here wrote (jq, sqlite3); a multi-threaded program with frees from
# another thread; fork, exec, abort, a crash, _exit, closed descriptors,
# allocating signal handlers; the exit status; what is refused.
. "$(dirname "$0")/lib.sh"

COUNT=$ABBUILD/tests/record/libcount.so
KINDS="malloc calloc realloc free posix_memalign aligned_alloc memalign valloc pvalloc"

test_lazy_prereq JQ 'command -v jq >/dev/null || { echo "jq is not installed (apt-get install jq)"; exit 1; }'
test_lazy_prereq SQLITE3 'command -v sqlite3 >/dev/null || { echo "sqlite3 is not installed (apt-get install sqlite3)"; exit 1; }'
# The stacked runs preload the counter into allocbench itself, which
# AddressSanitizer refuses: they need NOASAN (lib.sh).

# counts_match NAME TRACE COUNTFILE: the trace's calls by kind are the counter's.
counts_match() {
	if ! "$AB" report "$2" -f json >"$tmp/r.json" 2>"$tmp/r.err"; then
		not_ok "$1" "allocbench report $2: $(cat "$tmp/r.err")"; return
	fi
	if [ ! -s "$3" ]; then
		not_ok "$1" "the counting library wrote no $3"; return
	fi
	set -- "$1" $(od -An -v -tu8 "$3")
	name=$1; shift
	want= got=
	for k in $KINDS; do
		want="$want $k=$1"; shift
		got="$got $k=$(jq_get "$tmp/r.json" calls.$k)"
	done
	if [ "$want" = "$got" ] && [ "$(jq_get "$tmp/r.json" calls.total)" = "$1" ]; then
		ok "$name"
	else
		not_ok "$name" "trace:$got; counted:$want"
	fi
}

# counted FILE COMMAND...: runs COMMAND alone with the counting library; its counts in FILE.
counted() {
	out=$1; shift
	rm -f "$out".*
	ABCOUNT_FILE=$out LD_PRELOAD=$COUNT "$@" >/dev/null 2>&1
	# The process that ran COMMAND is the only one that counted.
	set -- "$out".*
	mv "$1" "$out"
}

# stacked NAME COMMAND...: records COMMAND with the counter under the recorder;
# the trace is $tmp/$NAME.trace, the counts $tmp/$NAME.count.PID, the status $rc.
stacked() {
	name=$1; shift
	rm -f "$tmp/$name.count".*
	ABCOUNT_FILE=$tmp/$name.count LD_PRELOAD=$COUNT \
		"$AB" record -o "$tmp/$name.trace" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	pid=$("$AB" report "$tmp/$name.trace" -f json | "$JSONQ" /dev/stdin trace.pid 2>/dev/null ||
	      { "$AB" report "$tmp/$name.trace" -f json >"$tmp/p.json" && jq_get "$tmp/p.json" trace.pid; })
}

# ---------------------------------------------------------------- usage

run_ab record --help
check "record --help exits 0 and shows the usage" \
	sh -c '[ '"$rc"' = 0 ] && grep -q "usage: allocbench record" "$1"' sh "$tmp/out"
run_ab report --help
check "report --help exits 0 and shows the usage" \
	sh -c '[ '"$rc"' = 0 ] && grep -q "usage: allocbench report" "$1"' sh "$tmp/out"
expect_usage "record without a COMMAND" "needs a COMMAND" record
expect_usage "record -o without a value" "requires a value" record -o
expect_usage "record with an unknown option" "unknown option '--bogus'" record --bogus true
expect_usage "report without a trace" "needs a trace" report
expect_usage "report with an invalid --format" "invalid --format 'xml'" report -f xml "$tmp/none"
printf 'not a trace at all, but long enough to have a header: %0300d\n' 0 >"$tmp/bad.trace"
expect_usage "report of a file that is not a trace" "is not an allocbench trace" report "$tmp/bad.trace"
expect_usage "report of a missing file" "cannot read trace '$tmp/none'" report "$tmp/none"

run_ab record -o "$tmp/x.trace" no-such-command-here
check "a COMMAND not found exits 127 and says so" \
	sh -c '[ '"$rc"' = 127 ] && grep -q "no-such-command-here.*not found" "$1"' sh "$tmp/err"
cp /bin/true "$tmp/suid-true" && chmod u+s "$tmp/suid-true"
run_ab record -o "$tmp/x.trace" "$tmp/suid-true"
check "a setuid COMMAND is refused: the loader ignores LD_PRELOAD for it" \
	sh -c '[ '"$rc"' = 2 ] && grep -q "setuid.*ignores LD_PRELOAD" "$1" && [ ! -e "$2" ]' sh \
	"$tmp/err" "$tmp/x.trace"

# ---------------------------------------------------------------- finding the library

# An installed layout (make install: PREFIX/bin and PREFIX/lib/allocbench):
# the binary takes ../lib/allocbench's library before its build folder's. An
# empty file there cannot be preloaded, so nothing is recorded, and record
# says so; the real library there records.
mkdir -p "$tmp/pfx/bin" "$tmp/pfx/lib/allocbench"
cp "$AB" "$tmp/pfx/bin/allocbench"
: >"$tmp/pfx/lib/allocbench/liballocbench-record.so"
"$tmp/pfx/bin/allocbench" record -o "$tmp/inst.trace" sh -c 'exit 0' >/dev/null 2>"$tmp/err"
rc=$?
check "installed: the library in ../lib/allocbench is the one preloaded (an empty one records nothing)" \
	sh -c '[ '"$rc"' = 1 ] && grep -q "did not load the recording library" "$1"' sh "$tmp/err"
cp "$ABBUILD/liballocbench-record.so" "$tmp/pfx/lib/allocbench/"
"$tmp/pfx/bin/allocbench" record -o "$tmp/inst.trace" sh -c 'exit 0' >/dev/null 2>"$tmp/err"
rc=$?
check "installed: with the real library there, record writes the trace" \
	sh -c '[ '"$rc"' = 0 ] && [ -s "$1" ]' sh "$tmp/inst.trace"

# ---------------------------------------------------------------- exit status

run_ab record -o "$tmp/st.trace" sh -c 'exit 7'
check "record exits with COMMAND's status" test "$rc" = 7
run_ab record -o "$tmp/st.trace" sh -c 'kill -TERM $$'
check "record exits with 128 + N after signal N, and says so" \
	sh -c '[ '"$rc"' = 143 ] && grep -q "killed by signal 15" "$1"' sh "$tmp/err"
run_ab record -o "$tmp/st.trace" -- sh -c 'exit 0'
check "-- ends the options; the summary names the trace" \
	sh -c '[ '"$rc"' = 0 ] && grep -q "st.trace.[^ ]*[.][0-9]*: pid [0-9]*" "$1" &&
	       grep -q "st.trace: the trace advise replays" "$1"' sh "$tmp/err"

# ---------------------------------------------------------------- real programs

if test_have_prereq JQ; then
	awk 'BEGIN { printf "["; for (i = 0; i < 20000; i++) printf "%s{\"id\":%d,\"name\":\"n%d\",\"v\":[%d,%d,%d]}", i ? "," : "", i, i * 7919 % 1000, i, i * 2, i * 3; print "]" }' >"$tmp/data.json"
	filter='map(select(.id % 3 == 0) | {id, n: .name, s: (.v | add)}) | length'
	counted "$tmp/jq.count" jq -c "$filter" "$tmp/data.json"
	run_ab record -o "$tmp/jq.trace" jq -c "$filter" "$tmp/data.json"
	check "jq: record exits 0 and passes on its output" \
		sh -c '[ '"$rc"' = 0 ] && [ "$(cat "$1")" = 6667 ]' sh "$tmp/out"
	counts_match "jq: every kind of call counted as the counting library counts it (separate runs)" \
		"$tmp/jq.trace" "$tmp/jq.count"
	"$AB" report "$tmp/jq.trace" -f json >"$tmp/jq.json"
	check "jq: the trace takes at most 8 bytes per call" \
		awk -v b="$(jq_get "$tmp/jq.json" trace.bytes)" -v n="$(jq_get "$tmp/jq.json" calls.total)" \
		'BEGIN { exit !(n > 100000 && b / n <= 8) }'
	check "jq: a complete trace, peak live bytes and chunks, sizes and lifetimes" \
		sh -c '[ "$1" = "complete (exit)" ] && [ "$2" -gt 1000000 ] && [ "$3" -gt 10000 ] &&
		       [ "$4" = 10 ] && [ "$5" -gt 3 ]' sh \
		"$(jq_get "$tmp/jq.json" trace.state)" "$(jq_get "$tmp/jq.json" peak_live_bytes)" \
		"$(jq_get "$tmp/jq.json" peak_live_chunks)" "$(jq_get "$tmp/jq.json" "top_sizes#")" \
		"$(jq_get "$tmp/jq.json" "size_histogram#")"
	"$AB" report "$tmp/jq.trace" >"$tmp/jq.txt"
	check "jq: the text report has every section" \
		sh -c 'for s in "^calls" "^live" "^sizes" "^lifetimes" "^threads"; do grep -q "$s" "$1" || exit 1; done' \
		sh "$tmp/jq.txt"
else
	skip "jq: recorded and counted" "$prereq_why"
fi

if test_have_prereq SQLITE3; then
	sql="CREATE TABLE t(a INTEGER, b TEXT);
WITH RECURSIVE c(x) AS (VALUES(1) UNION ALL SELECT x + 1 FROM c WHERE x < 20000)
INSERT INTO t SELECT x, printf('%08d-%d', (x * 7919) % 20000, x) FROM c;
CREATE INDEX tb ON t(b);
SELECT count(*) FROM t WHERE b > '00010000';"
	counted "$tmp/sq.count" sqlite3 :memory: "$sql"
	run_ab record -o "$tmp/sq.trace" sqlite3 :memory: "$sql"
	check "sqlite3: record exits 0 and passes on its output" \
		sh -c '[ '"$rc"' = 0 ] && [ "$(cat "$1")" = 10000 ]' sh "$tmp/out"
	counts_match "sqlite3 building an index: every kind of call counted (separate runs)" \
		"$tmp/sq.trace" "$tmp/sq.count"
else
	skip "sqlite3: recorded and counted" "$prereq_why"
fi

# ---------------------------------------------------------------- threads and endings

if test_have_prereq NOASAN; then
	stacked th "$THREADS"
	counts_match "threads: every call of 5 threads counted (same run)" \
		"$tmp/th.trace" "$tmp/th.count.$pid"
	"$AB" report "$tmp/th.trace" -f json >"$tmp/th.json"
	check "threads: 6 threads, 30000 frees from another thread (as the program makes them)" \
		test "$(jq_get "$tmp/th.json" "threads#") $(jq_get "$tmp/th.json" cross_thread_frees)" = "6 30000"
	# The same program alone: its allocations (its free(NULL)s differ by one
	# with what is preloaded, a thread exit's, so they are left out here).
	# The report's JSON against data/allocbench.schema.json's $defs/trace_report.
	printf '{"$ref": "#/$defs/trace_report", "$defs": %s}\n' \
		"$("$JSONQ" "$top/data/allocbench.schema.json" '$defs')" >"$tmp/ts.json"
	check "report's JSON validates against the schema's trace_report" \
		"$SCHEMACHECK" "$tmp/ts.json" "$tmp/th.json"
	"$JSONSET" "$tmp/th.json" calls.malloc '="many"' >"$tmp/th-bad.json"
	check "... and a report whose calls.malloc is not a count does not" \
		sh -c '! "$1" "$2" "$3" 2>/dev/null' sh "$SCHEMACHECK" "$tmp/ts.json" "$tmp/th-bad.json"
	counted "$tmp/th2.count" "$THREADS"
	set -- $(od -An -v -tu8 "$tmp/th2.count")
	check "threads: as many allocations of each kind in a separate counted run" \
		test "$(jq_get "$tmp/th.json" calls.malloc) $(jq_get "$tmp/th.json" calls.calloc) $(jq_get "$tmp/th.json" calls.realloc) $(jq_get "$tmp/th.json" calls.posix_memalign) $(jq_get "$tmp/th.json" calls.memalign)" = "$1 $2 $3 $5 $7"

	stacked fork "$THREADS" fork
	child=$(ls "$tmp"/fork.trace.threads.* 2>/dev/null | grep -v "\.$pid\$" | head -n 1)
	counts_match "fork: the parent's trace counted (same run)" "$tmp/fork.trace" "$tmp/fork.count.$pid"
	check "fork: the child's trace is FILE.PROGRAM.PID, listed in the summary" \
		sh -c '[ -n "$1" ] && grep -q "$(basename "$1"): pid" "$2"' sh "$child" "$tmp/err"
	if [ -n "$child" ]; then
		counts_match "fork: the child's trace starts clean, its own calls only" \
			"$child" "$tmp/fork.count.${child##*.}"
	else
		not_ok "fork: the child's trace starts clean" "no $tmp/fork.trace.threads.PID"
	fi

	for m in abort:134 segv:139; do
		stacked "$m" "$THREADS" "${m%:*}"
		check "${m%:*}: exit status ${m#*:}" test "$rc" = "${m#*:}"
		counts_match "${m%:*}: the trace cut short holds every call up to the end" \
			"$tmp/$m.trace" "$tmp/$m.count.$pid"
		"$AB" report "$tmp/$m.trace" -f json >"$tmp/m.json"
		check "${m%:*}: the trace says it was cut short" \
			test "$(jq_get "$tmp/m.json" trace.cut_short)" = true
	done

	stacked ex "$THREADS" _exit
	check "_exit: exit status 3, the trace ended by _exit" \
		sh -c '[ '"$rc"' = 3 ] && "$1" report "$2" | grep -q "ended by _exit"' sh "$AB" "$tmp/ex.trace"
	counts_match "_exit: every call recorded" "$tmp/ex.trace" "$tmp/ex.count.$pid"

	stacked cf "$THREADS" closefds
	counts_match "a program that closes every descriptor, then allocates 200000 chunks" \
		"$tmp/cf.trace" "$tmp/cf.count.$pid"

	stacked sig "$THREADS" signal
	counts_match "a signal handler that allocates while the thread is recording" \
		"$tmp/sig.trace" "$tmp/sig.count.$pid"
	check "the handler ran (it allocated at least 50 times)" \
		sh -c '[ "$(cat "$1")" -ge 50 ]' sh "$tmp/out"

	stacked exec "$THREADS" exec
	check "exec: the trace ends by exec, the new image writes FILE.PROGRAM.PID" \
		sh -c '"$1" report "$2" | grep -q "ended by exec" && grep -q "exec.trace.true.$3: pid $3 (/usr/bin/true)" "$4"' \
		sh "$AB" "$tmp/exec.trace" "$pid" "$tmp/err"
else
	skip "threads and endings" "$prereq_why"
fi

test_done
