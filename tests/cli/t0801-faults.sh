#!/bin/sh
# Faults the tool must survive: a measuring process that crashes, aborts, is
# killed (as by the OOM killer) or hangs (--timeout); SIGINT and SIGTERM
# during a run; a full output device; a user's LD_PRELOAD; no /proc; a
# read-only working directory; a --total larger than the memory available.
# The children fail on purpose through ALLOCBENCH_TEST_FAULT (runner.h).
# check: host
. "$(dirname "$0")/lib.sh"

# The measuring processes this test started (marked with ABTEST=$tmp in
# their environment) that are still there, zombies included.
measuring_children() {
	for e in /proc/[0-9]*/environ; do
		d=${e%/environ}
		grep -qa "ABTEST=$tmp" "$e" 2>/dev/null || continue
		tr '\0' ' ' <"$d/cmdline" 2>/dev/null | grep -q __measure && echo "${d#/proc/}"
	done
}

# fault KIND ARGS...: a JSON run where only pool's children fail with KIND.
fault() {
	kind=$1; shift
	ABTEST=$tmp ALLOCBENCH_TEST_FAULT=$kind:pool "$AB" --sizes 4,40 --total 64K --repeat 2 \
		--backend malloc,pool,arena -q -f json "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# row_error BACKEND SIZE: the error of a row of $tmp/out.
row_error() { jq_get "$tmp/out" "results[backend=$1,size=$2].error"; }

for kind in crash abort kill; do
	fault $kind
	check "$kind: exit status 1" [ "$rc" -eq 1 ]
	check "$kind: the row says failed" [ "$(jq_get "$tmp/out" 'results[backend=pool,size=40].status')" = failed ]
	check "$kind: the other rows still ran" [ "$(jq_get "$tmp/out" 'results[backend=arena,size=40].status')" = ok ]
	check "$kind: malloc's rows ran" [ "$(jq_get "$tmp/out" 'results[backend=malloc,size=4].status')" = ok ]
done
fault crash
# AddressSanitizer keeps SIGSEGV to itself: it reports, then exits 1.
check_if ASAN "crash: the row names the signal or the exit" sh -c "'$JSONQ' '$tmp/out' 'results[backend=pool,size=4].error' | grep -Eq 'SIGSEGV|exited with status'"
check_if '!ASAN' "crash: the row names SIGSEGV" sh -c "'$JSONQ' '$tmp/out' 'results[backend=pool,size=4].error' | grep -q 'killed by signal SIGSEGV (Segmentation fault)'"
fault abort
check "abort: the row names SIGABRT" sh -c "'$JSONQ' '$tmp/out' 'results[backend=pool,size=4].error' | grep -q 'signal SIGABRT'"
fault kill
check "kill: the row says out of memory" sh -c "'$JSONQ' '$tmp/out' 'results[backend=pool,size=4].error' | grep -q 'SIGKILL.*out of memory'"
fault crash -f csv
check "crash: the csv row says failed" grep -Eq '^fill,pool,40,[0-9]+,[0-9]+,failed,' "$tmp/out"
ABTEST=$tmp ALLOCBENCH_TEST_FAULT=abort:pool "$AB" --sizes 4 --total 64K --repeat 1 --backend pool,arena -q >"$tmp/out" 2>&1
check "abort: the text row says failed and why" grep -Eq '^pool +4 +16384 +failed: .*SIGABRT' "$tmp/out"

# A hung child is killed after --timeout; the run goes on.
fault hang --timeout 1
check "hang: exit status 1" [ "$rc" -eq 1 ]
check "hang: the row says timed out after 1 s" sh -c "'$JSONQ' '$tmp/out' 'results[backend=pool,size=4].error' | grep -q 'timed out after 1 s'"
check "hang: the other rows still ran" [ "$(jq_get "$tmp/out" 'results[backend=arena,size=40].status')" = ok ]
check "hang: no measuring process is left" [ -z "$(measuring_children)" ]

# SIGINT and SIGTERM: the running child is killed, -o is left as it was.
for sig in INT TERM; do
	echo old >"$tmp/keep.txt"
	ABTEST=$tmp ALLOCBENCH_TEST_FAULT=hang:pool "$AB" --sizes 4 --total 64K --repeat 1 \
		--backend arena,pool -q -o "$tmp/keep.txt" 2>"$tmp/err" &
	pid=$!
	child=
	for i in $(seq 100); do
		child=$(measuring_children)
		[ -n "$child" ] && break
		sleep 0.1
	done
	check "SIG$sig: the hung child started" [ -n "$child" ]
	kill -$sig $pid
	wait $pid
	rc=$?
	case $sig in INT) want=130 ;; TERM) want=143 ;; esac
	check "SIG$sig: exit status $want" [ "$rc" -eq "$want" ]
	check "SIG$sig: the message says interrupted" grep -q "interrupted by SIG$sig" "$tmp/err"
	check "SIG$sig: no measuring process is left" [ -z "$(measuring_children)" ]
	check "SIG$sig: -o is left as it was" [ "$(cat "$tmp/keep.txt")" = old ]
	check "SIG$sig: no temporary file is left" [ "$(ls "$tmp" | grep -c 'keep.txt.tmp')" -eq 0 ]
