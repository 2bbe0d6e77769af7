#!/bin/sh
# Third-party allocators (jemalloc, mimalloc, tcmalloc, tbbmalloc, scudo,
# --preload) and the split of the overhead into slack and metadata: each
# allocator that is installed really serves malloc in its rows, its usable
# sizes are its size classes (scudo's are the sizes asked for: its header
# keeps them), glibc's usable size is its chunk minus 8; a missing or unusable
# library is refused before anything runs (exit 2); an allocator that does not
# serve malloc fails its row instead of reporting glibc's figures.
# check: host
. "$(dirname "$0")/lib.sh"

# Where the tests look for the libraries themselves, independently of the tool.
multiarch=$(${CC:-cc} -print-multiarch 2>/dev/null)
find_lib() {
	for d in /usr/local/lib ${multiarch:+/usr/local/lib/$multiarch /usr/lib/$multiarch /lib/$multiarch} \
		 /usr/lib64 /lib64 /usr/lib /lib; do
		[ -f "$d/$1" ] && { echo "$d/$1"; return 0; }
	done
	# The dynamic linker's cache, for a library installed elsewhere.
	for l in ldconfig /sbin/ldconfig /usr/sbin/ldconfig; do
		p=$($l -p 2>/dev/null | awk -v n="$1" '$1 == n && /x86-64|64bit|AArch64/ { print $NF; exit }')
		[ -n "$p" ] && [ -f "$p" ] && { echo "$p"; return 0; }
	done
	# scudo's: clang's resource directories, the newest version first.
	for d in $(ls -d /usr/lib/llvm-*/lib/clang/*/lib/linux 2>/dev/null | sort -rV); do
		[ -f "$d/$1" ] && { echo "$d/$1"; return 0; }
	done
	return 1
}
soname() {
	case $1 in
	jemalloc) echo libjemalloc.so.2 ;;
	mimalloc) echo libmimalloc.so.2 ;;
	tcmalloc) echo libtcmalloc_minimal.so.4 ;;
	tbbmalloc) echo libtbbmalloc_proxy.so.2 ;;
	scudo) echo libclang_rt.scudo_standalone-x86_64.so ;;
	esac
}
package() {
	case $1 in
	jemalloc) echo libjemalloc2 ;;
	mimalloc) echo libmimalloc2.0 ;;
	tcmalloc) echo libtcmalloc-minimal4 ;;
	tbbmalloc) echo libtbbmalloc2 ;;
	scudo) echo libclang-rt-dev ;;
	esac
}
# classes B: SIZE:USABLE of B's chunks, for 4, 40, 4000 and 33000 bytes.
classes() {
	case $1 in
	tbbmalloc) echo 4:8 40:48 4000:4032 33000:33000 ;;
	scudo) echo 4:4 40:40 4000:4000 33000:33000 ;;
	*) echo 4:8 40:48 4000:4096 33000:40960 ;;
	esac
}
# median FILE PATH: a statistic's median.
median() { jq_get "$1" "$2.median"; }
# allocator_stat FILE ROW NAME: one of the allocator's own statistics of a result row.
allocator_stat() { jq_get "$1" "$2.allocator_stats" | sed -n "s/.*\"$3\":\([0-9]*\).*/\1/p"; }
# minus A B: A - B, printed exactly enough for near().
minus() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.9f\n", a - b }'; }

run_ab --help
for b in $DROP_IN; do
	check "--help lists backend $b" grep -Eq "^ +$b .*$(package $b)" "$tmp/out"
done
check "--help documents --preload" grep -q -- '--preload NAME=PATH' "$tmp/out"

# ---- bad input: exit 2, nothing measured, a message naming the problem ----
libm=$(ldd "$AB" 2>/dev/null | awk '$1 ~ /^libm\.so/ { print $3 }')
[ -n "$libm" ] || libm=$(find_lib libm.so.6)
expect_usage "--preload of a missing file" "invalid --preload 'foo=/nonexistent.so': cannot open '/nonexistent.so'" \
	--preload foo=/nonexistent.so --backend foo
expect_usage "--preload of a text file" "'/etc/passwd' is not a shared library \(not an ELF file\)" \
	--preload x=/etc/passwd --backend x
expect_usage "--preload of a directory" "'/' is not a shared library" --preload x=/ --backend x
expect_usage "--preload without =" "invalid --preload 'foo' \(expected NAME=PATH" --preload foo
expect_usage "--preload without a path" "invalid --preload 'foo=' \(expected NAME=PATH" --preload foo=
expect_usage "--preload without a name" "invalid --preload '=$libm' \(expected NAME=PATH" --preload "=$libm"
expect_usage "--preload named after a built-in" "invalid name 'malloc' in --preload .*built-in backend" \
	--preload "malloc=$libm" --backend malloc
expect_usage "--preload named all" "invalid name 'all' in --preload" --preload "all=$libm"
expect_usage "--preload name with a comma" "invalid name 'a,b' in --preload" --preload "a,b=$libm"
expect_usage "--preload twice" "--preload 'x' appears more than once" --preload "x=$libm" --preload "x=$libm" --backend x
expect_usage "--preload not in --backend" "--preload 'x' is not measured: add 'x' to --backend" --preload "x=$libm"
expect_usage "all with other backends" "--backend all cannot be combined" --backend all,pool
expect_usage "unknown backend lists the third-party ones" "unknown backend 'hoard'.*jemalloc, mimalloc, tcmalloc, tbbmalloc, scudo" --backend hoard

# A requested allocator that is not installed: simulated with an empty search path.
mkdir "$tmp/empty" "$tmp/libs"
for b in $DROP_IN; do
	test_have_prereq '!ASAN' || { skip "$b not installed names its Debian package" "$prereq_why: AddressSanitizer refuses it first"; continue; }
	ALLOCBENCH_LIBRARY_PATH=$tmp/empty expect_usage "$b not installed names its Debian package" \
		"backend '$b' needs $(soname $b), which is not installed .*apt-get install $(package $b)" \
		--backend malloc,$b --total 1M
done

# ---- glibc: usable size = chunk - 8, slack and metadata ----
run_ab --sizes 4,40,400,4000 --backend malloc,pool --total 2M --repeat 1 -q -f json -o "$tmp/g.json"
j=$tmp/g.json
check "malloc run exits 0" [ "$rc" -eq 0 ]
check "pool rows have no allocator" jq_absent "$j" 'results[backend=pool,size=4].allocator'
check "pool rows have no usable size" jq_absent "$j" 'results[backend=pool,size=4].usable_bytes'
check "config.preload is empty" [ "$(jq_get "$j" config.preload)" = '{}' ]
check "config.skipped is empty" [ "$(jq_get "$j" config.skipped)" = '[]' ]
if ! test_have_prereq GLIBC_MALLOC; then
	skip "glibc usable sizes" "$prereq_why"
	check_if ASAN "malloc reports the sanitizer's allocator" [ "$(jq_get "$j" 'results[backend=malloc,size=4].allocator.name')" = asan ]
else
	r="results[backend=malloc,size=4]"
	check "malloc is glibc" [ "$(jq_get "$j" "$r.allocator.name")" = glibc ]
	check "glibc's version is the host's" [ "$(jq_get "$j" "$r.allocator.version")" = "$(jq_get "$j" host.libc_version)" ]
	check "glibc's path is libc" sh -c "\"$JSONQ\" '$j' '$r.allocator.path' | grep -q 'libc\.so'"
	for s in 4 40 400 4000; do
		r="results[backend=malloc,size=$s]"
		chunk=$(( (s + 8 + 15) / 16 * 16 )); [ $chunk -lt 32 ] && chunk=32
		check "glibc $s: usable = chunk $chunk - 8" [ "$(median "$j" "$r.usable_bytes")" = $((chunk - 8)) ]
		check "glibc $s: slack = usable - size" [ "$(median "$j" "$r.slack_bytes")" = $((chunk - 8 - s)) ]
		check "glibc $s: metadata = overhead - slack" near "$(median "$j" "$r.metadata_bytes")" \
			"$(minus "$(median "$j" "$r.overhead_bytes")" $((chunk - 8 - s)))" 0.000001
		tol=$(awk -v r="$(jq_get "$j" "$r.resolution_bytes")" 'BEGIN{print 2*r + 0.01}')
		check "glibc $s: metadata is the 8-byte header" near "$(median "$j" "$r.metadata_bytes")" 8 "$tol"
		check "glibc $s: mallinfo2 counts the chunks" le $(( (2097152 / s) * (chunk - 8) )) \
			"$(allocator_stat "$j" "$r" mallinfo2.uordblks)"
		check "glibc $s: no flags" [ "$(jq_get "$j" "$r.slack_exceeds_overhead")$(jq_get "$j" "$r.overhead_varies")" = falsefalse ]
	done
fi

# The text report: a second table under the main one.
run_ab --sizes 4,40 --backend malloc,arena --total 1M --repeat 1 -q
check "text: the breakdown table" grep -Eq '^backend +B +B +B +B +metadata +version$' "$tmp/out"
check_if GLIBC_MALLOC "text: malloc 4 usable 24, slack 20" grep -Eq '^malloc +4 +24\.00 +20\.00 +8\.[0-9]+ +8\.[0-9]+ +glibc [0-9.]+$' "$tmp/out"
check "text: arena has no breakdown row" [ "$(grep -Ec '^arena +(4|40) +[0-9.]+ +[0-9.]+ +[-0-9.]+\*? +[a-z]' "$tmp/out")" -eq 0 ]
check "text: breakdown fits 80 columns" [ "$(awk '/^(backend|malloc|arena) / && length > 80' "$tmp/out" | wc -l)" -eq 0 ]

# ---- under AddressSanitizer nothing can be preloaded: refused, clearly ----
if test_have_prereq ASAN; then
	expect_usage "AddressSanitizer build refuses jemalloc" "backend 'jemalloc' cannot run in this build.*AddressSanitizer" \
		--backend jemalloc --total 1M
	expect_usage "AddressSanitizer build refuses --preload" "backend 'fake' cannot run in this build" \
		--preload "fake=$libm" --backend fake --total 1M
	run_ab --backend all --sizes 40 --total 1M --repeat 1 -q -f json
	check "AddressSanitizer: --backend all runs the built-ins" [ "$rc" -eq 0 ]
	check "AddressSanitizer: --backend all skips the third-party ones" \
		sh -c "\"$JSONQ\" '$tmp/out' 'config.skipped[0].reason' | grep -q AddressSanitizer"
	for b in $DROP_IN; do
		skip "$b measurements" "built with AddressSanitizer, which must be the first library loaded"
	done
	test_done
	exit 0
fi

# ---- an allocator that does not serve malloc fails its row, never shows glibc's ----
run_ab --preload "fake=$libm" --backend fake,pool --sizes 40 --total 1M --repeat 1 -q -f json
check "a library without malloc: exit 1" [ "$rc" -eq 1 ]
check "a library without malloc: the row fails" [ "$(jq_get "$tmp/out" 'results[backend=fake].status')" = failed ]
check "a library without malloc: the row says glibc served it" \
	sh -c "\"$JSONQ\" '$tmp/out' 'results[backend=fake].error' | grep -q \"fake is not active: malloc is served by '.*libc\.so.*'\""
check "a library without malloc: no figures" jq_absent "$tmp/out" 'results[backend=fake].overhead_bytes'
check "a library without malloc: the other rows ran" [ "$(jq_get "$tmp/out" 'results[backend=pool].status')" = ok ]
check "config.preload names the library" [ "$(jq_get "$tmp/out" config.preload.fake)" = "$(readlink -f "$libm")" ]

# ---- each installed allocator ----
installed=
for b in $DROP_IN; do
	lib=$(find_lib "$(soname $b)")
	if [ -z "$lib" ]; then
		skip "$b measurements" "$(soname $b) not installed (apt-get install $(package $b))"
		continue
	fi
	installed="$installed $b"
	eval "lib_$b=\$lib"
	# --repeat 3, the checks on the median: CI's make check under a busy
	# machine once saw tcmalloc's 4-byte row at twice its overhead in a
	# single run (metadata 4.05 B), not seen again in 3 runs of its state.
	run_ab --backend $b,malloc --sizes 4,40,4000,33000 --total 2M --repeat 3 -q -f json -o "$tmp/$b.json"
	j=$tmp/$b.json
	check "$b: run exits 0" [ "$rc" -eq 0 ]
	check "$b: config.preload names its library" sh -c "\"$JSONQ\" '$j' config.preload.$b | grep -q '/$(soname $b)\$'"
	r="results[backend=$b,size=4]"
	check "$b: the allocator serving malloc is $b" [ "$(jq_get "$j" "$r.allocator.name")" = $b ]
	check "$b: its version is reported" sh -c "\"$JSONQ\" '$j' '$r.allocator.version' | grep -Eq '^[0-9]+\.[0-9]+'"
	check "$b: its path is the preloaded library" [ "$(readlink -f "$(jq_get "$j" "$r.allocator.path")")" = "$(readlink -f "$lib")" ]
	check "$b: the malloc row in the same run is still glibc" [ "$(jq_get "$j" 'results[backend=malloc,size=4].allocator.name')" = glibc ]
	# Size classes, from malloc_usable_size in the child.
	for pair in $(classes $b); do
		s=${pair%:*}; u=${pair#*:}
		r="results[backend=$b,size=$s]"
		check "$b $s: usable $u (its size class)" [ "$(median "$j" "$r.usable_bytes")" = $u ]
		check "$b $s: slack = $u - $s" [ "$(median "$j" "$r.slack_bytes")" = $((u - s)) ]
		check "$b $s: metadata = overhead - slack" near "$(median "$j" "$r.metadata_bytes")" \
			"$(minus "$(median "$j" "$r.overhead_bytes")" $((u - s)))" 0.000001
	done
	# tbbmalloc and scudo keep headers or bitmaps beside their chunks (scudo
	# 16 bytes and its rounding), and have no statistics to read.
	case $b in tbbmalloc|scudo) continue ;; esac
	for s in 4 40; do
		r="results[backend=$b,size=$s]"
		res=$(jq_get "$j" "$r.resolution_bytes")
		check "$b $s: metadata is small and not negative" sh -c \
			"awk -v m=$(median "$j" "$r.metadata_bytes") -v r=$res 'BEGIN{exit !(m >= -r && m < 1.5)}'"
		check "$b $s: slack within the overhead" [ "$(jq_get "$j" "$r.slack_exceeds_overhead")" = false ]
	done
	r="results[backend=$b,size=33000]"
	check "$b 33000: slack exceeds the overhead, flagged" [ "$(jq_get "$j" "$r.slack_exceeds_overhead")" = true ]
	check "$b 33000: and explained" sh -c "\"$JSONQ\" '$j' '$r.notes' | grep -q 'slack .* exceeds the RSS overhead'"
	check "$b: its own statistics" sh -c "\"$JSONQ\" '$j' 'results[backend=$b,size=40].allocator_stats' | grep -Eq '\"(stats\.allocated|process_info\.current_commit|generic\.current_allocated_bytes)\":[1-9]'"
done

# jemalloc's statistics: what it has allocated covers the chunks' size classes.
if [ -n "${lib_jemalloc:-}" ]; then
	alloc=$(allocator_stat "$tmp/jemalloc.json" 'results[backend=jemalloc,size=40]' stats.allocated)
	check "jemalloc stats.allocated >= count x 48 ($alloc)" le $((2097152 / 40 * 48)) "$alloc"
	# The user's own LD_PRELOAD is kept for the malloc backend and reported.
	LD_PRELOAD=$lib_jemalloc "$AB" --backend malloc --sizes 40 --total 1M --repeat 1 -q -f json >"$tmp/u.json" 2>"$tmp/err"
	check "LD_PRELOAD=jemalloc --backend malloc measures jemalloc" [ "$(jq_get "$tmp/u.json" 'results[0].allocator.name')" = jemalloc ]
	check "... and the JSON carries its version" sh -c "\"$JSONQ\" '$tmp/u.json' 'results[0].allocator.version' | grep -Eq '^[0-9]+\.[0-9]+'"
	# The main table names what served malloc, not "malloc" alone.
	LD_PRELOAD=$lib_jemalloc "$AB" --backend malloc,pool --sizes 40 --total 1M --repeat 1 -q >"$tmp/u.txt" 2>"$tmp/err"
	check "LD_PRELOAD=jemalloc --backend malloc: the row reads malloc (jemalloc VERSION)" \
		grep -Eq '^malloc \(jemalloc [0-9]+\.[0-9]+\.[0-9]+\) +40 +[0-9]+ ' "$tmp/u.txt"
	check "... the other backends keep their names" grep -Eq '^pool +40 ' "$tmp/u.txt"
	"$AB" --backend malloc --sizes 40 --total 1M --repeat 1 -q >"$tmp/u.txt" 2>"$tmp/err"
	check_if GLIBC_MALLOC "the C library's malloc is plain malloc" grep -Eq '^malloc +40 +[0-9]+ ' "$tmp/u.txt"
	# ... and replaced by exactly the named library for the others.
	if [ -n "${lib_mimalloc:-}" ]; then
		LD_PRELOAD=$lib_jemalloc "$AB" --backend mimalloc --sizes 40 --total 1M --repeat 1 -q -f json >"$tmp/u.json" 2>"$tmp/err"
		check "LD_PRELOAD=jemalloc --backend mimalloc measures mimalloc" [ "$(jq_get "$tmp/u.json" 'results[0].allocator.name')" = mimalloc ]
		run_ab --preload "jemalloc=$lib_mimalloc" --backend jemalloc --sizes 40 --total 1M --repeat 1 -q -f json
		check "a known name given another allocator fails its row" sh -c \
			"\"$JSONQ\" '$tmp/out' 'results[0].error' | grep -q 'which is mimalloc, not jemalloc'"
	fi
fi

# ---- --backend all: the built-ins, what is installed, and what is skipped ----
set -- $installed
if [ $# -gt 0 ]; then
	first=$1
	eval "ln -s \"\$lib_$first\" \"$tmp/libs/$(soname $first)\""
	ALLOCBENCH_LIBRARY_PATH=$tmp/libs "$AB" --backend all --sizes 40 --total 1M --repeat 1 -q -f json \
		>"$tmp/all.json" 2>"$tmp/err"
	check "ALLOCBENCH_LIBRARY_PATH finds $first there" [ "$(jq_get "$tmp/all.json" "config.preload.$first")" = "$tmp/libs/$(soname $first)" ]
	check "--backend all: built-ins then $first" [ "$(jq_get "$tmp/all.json" config.backends)" = "[\"malloc\",\"pool\",\"pool-locked\",\"arena\",\"$first\"]" ]
	check "--backend all: $first measured" [ "$(jq_get "$tmp/all.json" "results[backend=$first].allocator.name")" = $first ]
	check "--backend all: the four others skipped" [ "$(jq_get "$tmp/all.json" 'config.skipped#')" = 4 ]
	for b in $DROP_IN; do
		[ $b = $first ] && continue
		check "--backend all: says on stderr that $b is skipped" grep -q "skips $b: not installed .*$(package $b)" "$tmp/err"
		check "--backend all: the JSON names $b's package" sh -c "\"$JSONQ\" '$tmp/all.json' 'config.skipped[backend=$b].package' | grep -qx '$(package $b)'"
	done
fi
ALLOCBENCH_LIBRARY_PATH=$tmp/empty "$AB" --backend all --sizes 40 --total 1M --repeat 1 -q -f json \
	>"$tmp/all.json" 2>"$tmp/err"
check "--backend all with nothing installed runs the built-ins" [ "$(jq_get "$tmp/all.json" config.backends)" = '["malloc","pool","pool-locked","arena"]' ]
check "--backend all with nothing installed skips all five" [ "$(grep -c 'skips .*: not installed' "$tmp/err")" -eq 5 ]
run_ab --backend all --sizes 40 --total 1M --repeat 1 -q -f json
check "--backend all measures every installed allocator" [ "$(jq_get "$tmp/out" 'results#')" -eq $((4 + $#)) ]

test_done
