# Common setup of the CLI tests (sourced): strict shell, C locale, a temporary
# directory removed on exit, the binary under test, and helpers that print one
# "ok - NAME" or "not ok - NAME" line each, counted by tests/run.sh.
set -u
LC_ALL=C
export LC_ALL
top=$(cd "$(dirname "$0")/../.." && pwd)
# The build under test: make check names its variant's folder in ABBUILD
# (build/default when a test is run by hand); AB may name another binary.
ABBUILD=${ABBUILD:-$top/build/default}
AB=${AB:-$ABBUILD/allocbench}
JSONQ=$ABBUILD/tests/tools/jsonq
JSONSET=$ABBUILD/tests/tools/jsonset
SCHEMACHECK=$ABBUILD/tests/tools/schemacheck
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

# Every result is also counted in $tmp/.results (subshells included), so
# that test_done can print the plan: tests/run.sh fails a script whose plan
# is missing (it stopped early) or does not match its results.
ok() { printf 'ok - %s\n' "$1"; echo ok >>"$tmp/.results"; }
not_ok() {
	printf 'not ok - %s\n' "$1"; echo not_ok >>"$tmp/.results"
	[ $# -gt 1 ] && printf '#   %s\n' "$2"; return 0
}

# check NAME COMMAND...: passes when COMMAND succeeds.
check() {
	name=$1; shift
	if "$@"; then ok "$name"; else not_ok "$name" "failed: $*"; fi
}

# run_ab ARGS...: runs allocbench, leaving stdout in $tmp/out, stderr in
# $tmp/err and the exit status in $rc.
run_ab() {
	"$AB" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# expect_usage NAME PATTERN ARGS...: allocbench ARGS exits 2, prints nothing
# on stdout, and its stderr matches the grep -E PATTERN (naming the bad value).
expect_usage() {
	name=$1; pattern=$2; shift 2
	run_ab "$@"
	if [ "$rc" -ne 2 ]; then
		not_ok "$name" "exit status $rc, expected 2: allocbench $*"
	elif [ -s "$tmp/out" ]; then
		not_ok "$name" "wrote to stdout on bad usage: allocbench $*"
	elif ! grep -Eq -- "$pattern" "$tmp/err"; then
		not_ok "$name" "stderr '$(cat "$tmp/err")' does not match '$pattern'"
	else
		ok "$name"
	fi
}

# jq_get FILE PATH: one value of a JSON file.
jq_get() { "$JSONQ" "$1" "$2"; }

# jq_absent FILE PATH: FILE is JSON without PATH (allocbench/2 leaves out
# what was not measured, where allocbench/1 wrote null).
jq_absent() { "$JSONQ" "$1" "$2" >/dev/null 2>&1; [ $? -eq 1 ]; }

# doctor IN PATH OP OUT: a copy of IN with one value changed (see jsonset.c).
doctor() { "$JSONSET" "$1" "$2" "$3" >"$4"; }

# near A B TOLERANCE: |A - B| <= TOLERANCE, to within the doubles' rounding:
# two overheads a page apart over the count differ by 4096 / count plus an
# error in the 13th digit (t0010: tbbmalloc 2018.2966507177043 against
# 1998.6985645933019, within 19.598086124401913, failed).
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t * (1 + 1e-9)) }'; }

# le A B: A <= B.
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }

# skip NAME REASON: a check that cannot run here; shown, not counted.
skip() { printf 'skip - %s: %s\n' "$1" "$2"; echo skip >>"$tmp/.results"; }

# test_done: the last line of every script, the TAP plan "1..N" where N
# counts its ok, not ok and skip lines.
test_done() {
	printf '1..%d\n' "$(cat "$tmp/.results" 2>/dev/null | wc -l)"
}

