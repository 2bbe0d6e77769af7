#!/bin/sh
# Exact to the page: allocbench's overhead is what a plain program reads
# for the same fill (tests/exact/plain.c: malloc, or the project's own pool
# and arena, each chunk touched in every page it overlaps and its last
# byte, Anonymous: read before and after), to the byte, at every size, in
# every repetition and with --jobs 2 as with one: no page of the measuring
# process's own (its stack, its private heap, its readings) is ever
# counted. The 32-bit rows, emulated or not, equal a plain 32-bit program's
# reading within one page. tests/hoststate.sh busy runs the whole suite
# with both CPUs busy and memory being touched: this must hold there too.
# check: host
. "$(dirname "$0")/lib.sh"

PLAIN=$ABBUILD/tests/exact/plain
PLAIN32=$ABBUILD/tests/exact/plain32

test_lazy_prereq PLAIN '[ -x "$PLAIN" ] || { echo "$PLAIN is not built (make check builds it)"; exit 1; }'
test_lazy_prereq PLAIN32 '
	[ -x "$PLAIN32" ] || { echo "no 32-bit reference (built with the 32-bit measuring program)"; exit 1; }
	"$AB" --abi 32 --sizes 4 --total 4K --repeat 1 --backend arena -q -f json >/dev/null 2>"$tmp/.abi32.err" ||
		{ tail -n 1 "$tmp/.abi32.err"; exit 1; }'

# overheads FILE: "backend size median min max" per row of a CSV report.
overheads() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		 { print $col["backend"], $col["size_bytes"], $col["overhead_bytes_median"],
			 $col["overhead_bytes_min"], $col["overhead_bytes_max"] }' "$1"
}

# plain_of PROGRAM BACKEND SIZE: the reference's reading (qemu-i386 where
# the kernel runs no 32-bit program, as allocbench itself does).
plain_of() {
	"$1" "$2" "$3" "$total" 2>/dev/null || qemu-i386 "$1" "$2" "$3" "$total"
}

# compare_rows REPORT PROGRAM SLACK: every row's repetitions equal, and
# within SLACK bytes per chunk of the reference (0: equal to 6 decimals).
compare_rows() {
	overheads "$1" | while read -r backend size median min max; do
		name=${backend%/32}
		want=$(plain_of "$2" "$name" "$size")
		got=$(printf '%.6f' "$median")
		check "$backend $size B: every repetition the same bytes ($min .. $max)" \
			[ "$(printf '%.6f' "$min")" = "$(printf '%.6f' "$max")" ]
		if [ "$3" = 0 ]; then
			check "$backend $size B: $got B/chunk, the plain program's $want" [ "$got" = "$want" ]
		else
			check "$backend $size B: $got B/chunk, the plain program's $want within one page ($3)" \
				awk -v a="$got" -v b="$want" -v s="$3" 'BEGIN { d = a - b; exit !(d <= s && -d <= s) }'
		fi
	done
}

if test_have_prereq PLAIN,RSS_EXACT,GLIBC_MALLOC,THP_NOT_ALWAYS; then
	total=16777216
	run_ab --sizes 4,40,400,4000,40000 --backend malloc,pool,arena --total 16M \
		--repeat 2 --counters none -q -f csv -o "$tmp/one.csv"
	check "the native fill runs" [ "$rc" -eq 0 ]
	compare_rows "$tmp/one.csv" "$PLAIN" 0
	run_ab --sizes 40,4000 --backend malloc,pool,arena --total 16M \
		--repeat 2 --counters none --jobs 2 -q -f csv -o "$tmp/two.csv"
	overheads "$tmp/one.csv" | grep -E '^[a-z]+ (40|4000) ' >"$tmp/one"
	overheads "$tmp/two.csv" >"$tmp/two"
	check "--jobs 2 reads the same bytes as --jobs 1, row by row" cmp -s "$tmp/one" "$tmp/two"
else
	skip "the native fill equals the plain program's" "$prereq_why"
fi

# The emulator's own pages are not the program's: a page of slack, as
# qemu-user may place its own areas among the guest's.
if test_have_prereq PLAIN32,RSS_EXACT,THP_NOT_ALWAYS,PAGE_4K; then
	total=4194304
	run_ab --abi 32 --sizes 40,4000 --backend malloc,pool,arena --total 4M \
		--repeat 2 --counters none -q -f csv -o "$tmp/m32.csv"
	check "the 32-bit fill runs" [ "$rc" -eq 0 ]
	# One page over the count of the smallest row: 4096 / (4 MiB / 4000).
	compare_rows "$tmp/m32.csv" "$PLAIN32" 3.91
else
	skip "the 32-bit fill equals the plain 32-bit program's" "$prereq_why"
fi
test_done
