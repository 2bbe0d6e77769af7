#!/bin/sh
# make bench: the speed targets, printed as ratios from one run each. A
# benchmark is not a test: a miss is reported, never turned into a failure,
# because this machine is shared and noisy.
set -u
LC_ALL=C
export LC_ALL
cd "$(dirname "$0")/.." || exit 2
AB=./allocbench
JSONQ=${ABBUILD:-build/default}/tests/tools/jsonq
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
${CC:-cc} -O2 -o "$tmp/plain_malloc" tests/bench/plain_malloc.c || exit 2
${CC:-cc} -O2 -o "$tmp/churn_floor" tests/bench/churn_floor.c || exit 2

verdict() { awk -v v="$1" -v t="$2" -v op="$3" 'BEGIN { ok = op == "<=" ? v <= t : v >= t; print ok ? "met" : "MISSED" }'; }

echo "allocbench bench on $(uname -n), $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo

start=$(date +%s.%N)
$AB -q -f json -o "$tmp/default.json" || echo "default run exited $?"
wall=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
echo "default run (5 sizes, 4 backends, repeat 3, 100 MiB): ${wall} s  (target < 15 s: $(verdict "$wall" 15 '<='))"

q() { $JSONQ "$tmp/default.json" "$1"; }
x=$(q 'results[backend=arena,size=4].x_floor.median')
printf 'arena 4 B cold 100 MiB: %.2f x floor  (target <= 1.3: %s)\n' "$x" "$(verdict "$x" 1.3 '<=')"
m=$(q 'results[backend=malloc,size=4].alloc_ns.median')
p=$(q 'results[backend=pool,size=4].alloc_ns.median')
r=$(awk -v m="$m" -v p="$p" 'BEGIN { print m / p }')
printf 'pool 4 B: %.2f ns vs malloc %.2f ns: %.1fx faster  (target >= 4: %s)\n' "$p" "$m" "$r" "$(verdict "$r" 4 '>=')"

# The tool's malloc figure against a hand-written loop, side by side: three
# fresh processes each, interleaved, medians compared.
for s in 4 40; do
	: >"$tmp/plain" ; : >"$tmp/tool"
	for i in 1 2 3; do
		"$tmp/plain_malloc" $s 104857600 >>"$tmp/plain"
		$AB -q -f json --sizes $s --backend malloc --repeat 1 -o "$tmp/one.json"
		$JSONQ "$tmp/one.json" 'results[0].alloc_ns.median' >>"$tmp/tool"
	done
	pm=$(sort -n "$tmp/plain" | sed -n 2p)
	tm=$(sort -n "$tmp/tool" | sed -n 2p)
	d=$(awk -v a="$tm" -v b="$pm" 'BEGIN { d = (a - b) / b * 100; print d < 0 ? -d : d }')
	printf 'malloc %s B: allocbench %.2f ns, plain loop %.2f ns: %.1f%% apart  (target <= 5%%: %s)\n' \
		"$s" "$tm" "$pm" "$d" "$(verdict "$d" 5 '<=')"
done

