#!/bin/sh
# Issue 43: an allocator with settings is a candidate of its own,
# ALLOCATOR:NAME=VALUE[:NAME=VALUE...] wherever --backend names a backend
# (allocbench-backends(1), SETTINGS).
# - A name the allocator does not have, a value out of its range or not a
#   number, a setting given twice, settings of a backend without any, and
#   settings with --abi 32 exit 2, naming the setting.
# - The measuring process gets them: glibc's mmap_threshold=0 makes every
#   chunk a mapping of its own (a page and more per 40-byte chunk).
# - The report says how each ran: config.settings (valid against the
#   schema) and the text's header; glibc's are not confirmed.
# - jemalloc's and tcmalloc's are read back: a tcmalloc thread cache total
#   under its 512 KiB floor fails its row, saying what tcmalloc read.
# - advise on tests/tools/arenas (8 threads taking turns with 4 MiB each,
#   which glibc's arenas keep): the answer names malloc:arena_max=2 with
#   its saving, and the line that runs it so; that saving is within 5% of
#   the program's own, run here under GLIBC_TUNABLES (peakanon); a program
#   of several threads gets the curated candidates by default.
# check: once
. "$(dirname "$0")/lib.sh"

expect_usage "an unknown setting: exit 2, the nearest named" \
	"unknown setting 'arenamax' of malloc in --backend 'malloc:arenamax=2'; did you mean arena_max\\?" \
	--backend malloc:arenamax=2
expect_usage "a value out of range: exit 2, the range said" \
	"invalid value '0' for malloc:arena_max in --backend 'malloc:arena_max=0' \\(expected a whole number 1 or more" \
	--backend malloc:arena_max=0
expect_usage "... and over a maximum" \
	"invalid value '65536' for malloc:tcache_count .*from 0 to 65535" --backend malloc:tcache_count=65536
expect_usage "a value that is no number" "invalid value 'two' for malloc:arena_max" --backend malloc:arena_max=two
if test_have_prereq NOASAN,JEMALLOC; then
	expect_usage "a boolean that is none" "invalid value 'yes' for jemalloc:tcache .*expected true or false" \
		--backend jemalloc:tcache=yes
else
	skip "a boolean that is none (jemalloc's)" "$prereq_why"
fi
expect_usage "a setting given twice" "setting 'arena_max' appears more than once in --backend 'malloc:arena_max=2:arena_max=3'" \
	--backend malloc:arena_max=2:arena_max=3
expect_usage "no NAME=VALUE" "invalid setting 'arena_max' in --backend 'malloc:arena_max' \\(expected NAME=VALUE" \
	--backend malloc:arena_max
expect_usage "a backend without settings" "backend 'pool' has no settings allocbench knows" --backend pool:x=1
expect_usage "an unknown allocator with settings" "unknown backend 'mallok' in --backend; did you mean malloc\\?" \
	--backend mallok:arena_max=2
expect_usage "the same candidate twice" "backend 'malloc:arena_max=2' appears more than once" \
	--backend malloc:arena_max=2,malloc:arena_max=2
# ABI32: as t0016's, this build has the 32-bit measuring program and this machine runs it.
test_lazy_prereq ABI32 '
	"$AB" --abi 32 --sizes 4 --total 4K --repeat 1 --backend arena -q -f json \
		>"$tmp/.abi32.json" 2>"$tmp/.abi32.err" && exit 0
	tail -n 1 "$tmp/.abi32.err"; exit 1'
if test_have_prereq ABI32; then
	expect_usage "with --abi 32: exit 2" "backend 'malloc:arena_max=2' cannot be measured with --abi 32: settings are measured in 64-bit rows only" \
		--backend malloc:arena_max=2 --abi 32
else
	skip "settings with --abi 32" "$prereq_why"
fi

if ! test_have_prereq GLIBC_MALLOC; then
	skip "glibc's settings measured" "$prereq_why"
	test_done
	exit 0
