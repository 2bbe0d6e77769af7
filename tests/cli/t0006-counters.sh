#!/bin/sh
# Counters through PAPI: allocbench's own events agree exactly with what the
# measuring child did; an event that cannot be counted has a reason (PAPI's
# words) and never fails the run; --counters none counts nothing; the
# counters command; a build without PAPI.
# check: host
. "$(dirname "$0")/lib.sh"

own="allocs frees bytes_requested pool_blocks pool_bytes_reserved arena_bytes_reserved"
presets="PAPI_TOT_CYC PAPI_TOT_INS PAPI_L1_DCM PAPI_TLB_DM"
# What PAPI says depends on the host: its perf_event component is
# disabled where libpfm4 finds no PMU ("no default PMU found"), enabled
# without counters elsewhere, and counts on a machine with a PMU. Checks that
# hold in every state run everywhere; the others name their prerequisite
# (PMU, PERF_EVENT, HW_COUNTERS in lib.sh).

run_ab counters -f json
check "counters command exits 0" [ "$rc" -eq 0 ]
check "counters command lists the default events" [ "$(jq_get "$tmp/out" 'events#')" = 10 ]
papi=$(jq_get "$tmp/out" papi_version)
if [ "$papi" = null ]; then
	# Built with make PAPI=0: every event says so, and the run still measures.
	check "without PAPI, every event says not built" \
		[ "$(grep -c '"not built with PAPI' "$tmp/out")" -ge 10 ]
	run_ab --sizes 40 --total 1M --repeat 1 -q -f json
	check "without PAPI the run exits 0" [ "$rc" -eq 0 ]
	check "without PAPI nothing is counted" jq_absent "$tmp/out" 'results[0].counters.PAPI_TOT_CYC'
	skip "counting through PAPI" "built with make PAPI=0"
	test_done
	exit 0
fi
check "counters command names the PAPI version" sh -c "echo '$papi' | grep -Eq '^[0-9]+\.[0-9]+'"

# ------------------------------------------------ unknown names (typos)
# A name no one has heard of is refused before measuring, with the nearest
# known names; one that exists but cannot be counted here is not "unknown".
expect_usage "run: a mistyped preset is an unknown event" \
	"unknown event 'PAPI_TOT_CYCS' in --counters; did you mean PAPI_TOT_CYC\?" \
	--counters PAPI_TOT_CYCS --sizes 40 --total 1M
expect_usage "run: a mistyped event of allocbench's own" \
	"unknown event 'allocbench::alocs' in --counters; did you mean allocbench::allocs\?" \
	--counters allocbench::allocs,allocbench::alocs --sizes 40 --total 1M
expect_usage "run: a component PAPI does not have" "unknown event 'nosuch:::thing' in --counters" \
	--counters nosuch:::thing --sizes 40 --total 1M
run_ab counters -f json --counters PAPI_TOT_CYCS,PAPI_TOT_CYC,allocbench::pool_block
check "counters: the typo is unknown" [ "$(jq_get "$tmp/out" 'events[0].unknown')" = true ]
check "counters: ... with the nearest name in its hint" sh -c "\"$JSONQ\" '$tmp/out' 'events[0].hint' | grep -q 'nearest known names: PAPI_TOT_CYC'"
check "counters: a known preset is not unknown, counted here or not" [ "$(jq_get "$tmp/out" 'events[1].unknown')" = false ]
check "counters: ... and its reason does not say unknown" sh -c "! \"$JSONQ\" '$tmp/out' 'events[1].reason' | grep -q unknown"
check "counters: allocbench::pool_block is near allocbench::pool_blocks" \
	sh -c "\"$JSONQ\" '$tmp/out' 'events[2].hint' | grep -q 'nearest known names: allocbench::pool_blocks'"

# --------------------------------------------------------------- a run
# --counters given: the events that restate the count are kept (see t0664).
run_ab --sizes 4,40,4000 --total 1M --repeat 2 --pool-block 64K -q -f json -o "$tmp/c.json" \
	--counters default
j=$tmp/c.json
check "run with the default counters exits 0" [ "$rc" -eq 0 ]
check "config lists the counters" [ "$(jq_get "$j" 'config.counters#')" = 10 ]
for e in $presets; do
	status=$(jq_get "$j" "counters_status.$e")
	check "$e has a status" [ -n "$status" ]
	if [ "$status" = ok ]; then
		check "$e counted in every result" jq_get "$j" "results[backend=pool,size=40].counters.$e.alloc"
	else
		check "$e: a reason in PAPI's words ($status)" \
			sh -c "printf '%s' \"\$1\" | grep -Eq '\(PAPI_E[A-Z_]+\)|component is disabled|PAPI failed'" - "$status"
		check "$e not counted is absent, not 0" jq_absent "$j" "results[backend=pool,size=40].counters.$e"
	fi
	check_if '!PMU' "$e unavailable on a kernel without a PMU" [ "$status" != ok ]
done
for e in $own; do
	check "allocbench::$e is counted" [ "$(jq_get "$j" "counters_status.sde:::allocbench::$e")" = ok ]
done

# The program's own events against what the child did, exactly, in every run.
c() { jq_get "$j" "results[backend=$1,size=$2].counters.sde:::allocbench::$3.$4"; }
for b in malloc pool arena; do
	for s in 4 40 4000; do
		r="results[backend=$b,size=$s]"
		count=$(jq_get "$j" "$r.count")
		check "$b $s has its RSS and time figures" le 0 "$(jq_get "$j" "$r.alloc_ns.median")"
		check "$b $s overhead is there" sh -c "\"$JSONQ\" '$j' '$r.overhead_bytes.median' >/dev/null"
		check "$b $s allocs = count in every run" \
			[ "$(c $b $s allocs alloc_total.min)" = "$count" -a "$(c $b $s allocs alloc_total.max)" = "$count" ]
		check "$b $s one alloc per chunk" [ "$(c $b $s allocs alloc.median)" = 1 ]
		check "$b $s no allocs in the free loop" [ "$(c $b $s allocs free_total.max)" = 0 ]
		check "$b $s frees = count" [ "$(c $b $s frees free_total.median)" = "$count" ]
		check "$b $s no frees in the allocation loop" [ "$(c $b $s frees alloc_total.max)" = 0 ]
		check "$b $s bytes_requested = count * size" \
			[ "$(c $b $s bytes_requested alloc_total.median)" = $((count * s)) ]
		check "$b $s two runs per counter" [ "$(c $b $s allocs alloc_total.runs#)" = 2 ]
	done
done
for s in 4 40 4000; do
	r="results[backend=malloc,size=$s]"
	for e in pool_blocks pool_bytes_reserved arena_bytes_reserved; do
		check "malloc $s: $e is 0" [ "$(c malloc $s $e alloc_total.max)" = 0 ]
	done
	# The pool: whole 64 KiB blocks, enough for every chunk, and no more than one block spare.
	r="results[backend=pool,size=$s]"
	align=$(jq_get "$j" "$r.align"); count=$(jq_get "$j" "$r.count")
	stride=$(( (s + align - 1) / align * align ))
	res=$(c pool $s pool_bytes_reserved alloc_total.median)
	delta=$(( $(jq_get "$j" "$r.rss_after_bytes") - $(jq_get "$j" "$r.rss_before_bytes") ))
	check "pool $s: pool_bytes_reserved = its reserved_bytes" [ "$res" = "$(jq_get "$j" "$r.reserved_bytes")" ]
	check "pool $s: pool_blocks * 64K = pool_bytes_reserved" [ $(( $(c pool $s pool_blocks alloc_total.median) * 65536 )) = "$res" ]
	check "pool $s: reserved >= count * stride" le $((count * stride)) "$res"
	check "pool $s: reserved < count * stride + one block" [ "$res" -lt $((count * stride + 65536)) ]
	check_if RSS_EXACT "pool $s: RSS delta $delta within what it reserved" le "$delta" $((res + 4096))
	check "pool $s: reserved within a block of the RSS delta" [ "$res" -lt $((delta + 65536 + 4096)) ]
	check "pool $s: still holds its blocks after the free loop" [ "$(c pool $s pool_bytes_reserved free_total.median)" = "$res" ]
	check "pool $s: arena_bytes_reserved is 0" [ "$(c pool $s arena_bytes_reserved alloc_total.max)" = 0 ]
	# The arena: one region of count * stride + align, released by its teardown.
	r="results[backend=arena,size=$s]"
	res=$(c arena $s arena_bytes_reserved alloc_total.median)
	delta=$(( $(jq_get "$j" "$r.rss_after_bytes") - $(jq_get "$j" "$r.rss_before_bytes") ))
	check "arena $s: arena_bytes_reserved = count * stride + align" [ "$res" = $((count * stride + align)) ]
	check "arena $s: = its reserved_bytes" [ "$res" = "$(jq_get "$j" "$r.reserved_bytes")" ]
	check_if RSS_EXACT "arena $s: RSS delta $delta within its region" le "$delta" $((res + 4096))
	check "arena $s: region within a page of the RSS delta" [ "$res" -lt $((delta + 4096 + align)) ]
	check "arena $s: its region kept through the free loop (rewound, not unmapped)" \
		[ "$(c arena $s arena_bytes_reserved free_total.max)" = "$res" ]
	# ... as allocbench counters and its man page say.
	check "arena $s: the documentation says the region is kept through the free loop" sh -c "
		'$AB' counters --counters allocbench::arena_bytes_reserved | tr -s ' \n' '  ' |
			grep -q 'the same after the free loop' &&
		tr '\n' ' ' <'$top/man/allocbench-counters.1' | grep -q 'arena_bytes_reserved Bytes of the arena.s region when the loop ends: count times the stride plus the alignment, after the allocation loop and after the free loop alike' &&
		! grep -Eq 'arena_bytes_reserved.*0 after' '$top/man/allocbench-counters.1'"
	check "arena $s: pool_blocks is 0" [ "$(c arena $s pool_blocks alloc_total.max)" = 0 ]
done

# The text report: which counters are live, which not and why; a table per
# chunk when --counters is given or an event besides allocbench's own is live.
run_ab --sizes 4,40 --total 1M --repeat 1 -q
check_if '!HW_COUNTERS' "default list, only allocbench's own live: no counters table" \
	sh -c "! grep -q '^counters per chunk' '$tmp/out'"
# Counters no one asked for (no --counters): one line, not the details.
check "no --counters: one line about the hardware counters" \
	[ "$(grep -c '^hardware counters: ' "$tmp/out")" = 1 -a "$(sed -n '/^hardware counters: /{n;p;}' "$tmp/out")" = "" ]
check "no --counters: no counters live/n/a lines" sh -c "! grep -Eq '^(counters live|counters n/a|  hint)' '$tmp/out'"
check_if '!HW_COUNTERS' "no --counters: says none and where to read why" \
	grep -q "^hardware counters: none on this machine; 'allocbench counters' says why$" "$tmp/out"
run_ab --sizes 4,40 --total 1M --repeat 1 -q --counters default
check "text run exits 0" [ "$rc" -eq 0 ]
# The header's lines are wrapped at 80 columns: read them joined.
header=$(sed -n '/^counters live:/,/^$/p' "$tmp/out" | tr '\n' ' ' | tr -s ' ')
check "text header lists the live counters" \
	sh -c "echo '$header' | grep -q '^counters live: .*allocbench::allocs, allocbench::frees, allocbench::bytes_requested'"
check "text header fits 80 columns" [ "$(sed -n '/^counters live:/,/^$/p' "$tmp/out" | awk 'length > 80' | wc -l)" -eq 0 ]
check_if '!PMU' "text header says the presets are n/a and why" \
	sh -c "echo '$header' | grep -Eq 'counters n/a: PAPI_TOT_CYC, PAPI_TOT_INS, PAPI_L1_DCM, PAPI_TLB_DM: .+'"
check_if '!PMU' "text header gives a hint" sh -c "grep -q '^  hint: ' '$tmp/out' && echo '$header' | grep -q 'hint: .*PMU'"
check "text has the counters table" grep -q '^counters per chunk, median of 1 run' "$tmp/out"
check "counters table: pool 4 allocs 1, frees 0, 4 bytes requested" \
	grep -Eq '^alloc +pool +4 +1\.00 +0 +4\.00 ' "$tmp/out"
check "counters table: free rows" grep -Eq '^free +arena +40 +0 +1\.00 +0 ' "$tmp/out"
check "counters table: one alloc and one free row per result" \
	[ "$(grep -E '^(alloc|free) +(malloc|pool|pool-locked|arena) +(4|40) ' "$tmp/out" | awk '{print $1, $2, $3}' | sort -u | wc -l)" -eq 16 ]
check "counters table fits 80 columns" \
	[ "$(awk '/^(loop|alloc|free) / && length > 80' "$tmp/out" | wc -l)" -eq 0 ]
check "the main table is unchanged" [ "$(grep -Ec '^(malloc|pool|pool-locked|arena) +(4|40) +[0-9]+ ' "$tmp/out")" -eq 8 ]

# -------------------------------------------------------- --counters none
run_ab --sizes 40 --total 1M --repeat 1 -q -f json --counters none
check "--counters none exits 0" [ "$rc" -eq 0 ]
check "--counters none: no status" [ "$(jq_get "$tmp/out" counters_status)" = "{}" ]
check "--counters none: no counters per result" [ "$(jq_get "$tmp/out" 'results[0].counters')" = "{}" ]
check "--counters none: config says so" [ "$(jq_get "$tmp/out" config.counters)" = "[]" ]
check "--counters none: still measures" le 0 "$(jq_get "$tmp/out" 'results[0].alloc_ns.median')"
run_ab --sizes 40 --total 1M --repeat 1 -q --counters none
check "--counters none: the text says so" grep -q '^counters: none' "$tmp/out"
check "--counters none: no counters table" sh -c "! grep -q '^counters per chunk' '$tmp/out'"

# ------------------------------------------------ names PAPI does not know
# allocbench counters explains each; PAPI's words differ: its error code
# where perf_event is enabled (the name is then unknown: a typo), the
# component's disabled reason where it is not (PAPI cannot tell).
run_ab counters -f json --counters bogus_event,allocbench::nosuch,nosuchcomp:::x,allocbench::allocs
check "counters with unknown names exits 0" [ "$rc" -eq 0 ]
bogus=$(jq_get "$tmp/out" 'events[0].reason')
check_if PERF_EVENT "an unknown name: unknown event" \
	sh -c 'printf "%s" "$1" | grep -q "^unknown event: PAPI knows no event of this name"' - "$bogus"
check_if '!PERF_EVENT' "an unknown name: the disabled component and why" \
	sh -c 'printf "%s" "$1" | grep -Eq "^PAPI knows no event of this name; the perf_event component, which would count it, is disabled: .+"' - "$bogus"
check_if '!PERF_EVENT' "... which cannot tell whether it exists: not unknown" [ "$(jq_get "$tmp/out" 'events[0].unknown')" = false ]
check "an unknown allocbench event: what exists" sh -c "\"$JSONQ\" '$tmp/out' 'events[1].reason' | grep -q \"^unknown event: allocbench exports no event 'nosuch'; its events are allocs, frees\""
check "an unknown component: unknown event" sh -c "\"$JSONQ\" '$tmp/out' 'events[2].reason' | grep -q \"^unknown event: PAPI has no component 'nosuchcomp'\""
# The run measures without an event PAPI cannot place (it refuses a typo).
if test_have_prereq '!PERF_EVENT'; then
	run_ab --sizes 40 --backend pool --total 1M --repeat 1 -q -f json --counters bogus_event,allocbench::allocs
	check "an event PAPI cannot place does not fail the run" [ "$rc" -eq 0 ]
	check "the others are still counted" [ "$(jq_get "$tmp/out" 'results[0].counters.sde:::allocbench::allocs.alloc_total.median')" = 26214 ]
	check "an uncounted event is absent" jq_absent "$tmp/out" 'results[0].counters.bogus_event'
else
	expect_usage "a name PAPI knows nowhere is refused" "unknown event 'bogus_event' in --counters" \
		--sizes 40 --backend pool --total 1M --repeat 1 -q --counters bogus_event,allocbench::allocs
fi

# --------------------------------------------------------------- bad usage
expect_usage "--counters empty" "invalid event '' in --counters: the list is empty" --counters ''
expect_usage "--counters empty item" "invalid event '' in --counters: empty item" --counters PAPI_TOT_CYC,,PAPI_TOT_INS
expect_usage "--counters none with events" "invalid event 'none' in --counters: 'none' cannot be combined" --counters none,PAPI_TOT_CYC
expect_usage "--counters too many" "invalid event 'g' in --counters: too many events \(at most 16\)" --counters default,a,b,c,d,e,f,g
expect_usage "counters --format xml" "invalid --format 'xml'" counters --format xml
expect_usage "counters unknown option" "unknown option '--bogus'.*allocbench counters --help" counters --bogus
expect_usage "counters stray argument" "unexpected argument 'extra'" counters extra
expect_usage "counters bad list" "invalid event '' in --counters: empty item" counters --counters a,,b

# ------------------------------------------------------- allocbench counters
run_ab counters
check "counters text exits 0" [ "$rc" -eq 0 ]
check "counters text: a summary line" grep -Eq '^PAPI [0-9.]+: [0-9]+ of 10 events can be counted on this machine$' "$tmp/out"
for e in $presets; do
	check "counters text lists $e" grep -Eq "^$e +(yes|no) " "$tmp/out"
done
# The description beside the columns, or indented on the next line when it
# would pass 80 columns.
check "counters text: allocbench::allocs countable" \
	sh -c "grep -A1 '^sde:::allocbench::allocs ' '$tmp/out' | tr '\n' ' ' | grep -Eq '^sde:::allocbench::allocs +yes +sde +chunks the allocation loop'"
check "counters text fits 80 columns" [ "$(awk 'length > 80' "$tmp/out" | wc -l)" -eq 0 ]
check "counters text: no trailing spaces" [ "$(grep -c ' $' "$tmp/out")" -eq 0 ]
check_if '!HW_COUNTERS' "counters text: why" grep -q '^  why: ' "$tmp/out"
check_if '!PMU' "counters text: how to fix" grep -q '^  fix: ' "$tmp/out"
run_ab counters -f json --counters PAPI_TOT_CYC,allocbench::pool_blocks
check "counters json: the events asked for" [ "$(jq_get "$tmp/out" 'events#')" = 2 ]
check "counters json: same reason as the run" \
	[ "$(jq_get "$tmp/out" counters_status.PAPI_TOT_CYC)" = "$(jq_get "$j" counters_status.PAPI_TOT_CYC)" ]
check "counters json: available is a boolean" [ "$(jq_get "$tmp/out" 'events[1].available')" = true ]
check "counters json: component" [ "$(jq_get "$tmp/out" 'events[1].component')" = sde ]
check "counters json: no reason when available" [ "$(jq_get "$tmp/out" 'events[1].reason')" = null ]
run_ab counters --counters none
check "counters none" grep -q 'no events requested' "$tmp/out"
run_ab counters --help
check "counters --help" grep -q '^usage: allocbench counters' "$tmp/out"
missing=
for opt in $(grep -o -- '--[a-z][a-z0-9-]*' "$tmp/out" | sort -u); do
	grep -q -- "${opt#--}" "$top/man/allocbench-counters.1" || missing="$missing $opt"
done
check "every counters --help option is in the man page${missing:+ (missing:$missing)}" [ -z "$missing" ]

# ------------------------------ a machine whose libpfm4 finds no PMU at all
# libpfm4 told to use a PMU that does not exist disables PAPI's perf_event
# component, with the component's own reason.
LIBPFM_FORCE_PMU=allocbench_no_such_pmu "$AB" --sizes 40 --backend arena --total 1M --repeat 1 -q -f json \
	>"$tmp/nopmu.json" 2>"$tmp/err"
check "no PMU: the run exits 0" [ $? -eq 0 ]
check "no PMU: the component's disabled reason" sh -c "\"$JSONQ\" '$tmp/nopmu.json' counters_status.PAPI_TOT_CYC | grep -q '^the perf_event component is disabled: .*PMU'"
check "no PMU: a hint" sh -c "\"$JSONQ\" '$tmp/nopmu.json' counters_hints.PAPI_TOT_CYC | grep -q 'machine with a PMU'"
check "no PMU: allocbench's own events still counted" \
	[ "$(jq_get "$tmp/nopmu.json" 'results[0].counters.sde:::allocbench::arena_bytes_reserved.alloc_total.median')" = "$(jq_get "$tmp/nopmu.json" 'results[0].reserved_bytes')" ]

# ------------------- a software event of the kernel, when perf_event can count it
test_lazy_prereq PAGE_FAULTS_EVENT '
	"$AB" counters -f json --counters perf::PAGE-FAULTS >"$tmp/pf.json" 2>/dev/null
	[ "$("$JSONQ" "$tmp/pf.json" "events[0].available")" = true ] ||
		{ "$JSONQ" "$tmp/pf.json" "events[0].reason"; exit 1; }'
if test_have_prereq PAGE_FAULTS_EVENT; then
	run_ab --sizes 4,4000 --total 1M --repeat 1 -q -f json --counters perf::PAGE-FAULTS
	for b in malloc pool arena; do
		for s in 4 4000; do
			r="results[backend=$b,size=$s]"
			check "$b $s: perf::PAGE-FAULTS = getrusage's faults" near \
				"$(jq_get "$tmp/out" "$r.counters.perf::PAGE-FAULTS.alloc_total.median")" \
				"$(jq_get "$tmp/out" "$r.page_faults.median")" 2
		done
	done
else
	skip "perf::PAGE-FAULTS against getrusage" "$prereq_why"
fi

# ------------------------------------------------------ PAPI that fails
if ! test_have_prereq '!ASAN,CC'; then
	skip "PAPI failures through LD_PRELOAD" "$prereq_why (AddressSanitizer must come first in LD_PRELOAD)"
else
	${CC:-cc} -shared -fPIC -o "$tmp/papi_shim.so" "$top/tests/tools/papi_shim.c"
	PAPI_SHIM=init LD_PRELOAD="$tmp/papi_shim.so" "$AB" --sizes 40 --backend pool --total 1M \
		--repeat 1 -q -f json >"$tmp/init.json" 2>"$tmp/err"
	check "PAPI init fails: the run exits 0" [ $? -eq 0 ]
	check "PAPI init fails: the reason" sh -c "\"$JSONQ\" '$tmp/init.json' 'counters_status.sde:::allocbench::allocs' | grep -q '^PAPI failed to initialise: PAPI_library_init returned PAPI_ESYS'"
	check "PAPI init fails: still measured" le 0 "$(jq_get "$tmp/init.json" 'results[0].alloc_ns.median')"
	check "PAPI init fails: nothing counted" jq_absent "$tmp/init.json" 'results[0].counters.sde:::allocbench::allocs'

	PAPI_SHIM=child-start LD_PRELOAD="$tmp/papi_shim.so" "$AB" --sizes 40 --backend pool --total 1M \
		--repeat 1 -q -f json --counters allocbench::allocs >"$tmp/start.json" 2>"$tmp/err"
	check "child cannot start: the run exits 0" [ $? -eq 0 ]
	check "child cannot start: its reason" sh -c "\"$JSONQ\" '$tmp/start.json' 'counters_status.sde:::allocbench::allocs' | grep -q 'cannot start counting it: .*(PAPI_ECNFLCT) (in the measuring process)'"
	check "child cannot start: absent" jq_absent "$tmp/start.json" 'results[0].counters.sde:::allocbench::allocs'
fi

# ------------------------------------------------- make PAPI=0, in a copy
mkdir -p "$tmp/nopapi/tests/unit"
cp -r "$top/Makefile" "$top/src" "$tmp/nopapi/" &&
	cp "$top/tests/install-deps.sh" "$tmp/nopapi/tests/" &&
	cp "$top/tests/unit/check.h" "$top/tests/unit/test_counters.c" "$tmp/nopapi/tests/unit/"
if make -s -C "$tmp/nopapi" PAPI=0 CFLAGS=-O0 SANITIZE= DEVELOPER=1 BUILD=out -j2 out/allocbench out/tests/unit/test_counters \
	>"$tmp/build.log" 2>&1; then
	ok "make PAPI=0 builds"
	check "make PAPI=0: no libpapi linked" sh -c "! ldd '$tmp/nopapi/out/allocbench' | grep -Eq 'libpapi|libsde'"
	check "make PAPI=0: unit test" sh -c "'$tmp/nopapi/out/tests/unit/test_counters' >'$tmp/unit.log' && ! grep -q '^not ok' '$tmp/unit.log'"
	"$tmp/nopapi/out/allocbench" --sizes 40 --backend pool --total 1M --repeat 1 -q >"$tmp/out" 2>"$tmp/err"
	check "make PAPI=0: the run exits 0" [ $? -eq 0 ]
	check "make PAPI=0: the run says why" \
		grep -q "^hardware counters: none (not built with PAPI); 'allocbench counters' says why$" "$tmp/out"
	"$tmp/nopapi/out/allocbench" --sizes 40 --backend pool --total 1M --repeat 1 -q --counters default >"$tmp/out" 2>"$tmp/err"
	check "make PAPI=0: --counters given: every event and why" \
		sh -c "sed -n '/^counters/,/^\$/p' '$tmp/out' | tr '\n' ' ' | tr -s ' ' | grep -q 'counters n/a: PAPI_TOT_CYC, .*: not built with PAPI'"
	check "make PAPI=0: and measures" grep -Eq '^pool +40 +26214 ' "$tmp/out"
else
	not_ok "make PAPI=0 builds" "$(tail -5 "$tmp/build.log")"
fi

test_done
