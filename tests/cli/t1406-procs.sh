#!/bin/sh
# Issue 27, item 4: record the program the user means. Each process image
# writes FILE.PROGRAM.PID; FILE is the trace of the one with the most calls
# (advise's choice, trace_set_choose()); report on FILE lists every process
# (pid, program, calls, peak live bytes) and names the chosen one and why;
# advise --trace makes the same choice; a recording of the earlier naming
# (FILE, FILE.PID) is read the same way. A runtime known to allocate past
# malloc (CPython's pymalloc, GLib's slice allocator) is named with the
# setting that records it, unless its trace shows it was set; a run with
# few calls for its CPU time is said to be.
. "$(dirname "$0")/lib.sh"

if ! test_have_prereq NOASAN; then
	skip "recording processes" "$prereq_why"
	test_done
	exit 0
fi

# A script that forks and execs: the shell, sort (a child), then $THREADS (the
# shell's own process after exec). A shell that forks rather than vforks
# writes a trace of its child before the exec too: $n counts what record saw.
cat >"$tmp/two.sh" <<EOF
#!/bin/sh
sort /etc/services >/dev/null
exec "$THREADS"
EOF
chmod +x "$tmp/two.sh"
mkdir "$tmp/r"
record_trace "$tmp/r/two.trace" "$tmp/two.sh"
check "record of a script that forks and execs exits 0" [ $? = 0 ]
shell_pid=$(sed -n 's|.*/two\.trace\.[^ ]*\.\([0-9]*\): pid [0-9]* (/usr/bin/[a-z]*sh).*|\1|p' "$tmp/record.err" | head -n 1)
sort_trace=$(ls "$tmp/r" | grep '^two\.trace\.sort\.[0-9]*$')
n=$(grep -c "two\.trace\.[^ ]*\.[0-9]*: pid [0-9]* (" "$tmp/record.err")
check "one trace per process, named after its program and pid: the shell, sort, threads ($(ls "$tmp/r" | tr '\n' ' '))" \
	sh -c '[ -n "$1" ] && [ -f "$3/two.trace.threads.$1" ] && [ -n "$2" ] &&
	       [ "$(ls "$3" | grep -c "^two\.trace\.[a-z]*sh\.$1\$")" = 1 ]' sh "$shell_pid" "$sort_trace" "$tmp/r"
check "... each in record's summary, and FILE besides ($n processes)" \
	sh -c '[ "$1" -ge 3 ] && [ "$(ls "$2" | wc -l)" = $(($1 + 1)) ]' sh "$n" "$tmp/r"
check "FILE is the trace of the process with the most calls (threads), and record says so" \
	sh -c '[ "$1/two.trace" -ef "$1/two.trace.threads.$2" ] &&
	       grep -q "two.trace: the trace advise replays, threads (pid $2, two.trace.threads.$2), which has the most calls: [0-9]* of the [0-9]* of $4 processes" "$3"' \
	sh "$tmp/r" "$shell_pid" "$tmp/record.err" "$n"

run_ab report "$tmp/r/two.trace"
check "report on FILE lists the processes, the chosen one marked" \
	sh -c '[ "$1" = 0 ] && grep -q "^processes ($4; advise replays the one with the most calls, \*)" "$2" &&
	       grep -Eq "^  \* +$3 +[0-9]+  threads +[0-9]+ +[0-9]+ +([0-9]+|-)  complete \(exit\) +two.trace.threads.$3\$" "$2" &&
	       grep -Eq "^    +[0-9]+ +$3  sort +[0-9]+ +[0-9]+ +([0-9]+|-)  complete \(exit\) +two.trace.sort.[0-9]+\$" "$2" &&
	       grep -q "^advise replays threads (pid $3, two.trace.threads.$3), which has the most calls" "$2"' \
	sh "$rc" "$tmp/out" "$shell_pid" "$n"
check "... then reports on the chosen one" grep -q "^trace $tmp/r/two.trace: pid $shell_pid, .*/threads, complete" "$tmp/out"
"$AB" report -f json -o "$tmp/two.json" "$tmp/r/two.trace"
"$AB" report -f json -o "$tmp/sort.json" "$tmp/r/$sort_trace"
check "JSON: processes with pid, program, calls and peak live bytes, as each trace's own report has them" \
	test "$(jq_get "$tmp/two.json" 'processes#') $(jq_get "$tmp/two.json" "processes[program=sort].calls") $(jq_get "$tmp/two.json" "processes[program=sort].peak_live_bytes") $(jq_get "$tmp/two.json" "processes[program=sort].chosen")" = \
	     "$n $(jq_get "$tmp/sort.json" calls.total) $(jq_get "$tmp/sort.json" peak_live_bytes) false"