fi
run_ab --sizes 40 --total 1M --repeat 1 --backend malloc,malloc:mmap_threshold=0:arena_max=1 -f json -o "$tmp/m.json"
check "malloc with settings: exit 0" test "$rc" = 0
check "mmap_threshold=0 reached the measuring process: a 40-byte chunk costs a page and more" \
	awk -v a="$(jq_get "$tmp/m.json" 'results[backend=malloc].overhead_bytes.median')" \
	    -v b="$(jq_get "$tmp/m.json" 'results[backend=malloc:mmap_threshold=0:arena_max=1].overhead_bytes.median')" \
	    'BEGIN { exit !(a < 64 && b > 4000) }'
check "config.settings: the environment, not confirmed, and why" test \
	"$(jq_get "$tmp/m.json" 'config.settings[0].backend')|$(jq_get "$tmp/m.json" 'config.settings[0].environment')|$(jq_get "$tmp/m.json" 'config.settings[0].confirmed')|$(jq_get "$tmp/m.json" 'config.settings[0].how')" = \
	"malloc:mmap_threshold=0:arena_max=1|GLIBC_TUNABLES=glibc.malloc.mmap_threshold=0:glibc.malloc.arena_max=1|false|not confirmed: glibc reads its tunables at start and has no call that reads one back"
check "the report is valid against the schema" "$SCHEMACHECK" "$top/data/allocbench.schema.json" "$tmp/m.json"
# show says the settings as the run did: its header line, from config.settings.
run_ab show "$tmp/m.json"
# A name too long for the tables to fit 80 columns stands on a line of its
# own, its row under it.
check "the text's tables keep within 80 columns" sh -c '! awk "length(\$0) > 80" "$1" | grep -q .' sh "$tmp/out"
check "... the candidate's name on a line of its own" \
	sh -c '[ "$(grep -cx "malloc:mmap_threshold=0:arena_max=1" "$1")" -ge 2 ]' sh "$tmp/out"
check "show: the settings line, as config.settings says them" sh -c 'tr "\n" " " <"$1" | tr -s " " |
	grep -q "settings: malloc:mmap_threshold=0:arena_max=1 as GLIBC_TUNABLES=glibc.malloc.mmap_threshold=0:glibc.malloc.arena_max=1, not confirmed: glibc reads"' sh "$tmp/out"
"$JSONSET" "$tmp/m.json" 'config.settings[0].how' '="read back by a test"' >"$tmp/m-how.json"
run_ab show "$tmp/m-how.json"
check "... the report's words, not recomputed" sh -c 'tr "\n" " " <"$1" | tr -s " " | grep -q "read back by a test"' sh "$tmp/out"
"$JSONSET" "$tmp/m.json" 'config.settings[0].backend' '="tcmalloc:release_rate=1"' >"$tmp/m-bad.json"
run_ab show "$tmp/m-bad.json"
check "show: a candidate config.backends does not name is refused, naming the field (exit 2)" \
	sh -c '[ "$1" = 2 ] && grep -q "config.settings\[0\].backend is not in config.backends" "$2"' sh "$rc" "$tmp/err"
"$JSONSET" "$tmp/m.json" 'config.settings[0].backend' '="malloc"' >"$tmp/m-bad.json"
run_ab show "$tmp/m-bad.json"
check "... and one without settings" \
	sh -c '[ "$1" = 2 ] && grep -q "config.settings\[0\].backend .malloc. has no settings" "$2"' sh "$rc" "$tmp/err"
"$JSONSET" "$tmp/m.json" 'config.settings' "=[$("$JSONQ" "$tmp/m.json" 'config.settings[0]'), $("$JSONQ" "$tmp/m.json" 'config.settings[0]')]" >"$tmp/m-bad.json"
run_ab show "$tmp/m-bad.json"
check "... and one named twice" sh -c '[ "$1" = 2 ] && grep -q "config.settings names .* twice" "$2"' sh "$rc" "$tmp/err"
run_ab --sizes 40 --total 1M --repeat 1 --backend malloc:arena_max=1
check "the text says so in its header" sh -c 'tr "\n" " " <"$1" | tr -s " " |
	grep -q "settings: malloc:arena_max=1 as GLIBC_TUNABLES=glibc.malloc.arena_max=1, not confirmed: glibc"' sh "$tmp/out"