# The fill's intermediate RSS readings (README: The marginal cost) stop the
# clock: the tool against itself with them off (ALLOCBENCH_TEST_READINGS=off),
# three fresh processes each, interleaved, medians side by side.
for bs in malloc:4 malloc:40 pool:4 malloc:4000; do
	b=${bs%%:*}; s=${bs#*:}
	: >"$tmp/on" ; : >"$tmp/off"
	for i in 1 2 3; do
		$AB -q -f json --sizes $s --backend $b --repeat 1 -o "$tmp/one.json"
		$JSONQ "$tmp/one.json" 'results[0].alloc_ns.median' >>"$tmp/on"
		ALLOCBENCH_TEST_READINGS=off $AB -q -f json --sizes $s --backend $b --repeat 1 -o "$tmp/one.json"
		$JSONQ "$tmp/one.json" 'results[0].alloc_ns.median' >>"$tmp/off"
	done
	on=$(sort -n "$tmp/on" | sed -n 2p)
	off=$(sort -n "$tmp/off" | sed -n 2p)
	d=$(awk -v a="$on" -v b="$off" 'BEGIN { d = (a - b) / b * 100; print d < 0 ? -d : d }')
	printf 'readings %-6s %4s B: alloc %.2f ns with, %.2f ns without: %.1f%% apart  (target <= 5%%: %s)\n' \
		"$b" "$s" "$on" "$off" "$d" "$(verdict "$d" 5 '<=')"
done

# The workloads (README: Workloads). One run each at 100 MiB.
# Churn: the pool against the floor of a create/destroy round (the arena,
# whose free does nothing) and against the C library.
$AB -q -f json -w churn --sizes 12,40,400 --backend malloc,pool,pool-locked,arena --repeat 5 \
	-o "$tmp/churn.json"
for s in 12 40 400; do
	m=$($JSONQ "$tmp/churn.json" "results[backend=malloc,size=$s].churn_ns.median")
	p=$($JSONQ "$tmp/churn.json" "results[backend=pool,size=$s].churn_ns.median")
	l=$($JSONQ "$tmp/churn.json" "results[backend=pool-locked,size=$s].churn_ns.median")
	a=$($JSONQ "$tmp/churn.json" "results[backend=arena,size=$s].churn_ns.median")
	f=$(awk -v p="$p" -v a="$a" 'BEGIN { print p / a }')
	r=$(awk -v m="$m" -v p="$p" 'BEGIN { print m / p }')
	printf 'churn %3s B: pool %.2f ns/pair, arena %.2f, pool-locked %.2f, malloc %.2f\n' "$s" "$p" "$a" "$l" "$m"
	printf '  pool/arena %.2f  (target <= 1.25: %s); malloc/pool %.1fx  (target >= 4: %s)\n' \
		"$f" "$(verdict "$f" 1.25 '<=')" "$r" "$(verdict "$r" 4 '>=')"
	# The least a destroy that reads its object's address costs over the
	# arena's, by hand (tests/bench/churn_floor.c): what no pool can beat.
	set -- $("$tmp/churn_floor" "$s" 104857600)
	printf '  by hand: arena %.2f ns/pair, a destroy reading each address %.2f: %.2f x the arena\n' \
		"$1" "$2" "$(awk -v a="$1" -v b="$2" 'BEGIN { print b / a }')"
done
$AB -q -f json --sizes 4,8,16,32,64 --backend malloc,pool,arena --repeat 3 -o "$tmp/warm.json"
for s in 4 8 16 32 64; do
	for b in pool arena; do
		w=$($JSONQ "$tmp/warm.json" "results[backend=$b,size=$s].warm_alloc_ns.median")
		printf 'fill warm %-5s %2s B: %.2f ns per allocation  (target < 2: %s)\n' "$b" "$s" "$w" "$(verdict "$w" 2 '<=')"
	done
	p=$($JSONQ "$tmp/warm.json" "results[backend=pool,size=$s].warm_alloc_ns.median")
	a=$($JSONQ "$tmp/warm.json" "results[backend=arena,size=$s].warm_alloc_ns.median")
	m=$($JSONQ "$tmp/warm.json" "results[backend=malloc,size=$s].warm_alloc_ns.median")
	printf 'fill warm %2s B: pool/arena %.2f, malloc/pool %.1fx\n' "$s" \
		"$(awk -v p="$p" -v a="$a" 'BEGIN { print p / a }')" "$(awk -v m="$m" -v p="$p" 'BEGIN { print m / p }')"
done
$AB -q -f json -w threads --threads 2 --sizes 40 --repeat 3 -o "$tmp/threads.json"
for b in pool malloc pool-locked arena; do
	x=$($JSONQ "$tmp/threads.json" "results[backend=$b,size=40].speedup.median")
	o=$($JSONQ "$tmp/threads.json" "results[backend=$b,size=40].ops_per_s.median")
	if [ $b = pool ]; then target="  (target >= 1.7: $(verdict "$x" 1.7 '>='))"; else target=""; fi
	printf 'threads 2 x 40 B %-11s %6.1f Mops/s, %.2fx over one thread%s\n' "$b" "$(awk -v o="$o" 'BEGIN{print o/1e6}')" "$x" "$target"
done
$AB -q -f json -w random --sizes 16,32,48,64,128,256 --repeat 1 -o "$tmp/random.json"
sums=$(for b in malloc pool pool-locked arena; do $JSONQ "$tmp/random.json" "results[backend=$b].checksum"; done | sort -u | wc -l)
printf 'random: %s distinct sequence checksum(s) over 4 backends  (target 1: %s)\n' "$sums" "$([ "$sums" = 1 ] && echo met || echo MISSED)"

# Recording (allocbench record): the wall time of a program with the
# recording library preloaded over the same program alone (an
# allocation-heavy single-threaded loop, the perl hash, sqlite3), best of
# three each (the library's own cost, without record's summary), and the
# trace's bytes per call.
${CC:-cc} -O2 -o "$tmp/alloc_heavy" tests/bench/alloc_heavy.c || exit 2
RECLIB=${ABBUILD:-build/default}/liballocbench-record.so
best() {
	b=
	for i in 1 2 3; do
		s=$(date +%s.%N)
		"$@" >/dev/null
		t=$(awk -v s="$s" -v e="$(date +%s.%N)" 'BEGIN { print e - s }')
		b=$(awk -v b="$b" -v t="$t" 'BEGIN { print (b == "" || t < b) ? t : b }')
	done
	echo "$b"
}
recorded() {
	rm -f "$tmp/bench.trace"*
	ALLOCBENCH_RECORD_FILE=$tmp/bench.trace LD_PRELOAD=$RECLIB "$@"
}
record_bench() {
	name=$1 target=$2; shift 2
	plain=$(best "$@")
	rec=$(best recorded "$@")
	x=$(awk -v r="$rec" -v p="$plain" 'BEGIN { print r / p }')
	# The program's own trace, not the shell's that starts it: the largest.
	$AB report "$(ls -S "$tmp"/bench.trace.* | head -n 1)" -f json >"$tmp/bench.json"
	bpc=$(awk -v b="$($JSONQ "$tmp/bench.json" trace.bytes)" -v n="$($JSONQ "$tmp/bench.json" calls.total)" 'BEGIN { print b / n }')
	printf 'record %s: %.3f s recorded, %.3f s alone: %.2fx  (target <= %s: %s); %.2f bytes per call  (target <= 8: %s)\n' \
		"$name" "$rec" "$plain" "$x" "$target" "$(verdict "$x" "$target" '<=')" "$bpc" "$(verdict "$bpc" 8 '<=')"
}
# allocbench record itself: the library's cost, then the conversion to
# version 3 once the program ended and the summary; the trace it leaves.
record_whole() {
	rm -f "$tmp/whole.trace"*
	$AB record -o "$tmp/whole.trace" "$@" 2>/dev/null
}
record_cmd_bench() {
	name=$1; shift
	plain=$(best "$@")
	rec=$(best record_whole "$@")
	bpc=$(awk -v b="$(stat -L -c %s "$tmp/whole.trace")" -v n="$($AB report -f json "$tmp/whole.trace" |
		$JSONQ - calls.total)" 'BEGIN { print b / n }')
	printf 'allocbench record %s: %.3f s, %.3f s alone: %.2fx; %.3f bytes per call (format version 3)\n' \
		"$name" "$rec" "$plain" "$(awk -v r="$rec" -v p="$plain" 'BEGIN { print r / p }')" "$bpc"
}
# Targets (issue 29): the bare loop 1.5x, the perl hash and sqlite3 1.3x.
record_bench "alloc_heavy (5M steps)" 1.5 "$tmp/alloc_heavy" 5000000
if command -v perl >/dev/null; then
	record_bench "perl hash (300000 keys)" 1.3 perl -e 'my %h; $h{$_}=[$_] for 1..300000;'
	record_cmd_bench "perl hash (300000 keys)" perl -e 'my %h; $h{$_}=[$_] for 1..300000;'
fi
if command -v sqlite3 >/dev/null; then
	cat >"$tmp/idx.sql" <<'SQL'
CREATE TABLE t(a INTEGER, b TEXT);
WITH RECURSIVE c(x) AS (VALUES(1) UNION ALL SELECT x + 1 FROM c WHERE x < 200000)
INSERT INTO t SELECT x, printf('%08d-%d', (x * 7919) % 200000, x) FROM c;
CREATE INDEX tb ON t(b);
SQL
	record_bench "sqlite3 (an index of 200000 rows)" 1.3 sh -c 'sqlite3 :memory: <"$1"' sh "$tmp/idx.sql"
	record_cmd_bench "sqlite3 (an index of 200000 rows)" sqlite3 :memory: -init "$tmp/idx.sql" .quit
fi

# Trace format version 3 (record --convert of the library's own trace):
# bytes per call of the program's trace converted, against heaptrack's 0.19 on the perl hash (issue 29) and
# 0.5 on sqlite3 building an index. Where heaptrack is installed, its own
# file for the perl hash (WITH_HEAPTRACK 1: the program is no shell) beside
# it: its frees name an allocation site and size, not the chunk, which a
# replay needs.
v3_bench() {
	name=$1 target=$2 with_heaptrack=$3; shift 3
	recorded "$@" >/dev/null
	$AB record --convert "$(ls -S "$tmp"/bench.trace.* | head -n 1)" -o "$tmp/bench.v3" || return
	$AB report "$tmp/bench.v3" -f json >"$tmp/bench.json"
	calls=$($JSONQ "$tmp/bench.json" calls.total)
	bpc=$(awk -v b="$($JSONQ "$tmp/bench.json" trace.bytes)" -v n="$calls" 'BEGIN { print b / n }')
	ht=
	if [ "$with_heaptrack" = 1 ] && command -v heaptrack >/dev/null &&
	   heaptrack -o "$tmp/ht" "$@" >/dev/null 2>&1 &&
	   [ -s "$tmp/ht.zst" ]; then
		ht=$(awk -v b="$(stat -c %s "$tmp/ht.zst")" -v n="$calls" 'BEGIN { printf "; heaptrack %.3f", b / n }')
		rm -f "$tmp/ht.zst"
	fi
	printf 'trace v3 %s: %.3f bytes per call%s  (target <= %s: %s)\n' "$name" "$bpc" "$ht" "$target" \
		"$(verdict "$bpc" "$target" '<=')"
}
if command -v perl >/dev/null; then
	v3_bench "perl hash (300000 keys)" 0.19 1 perl -e 'my %h; $h{$_}=[$_] for 1..300000;'
fi
if command -v sqlite3 >/dev/null; then
	v3_bench "sqlite3 (an index of 200000 rows)" 0.5 0 sh -c 'sqlite3 :memory: <"$1"' sh "$tmp/idx.sql"
fi

# The set-up of one measurement, which is a freshly executed process:
# allocbench's measuring program (allocbench-child64) for a tiny fill with
# --counters none, started as the runner starts it (fork, exec, wait:
# tests/bench/spawn_ms.c, the median of 40, wall and CPU time), against
# allocbench itself measuring with PAPI's libraries preloaded, which is
# what it loaded when allocbench was linked with PAPI (libpfm's
# relocations were most of it: 24 ms on the project's VM at 275b0a9, of
# which 10 ms creating the process). Three pairs, interleaved, medians; the
# target is half. Then per measurement in a run (64 sizes of 4 KiB on pool:
# 128 measuring processes, the parent's work included) and the issue's sweep
# (256 sizes on pool and arena, 1 MiB each), once each.
$AB counters -f json >"$tmp/counters.json" 2>"$tmp/counters.err"
papi=$($JSONQ "$tmp/counters.json" papi_version 2>"$tmp/counters.err")
case $papi in
[0-9]*.[0-9]*)
	preload="libsde.so.1 libpapi.so.$(echo "$papi" | cut -d. -f1-2)"
	${CC:-cc} -O2 -o "$tmp/spawn_ms" tests/bench/spawn_ms.c || exit 2
	# The request of the runner's protocol 4 (src/measure/request.c).
	bin=$(cd "$(dirname "$AB")" && pwd)
	set -- __measure protocol=4 backend=pool \
		floor=0 size=64 count=16 align=16 pool-block=1048576 \
		touch=pages workload=fill rounds=0 seed=1 threads=0 replay-threads=0 mix=- \
		counters=none abi=64
	: >"$tmp/now"; : >"$tmp/linked"
	for i in 1 2 3; do
		"$tmp/spawn_ms" 40 "$bin/allocbench-child64" "$@" >>"$tmp/now" 2>"$tmp/spawn.err"
		LD_PRELOAD="$preload" "$tmp/spawn_ms" 40 "$bin/$(basename "$AB")" "$@" >>"$tmp/linked" 2>>"$tmp/spawn.err"
	done
	if [ -s "$tmp/spawn.err" ]; then
		echo "set-up of one measurement: not measured ($(head -n 1 "$tmp/spawn.err"); the runner's request changed?)"
	else
		# Medians of the three runs' medians, of wall and of CPU time each.
		now=$(sort -n -k1,1 "$tmp/now" | sed -n 2p | cut -d' ' -f1)
		linked=$(sort -n -k1,1 "$tmp/linked" | sed -n 2p | cut -d' ' -f1)
		now_cpu=$(sort -n -k2,2 "$tmp/now" | sed -n 2p | cut -d' ' -f2)
		linked_cpu=$(sort -n -k2,2 "$tmp/linked" | sed -n 2p | cut -d' ' -f2)
		r=$(awk -v a="$now" -v b="$linked" 'BEGIN { print a / b }')
		rc=$(awk -v a="$now_cpu" -v b="$linked_cpu" 'BEGIN { print a / b }')
		printf 'set-up of one measurement, --counters none: %.1f ms (%.1f ms of CPU); with PAPI loaded as when linked: %.1f ms (%.1f ms of CPU; 24 ms on the project VM before)\n' \
			"$now" "$now_cpu" "$linked" "$linked_cpu"
		printf '  %.2fx the wall time  (target <= 0.5: %s); %.2fx the CPU time  (target <= 0.5: %s)\n' \
			"$r" "$(verdict "$r" 0.5 '<=')" "$rc" "$(verdict "$rc" 0.5 '<=')"
	fi
	# Wall time and CPU time (the run's and its processes', from times) of a run.
	sweep() {
		s=$(date +%s.%N)
		( "$@" -q -f json -o "$tmp/sweep.json" || echo "sweep exited $?" >&2; times ) >"$tmp/times"
		tail -n 1 "$tmp/times" | awk -v s="$s" -v e="$(date +%s.%N)" '{ split($1, u, "m"); split($2, y, "m");
			printf "%.3f %.3f\n", e - s, u[1] * 60 + u[2] + y[1] * 60 + y[2] }'
	}
	set -- --sizes "$(seq -s, 64 64 4096)" --backend pool --total 4K --repeat 1 --counters none
	now=$(sweep $AB "$@")
	linked=$(LD_PRELOAD="$preload" sweep $AB "$@")
	printf 'per measurement in a run of 64 sizes, --counters none: %.1f ms (%.1f ms of CPU); with PAPI loaded as when linked: %.1f ms (%.1f ms of CPU)\n' \
		$(echo "$now $linked" | awk '{ for (i = 1; i <= 4; i++) printf "%f ", $i * 1000 / 128 }')
	set -- --sizes "$(seq -s, 16 16 4096)" --backend pool,arena --total 1M --repeat 1 --counters none
	now=$(sweep $AB "$@")
	linked=$(LD_PRELOAD="$preload" sweep $AB "$@")
	printf 'sweep of 256 sizes on pool and arena, 1 MiB each, --counters none: %.1f s (%.1f s of CPU); with PAPI loaded as when linked: %.1f s (%.1f s of CPU)\n' \
		$now $linked
	;;