check "JSON: the chosen one is threads, the report's own" \
	test "$(jq_get "$tmp/two.json" "processes[program=threads].chosen") $(jq_get "$tmp/two.json" "processes[program=threads].calls") $(jq_get "$tmp/two.json" "processes[program=sort].chosen")" = \
	     "true $(jq_get "$tmp/two.json" calls.total) false"
printf '{"$ref": "#/$defs/trace_report", "$defs": %s}\n' \
	"$("$JSONQ" "$top/data/allocbench.schema.json" '$defs')" >"$tmp/ts.json"
check "JSON: valid against the schema's trace_report" "$SCHEMACHECK" "$tmp/ts.json" "$tmp/two.json"
# The schema requires what report always writes: over these, a recording
# one of whose traces cannot be read (its process then has only path, chosen
# and error), and one of a program that crashed (no figures of its own), no
# member is in every object at its place and not required.
cp -a "$tmp/r" "$tmp/damaged"
head -c 257 "$tmp/r/$sort_trace" >"$tmp/damaged/$sort_trace"
"$AB" report -f json -o "$tmp/damaged.json" "$tmp/damaged/two.trace"
check "JSON: a process whose trace cannot be read has its error" \
	sh -c '"$1" "$2" processes | grep -q "\"error\":\"trace [^\"]*sort[^\"]* is truncated"' sh "$JSONQ" "$tmp/damaged.json"
record_trace "$tmp/segv.trace" "$THREADS" segv
"$AB" report -f json -o "$tmp/segv.json" "$tmp/segv.trace"
"$SCHEMACHECK" --always "$tmp/ts.json" "$tmp/two.json" "$tmp/sort.json" "$tmp/damaged.json" "$tmp/segv.json" \
	>"$tmp/always" 2>&1
r=$?
check "JSON: every member report always writes is required ($(head -n 1 "$tmp/always"))" [ $r -eq 0 ]

# The set of files, named; and the prefix alone (FILE gone: record was killed).
run_ab report "$tmp/r/$sort_trace" "$tmp/r/two.trace.threads.$shell_pid"
check "report on two named traces lists both, chooses threads" \
	sh -c 'grep -q "^processes (2;" "$1" && grep -q "^advise replays threads" "$1"' sh "$tmp/out"
rm "$tmp/r/two.trace"
run_ab report "$tmp/r/two.trace"
check "report on the prefix alone (no FILE): the $n processes" \
	sh -c '[ "$1" = 0 ] && grep -q "^processes ($3;" "$2"' sh "$rc" "$tmp/out" "$n"
run_ab advise --trace "$tmp/r/two.trace" --repeat 1 --backend malloc
check "advise --trace on the prefix replays the same choice, and says so" \
	sh -c '[ "$1" = 0 ] && grep -q "advise replays threads (pid $4," "$2" &&
	       tr "\n" " " <"$3" | grep -q "the trace: $5/two.trace.threads.$4 "' \
	sh "$rc" "$tmp/err" "$tmp/out" "$shell_pid" "$tmp/r"

# The earlier naming: FILE for the first process, FILE.PID for the others.
mkdir "$tmp/old"
cp "$tmp/r/two.trace.threads.$shell_pid" "$tmp/old/x.trace"
cp "$tmp/r/$sort_trace" "$tmp/old/x.trace.${sort_trace##*.}"
run_ab report "$tmp/old/x.trace"
check "a recording of the earlier naming (FILE, FILE.PID) is listed the same way" \
	sh -c '[ "$1" = 0 ] && grep -q "^processes (2;" "$2" && grep -q "^advise replays threads" "$2"' sh "$rc" "$tmp/out"

# Recording to FILE again replaces its recording, and nothing else beside it.
mkdir "$tmp/again"
echo "not a trace" >"$tmp/again/s.trace.notes"
record_trace "$tmp/again/s.trace" sort /etc/services
record_trace "$tmp/again/s.trace" sort /etc/services
check "recording to FILE again replaces the earlier recording's traces, not other files ($(ls "$tmp/again" | tr '\n' ' '))" \
	sh -c '[ "$(ls "$1" | wc -l)" = 3 ] && [ -f "$1/s.trace.notes" ] && [ "$1/s.trace" -ef "$1/$(ls "$1" | grep "^s\.trace\.sort\.")" ]' sh "$tmp/again"