if test_have_prereq JEMALLOC; then
	run_ab --sizes 40 --total 1M --repeat 1 -f json -o "$tmp/j.json" \
		--backend jemalloc:narenas=3:dirty_decay_ms=-1:background_thread=true:tcache=false
	check "jemalloc's settings read back: the row measured, confirmed" test \
		"$rc $(jq_get "$tmp/j.json" 'results[0].status') $(jq_get "$tmp/j.json" 'config.settings[0].environment') $(jq_get "$tmp/j.json" 'config.settings[0].confirmed')" = \
		"0 ok MALLOC_CONF=narenas:3,dirty_decay_ms:-1,background_thread:true,tcache:false true"
else
	skip "jemalloc's settings" "$prereq_why"
fi
if test_have_prereq TCMALLOC; then
	run_ab --sizes 40 --total 1M --repeat 1 -f json -o "$tmp/t.json" \
		--backend tcmalloc:max_total_thread_cache_bytes=1000,tcmalloc:max_total_thread_cache_bytes=1048576
	check "tcmalloc under its floor: that row fails, saying what tcmalloc read; the other is measured" test \
		"$rc|$(jq_get "$tmp/t.json" 'results[0].error')|$(jq_get "$tmp/t.json" 'results[1].status')" = \
		"1|tcmalloc:max_total_thread_cache_bytes=1000 did not take effect: tcmalloc.max_total_thread_cache_bytes is 524288|ok"
else
	skip "tcmalloc's settings" "$prereq_why"
fi

if ! test_have_prereq NOASAN; then
	skip "advise with settings" "$prereq_why"
	test_done
	exit 0
fi
ARENAS=$ABBUILD/tests/tools/arenas
run_ab advise -f json -o "$tmp/a.json" --backend malloc,malloc:arena_max=2,pool -- "$ARENAS" 8 4
check "advise on a program that glibc's arenas bloat: exit 0" test "$rc" = 0
check "the real runs: malloc:arena_max=2's environment" test \
	"$(jq_get "$tmp/a.json" 'real_runs.rows[backend=malloc:arena_max=2].environment')" = \
	"GLIBC_TUNABLES=glibc.malloc.arena_max=2"
m=$(jq_get "$tmp/a.json" 'real_runs.rows[backend=malloc].peak_anon_bytes.median')
t=$(jq_get "$tmp/a.json" 'real_runs.rows[backend=malloc:arena_max=2].peak_anon_bytes.median')
# The program itself, three times each way (KiB).
for i in 1 2 3; do
	"$ABBUILD/tests/tools/peakanon" "$ARENAS" 8 4 | awk '{ print $2 }' >>"$tmp/plain"
	GLIBC_TUNABLES=glibc.malloc.arena_max=2 "$ABBUILD/tests/tools/peakanon" "$ARENAS" 8 4 |
		awk '{ print $2 }' >>"$tmp/tuned"
done
real=$(sort -n "$tmp/plain" | sed -n 2p)
tuned=$(sort -n "$tmp/tuned" | sed -n 2p)
check "advise's saving with arena_max=2 ($m - $t bytes) is within 5% of the program's own ($real - $tuned KiB)" \
	awk -v m="$m" -v t="$t" -v r="$real" -v u="$tuned" \
	'BEGIN { a = (m - t) / m; b = (r - u) / r; exit !(b > 0.5 && (a - b) ^ 2 <= (0.05 * b) ^ 2) }'
run_ab advise -o "$tmp/a.txt" --backend malloc,malloc:arena_max=2,pool -- "$ARENAS" 8 4
check "the answer names malloc:arena_max=2 with its saving" sh -c 'tr "\n" " " <"$1" | tr -s " " |
	grep -Eq "memory, drop-in, measured: malloc:arena_max=2 [0-9]+ \[[0-9]+-[0-9]+\] KiB; [0-9]+ KiB less than malloc [0-9]+ \[[0-9]+-[0-9]+\], [0-9]+% of the program.s peak under malloc"' sh "$tmp/a.txt"
check "... and the line that runs it so" sh -c 'tr "\n" " " <"$1" | tr -s " " |
	grep -q "to run it so: GLIBC_TUNABLES=glibc.malloc.arena_max=2 $2 ..."' sh "$tmp/a.txt" "$ARENAS"

