#!/bin/sh
# --abi 32: every measurement of a NAME/32 row in allocbench-child32, the
# measuring process built with -m32 (directly, or under qemu-i386 where the
# kernel runs no 32-bit program). 32-bit glibc's chunk is
# max(16, (n + 4 + 15) & ~15) (man page: ABI), checked like the 64-bit
# formula in t0004 and t0013; the pool and the arena pack like an array; the
# rows are told apart in JSON, compare and plot; --abi is refused, exit 2,
# naming the Debian packages, where the 32-bit program is missing.
# check: host
. "$(dirname "$0")/lib.sh"

# ABI32: this build has the 32-bit measuring program and this machine runs it.
test_lazy_prereq ABI32 '
	"$AB" --abi 32 --sizes 4 --total 4K --repeat 1 --backend arena -q -f json \
		>"$tmp/.abi32.json" 2>"$tmp/.abi32.err" && exit 0
	tail -n 1 "$tmp/.abi32.err"; exit 1'
# JEMALLOC32: the i386 jemalloc of Debian multiarch (libjemalloc2:i386).
test_lazy_prereq JEMALLOC32 '
	PATH=$PATH:/sbin:/usr/sbin ldconfig -p | grep -q "libjemalloc.so.2 (libc6) " ||
		{ echo "libjemalloc.so.2 for i386 is not installed (dpkg --add-architecture i386; apt-get install libjemalloc2:i386)"; exit 1; }'

# ---- refusals, everywhere ----
expect_usage "--abi 16 is refused, named" "invalid ABI '16' in --abi" --abi 16
expect_usage "--abi 32,32 is refused" "ABI '32' appears more than once" --abi 32,32
expect_usage "an empty --abi is refused" "empty --abi list" --abi ""
# This binary alone, without allocbench-child32 beside it (nor in
# ../libexec/allocbench): what a build without gcc-multilib gives.
mkdir -p "$tmp/bin"
cp "$AB" "$tmp/bin/allocbench"
AB=$tmp/bin/allocbench expect_usage "--abi 32 without the 32-bit program: exit 2 naming gcc-multilib and libc6-dev-i386" \
	"--abi 32 cannot be measured here: this build has no 32-bit measuring program .*gcc-multilib libc6-dev-i386" \
	--abi 32 --sizes 4 --total 4K
AB=$tmp/bin/allocbench expect_usage "--abi 32,64 without it: refused too" "gcc-multilib libc6-dev-i386" \
	--abi 32,64 --sizes 4 --total 4K
# --abi 64 needs nothing more.
AB=$tmp/bin/allocbench run_ab --abi 64 --sizes 4 --total 4K --repeat 1 --backend arena -q -f json
check "--abi 64 without the 32-bit program runs" [ "$rc" -eq 0 ]
check "--abi 64: config.abi is [64], the row's abi 64" \
	[ "$(jq_get "$tmp/out" config.abi)/$(jq_get "$tmp/out" 'results[0].abi')" = "[64]/64" ]
# The 64-bit rows' program, allocbench-child64, is found the same way; a
# binary alone measures them itself (above); one found but not this build's
# is refused, naming it (src/model/abi.h).
printf '#!/bin/sh\necho allocbench-child64 0.0.0\n' >"$tmp/bin/allocbench-child64"
chmod +x "$tmp/bin/allocbench-child64"
AB=$tmp/bin/allocbench run_ab --sizes 4 --total 4K --repeat 1 --backend arena -q
check "another build's allocbench-child64: exit 1, named with its version" \
	sh -c "[ $rc -eq 1 ] && grep -q 'cannot measure here: $tmp/bin/allocbench-child64 is version 0.0.0' '$tmp/err'"
printf '#!/bin/sh\n[ "$1" = --version ] && exec "%s" "$@"; echo lost\n' \
	"$(dirname "$AB")/allocbench-child64" >"$tmp/bin/allocbench-child64"
AB=$tmp/bin/allocbench run_ab --sizes 4 --total 4K --repeat 1 --backend arena -q
check "an allocbench-child64 whose __entry is not a number: exit 1, saying what it printed" \
	sh -c "[ $rc -eq 1 ] && grep -q \"allocbench-child64 __entry failed (status 0, printed 'lost')\" '$tmp/err'"
# One the kernel cannot execute: the reason, not a status.
printf '\177ELF, not really' >"$tmp/bin/allocbench-child64"
AB=$tmp/bin/allocbench run_ab --sizes 4 --total 4K --repeat 1 --backend arena -q
check "an allocbench-child64 that cannot be executed: exit 1, saying why" \
	sh -c "[ $rc -eq 1 ] && grep -q 'allocbench-child64 --version could not be run: Exec format error' '$tmp/err'"