# CPython: its pymalloc serves objects of up to 512 bytes past malloc.
if test_have_prereq PYTHON3; then
	# The interpreter itself, not a wrapper (a pyenv shim starts 80 processes):
	# the first python3 on the PATH that is a program, else the one it runs.
	py=$(IFS=:; for d in $PATH; do
		[ -x "$d/python3" ] && [ "$(head -c 4 "$d/python3" | tr -d '\177')" = ELF ] && { echo "$d/python3"; break; }
	done)
	[ -n "$py" ] || py=$(python3 -c 'import sys; print(sys.executable)')
	record_trace "$tmp/py.trace" "$py" -c 'x = [str(i) for i in range(1000)]'
	check "python3 -c: record names CPython and PYTHONMALLOC=malloc" \
		grep -q "^allocbench: note: python[0-9.]* (pid [0-9]*) is CPython, .* PYTHONMALLOC=malloc" "$tmp/record.err"
	run_ab report "$tmp/py.trace"
	check "... and so does report" grep -q "^note: python[0-9.]* (pid [0-9]*) is CPython, .*PYTHONMALLOC=malloc" "$tmp/out"
	"$AB" report -f json "$tmp/py.trace" >"$tmp/py.json"
	check "... and its JSON" test "$(jq_get "$tmp/py.json" 'processes[0].hint.setting')" = PYTHONMALLOC=malloc
	PYTHONMALLOC=malloc record_trace "$tmp/pym.trace" "$py" -c 'x = [str(i) for i in range(1000)]'
	check "with PYTHONMALLOC=malloc (its trace has the small objects): no note" \
		sh -c '! grep -q "note:" "$1"' sh "$tmp/record.err"
else
	skip "python3 -c: the PYTHONMALLOC note" "$prereq_why"
fi

# GLib's slice allocator (before GLib 2.76) takes its slabs with posix_memalign.
test_lazy_prereq GDBUS 'command -v gdbus >/dev/null || { echo "no gdbus (a GLib program; apt-get install libglib2.0-bin)"; exit 1; }'
if test_have_prereq GDBUS; then
	record_trace "$tmp/g.trace" gdbus help
	if grep -q "posix_memalign" "$tmp/record.err"; then
		check "gdbus (GLib's slice allocator): record names G_SLICE=always-malloc" \
			grep -q "^allocbench: note: gdbus (pid [0-9]*) links GLib, .*G_SLICE=always-malloc" "$tmp/record.err"
	else
		skip "gdbus: the G_SLICE note" "GLib 2.76 or later: no slice allocator"
	fi
	G_SLICE=always-malloc record_trace "$tmp/g.trace" gdbus help
	check "... with G_SLICE=always-malloc: no note" sh -c '! grep -q "note:" "$1"' sh "$tmp/record.err"
else
	skip "gdbus: the G_SLICE note" "$prereq_why"
fi

# Few calls for the CPU time taken (0.6 s here) by a program whose memory
# malloc does not account for (64 MiB it maps itself): said. By one that
# simply allocates little (awk adding numbers): not.
record_trace "$tmp/map.trace" "$ABBUILD/tests/tools/mapspin" 64 0.6
check "a run with few calls for its CPU time, 64 MiB past malloc: record says so" \
	grep -q "^allocbench: note: [0-9]* calls in [0-9.]* s of CPU time .* are few for a program that allocates much" "$tmp/record.err"
record_trace "$tmp/awk.trace" awk 'BEGIN { for (i = 0; i < 3e7; i++) x += i }'
check "... a program that simply allocates little (awk adding numbers): no note" \
	sh -c '[ -s "$1" ] && ! grep -q "are few for a program" "$1"' sh "$tmp/record.err"
# A program that execs itself 20 times: 21 images of one process, each its
# trace (FILE.PROGRAM.PID, then .2 ...), the twentieth exec too (once the
# tenth image on went unrecorded, and nothing said so).
cat >"$tmp/self.sh" <<EOF
#!/bin/sh
n=\${1:-0}
[ "\$n" -lt 20 ] && exec /bin/sh "$tmp/self.sh" \$((n + 1))
echo \$n >"$tmp/self.out"
EOF
mkdir "$tmp/self"
record_trace "$tmp/self/s.trace" /bin/sh "$tmp/self.sh"
check "a program that execs itself 20 times: 21 traces of its pid, the last exits" \
	sh -c '[ "$(cat "$1/self.out")" = 20 ] && [ "$(ls "$1/self" | grep -c "^s\.trace\.[a-z]*sh\.[0-9]*\(\.[0-9]*\)\?$")" = 21 ] &&
	       [ -f "$(ls -d "$1"/self/s.trace.*sh.*.21)" ]' sh "$tmp"

# A launcher that makes many calls, then execs its worker: the worker is
# the program advise replays (its calls are fewer: 18103 against 322 here),
# and record says why.
mkdir "$tmp/launch"
record_trace "$tmp/launch/l.trace" /bin/sh -c 'for a in $(seq 1 3000); do b="$b$a"; done; exec ls / >/dev/null'
check "a launcher that execs its worker: the worker is replayed, and why" \
	sh -c '[ "$1/l.trace" -ef "$(ls -d "$1"/l.trace.ls.*)" ] &&
	       grep -q "the trace advise replays, ls (pid [0-9]*, l.trace.ls.[0-9]*), which has the most calls of those that ran to their end (a launcher that execs its worker is not the program)" "$2"' \
	sh "$tmp/launch" "$tmp/record.err"

test_done
