#!/bin/sh
# The build's output: one short line per step ("   CC src/platform/util.o") as git
# and Linux print, the whole compiler command with V=1.
. "$(dirname "$0")/lib.sh"

test_lazy_prereq MAKE 'command -v make >/dev/null || { echo "no make"; exit 1; }
	command -v "${CC:-cc}" >/dev/null || { echo "no C compiler"; exit 1; }
	cd "$top" && env -u MAKEFLAGS -u MAKELEVEL make -s BUILD="$tmp/probe" "$tmp/probe/config.mk" >/dev/null 2>&1 ||
		{ echo "pkg-config cannot find the build dependencies"; exit 1; }'

# One small object in a build folder of its own; nothing else is rebuilt.
build() {
	(cd "$top" && env -u MAKEFLAGS -u MAKELEVEL make "$@" 2>&1)
}
if test_have_prereq MAKE; then
	build BUILD="$tmp/q" "$tmp/q/src/platform/util.o" >"$tmp/quiet"
	check "the quiet build says CC and the object" [ "$(cat "$tmp/quiet")" = "   CC src/platform/util.o" ]
	check "the quiet build made the object" [ -s "$tmp/q/src/platform/util.o" ]
	build BUILD="$tmp/v" V=1 "$tmp/v/src/platform/util.o" >"$tmp/verbose"
	check "V=1 prints the whole compiler command" grep -q -- "-std=c11 .* -c -o $tmp/v/src/platform/util.o src/platform/util.c" "$tmp/verbose"
	check "V=1 prints no short line" sh -c "! grep -q '^   CC' '$tmp/verbose'"
	build BUILD="$tmp/q" "$tmp/q/build_flags.h" "$tmp/q/src/platform/build_info.o" >"$tmp/gen"
	check "the quiet build says GEN for a generated header" grep -qx '   GEN build_flags.h' "$tmp/gen"
	check "no quiet line is longer than 80 columns" [ "$(awk 'length > 80' "$tmp/quiet" "$tmp/gen" | wc -l)" -eq 0 ]
	# Issue 27: allocbench record works right after make run in a fresh clone.
	build -n V=1 BUILD="$tmp/dry" run >"$tmp/dry.out"
	check "make run builds the recording library before it runs ./allocbench" \
		sh -c 'l=$(grep -n -- "-shared .*-o $2/liballocbench-record.so" "$1" | cut -d: -f1); r=$(grep -nx "./allocbench" "$1" | cut -d: -f1)
		       [ -n "$l" ] && [ -n "$r" ] && [ "$l" -lt "$r" ]' sh "$tmp/dry.out" "$tmp/dry"
else
	for n in 1 2 3 4 5 6 7; do skip "the build's output ($n)" "$prereq_why"; done
fi
test_done