done

# A full device: an error naming the problem and a non-zero exit, for every command.
run_ab --sizes 4 --total 64K --repeat 1 --backend arena -q -f json -o "$tmp/r.json"
for args in "--help" "--version" "compare --help" "plot --help" "counters --help" "counters" \
	    "counters --format json" "compare $tmp/r.json $tmp/r.json" "plot $tmp/r.json" \
	    "--sizes 4 --total 64K --repeat 1 --backend arena -q" \
	    "--sizes 4 --total 64K --repeat 1 --backend arena -q -f json"; do
	# shellcheck disable=SC2086
	"$AB" $args >/dev/full 2>"$tmp/err"
	rc=$?
	check "> /dev/full: $args fails" [ "$rc" -ne 0 ]
	check "> /dev/full: $args says why" grep -Eq 'cannot write.*(No space left|Input/output)' "$tmp/err"
done
for args in "compare $tmp/r.json $tmp/r.json" "plot $tmp/r.json" \
	    "--sizes 4 --total 64K --repeat 1 --backend arena -q"; do
	# shellcheck disable=SC2086
	"$AB" $args -o /dev/full >"$tmp/out" 2>"$tmp/err"
	rc=$?
	check "-o /dev/full: $args fails" [ "$rc" -ne 0 ]
	check "-o /dev/full: $args says why" grep -q 'cannot write' "$tmp/err"
done

# A --total larger than the memory available is refused before anything runs.
# MemAvailable as the binary read it (its report's host.mem_available_bytes).
avail_kib=$(( $(host_fact host.mem_available_bytes) / 1024 ))
big=$((avail_kib * 2))K
echo old >"$tmp/keep.txt"
run_ab --sizes 4,4096 --total "$big" -o "$tmp/keep.txt"
check "--total above MemAvailable exits 2" [ "$rc" -eq 2 ]
check "--total above MemAvailable gives the numbers" grep -Eq "needs about [0-9]+ MiB at size 4 .*more than the [0-9]+ MiB available \(MemAvailable\)" "$tmp/err"
check "--total above MemAvailable suggests --force" grep -q -- "--force" "$tmp/err"
check "--total above MemAvailable leaves -o alone" [ "$(cat "$tmp/keep.txt")" = old ]
# 4-byte malloc chunks of a quarter of it: 32-byte chunks and 8-byte pointers.
run_ab --sizes 4 --total "$((avail_kib / 4))K" --backend malloc --repeat 1 -q
check "malloc's overhead counts: --total of a quarter of MemAvailable in 4-byte chunks" [ "$rc" -eq 2 ]
# With --force the run starts; its children, out of memory by the fault
# hook (their address space limited), fail their rows at once.
ABTEST=$tmp ALLOCBENCH_TEST_FAULT=nomem "$AB" --sizes 1G --total "$big" --backend arena --repeat 1 -q \
	--force -f json >"$tmp/out" 2>"$tmp/err"