# Prerequisites, as git's test_lazy_prereq: test_lazy_prereq NAME 'SCRIPT'
# declares NAME; SCRIPT runs once, in a subshell, the first time a test asks
# for NAME. NAME holds when SCRIPT exits 0; otherwise the last line SCRIPT
# printed is the reason a test that needs it gives for skipping.
# test_have_prereq NAME[,NAME...] (a NAME may be !NAME) holds when every NAME
# does; when not, $prereq_why says which did not and why.
# check_if PREREQS NAME COMMAND...: check NAME COMMAND where PREREQS hold,
# "skip - NAME: why" elsewhere.
test_lazy_prereq() {
	eval "prereq_script_$1=\$2"
}
# (Their variables begin with _pq_: a script's own, such as $r, stay its own.)
prereq_eval() {
	eval "_pq_state=\${prereq_state_$1-}"
	if [ -z "$_pq_state" ]; then
		eval "_pq_script=\${prereq_script_$1-}"
		[ -n "$_pq_script" ] || { echo "prerequisite $1 is not declared" >&2; exit 2; }
		_pq_out=$( (eval "$_pq_script") 2>/dev/null; printf '\n#rc=%d' $?)
		[ "${_pq_out##*#rc=}" = 0 ] && _pq_state=yes || _pq_state=no
		_pq_why=$(printf '%s\n' "$_pq_out" | grep -v '^#rc=' | grep . | tail -n 1)
		eval "prereq_state_$1=\$_pq_state; prereq_reason_$1=\$_pq_why"
	fi
	[ "$_pq_state" = yes ]
}
test_have_prereq() {
	prereq_why=
	for _pq_p in $(echo "$1" | tr ',' ' '); do
		case $_pq_p in
		!*)
			if prereq_eval "${_pq_p#!}"; then
				eval "_pq_r=\${prereq_reason_${_pq_p#!}-}"
				prereq_why="needs not ${_pq_p#!}${_pq_r:+ ($_pq_r)}"
				return 1
			fi ;;
		*)
			if ! prereq_eval "$_pq_p"; then
				eval "_pq_r=\${prereq_reason_$_pq_p-}"
				prereq_why="needs $_pq_p${_pq_r:+: $_pq_r}"
				return 1
			fi ;;
		esac
	done
	return 0
}
check_if() {
	_pq_prereqs=$1; shift
	if test_have_prereq "$_pq_prereqs"; then check "$@"; else skip "$1" "$prereq_why"; fi
}

# ---------------------------------------------------------------- the host
# What a test needs of the host is a prerequisite, declared here once and
# computed from the binary's own report wherever the report says it: one
# small run, at most once per script, kept in $tmp/.host.json.
host_json=$tmp/.host.json
"$AB" --sizes 4 --total 4K --repeat 1 --backend arena -f json >"$host_json" 2>/dev/null
# host_fact PATH: one value of that report ("" when missing).
host_fact() { "$JSONQ" "$host_json" "$1" 2>/dev/null; }

# The sanitizers the binary was built with ("" for none): under
# AddressSanitizer malloc is the sanitizer's, and address-space limits break it.
sanitizers=$(host_fact tool.sanitizers)
asan=0
case $sanitizers in *address*) asan=1 ;; esac
test_lazy_prereq ASAN '[ $asan = 1 ] || { echo "built without AddressSanitizer"; exit 1; }; echo "built with AddressSanitizer"'
test_lazy_prereq SANITIZED '[ -n "$sanitizers" ] || { echo "built without sanitizers"; exit 1; }; echo "built with -fsanitize=$sanitizers"'
# malloc is glibc's own (not a sanitizer's): its chunk formula holds.
test_lazy_prereq GLIBC_MALLOC '
	libc=$(host_fact host.libc)
	[ "$libc" = glibc ] || { echo "the C library is $libc, not glibc"; exit 1; }
	[ $asan = 0 ] || { echo "malloc is AddressSanitizer'"'"'s, not glibc'"'"'s"; exit 1; }'
test_lazy_prereq PAGE_4K '
	p=$(host_fact host.page_size)
	[ "$p" = 4096 ] || { echo "the page size is $p B, not 4096"; exit 1; }'
# RSS is the chunks' own: under AddressSanitizer its shadow memory (an
# eighth of the bytes touched) is resident too.
test_lazy_prereq RSS_EXACT '[ $asan = 0 ] || { echo "built with AddressSanitizer: its shadow memory, an eighth of the bytes touched, is resident too"; exit 1; }'
# Transparent huge pages in "always" mode make RSS move in 2 MiB steps.
test_lazy_prereq THP_NOT_ALWAYS '
	t=$(host_fact host.thp)
	[ "$t" != always ] || { echo "transparent huge pages are always on: RSS moves in 2 MiB steps"; exit 1; }'