rm -f "$tmp/bin/allocbench-child64"
# A request for a 32-bit process reaching a 64-bit one is refused by the child.
"$AB" __measure protocol=4 backend=arena floor=0 size=4 count=1 align=4 pool-block=4096 \
	touch=pages workload=fill rounds=0 seed=0 threads=1 replay-threads=0 mix=- counters=none abi=32 \
	>"$tmp/out" 2>"$tmp/err" 3>/dev/null
check "a 64-bit child refuses a 32-bit request (exit 2)" [ $? -eq 2 ]
check "... and says so" grep -q "a request for a 32-bit measuring process reached a 64-bit one" "$tmp/err"
"$AB" __measure protocol=1 backend=arena >"$tmp/out" 2>"$tmp/err" 3>/dev/null
check "protocol 1 (the raw struct) is refused" grep -q "'protocol=1' is not protocol=4" "$tmp/err"

# ---- where the 32-bit program runs ----
if test_have_prereq ABI32; then
	# A build with AddressSanitizer refuses every preloaded backend first.
	if test_have_prereq JEMALLOC,!ASAN; then
		# The 64-bit jemalloc alone where the libraries are looked for.
		mkdir -p "$tmp/lib64only"
		ln -s "$(PATH=$PATH:/sbin:/usr/sbin ldconfig -p | awk '/libjemalloc.so.2 \(libc6,x86-64\)/ {print $NF; exit}')" \
			"$tmp/lib64only/libjemalloc.so.2"
		ALLOCBENCH_LIBRARY_PATH=$tmp/lib64only expect_usage \
			"jemalloc --abi 32 without its i386 library: exit 2 naming libjemalloc2:i386" \
			"backend 'jemalloc' cannot be measured with --abi 32: .*libjemalloc2:i386" \
			--backend jemalloc --abi 32 --sizes 4 --total 4K
		ALLOCBENCH_LIBRARY_PATH=$tmp/lib64only run_ab --backend all --abi 32,64 --sizes 4 \
			--total 4K --repeat 1 -q -f json
		check "--backend all --abi 32,64 skips jemalloc/32, naming libjemalloc2:i386" \
			[ "$(jq_get "$tmp/out" 'config.skipped[backend=jemalloc/32].package')" = libjemalloc2:i386 ]
		check "... and still measures jemalloc" [ "$(jq_get "$tmp/out" 'results[backend=jemalloc].status')" = ok ]
	else
		skip "jemalloc --abi 32 without its i386 library is refused" "$prereq_why"
		skip "--backend all --abi 32,64 skips jemalloc/32" "$prereq_why"
		skip "... and still measures jemalloc" "$prereq_why"
	fi
	expect_usage "--abi 32 with a --total a 32-bit process cannot hold: exit 2" \
		"cannot be measured at size 4 in a 32-bit process" --abi 32 --sizes 4 --total 2G --force
	if test_have_prereq !ASAN; then
		expect_usage "--preload with --abi 32: refused, the library is 64-bit" \
			"backend 'own' cannot be measured with --abi 32" \
			--abi 32 --backend own --preload own="$(PATH=$PATH:/sbin:/usr/sbin ldconfig -p | awk '/libc.so.6 \(libc6,x86-64\)/ {print $NF; exit}')" --sizes 4 --total 4K
	else
		skip "--preload with --abi 32: refused, the library is 64-bit" "$prereq_why"
	fi

	# Both ABIs in one report: the rows, the config, compare and plot.
	run_ab --abi 32,64 --sizes 4,40 --backend malloc,pool --total 1M --repeat 1 -q -f json -o "$tmp/b.json"
	check "--abi 32,64 run exits 0" [ "$rc" -eq 0 ]
	both=$tmp/b.json
	check "config.abi records [32,64]" [ "$(jq_get "$both" config.abi)" = "[32,64]" ]
	check "config.abi32 names the program" [ "$(jq_get "$both" config.abi32.program)" = allocbench-child32 ]
	check "the report is valid against the schema" "$SCHEMACHECK" "$top/data/allocbench.schema.json" "$both"
	# The other path: a kernel that runs i386 programs itself, this one's or
	# reproduced by tests/hoststate.sh (qemu-i386 in a binfmt_misc of the
	# command's own, Linux 6.7 or later): no emulator in the report, which
	# is still the schema's.
	test_lazy_prereq I386_NATIVE '
		"$(dirname "$AB")/allocbench-child32" --version >/dev/null 2>&1 && exit 0
		command -v qemu-i386 >/dev/null ||
			{ echo "this kernel runs no i386 program and qemu-i386 is not installed"; exit 1; }
		unshare -m --user --map-root-user mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null ||
			{ echo "this kernel runs no i386 program and has no binfmt_misc per namespace (Linux 6.7)"; exit 1; }'
	if test_have_prereq I386_NATIVE; then
		AB=$AB sh "$top/tests/hoststate.sh" i386-native "$AB" --abi 32,64 --sizes 4 --backend malloc \
			--total 1M --repeat 1 -q -f json -o "$tmp/native.json" 2>"$tmp/native.err"
		check "run natively (hoststate i386-native): exit 0" [ $? -eq 0 ]
		check "... config.abi32 names the program and no emulator" sh -c \
			"[ \"\$('$JSONQ' '$tmp/native.json' config.abi32.program)\" = allocbench-child32 ] &&
			 ! grep -q '\"emulator\"' '$tmp/native.json'"
		check "... and the report is valid against the schema" \
			"$SCHEMACHECK" "$top/data/allocbench.schema.json" "$tmp/native.json"
	else
		for t in "run natively (hoststate i386-native): exit 0" "... config.abi32 names the program and no emulator" \
			 "... and the report is valid against the schema"; do
			skip "$t" "$prereq_why"
		done
	fi
	check "rows of both ABIs, told apart by name and abi" \
		[ "$(jq_get "$both" 'results[backend=malloc/32,size=4].abi')/$(jq_get "$both" 'results[backend=malloc,size=4].abi')" = 32/64 ]
	check "the 32-bit malloc is the i386 C library's" sh -c \
		"'$JSONQ' '$both' 'results[backend=malloc/32,size=4].allocator.path' | grep -q i386"
	# The 32-bit program is never built with sanitizers: its malloc is the
	# i386 C library's, and its resident set the chunks', in every build.
	test_lazy_prereq GLIBC32_MALLOC '
		n=$("$JSONQ" "$both" "results[backend=malloc/32,size=4].allocator.name")
		[ "$n" = glibc ] || { echo "the 32-bit malloc is $n, not glibc"; exit 1; }'
	check_if GLIBC_MALLOC,GLIBC32_MALLOC,PAGE_4K,THP_NOT_ALWAYS "a 4-byte malloc costs 12 bytes in 32 bits, 28 in 64" \
		[ "$(jq_get "$both" 'results[backend=malloc/32,size=4].marginal_bytes.median')/$(jq_get "$both" 'results[backend=malloc,size=4].marginal_bytes.median')" = 12/28 ]

	# The 32-bit glibc formula at sizes where the 4-byte header differs
	# from the 64-bit 8-byte one (12, 28, 60: 4 bytes against 20).
	run_ab --abi 32 --sizes 4,12,28,60,400,4000 --backend malloc,pool,arena --total 8M --repeat 2 \
		-q -f json -o "$tmp/a.json"
	check "--abi 32 accuracy run exits 0" [ "$rc" -eq 0 ]
	j=$tmp/a.json
	for s in 4 12 28 60 400 4000; do
		# glibc on i386: SIZE_SZ 4, MALLOC_ALIGNMENT 16 (since 2.26), MINSIZE 16.
		chunk=$(( (s + 4 + 15) / 16 * 16 )); [ $chunk -lt 16 ] && chunk=16
		r="results[backend=malloc/32,size=$s]"
		if test_have_prereq GLIBC32_MALLOC,PAGE_4K,THP_NOT_ALWAYS; then
			tol=$(awk -v r="$(jq_get "$j" "$r.resolution_bytes")" 'BEGIN{print 2*r + 0.01}')
			got=$(jq_get "$j" "$r.overhead_bytes.median")
			check "malloc/32 $s overhead $got = 32-bit glibc chunk $chunk - $s (+-$tol)" near "$got" $((chunk - s)) "$tol"
			check "malloc/32 $s repetitions agree" [ "$(jq_get "$j" "$r.overhead_bytes.min")" = "$(jq_get "$j" "$r.overhead_bytes.max")" ]
			got=$(jq_get "$j" "$r.marginal_bytes.median")
			check "malloc/32 $s marginal $got = the same chunk (+-$tol)" near "$got" $((chunk - s)) "$tol"
			check "malloc/32 $s usable = chunk - the 4-byte header" [ "$(jq_get "$j" "$r.usable_bytes.median")" = $((chunk - 4)) ]
		else
			for c in overhead repetitions marginal usable; do
				skip "malloc/32 $s $c is 32-bit glibc's chunk formula" "$prereq_why"
			done
		fi
		res=$(jq_get "$j" "results[backend=pool/32,size=$s].resolution_bytes")
		for b in pool/32 arena/32; do
			r="results[backend=$b,size=$s]"
			got=$(jq_get "$j" "$r.overhead_bytes.median")
			check_if THP_NOT_ALWAYS "$b $s overhead $got within 0.5 + $res (packs like an array)" \
				sh -c "awk -v g=$got -v r=$res 'BEGIN{exit !(g >= -r && g <= 0.5 + r)}'"
			check_if THP_NOT_ALWAYS "$b $s repetitions agree" \
				[ "$(jq_get "$j" "$r.overhead_bytes.min")" = "$(jq_get "$j" "$r.overhead_bytes.max")" ]
		done
	done
	# Times, faults and warm figures are there for the 32-bit rows too.
	check "malloc/32 has times, page faults and warm figures" sh -c "
		for m in alloc_ns free_ns page_faults warm_alloc_ns; do
			v=\$('$JSONQ' '$j' 'results[backend=malloc/32,size=60].'\$m'.median')
			awk -v v=\"\$v\" 'BEGIN{exit !(v > 0)}' || exit 1
		done"

	# The workloads run in 32-bit processes too.
	for w in "churn --rounds 2" random "threads --rounds 1 --threads 2"; do
		run_ab --abi 32 --workload $w --sizes 16,64 --backend malloc,pool,arena --total 256K \
			--repeat 1 -q -f json
		check "--abi 32 --workload $w: every row ok" sh -c \
			"[ $rc -eq 0 ] && ! grep -q '\"status\":\"failed\"' '$tmp/out'"
	done
	run_ab --abi 32,64 --workload random --sizes 16,64 --backend pool --total 256K --repeat 1 -q -f json
	check "random: the same sequence in a 32-bit process (checksum) as in a 64-bit one" \
		[ "$(jq_get "$tmp/out" 'results[backend=pool/32].checksum')" = "$(jq_get "$tmp/out" 'results[backend=pool].checksum')" ]

	# compare: a row's key is its name, ABI included.
	run_ab compare "$both" "$both" -f json
	check "compare of a 32,64 report with itself: exit 0" [ "$rc" -eq 0 ]
	check "compare keeps malloc/32 and malloc apart" sh -c \
		"grep -q '\"malloc/32\"' '$tmp/out' && grep -q '\"malloc\"' '$tmp/out'"
	run_ab compare "$both" "$both" --backend malloc/32
	check "compare --backend malloc/32 selects the 32-bit rows" sh -c \
		"[ $rc -eq 0 ] && grep -q 'malloc/32' '$tmp/out' && ! grep -q '^ *malloc  ' '$tmp/out'"
	# A 32-bit row is never compared with a 64-bit one: malloc/32 renamed
	# malloc in a copy would be a duplicate row, which compare refuses.
	doctor "$both" 'results[backend=malloc/32,size=4].backend' '="malloc"' "$tmp/dup.json"
	run_ab compare "$tmp/dup.json" "$both"
	check "rows differing only by ABI would collide without it in the key" [ "$rc" -eq 2 ]
	# plot: a series per row name.
	run_ab plot "$both" -o "$tmp/a.svg"
	check "plot draws malloc/32 beside malloc" sh -c \
		"[ $rc -eq 0 ] && grep -q 'malloc/32' '$tmp/a.svg' && grep -q '>malloc<' '$tmp/a.svg'"
	# The text report says how the 32-bit rows were measured.
	run_ab --abi 32 --sizes 4 --total 1M --repeat 1 --backend malloc
	check "the text header describes the 32-bit rows" grep -q "^abi: NAME/32 rows measured in 32-bit processes" "$tmp/out"
	check "the text rows are named malloc/32" grep -q "^malloc/32 " "$tmp/out"
	check "the text report fits 80 columns" [ "$(awk 'length > 80' "$tmp/out" | wc -l)" -eq 0 ]

	if test_have_prereq JEMALLOC32,!ASAN; then
		run_ab --backend jemalloc --abi 32 --sizes 40 --total 1M --repeat 1 -q -f json
		check "jemalloc/32 is the i386 jemalloc" sh -c \
			"[ $rc -eq 0 ] && [ \"\$('$JSONQ' '$tmp/out' 'results[0].allocator.name')\" = jemalloc ] &&
			 '$JSONQ' '$tmp/out' 'results[0].allocator.path' | grep -q i386"
	else
		skip "jemalloc/32 is the i386 jemalloc" "$prereq_why"
	fi
else
	skip "--abi 32: every check of the 32-bit rows" "$prereq_why"
fi

test_done