rc=$?
check "--force measures anyway (and the row fails)" [ "$rc" -eq 1 ]
check "--force: the row says why" [ "$(jq_get "$tmp/out" 'results[backend=arena,size=1073741824].status')" = failed ]

# The user's LD_PRELOAD does not break the run (AddressSanitizer must be the
# first library loaded: not under it).
if ! test_have_prereq '!ASAN'; then
	skip "a user's LD_PRELOAD" "$prereq_why"
else
	LD_PRELOAD=/nonexistent/libnothing.so "$AB" --sizes 4 --total 64K --repeat 1 -q \
		-f json >"$tmp/out" 2>"$tmp/err"
	rc=$?
	check "a missing LD_PRELOAD library: exit 0" [ "$rc" -eq 0 ]
	check "a missing LD_PRELOAD library: every row ok" [ "$(jq_get "$tmp/out" 'results#')" = 4 ] &&
		! grep -q '"failed"' "$tmp/out"
	if test_have_prereq JEMALLOC; then
		lib=$(ldconfig -p | awk '/libjemalloc\.so\.2 .*x86-64/ { print $NF; exit }')
		LD_PRELOAD=$lib "$AB" --sizes 40 --total 64K --repeat 1 -q -f json >"$tmp/out" 2>"$tmp/err"
		rc=$?
		check "LD_PRELOAD=jemalloc: exit 0" [ "$rc" -eq 0 ]
		check "LD_PRELOAD=jemalloc: malloc measures the preloaded allocator" \
			sh -c "'$JSONQ' '$tmp/out' 'results[backend=malloc,size=40].allocator' | grep -q jemalloc"
	else
		skip "LD_PRELOAD=jemalloc" "$prereq_why"
	fi
fi

# No /proc: a clear error before anything runs (needs a mount namespace).
# LeakSanitizer cannot run without /proc: under it, the exit status is its own.
if test_have_prereq UNSHARE; then
	unshare -m sh -c "umount -l /proc && '$AB' --sizes 4 --total 64K --repeat 1 -q" \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	check_if '!ASAN' "no /proc: exit 2" [ "$rc" -eq 2 ]
	check "no /proc: the message says so" grep -q "'/proc/self/exe'.*is /proc mounted" "$tmp/err"
else
	skip "no /proc" "$prereq_why"
fi

# A read-only working directory: nothing is written there unless -o says so.
mkdir "$tmp/ro"
if mount -t tmpfs -o ro tmpfs "$tmp/ro" 2>/dev/null; then
	(cd "$tmp/ro" && "$AB" --sizes 4 --total 64K --repeat 1 --backend arena,malloc -q \
		-f json -o "$tmp/ro.json") >"$tmp/out" 2>"$tmp/err"
	rc=$?
	check "read-only cwd: run exits 0" [ "$rc" -eq 0 ]
	check "read-only cwd: -o elsewhere written" [ "$(jq_get "$tmp/ro.json" 'results#')" = 2 ]
	(cd "$tmp/ro" && "$AB" plot "$tmp/ro.json" -o "$tmp/ro.svg" && "$AB" compare "$tmp/ro.json" "$tmp/ro.json") \
		>"$tmp/out" 2>"$tmp/err"
	check "read-only cwd: plot and compare exit 0" [ $? -eq 0 ]
	(cd "$tmp/ro" && "$AB" --sizes 4 --total 64K --repeat 1 -q -o here.txt) >"$tmp/out" 2>"$tmp/err"
	rc=$?
	check "read-only cwd: -o into it exits 2" [ "$rc" -eq 2 ]
	check "read-only cwd: -o into it names the file" grep -q "cannot write 'here.txt': Read-only file system" "$tmp/err"
	umount "$tmp/ro"
else
	skip "read-only working directory" "cannot mount a read-only tmpfs here (not root?)"
fi

test_done