# MEM_<N>G: MemAvailable, as the binary read it, is at least N GiB.
for g in 1 2 4 8; do
	test_lazy_prereq MEM_${g}G "
		m=\$(host_fact host.mem_available_bytes)
		[ -n \"\$m\" ] && [ \"\$m\" != null ] || { echo 'MemAvailable unknown'; exit 1; }
		[ \$((m >> 20)) -ge $((g * 1024)) ] || { echo \"MemAvailable is \$((m >> 20)) MiB, less than $g GiB\"; exit 1; }"
done

# PAPI, as the binary sees it: built with it (PAPI), its perf_event
# component enabled (PERF_EVENT: disabled where libpfm4 finds no PMU, or by
# the kernel's paranoid level), a hardware event countable (HW_COUNTERS).
# PMU: the kernel exposes a CPU's performance monitoring unit at all.
test_lazy_prereq PAPI '
	v=$("$AB" counters -f json --counters allocbench::allocs 2>/dev/null | "$JSONQ" - papi_version)
	[ -n "$v" ] && [ "$v" != null ] || { echo "built without PAPI (make PAPI=0)"; exit 1; }
	echo "PAPI $v"'
test_lazy_prereq PERF_EVENT '
	r=$(host_fact counters_status.PAPI_TOT_CYC)
	case $r in
	"") echo "the report has no status for PAPI_TOT_CYC"; exit 1 ;;
	*"perf_event component is disabled"*|*"not built with PAPI"*) echo "$r"; exit 1 ;;
	esac
	echo "PAPI_TOT_CYC: $r"'
test_lazy_prereq HW_COUNTERS '
	r=$(host_fact counters_status.PAPI_TOT_CYC)
	[ "$r" = ok ] || { echo "PAPI_TOT_CYC cannot be counted: $r"; exit 1; }'
test_lazy_prereq PMU '
	ls /sys/bus/event_source/devices 2>/dev/null | grep -Eq "^(cpu|cpu_.*|armv.*|arm_.*)\$" ||
		{ echo "the kernel has no CPU PMU (/sys/bus/event_source/devices)"; exit 1; }'

# Tools and privileges.
test_lazy_prereq ROOT '[ "$(id -u)" = 0 ] || { echo "not root"; exit 1; }'
# signum NAME: the number of signal NAME.
signum() { for n in $(seq 1 64); do [ "$(kill -l $n 2>/dev/null)" = "$1" ] && { echo $n; return; }; done; }
# SIGHUP not ignored by this shell: where it is (nohup), allocbench and the
# programs it starts inherit it ignored, as they should.
test_lazy_prereq HUP_NOT_IGNORED 'n=$(signum HUP); m=$(sed -n "s/^SigIgn:[[:space:]]*//p" /proc/$$/status); [ $(( 0x$m >> (n - 1) & 1 )) = 0 ] || { echo "SIGHUP is ignored here (nohup)"; exit 1; }'
# A private mount namespace in which a file can be bound over another (to
# give the binary another /proc/meminfo or /proc/cpuinfo).
test_lazy_prereq UNSHARE '
	[ "$(id -u)" = 0 ] || { echo "not root (unshare -m and mount --bind need it)"; exit 1; }
	echo yes >"$tmp/.bind-src"; echo no >"$tmp/.bind-dst"
	out=$(unshare -m sh -c "mount --bind \"\$1\" \"\$2\" && cat \"\$2\"" - "$tmp/.bind-src" "$tmp/.bind-dst" 2>&1)
	[ "$out" = yes ] || { echo "unshare -m with mount --bind does not work here: $out"; exit 1; }'
test_lazy_prereq CC 'command -v "${CC:-cc}" >/dev/null || { echo "no C compiler (${CC:-cc})"; exit 1; }'
test_lazy_prereq DEV_FULL '
	[ -w /dev/full ] || { echo "/dev/full is not writable"; exit 1; }
	! echo x 2>/dev/null >/dev/full || { echo "writing /dev/full succeeds here"; exit 1; }'
# The drop-in allocators allocbench knows, in its order.
DROP_IN="jemalloc mimalloc tcmalloc tbbmalloc scudo"
# JEMALLOC, MIMALLOC, TCMALLOC, TBBMALLOC, SCUDO: the allocator's x86-64
# shared library is installed (scudo's in clang's resource directory).
test_lazy_prereq SCUDO '
	ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.scudo_standalone-x86_64.so >/dev/null 2>&1 ||
		{ echo "no libclang_rt.scudo_standalone-x86_64.so in /usr/lib/llvm-*/lib/clang/*/lib/linux (apt-get install libclang-rt-dev)"; exit 1; }'
