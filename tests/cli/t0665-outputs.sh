#!/bin/sh
# Outputs that never destroy: an output that is one of the command's inputs,
# or another of its outputs, is refused (2) by device and inode, whatever
# the names (symbolic and hard links, ./NAME); a SIGKILL of run leaves no
# temporary file (the file has no name until it is linked into place); and
# where the file system has no O_TMPFILE, the named one is still cleaned up.
. "$(dirname "$0")/lib.sh"

small() { run_ab --sizes 40 --backend malloc --total 64K --repeat 1 -q "$@"; }
# refused NAME FILE PATTERN ARGS...: allocbench ARGS exits 2 with stderr
# matching PATTERN, and FILE is left as it was.
refused() {
	name=$1 file=$2 pattern=$3
	shift 3
	cp "$file" "$tmp/before"
	run_ab "$@"
	check "$name: exit status 2" [ "$rc" -eq 2 ]
	check "$name: the message names both" grep -Eq -- "$pattern" "$tmp/err"
	check "$name: '$(basename "$file")' is left as it was" cmp -s "$file" "$tmp/before"
}

# ---- run: --trace, --baseline, -o and the exports ----
test_lazy_prereq TRACE 'test_have_prereq NOASAN || { echo "$prereq_why"; exit 1; }; record_trace "$tmp/t.trace" || { echo "cannot record $THREADS"; exit 1; }'
# A real trace where one can be recorded; elsewhere any file: the refusal comes first.
test_have_prereq TRACE || echo "not a trace" >"$tmp/t.trace"
ln "$tmp/t.trace" "$tmp/hard.trace"
ln -s t.trace "$tmp/link.trace"
refused "--trace T -o T" "$tmp/t.trace" \
	"the output '.*/t.trace' is also an input \(--trace '.*/t.trace'\)" \
	--workload replay --trace "$tmp/t.trace" --backend malloc --repeat 1 -q -o "$tmp/t.trace"
refused "--trace T -o HARD-LINK-TO-T" "$tmp/t.trace" \
	"the output '.*/hard.trace' is also an input \(--trace '.*/t.trace'\)" \
	--workload replay --trace "$tmp/t.trace" --backend malloc --repeat 1 -q -o "$tmp/hard.trace"
refused "--trace LINK-TO-T --export-json T" "$tmp/t.trace" \
	"the output '.*/t.trace' is also an input \(--trace '.*/link.trace'\)" \
	--workload replay --trace "$tmp/link.trace" --backend malloc --repeat 1 -q \
	--export-json "$tmp/t.trace"

small -f json -o "$tmp/base.json"
ln "$tmp/base.json" "$tmp/hard-base.json"
refused "--baseline B -o B" "$tmp/base.json" \
	"the output '.*/base.json' is also an input \(--baseline '.*/base.json'\)" \
	--sizes 40 --backend malloc --total 64K --repeat 1 -q -f json --baseline "$tmp/base.json" \
	-o "$tmp/base.json"
refused "--baseline B --export-csv HARD-LINK-TO-B" "$tmp/base.json" \
	"the output '.*/hard-base.json' is also an input \(--baseline '.*/base.json'\)" \
	--sizes 40 --backend malloc --total 64K --repeat 1 -q --baseline "$tmp/base.json" \
	--export-csv "$tmp/hard-base.json"

echo old >"$tmp/same.txt"
ln -s same.txt "$tmp/link-same.txt"
ln "$tmp/same.txt" "$tmp/hard-same.txt"
refused "-o X --export-csv LINK-TO-X" "$tmp/same.txt" \
	"'.*/same.txt' \(--output\) and '.*/link-same.txt' \(--export-csv\) are the same file" \
	--sizes 40 --backend malloc --total 64K --repeat 1 -q -o "$tmp/same.txt" \
	--export-csv "$tmp/link-same.txt"
refused "--export-json X --export-markdown HARD-LINK-TO-X" "$tmp/same.txt" \
	"'.*/same.txt' \(--export-json\) and '.*/hard-same.txt' \(--export-markdown\) are the same file" \
	--sizes 40 --backend malloc --total 64K --repeat 1 -q --export-json "$tmp/same.txt" \
	--export-markdown "$tmp/hard-same.txt"
# Not there yet: two names of the file they would create.
small -o "$tmp/new.txt" --export-csv "$tmp/./new.txt"
check "-o NEW --export-csv ./NEW: refused (2)" [ "$rc" -eq 2 ]
check "-o NEW --export-csv ./NEW: nothing written" [ ! -e "$tmp/new.txt" ]
# Standard output, when it is the file an export names.
"$AB" --sizes 40 --backend malloc --total 64K --repeat 1 -q --export-csv /dev/stdout \
	>"$tmp/stdout.txt" 2>"$tmp/err"
check "--export-csv /dev/stdout into the report's own file: refused (2)" \
	[ $? -eq 2 ] && grep -q "'standard output' (the report) and '/dev/stdout' (--export-csv) are the same file" "$tmp/err"
small -o "$tmp/a.txt" --export-csv "$tmp/b.csv" --export-json "$tmp/c.json"
check "distinct outputs are still written" [ "$rc" -eq 0 -a -s "$tmp/a.txt" -a -s "$tmp/b.csv" -a -s "$tmp/c.json" ]
# A character device takes any number of writers (a copy of /dev/null, never the real one).
test_lazy_prereq MKNOD 'mknod "$tmp/null" c 1 3 2>/dev/null || { echo "cannot mknod (not root?)"; exit 1; }'
if test_have_prereq MKNOD; then
	small -o "$tmp/null" --export-csv "$tmp/null"
	check "-o DEVICE --export-csv DEVICE: allowed" [ "$rc" -eq 0 ]
	check "... and the device is still a device" [ -c "$tmp/null" ]