# By default, a program of several threads is run under the curated
# candidates too: the answer names malloc:arena_max=2's saving, on the
# drop-in line where it is the best, else on glibc's own.
run_ab advise -f json -o "$tmp/d.json" -- "$ARENAS" 8 4
check "advise on arenas, no --backend: malloc:arena_max=2 is glibc's best, beyond the noise" test \
	"$rc $(jq_get "$tmp/d.json" 'real_runs.memory_glibc.best[0]') $(jq_get "$tmp/d.json" 'real_runs.memory_glibc.beyond_noise')" = \
	"0 malloc:arena_max=2 true"
check "... saving half the program's memory and more ($(jq_get "$tmp/d.json" 'real_runs.memory_glibc.saves_percent')%)" \
	awk -v p="$(jq_get "$tmp/d.json" 'real_runs.memory_glibc.saves_percent')" 'BEGIN { exit !(p > 50) }'
"$AB" advise -q -o "$tmp/d.txt" -- "$ARENAS" 8 4
check "... in 80 columns, however long a candidate's name" sh -c '! awk "length(\$0) > 80" "$1" | grep -q .' sh "$tmp/d.txt"
check "... said in the answer, with the line that runs it so" sh -c 'tr "\n" " " <"$1" | tr -s " " |
	grep -Eq "memory, (drop-in|glibc with settings), measured: malloc:arena_max=2 [0-9]+ \[[0-9]+-[0-9]+\] KiB; [0-9]+ KiB less than malloc .* to run it so: GLIBC_TUNABLES=glibc.malloc.arena_max=2 "' sh "$tmp/d.txt"

if grep -q "glibc with settings" "$tmp/d.txt"; then
	check "... glibc's line says what it costs in time against malloc" sh -c 'tr "\n" " " <"$1" | tr -s " " |
		grep -Eq "memory, glibc with settings, measured: malloc:arena_max=2 .*; in time [0-9.]+ \[[0-9.]+-[0-9.]+\] m?s against malloc.s [0-9.]+ \[[0-9.]+-[0-9.]+\](, the same beyond the noise|, faster|, slower)"' sh "$tmp/d.txt"
else
	skip "glibc's line in time" "malloc:arena_max=2 was the best of all: the drop-in lines say it"
fi

# The curated candidates for a trace of several threads (a trace given: no
# real runs, the replays alone, which is quicker).
record_trace "$tmp/ar.trace" "$ARENAS" 4 1
run_ab advise -q --repeat 1 -f json -o "$tmp/c.json" --trace "$tmp/ar.trace"
check "a trace of several threads: malloc:arena_max=2 among the default candidates" \
	grep -q '"malloc:arena_max=2"' "$tmp/c.json"
record_trace "$tmp/one.trace" sort /etc/services
run_ab advise -q --repeat 1 -f json -o "$tmp/o.json" --trace "$tmp/one.trace"
check "... and not for one of one thread" sh -c '! grep -q "arena_max" "$1"' sh "$tmp/o.json"
run_ab advise -q --repeat 1 --tune --backend malloc,pool -f json -o "$tmp/g.json" --trace "$tmp/one.trace"
check "--tune: glibc's grid on any program, where --backend names malloc" test \
	"$rc $(jq_get "$tmp/g.json" 'results#') $(jq_get "$tmp/g.json" 'results[2].backend') $(jq_get "$tmp/g.json" 'results[5].backend')" = \
	"0 6 malloc:arena_max=1 malloc:trim_threshold=0"
run_ab advise -q --repeat 1 --tune --backend malloc,malloc:arena_max=2 -f json -o "$tmp/g2.json" --trace "$tmp/one.trace"
check "--tune with a candidate of the grid named already: exit 0, named once" test \
	"$rc $(grep -c '"backend": "malloc:arena_max=2"' "$tmp/g2.json")" = "0 $(grep -c '"backend": "malloc"' "$tmp/g2.json")"
