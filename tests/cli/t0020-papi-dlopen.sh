#!/bin/sh
# PAPI is loaded, not linked (src/platform/papi_binding.h): a measuring process that
# counts nothing never loads it; one that counts loads it, and allocbench's
# own events count exactly; where PAPI's libraries cannot be loaded, every
# event says so, naming the library, and the run still measures.
# check: host
. "$(dirname "$0")/lib.sh"

run_ab counters -f json
if [ "$(jq_get "$tmp/out" papi_version)" = null ] && grep -q '"not built with PAPI' "$tmp/out"; then
	skip "PAPI loaded only where something is counted" "built with make PAPI=0"
	test_done
	exit 0
fi

check "the binary is not linked with PAPI" sh -c "! ldd '$AB' | grep -Eq 'libpapi|libsde|libpfm'"

# Which processes load PAPI: the dynamic loader's log, one file per process
# ($tmp/ld/log.PID). The parent may (the report names PAPI's version); no
# measuring process of a run with --counters none does, and every one of a
# run that counts does.
ld_run() {
	rm -rf "$tmp/ld" && mkdir "$tmp/ld"
	LD_DEBUG=files LD_DEBUG_OUTPUT=$tmp/ld/log "$AB" "$@" >"$tmp/out" 2>"$tmp/err" &
	parent=$!
	wait $parent
	rc=$?
	loaded=0; others=0; child64=0; parents_libs=0
	for f in "$tmp"/ld/log.*; do
		[ "$f" = "$tmp/ld/log.$parent" ] && continue
		others=$((others + 1))
		grep -q 'file=libpapi\.so' "$f" && loaded=$((loaded + 1))
		grep -Eq 'needed by (.*/)?allocbench-child64 ' "$f" && child64=$((child64 + 1))
		grep -Eq 'file=(libcjson|libm)\.so.*needed by (.*/)?allocbench-child64 ' "$f" &&
			parents_libs=$((parents_libs + 1))
	done
}
ld_run --sizes 40,400 --backend pool,arena --total 64K --repeat 1 --counters none -q -f json
check "--counters none: the run exits 0" [ "$rc" -eq 0 ]
# Besides the six measurements, allocbench-child64 answers --version and
# __entry once (src/model/abi.h).
check "--counters none: six measuring processes, and two start-up questions" [ "$others" -eq 8 ]
check "--counters none: none of them loads PAPI" [ "$loaded" -eq 0 ]
check "each is allocbench-child64" [ "$child64" -eq 8 ]
check "none needs the parent's libraries (cJSON, libm)" [ "$parents_libs" -eq 0 ]

ld_run --sizes 64 --backend pool --total 1M --repeat 1 --counters allocbench -q -f json
check "counting: the run exits 0" [ "$rc" -eq 0 ]
check "counting: the measuring process loads PAPI" [ "$loaded" -ge 1 ]
cp "$tmp/out" "$tmp/count.json"
# 1 MiB of 64-byte chunks from the pool: 16384 allocations of one block of 1 MiB.
check "counting: allocbench::allocs counts the loop" \
	[ "$(jq_get "$tmp/count.json" 'results[0].counters.sde:::allocbench::allocs.alloc_total.median')" = 16384 ]
check "counting: allocbench::bytes_requested" \
	[ "$(jq_get "$tmp/count.json" 'results[0].counters.sde:::allocbench::bytes_requested.alloc_total.median')" = 1048576 ]
check "counting: allocbench::pool_blocks, through the pool's reader" \
	[ "$(jq_get "$tmp/count.json" 'results[0].counters.sde:::allocbench::pool_blocks.alloc_total.median')" = 1 ]

# ------------------------------------------------ PAPI that cannot be loaded
if ! test_have_prereq '!ASAN,CC'; then
	skip "PAPI that cannot be loaded, through LD_PRELOAD" "$prereq_why (AddressSanitizer must come first in LD_PRELOAD)"
	test_done
	exit 0
fi
${CC:-cc} -shared -fPIC -o "$tmp/dlopen_fail.so" "$top/tests/tools/dlopen_fail.c"

for lib in libpapi libsde; do
	DLOPEN_FAIL=$lib LD_PRELOAD=$tmp/dlopen_fail.so "$AB" counters >"$tmp/out" 2>"$tmp/err"
	check "no $lib: counters exits 0" [ $? -eq 0 ]
	check "no $lib: every event says why, naming the library" \
		[ "$(grep -c "why: PAPI cannot be loaded: $lib\.so" "$tmp/out")" -eq 10 ]
	check "no $lib: and how to fix it" [ "$(grep -c 'fix: install PAPI' "$tmp/out")" -eq 10 ]
	check "no $lib: nothing on stderr" [ ! -s "$tmp/err" ]

	DLOPEN_FAIL=$lib LD_PRELOAD=$tmp/dlopen_fail.so "$AB" --sizes 40 --backend pool --total 1M \
		--repeat 1 -q -f json --counters allocbench >"$tmp/run.json" 2>"$tmp/err"
	check "no $lib: the run exits 0" [ $? -eq 0 ]
	check "no $lib: the run says why" sh -c "\"$JSONQ\" '$tmp/run.json' \
		'counters_status.sde:::allocbench::allocs' | grep -q '^PAPI cannot be loaded: $lib\.so'"
	check "no $lib: still measured" le 0 "$(jq_get "$tmp/run.json" 'results[0].alloc_ns.median')"
	check "no $lib: nothing counted" jq_absent "$tmp/run.json" 'results[0].counters.sde:::allocbench::allocs'
done

# PAPI loads in the parent but not in the measuring process: the child's reason wins.
DLOPEN_FAIL=libpapi DLOPEN_FAIL_MEASURING=1 LD_PRELOAD=$tmp/dlopen_fail.so "$AB" --sizes 40 \
	--backend pool --total 1M --repeat 1 -q -f json --counters allocbench::allocs \
	>"$tmp/child.json" 2>"$tmp/err"
check "no PAPI in the measuring process: the run exits 0" [ $? -eq 0 ]
check "no PAPI in the measuring process: its reason" sh -c "\"$JSONQ\" '$tmp/child.json' \
	'counters_status.sde:::allocbench::allocs' | grep -q '^PAPI cannot be loaded.*(in the measuring process)'"
check "no PAPI in the measuring process: nothing counted" \
	jq_absent "$tmp/child.json" 'results[0].counters.sde:::allocbench::allocs'

# --counters none never needs PAPI in a measuring process.
DLOPEN_FAIL=lib DLOPEN_FAIL_MEASURING=1 LD_PRELOAD=$tmp/dlopen_fail.so "$AB" --sizes 40 \
	--backend pool --total 1M --repeat 1 -q -f json --counters none >"$tmp/none.json" 2>"$tmp/err"
check "--counters none without dlopen in the measuring process: exits 0" [ $? -eq 0 ]
check "--counters none without dlopen in the measuring process: measured" \
	le 0 "$(jq_get "$tmp/none.json" 'results[0].alloc_ns.median')"

test_done
