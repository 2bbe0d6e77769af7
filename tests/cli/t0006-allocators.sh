#!/bin/sh
# The split of the malloc family's overhead into slack and metadata: glibc's
# usable size is its chunk minus 8, its metadata the 8-byte header; pool and
# arena have none; the text report shows it in a second table.
. "$(dirname "$0")/lib.sh"

# median FILE PATH: a statistic's median.
median() { jq_get "$1" "$2.median"; }
# allocator_stat FILE ROW NAME: one of the allocator's own statistics of a result row.
allocator_stat() { jq_get "$1" "$2.allocator_stats" | sed -n "s/.*\"$3\":\([0-9]*\).*/\1/p"; }
# minus A B: A - B, printed exactly enough for near().
minus() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.9f\n", a - b }'; }

# ---- glibc: usable size = chunk - 8, slack and metadata ----
run_ab --sizes 4,40,400,4000 --backend malloc,pool --total 2M --repeat 1 -q -f json -o "$tmp/g.json"
j=$tmp/g.json
check "malloc run exits 0" [ "$rc" -eq 0 ]
check "pool rows have no allocator" [ "$(jq_get "$j" 'results[backend=pool,size=4].allocator')" = null ]
check "pool rows have no usable size" [ "$(jq_get "$j" 'results[backend=pool,size=4].usable_bytes')" = null ]
if [ $asan = 1 ]; then
	skip "glibc usable sizes" "built with AddressSanitizer, whose malloc this is"
	check "malloc reports the sanitizer's allocator" [ "$(jq_get "$j" 'results[backend=malloc,size=4].allocator.name')" = asan ]
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
check "text: the breakdown table" grep -Eq '^backend +B +B +B +B +version$' "$tmp/out"
[ $asan = 1 ] || check "text: malloc 4 usable 24, slack 20" grep -Eq '^malloc +4 +24\.00 +20\.00 +8\.[0-9]+ +glibc [0-9.]+$' "$tmp/out"
check "text: arena has no breakdown row" [ "$(grep -Ec '^arena +(4|40) +[0-9.]+ +[0-9.]+ +[-0-9.]+\*? +[a-z]' "$tmp/out")" -eq 0 ]
check "text: breakdown fits 80 columns" [ "$(awk '/^(backend|malloc|arena) / && length > 80' "$tmp/out" | wc -l)" -eq 0 ]