run_ab ab --pairs 6 malloc malloc:arena_max=2 -- --sizes 64 --total 64K
check "ab takes a candidate with settings as a variant (exit 0, or 1 for a slower time)" \
	sh -c '[ "$1" -le 1 ] && grep -q "^malloc -> malloc:arena_max=2 64 B alloc ns " "$2"' sh "$rc" "$tmp/out"
# A setting that changes nothing (tcache_count=7 is glibc's own): where
# its first run lies within 2% of malloc's first in peak and after it, and
# 25% in time, it runs no more, saying so; else it runs on.
run_ab advise -q --repeat 1 --backend malloc,malloc:tcache_count=7 -f json -o "$tmp/n.json" -- \
	"$ABBUILD/tests/tools/sparse" 64 8
first() { jq_get "$tmp/n.json" "real_runs.rows[backend=$1].$2.runs" | tr -d '[] ' | cut -d, -f1; }
want=$(awk -v p="$(first malloc:tcache_count=7 peak_anon_bytes)" -v q="$(first malloc peak_anon_bytes)" \
	-v l="$(first malloc:tcache_count=7 low_anon_bytes)" -v m="$(first malloc low_anon_bytes)" \
	-v w="$(first malloc:tcache_count=7 wall_seconds)" -v x="$(first malloc wall_seconds)" \
	'function off(a, b) { return (a > b ? a - b : b - a) / b }
	 BEGIN { print off(p, q) <= 0.02 && off(l, m) <= 0.02 && off(w, x) <= 0.25 ? "stopped" : "runs on" }')
got=$(jq_get "$tmp/n.json" 'real_runs.rows[backend=malloc:tcache_count=7].stopped' 2>/dev/null |
	grep -q "after 1 run as malloc without its settings .*: the setting changes nothing measured for this program" &&
	echo stopped || echo "runs on")
check "a setting that changes nothing after a round: $want (exit $rc)" test "$rc $got" = "0 $want"
if [ "$got" = stopped ]; then
	check "... marked no_effect, and never among the best: it is malloc as measured" sh -c '
		[ "$("$1" "$2" "real_runs.rows[backend=malloc:tcache_count=7].no_effect")" = true ] &&
		! "$1" "$2" real_runs | tr -d " \n" | grep -q "\"best\":\[[^]]*malloc:tcache_count=7"' \
		sh "$JSONQ" "$tmp/n.json"
else
	skip "a setting that changed nothing is never among the best" "it did not stop after a round"
fi
# The answer never names a setting that changed nothing measured (shown
# from the report, its runs made the least of all, with and without the mark).
cp "$tmp/n.json" "$tmp/n-least.json"
for f in peak_anon_bytes:1024 wall_seconds:0.001 low_anon_bytes:1024 end_anon_bytes:1024 no_effect:false; do
	case $f in no_effect:*) p=no_effect ;; *) p=${f%%:*}.runs ;; esac
	case $f in no_effect:*) v=false ;; *) v="[${f#*:}]" ;; esac
	"$JSONSET" "$tmp/n-least.json" "real_runs.rows[backend=malloc:tcache_count=7].$p" "=$v" >"$tmp/n2.json" &&
		mv "$tmp/n2.json" "$tmp/n-least.json"
done
"$JSONSET" "$tmp/n-least.json" 'real_runs.rows[backend=malloc:tcache_count=7].no_effect' '=true' >"$tmp/n-none.json"
run_ab show "$tmp/n-least.json"
check "a setting whose runs are the least: the answer names it" \
	sh -c 'tr "\n" " " <"$1" | tr -s " " | grep -q "memory, drop-in, measured: malloc:tcache_count=7 "' sh "$tmp/out"
run_ab show "$tmp/n-none.json"
check "... marked no_effect: never, malloc is the answer" \
	sh -c 'tr "\n" " " <"$1" | tr -s " " | grep -q "memory, drop-in, measured: malloc [0-9]"' sh "$tmp/out"
l=malloc
for i in $(seq 1 16); do l=$l,malloc:arena_max=$i; done
expect_usage "advise with more than 16 candidates to run for real: exit 2" \
	"advise runs at most 16 drop-in candidates for real; --backend names 17" \
	advise -q --backend "$l" -- sort -o "$tmp/sorted" /etc/services

test_done