*)
	echo "set-up of one measurement: not measured (no PAPI here to compare with)"
	;;
esac

# report streams its trace (issue 29): a made-up program's trace of a
# billion calls whose live chunks peak at a million (tests/tools/tracegen),
# read under a limit of 256 MiB of address space (ulimit -v: the process's
# code, libraries and heap together). Then (issue 42) the same trace
# replayed on malloc under a limit of 512 MiB: allocbench and the measuring
# process each hold a window of the plan's steps, whose file (24 bytes a
# step) is in $tmp beside the trace. Both deleted after.
calls=${BENCH_TRACE_CALLS:-1000000000}
need_kib=$((calls / 1024 * 6))
plan_kib=$((calls / 1024 * 24))
free_kib=$(df -Pk "$tmp" | awk 'NR == 2 { print $4 }')
# seconds FROM: the wall time since FROM (date +%s.%N).
seconds() { awk -v s="$1" -v e="$(date +%s.%N)" 'BEGIN { print e - s }'; }
if [ "$free_kib" -lt $((need_kib + 1048576)) ]; then
	echo "report of a $calls-call trace: not measured (its trace needs $((need_kib / 1048576 + 1)) GiB free in $tmp, $((free_kib / 1048576)) GiB are)"
else
	${ABBUILD:-build/default}/tests/tools/tracegen "$tmp/big.trace" "$calls" 1000000 || echo "tracegen exited $?"
	s=$(date +%s.%N)
	# times: the report's CPU time (this machine is shared: the wall time is the figure).
	( ( ulimit -v 262144 && exec $AB report -f json -o "$tmp/big.json" "$tmp/big.trace" ) 2>"$tmp/big.err" ||
		echo "report exited $?: $(head -c 300 "$tmp/big.err")" >&2; times ) >"$tmp/times"
	wall=$(seconds "$s")
	cpu=$(tail -n 1 "$tmp/times" | awk '{ split($1, u, "m"); split($2, y, "m"); print u[1] * 60 + u[2] + y[1] * 60 + y[2] }')
	got=$($JSONQ "$tmp/big.json" calls.total 2>/dev/null || echo 0)
	peak=$($JSONQ "$tmp/big.json" peak_live_chunks 2>/dev/null || echo 0)
	rate=$(awk -v n="$got" -v w="$wall" 'BEGIN { print n / w / 1e6 }')
	printf 'report of a %.0f-call trace (%.1f GB, live chunks peak at %.0f), ulimit -v 256 MiB: %.1f s (%.1f s of CPU), %.1f million calls/s  (target >= 50: %s)\n' \
		"$got" "$(stat -c %s "$tmp/big.trace" | awk '{ print $1 / 1e9 }')" "$peak" "$wall" "$cpu" "$rate" \
		"$(verdict "$rate" 50 '>=')"
	if [ "$free_kib" -lt $((need_kib + plan_kib + 1048576)) ]; then
		echo "replay of a $calls-call trace: not measured (its plan needs $((plan_kib / 1048576 + 1)) GiB more free in $tmp, $(((free_kib - need_kib) / 1048576)) GiB are)"
	else
		s=$(date +%s.%N)
		( ulimit -v 524288 && TMPDIR=$tmp exec $AB --workload replay --trace "$tmp/big.trace" \
			--backend malloc --repeat 1 -q -f json -o "$tmp/bigr.json" ) 2>"$tmp/bigr.err"
		rc=$?
		wall=$(seconds "$s")
		hwm=$($JSONQ "$tmp/bigr.json" 'results[0].peak_memory_bytes' 2>/dev/null || echo 0)
		printf 'replay of that trace on malloc, ulimit -v 512 MiB: exit %d in %.0f s, the measuring process at %.0f MiB at most%s  (target: runs under ulimit -v 512 MiB: %s)\n' \
			"$rc" "$wall" "$(awk -v h="$hwm" 'BEGIN { print h / 1048576 }')" \
			"$([ "$rc" = 0 ] || echo ": $(head -c 300 "$tmp/bigr.err")")" \
			"$([ "$rc" = 0 ] && [ "$($JSONQ "$tmp/bigr.json" 'results[0].status' 2>/dev/null)" = ok ] && echo met || echo MISSED)"
	fi
	rm -f "$tmp/big.trace"
