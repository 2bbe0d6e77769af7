#!/bin/sh
# Hostile or unusual input (issue 45): sizes up to SIZE_MAX in a trace's
# histogram.
. "$(dirname "$0")/lib.sh"

RECORD_LIB=$ABBUILD/liballocbench-record.so
test_lazy_prereq RECORD '[ -f "$RECORD_LIB" ] || { echo "no $RECORD_LIB (make check builds it)"; exit 1; }'

# ---- a failed malloc(SIZE_MAX - 10): the top size bucket

cat >"$tmp/huge.c" <<'EOF'
#include <stdint.h>
#include <stdlib.h>

int main(void)
{
	volatile size_t n = SIZE_MAX - 10;  /* volatile: no warning of a size too large */
	void *p = malloc(n);

	free(p);
	return p != NULL;
}
EOF
if test_have_prereq CC,RECORD && ${CC:-cc} -o "$tmp/huge" "$tmp/huge.c" 2>"$tmp/cc.err" &&
   "$AB" record -o "$tmp/huge.trace" -- "$tmp/huge" 2>"$tmp/err"; then
	run_ab report "$tmp/huge.trace"
	check "report: a malloc of SIZE_MAX - 10 is in the top bucket, 2^63 + 1 to 2^64 - 1" \
		grep -Eq '^ +9223372036854775809\.\.18446744073709551615 B +1 ' "$tmp/out"
	check "report: nothing on stderr (no sanitizer's shift of 64)" test ! -s "$tmp/err"
	run_ab report -f json "$tmp/huge.trace"
	check "report -f json: the top bucket's max_bytes is 2^64 - 1, not 1" \
		le 18446744073709000000 "$(jq_get "$tmp/out" 'size_histogram[0].max_bytes')"
else
	skip "report of a malloc of SIZE_MAX - 10" "${prereq_why:-$(cat "$tmp/cc.err" "$tmp/err" 2>/dev/null)}"
fi

test_done