else
	skip "-o DEVICE --export-csv DEVICE" "$prereq_why"
fi

# ---- show, compare, plot: standard output is an output too ----
cp "$tmp/base.json" "$tmp/in.json"
"$AB" show "$tmp/in.json" >>"$tmp/in.json" 2>"$tmp/err"
check "show R >>R: refused (2)" [ $? -eq 2 ] && grep -q "the output 'standard output' is also an input ('.*/in.json')" "$tmp/err"
check "show R >>R: R is left as it was" cmp -s "$tmp/in.json" "$tmp/base.json"
ln "$tmp/in.json" "$tmp/hard-in.json"
refused "compare A B -o HARD-LINK-TO-B" "$tmp/in.json" "the output '.*/hard-in.json' is also an input" \
	compare "$tmp/base.json" "$tmp/in.json" -o "$tmp/hard-in.json"

# ---- no temporary file after SIGKILL ----
# killed_run NAME FILE: run -o FILE with a measurement that hangs, SIGKILL it
# once the measuring process runs; $tmp/k holds FILE alone, or nothing.
killed_run() {
	ALLOCBENCH_TEST_FAULT=hang:pool "$AB" --sizes 4 --total 64K --repeat 1 \
		--backend arena,pool -q --timeout 60 -o "$tmp/k/$2" 2>/dev/null &
	pid=$!
	for i in $(seq 300); do
		[ -n "$(cat /proc/$pid/task/*/children 2>/dev/null)" ] && break
		sleep 0.1
	done
	sleep 0.2
	kill -KILL $pid
	wait $pid 2>/dev/null
	check "SIGKILL ($1): the run was killed" [ $? -eq 137 ]
}
mkdir "$tmp/k"
echo old >"$tmp/k/out.json"
killed_run "-o an existing file" out.json
check "SIGKILL (-o an existing file): no temporary file is left" [ "$(ls -a "$tmp/k" | tr '\n' ' ')" = ". .. out.json " ]
check "SIGKILL (-o an existing file): it is left as it was" [ "$(cat "$tmp/k/out.json")" = old ]
rm "$tmp/k/out.json"
killed_run "-o a new file" out.json
check "SIGKILL (-o a new file): nothing is left" [ "$(ls -a "$tmp/k" | tr '\n' ' ')" = ". .. " ]

# ---- a file system without O_TMPFILE: a named temporary file, cleaned up ----
cat >"$tmp/notmpfile.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
static int refused(int flags)
{
	const char *mark = getenv("NOTMPFILE_MARK");
	FILE *f;

	if ((flags & O_TMPFILE) != O_TMPFILE)
		return 0;
	if (mark && (f = fopen(mark, "a"))) {
		fputs("refused\n", f);
		fclose(f);
	}
	errno = EOPNOTSUPP;
	return 1;
}
#define WRAP(name) \
int name(const char *path, int flags, ...) \
{ \
	int (*next)(const char *, int, ...) = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, #name); \
	va_list ap; \
	int mode; \
	va_start(ap, flags); \
	mode = va_arg(ap, int); \
	va_end(ap); \
	return refused(flags) ? -1 : next(path, flags, mode); \
}
WRAP(open)
WRAP(open64)
C
test_lazy_prereq NOTMPFILE '[ $asan = 0 ] || { echo "no preload under AddressSanitizer"; exit 1; }; ${CC:-cc} -shared -fPIC -o "$tmp/notmpfile.so" "$tmp/notmpfile.c" -ldl || { echo "cannot build a shared library with ${CC:-cc}"; exit 1; }'
if test_have_prereq NOTMPFILE; then
	rm -f "$tmp/k/"*
	echo old >"$tmp/k/out.json"
	NOTMPFILE_MARK=$tmp/mark LD_PRELOAD=$tmp/notmpfile.so \
		"$AB" --sizes 40 --backend malloc --total 64K --repeat 1 -q -f json -o "$tmp/k/out.json" 2>"$tmp/err"
	check "no O_TMPFILE: the run writes -o" [ $? -eq 0 ] && jq_get "$tmp/k/out.json" schema >/dev/null
	check "no O_TMPFILE: O_TMPFILE was refused" grep -q refused "$tmp/mark"
	check "no O_TMPFILE: no temporary file is left" [ "$(ls -a "$tmp/k" | tr '\n' ' ')" = ". .. out.json " ]
	echo old >"$tmp/k/out.json"
	NOTMPFILE_MARK=$tmp/mark LD_PRELOAD=$tmp/notmpfile.so ALLOCBENCH_TEST_FAULT=hang:pool \
		"$AB" --sizes 4 --total 64K --repeat 1 --backend arena,pool -q --timeout 60 \
		-o "$tmp/k/out.json" 2>/dev/null &
	pid=$!
	for i in $(seq 300); do
		[ -n "$(cat /proc/$pid/task/*/children 2>/dev/null)" ] && break
		sleep 0.1
	done
	check "no O_TMPFILE: the named temporary file is there while it runs" \
		[ -n "$(find "$tmp/k" -name 'out.json.tmp*')" ]
	kill -TERM $pid
	wait $pid 2>/dev/null
	check "no O_TMPFILE: SIGTERM ends it (143)" [ $? -eq 143 ]
	check "no O_TMPFILE: SIGTERM leaves no temporary file" [ "$(ls -a "$tmp/k" | tr '\n' ' ')" = ". .. out.json " ]
	check "no O_TMPFILE: -o is left as it was" [ "$(cat "$tmp/k/out.json")" = old ]
else
	skip "no O_TMPFILE" "$prereq_why"
fi

test_done