fi

# The memory a replay holds (issue 42): the measuring process's peak
# resident set (VmHWM) replaying made-up traces of 10 and 20 million calls
# whose live chunks peak at a million (tests/tools/tracegen), and the
# growth per call between them: the plan's steps are mapped a window at a
# time, so it should be none.
for m in 10 20; do
	${ABBUILD:-build/default}/tests/tools/tracegen "$tmp/g$m.trace" ${m}000000 1000000 ||
		echo "tracegen exited $?"
	$AB --workload replay --trace "$tmp/g$m.trace" --backend malloc --repeat 1 -q -f json \
		-o "$tmp/g$m.json" || echo "replay of $m million calls exited $?"
	rm -f "$tmp/g$m.trace"
done
h10=$($JSONQ "$tmp/g10.json" 'results[0].peak_memory_bytes' 2>/dev/null || echo 0)
h20=$($JSONQ "$tmp/g20.json" 'results[0].peak_memory_bytes' 2>/dev/null || echo 0)
awk -v a="$h10" -v b="$h20" 'BEGIN {
	printf "replay memory, 1 million chunks live: %.1f MiB at 10 million calls, %.1f MiB at 20 million: %.2f bytes per call  (a plan held whole: 24)\n",
		a / 1048576, b / 1048576, (b - a) / 10e6 }'

