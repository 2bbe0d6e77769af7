#!/bin/sh
# The bash completion (completion/allocbench.bash): commands, options, the
# values of --backend, --workload, --format and --touch, lists after a comma,
# file names; and every option of each command's --help, every backend,
# workload, touch policy and format the binary accepts is offered. The
# options and the backends are the binary's own, asked at completion time
# (--dump-options, allocbench backends); the values of --workload, --touch
# and --format are the completion's: one the binary adds fails here.
# check: once
. "$(dirname "$0")/lib.sh"

completion=$top/completion/allocbench.bash
test_lazy_prereq BASH 'command -v bash >/dev/null || { echo "no bash"; exit 1; }'
# The completion asks the binary the line names (allocbench): this build's.
PATH=$(dirname "$AB"):$PATH
export PATH

# $tmp/comp.bash LINE: completes LINE (the cursor at its end) as bash does
# and prints COMPREPLY, one per line. bash splits the line into COMP_WORDS at
# blanks and at the characters of COMP_WORDBREAKS, '=' among them by default
# ("--backend=mal" is "--backend" "=" "mal"); with NOBREAK=1 it does not
# split at '=' (a user who removed it from COMP_WORDBREAKS).
cat >"$tmp/comp.bash" <<'EOF'
. "$1" || exit 2
line=$2
read -r -a raw <<<"$line"
words=()
for w in "${raw[@]}"; do
	while [[ -z ${NOBREAK-} && $w == *=* ]]; do
		[[ -n ${w%%=*} ]] && words+=("${w%%=*}")
		words+=("=")
		w=${w#*=}
	done
	[[ -n $w ]] && words+=("$w")
done
[[ $line == *" " ]] && words+=("")
COMP_WORDS=("${words[@]}")
COMP_CWORD=$((${#words[@]} - 1))
COMP_LINE=$line
COMP_POINT=${#line}
COMPREPLY=()
_allocbench || exit 3
[[ ${#COMPREPLY[@]} -eq 0 ]] || printf '%s\n' "${COMPREPLY[@]}"
EOF

# comp LINE: the completions of LINE, sorted, in $tmp/reply.
comp() {
	bash "$tmp/comp.bash" "$completion" "$1" | sort >"$tmp/reply"
}
# offers WORD...: every WORD is in $tmp/reply.
offers() {
	for w in "$@"; do
		grep -qxF -- "$w" "$tmp/reply" || return 1
	done
}
# offers_not WORD...: no WORD is in $tmp/reply.
offers_not() {
	for w in "$@"; do
		! grep -qxF -- "$w" "$tmp/reply" || return 1
	done
}
# offers_exactly WORD...: $tmp/reply is the WORDs (none: it is empty).
offers_exactly() {
	if [ $# -eq 0 ]; then
		[ ! -s "$tmp/reply" ]
	else
		printf '%s\n' "$@" | sort | cmp -s - "$tmp/reply"
	fi
}
# expected_list: the values of the "(expected a, b or c)" of allocbench's
# message on stderr, one per line, sorted.
expected_list() {
	sed -n 's/.*(expected \([^)]*\)).*/\1/p' "$tmp/err" | sed 's/, / /g; s/ or / /g' |
		tr ' ' '\n' | sort
}
# case_if NAME LINE CHECK...: completes LINE, then check NAME CHECK....
# (CASE_NEEDS: more prerequisites, such as NOASAN.)
case_if() {
	if ! test_have_prereq "BASH${CASE_NEEDS:+,$CASE_NEEDS}"; then
		skip "$1" "$prereq_why"
		return
	fi
	name=$1; line=$2; shift 2
	comp "$line"
	check "$name" "$@"
}

# ---------------------------------------------------------------- commands
case_if "the commands first" "allocbench " offers_exactly run compare plot show counters backends record report history ab advise
case_if "a command by its prefix" "allocbench co" offers_exactly compare counters
case_if "run's options as the first word" "allocbench --ba" offers_exactly --backend --baseline
case_if "a command's options" "allocbench compare --max-" offers_exactly --max-overhead --max-time
case_if "counters has no --output" "allocbench counters --" offers_not --output --backend

# ---------------------------------------------------------------- values
# Any shared library of this machine stands in for an installed allocator:
# allocbench backends checks that it is one, as --backend does.
libs=$tmp/libs
mkdir "$libs" "$tmp/nolibs"
libc=$(ldd "$AB" 2>/dev/null | awk '$1 ~ /^libc\.so/ { print $3; exit }')
ln -s "$libc" "$libs/libjemalloc.so.2"
case_if "backends: the item after the last comma" \
	"allocbench --backend malloc,po" offers_exactly malloc,pool malloc,pool-locked
case_if "backends: not those listed already, also after --backend=" \
	"allocbench run --backend=malloc,arena," offers malloc,arena,pool malloc,arena,all
check_if BASH "backends: malloc is not offered twice" offers_not malloc,arena,malloc malloc,arena,arena
export ALLOCBENCH_LIBRARY_PATH="$tmp/nolibs"
case_if "backends: no third-party allocator where none is installed" \
	"allocbench -b " offers_exactly malloc pool pool-locked arena all list
export ALLOCBENCH_LIBRARY_PATH="$libs"
# A sanitizer build preloads nothing: allocbench backends says none runs.
CASE_NEEDS=NOASAN
case_if "backends: an installed allocator (in \$ALLOCBENCH_LIBRARY_PATH)" \
	"allocbench -b pool," offers_exactly pool,malloc pool,pool-locked pool,arena pool,jemalloc pool,all
case_if "backends: a --preload NAME" \
	"allocbench --preload hoard=/x/libhoard.so --preload=tiny=/x/t.so -b arena,"  offers arena,hoard arena,tiny
case_if "backends of compare: every backend, not all" \
	"allocbench compare a.json b.json --backend " offers jemalloc tcmalloc pool
check_if BASH "backends of compare: not all" offers_not all
case_if "backends of compare: a 32-bit row (--abi 32)" \
	"allocbench compare a.json b.json --backend malloc/" offers_exactly malloc/32
case_if "advise's backends: a replay has no pool-locked" \
	"allocbench advise --backend pool," offers_exactly pool,malloc pool,arena pool,jemalloc pool,all
CASE_NEEDS=
case_if "advise's --replay-threads" "allocbench advise --replay-threads " offers_exactly global per-thread
case_if "advise: after --trace FILE, advise's options still" "allocbench advise --trace x.trace --kee" \
	offers_exactly --keep-trace
case_if "--abi: 64 or 32, then the other after a comma" "allocbench --abi 32," offers_exactly 32,64
case_if "workloads" "allocbench -w ch" offers_exactly churn
case_if "--touch" "allocbench run --touch " offers_exactly none first pages full
case_if "--format of run" "allocbench --format " offers_exactly text json csv markdown
case_if "--format of compare" "allocbench compare -f " offers_exactly text json markdown
case_if "--format of counters" "allocbench counters --format=" offers_exactly text json
case_if "plot's metrics after a comma" "allocbench plot --metric overhead,al" offers_exactly overhead,alloc_ns
case_if "nothing to offer for a number" "allocbench --total " offers_exactly
case_if "plot's --x" "allocbench plot --x " offers_exactly log linear
case_if "plot's --facet" "allocbench plot a.json --facet=b" offers_exactly backend
NOBREAK=1; export NOBREAK
case_if "--format=VALUE without '=' in COMP_WORDBREAKS" \
	"allocbench --format=js" offers_exactly --format=json
unset NOBREAK

# ---------------------------------------------------------------- files
mkdir "$tmp/dir" "$tmp/dir/sub"
: >"$tmp/dir/base.json"
: >"$tmp/dir/notes.txt"
case_if "files for -o" "allocbench -o $tmp/dir/" offers_exactly "$tmp/dir/base.json" "$tmp/dir/notes.txt" "$tmp/dir/sub"
case_if "files for --output of plot" "allocbench plot --output $tmp/dir/n" offers_exactly "$tmp/dir/notes.txt"
case_if "reports for --baseline: JSON files and directories" \
	"allocbench --baseline $tmp/dir/" offers_exactly "$tmp/dir/base.json" "$tmp/dir/sub"
case_if "reports for compare" "allocbench compare $tmp/dir/" offers_exactly "$tmp/dir/base.json" "$tmp/dir/sub"
case_if "reports for plot" "allocbench plot -m overhead $tmp/dir/b" offers_exactly "$tmp/dir/base.json"
case_if "the library's path for --preload NAME=PATH" \
	"allocbench --preload mine=$tmp/dir/n" offers_exactly "$tmp/dir/notes.txt"
case_if "the formats for --export FORMAT=FILE" "allocbench --export " offers_exactly text= json= csv= markdown=
case_if "the file for --export FORMAT=FILE" \
	"allocbench --export json=$tmp/dir/n" offers_exactly "$tmp/dir/notes.txt"

# ------------------------------------------------- what the binary accepts
# Every option on an option line of each command's --help (long and short)
# is offered, and nothing else.
for cmd in run compare plot show counters backends history ab advise; do
	run_ab "$cmd" --help
	grep -E '^ +(-[A-Za-z], )?--[a-z]' "$tmp/out" |
		grep -oE -- '^ +(-[A-Za-z], )?--[a-z][a-z0-9-]*' |
		tr -d ' ' | tr ',' '\n' | sort >"$tmp/help-opts"
	if ! test_have_prereq BASH; then
		skip "$cmd: every option of --help is offered" "$prereq_why"
		continue
	fi
	comp "allocbench $cmd -"
	missing=$(comm -23 "$tmp/help-opts" "$tmp/reply" | tr '\n' ' ' | sed 's/ $//')
	extra=$(comm -13 "$tmp/help-opts" "$tmp/reply" | tr '\n' ' ' | sed 's/ $//')
	check "$cmd: every option of --help is offered${missing:+ (missing: $missing)}" [ -z "$missing" ]
	check "$cmd: no option --help does not list${extra:+ (extra: $extra)}" [ -z "$extra" ]
done

# Every backend the binary knows (with every third-party library "installed"),
# workload, touch policy and format, as its messages list them.
for l in libmimalloc.so.2 libtcmalloc_minimal.so.4 libtbbmalloc_proxy.so.2 \
	 "libclang_rt.scudo_standalone-$(uname -m | sed 's/^i.86$/i386/').so"; do
	ln -s "$libc" "$libs/$l"
done
run_ab --backend nosuch
sed -n 's/.*(known backends: \([^)]*\)).*/\1/p' "$tmp/err" | sed 's/, /\n/g' | sort >"$tmp/want"
CASE_NEEDS=NOASAN
case_if "every backend the binary knows" "allocbench --backend " cmp -s "$tmp/want" "$tmp/reply"
CASE_NEEDS=
check_if BASH "the binary's backends were read" [ -s "$tmp/want" ]
case_if "compare's backends: every one the binary knows, installed or not, and its 32-bit row" \
	"allocbench compare a.json b.json --backend " \
	sh -c 'grep -v "^all$\|^list$" "$1" | sed "p; s|$|/32|" | sort | cmp -s - "$2"' sh "$tmp/want" "$tmp/reply"
for what in "--workload:allocbench --workload " "--touch:allocbench --touch " \
	    "--format:allocbench --format " "compare --format:allocbench compare --format " \
	    "counters --format:allocbench counters --format " \
	    "backends --format:allocbench backends --format " \
	    "show --format:allocbench show --format " \
	    "advise --format:allocbench advise --format "; do
	opt=${what%%:*}
	# shellcheck disable=SC2086
	run_ab $opt nosuch
	expected_list >"$tmp/want"
	case_if "every value of $opt the binary accepts" "${what#*:}" cmp -s "$tmp/want" "$tmp/reply"
done

test_done
