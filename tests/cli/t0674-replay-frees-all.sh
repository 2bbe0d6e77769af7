#!/bin/sh
# Issue 26: a replayed program that frees everything before it exits has
# RSS/live at peak (peak RSS over peak live bytes), not n/a: random's rule
# (live bytes at the end) is not replay's.
. "$(dirname "$0")/lib.sh"

if ! test_have_prereq CC,NOASAN; then
	skip "replay of a program that frees everything" "$prereq_why"
	test_done
	exit 0
fi
cat >"$tmp/freeall.c" <<'C'
#include <stdlib.h>
int main(void)
{
	static void *p[2000];
	for (int i = 0; i < 2000; i++)
		p[i] = malloc(100 + i % 50);
	for (int i = 0; i < 2000; i++)
		free(p[i]);
	return 0;
}
C
${CC:-cc} -O0 -o "$tmp/freeall" "$tmp/freeall.c"
record_trace "$tmp/f.trace" "$tmp/freeall" || not_ok "record the program" "$(cat "$tmp/record.err")"
"$AB" report "$tmp/f.trace" -f json >"$tmp/report.json"
check "the program frees everything it allocated" \
	[ "$(jq_get "$tmp/report.json" live_bytes_end)" = 0 ]
run_ab --workload replay --trace "$tmp/f.trace" --backend malloc,pool --repeat 2 -q -f json -o "$tmp/r.json"
check "replay exits 0" [ "$rc" -eq 0 ]
for b in malloc pool; do
	check "$b: RSS/live at peak is peak RSS over peak live bytes" \
		awk -v r="$(jq_get "$tmp/r.json" "results[backend=$b].peak_rss_bytes.median")" \
		    -v f="$(jq_get "$tmp/r.json" "results[backend=$b].fragmentation.median")" \
		    -v l="$(jq_get "$tmp/r.json" "results[backend=$b].peak_live_bytes")" \
		    'BEGIN { exit !(l > 0 && f != "" && (f - r / l) ^ 2 < 1e-6) }'
done
"$AB" show "$tmp/r.json" >"$tmp/shown"
check "the text has no n/a in the table" sh -c "! grep -Eq '^(malloc|pool) .*n/a' '$tmp/shown'"
test_done