# The sweep of hostile input (issue 45: tests/cli/t0803-hostile.sh), each
# case held to 10 s and 512 MiB: its cases' times and the slowest.
HOSTILE_SECONDS=10 ABBUILD=${ABBUILD:-$PWD/build/default} sh tests/cli/t0803-hostile.sh >"$tmp/hostile" 2>&1
awk '/^# .*: exit [0-9]+ in [0-9.]+ s$/ { n++; t = $(NF - 1); if (t > worst) { worst = t; name = $0 } }
/^not ok/ { bad++ } END {
	sub(/^# /, "", name); sub(/: exit [0-9]+ in [0-9.]+ s$/, "", name)
	printf "hostile input sweep: %d cases, %d outside 10 s, 512 MiB or exit 0/2; slowest %.2f s (%s)  (target 0: %s)\n",
		n, bad, worst, name, bad ? "MISSED" : "met" }' "$tmp/hostile"

# The cost of asking (issue 42): advise's wall time (the default: 3 real
# runs per drop-in allocator, 3 replays per backend) over the program's own
# (the best of three alone), on a program of threads that free each other's
# chunks (mtqueue), one that mallocs 8 times what it touches (sparse), one
# that makes its threads in waves (waves), and, where installed, t1409's
# real programs: sqlite3 building an index over 400,000 rows (0.35 s here;
# tests/bench/sqlite-index.sql) and jq summing a 3 MB array. Targets: at
# most 10x as the median, at most 30x for a program of 0.3 s or more.
TOOLDIR=${ABBUILD:-build/default}/tests/tools
# cost NAME COMMAND...: advise -- COMMAND's wall time over COMMAND's own.
cost() {
	c_name=$1; shift
	alone=$(best "$@")
	s=$(date +%s.%N)
	$AB advise -q -o "$tmp/advise.txt" -- "$@" </dev/null >/dev/null 2>&1 || echo "advise -- $c_name exited $?"
	asked=$(awk -v s="$s" -v e="$(date +%s.%N)" 'BEGIN { print e - s }')
	x=$(awk -v a="$asked" -v p="$alone" 'BEGIN { print a / p }')
	echo "$x" >>"$tmp/costs"
	printf 'advise -- %s: %.1f s, the program alone %.3f s: %.0fx%s\n' "$c_name" "$asked" "$alone" "$x" \
		"$(awk -v p="$alone" -v x="$x" 'BEGIN { if (p >= 0.3) printf "  (target <= 30x for 0.3 s or more: %s)", x <= 30 ? "met" : "MISSED" }')"
}
cost mtqueue "$TOOLDIR/mtqueue"
cost "sparse 64 8" "$TOOLDIR/sparse" 64 8
cost "waves 25 4" "$TOOLDIR/waves" 25 4
if command -v sqlite3 >/dev/null && command -v jq >/dev/null; then
	jq -n -c '[range(40000) | {id: ., name: "n\(.)", tags: [range(5) | "x\(.)"], v: (. * 7 % 1000 / 1000)}]' \
		>"$tmp/big.json"
	cost "sqlite3 (an index over 400,000 rows)" sqlite3 :memory: -init tests/bench/sqlite-index.sql .quit
	cost "jq (a sum over a 3 MB array)" jq -c "map(.v) | add" "$tmp/big.json"
else
	echo "advise -- sqlite3, jq: not measured (not installed)"
fi
med=$(sort -n "$tmp/costs" | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
printf 'advise cost, median of %d programs: %.0fx  (target <= 10x: %s)\n' "$(wc -l <"$tmp/costs")" "$med" "$(verdict "$med" 10 '<=')"