for a in jemalloc:libjemalloc.so.2:libjemalloc2 mimalloc:libmimalloc.so.2:libmimalloc2.0 \
	 tcmalloc:libtcmalloc_minimal.so.4:libtcmalloc-minimal4 \
	 tbbmalloc:libtbbmalloc_proxy.so.2:libtbbmalloc2; do
	name=${a%%:*}; rest=${a#*:}; soname=${rest%%:*}; pkg=${rest#*:}
	test_lazy_prereq "$(echo "$name" | tr a-z A-Z)" "
		PATH=\$PATH:/sbin:/usr/sbin ldconfig -p | grep -q '$soname ' ||
			{ echo '$soname is not installed (apt-get install $pkg)'; exit 1; }"
done
unset a name rest soname pkg g
# Checks whose result depends on neither the build nor the host state run in
# the full set alone (tests/run.sh: TEST_SET=variants is another build's run).
test_lazy_prereq ONCE '[ "${TEST_SET:-all}" = all ] || { echo "TEST_SET=$TEST_SET: they run once, in the full set"; exit 1; }'
test_lazy_prereq CHROMIUM '[ -x /usr/bin/chromium ] || { echo "/usr/bin/chromium missing (apt-get install chromium)"; exit 1; }'
test_lazy_prereq XMLLINT 'command -v xmllint >/dev/null || { echo "no xmllint (apt-get install libxml2-utils)"; exit 1; }'
test_lazy_prereq PYTHON3 'command -v python3 >/dev/null || { echo "no python3"; exit 1; }'
test_lazy_prereq JSONSCHEMA 'command -v jsonschema >/dev/null || { echo "no jsonschema command (Debian: python3-jsonschema)"; exit 1; }'

# ---------------------------------------------------------------- traces
# The recording library (allocbench record) is preloaded into the program
# it records, and so is a preloaded allocator: AddressSanitizer refuses
# both, its runtime must come first in LD_PRELOAD.
test_lazy_prereq NOASAN '[ $asan = 0 ] || { echo "built with AddressSanitizer, whose runtime must come first in LD_PRELOAD"; exit 1; }'
THREADS=$ABBUILD/tests/record/threads
# record_trace FILE [PROGRAM ARGS...]: allocbench record of PROGRAM
# ($THREADS, five threads allocating and freeing across each other, by
# default) into FILE; succeeds when record does. Its output goes to
# $tmp/record.out and $tmp/record.err.
record_trace() {
	_rt_file=$1; shift
	[ $# -gt 0 ] || set -- "$THREADS"
	"$AB" record -o "$_rt_file" "$@" >"$tmp/record.out" 2>"$tmp/record.err"
}
# need_trace NAME: records $THREADS into $tmp/th.trace for a script about
# replaying it; where the recording library cannot run (NOASAN) prints
# "skip - NAME" and ends the script. A recording that fails is a failure.
need_trace() {
	if ! test_have_prereq NOASAN; then
		skip "$1" "$prereq_why"
		test_done
		exit 0
	fi
	record_trace "$tmp/th.trace" ||
		not_ok "record $THREADS for $1" "$(tail -n 3 "$tmp/record.err")"
}

# with_file FAKE REAL COMMAND...: runs COMMAND in a private mount namespace
# where the file REAL (e.g. /proc/cpuinfo) reads as FAKE. Needs UNSHARE.
with_file() {
	unshare -m sh -c 'mount --bind "$1" "$2" && shift 2 && exec "$@"' - "$@"
}

# drop_in_allocators FILE: a line "NAME LIBRARY" per drop-in allocator
# installed here into FILE, malloc first (its LIBRARY: -), as allocbench
# backends lists them.
drop_in_allocators() {
	"$AB" backends --format json >"$tmp/backends.json" || not_ok "backends --format json" ""
	echo "malloc -" >"$1"
	_da=0
	while [ $_da -lt "$(jq_get "$tmp/backends.json" 'backends#')" ]; do
		_db="backends[$_da]"
		_da=$((_da + 1))
		[ "$(jq_get "$tmp/backends.json" "$_db.kind")" = preload ] &&
			[ "$(jq_get "$tmp/backends.json" "$_db.available")" = true ] || continue
		echo "$(jq_get "$tmp/backends.json" "$_db.name") $(jq_get "$tmp/backends.json" "$_db.what" | sed 's/.*library //')" >>"$1"
	done
}
