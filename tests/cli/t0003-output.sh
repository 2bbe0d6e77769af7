#!/bin/sh
# The report's shape: the text table and the JSON contract (schema
# allocbench/1), -o written atomically, exit status 0 when all succeeded.
# check: host
. "$(dirname "$0")/lib.sh"

run_ab --sizes 4,40,4000 --total 1M --repeat 2 -q -f json -o "$tmp/r.json"
check "json run exits 0" [ "$rc" -eq 0 ]
check "-o leaves stdout empty" [ ! -s "$tmp/out" ]
check "-o leaves no temporary file" [ "$(ls "$tmp" | grep -c tmp)" -eq 0 ]
j=$tmp/r.json
check "schema" [ "$(jq_get "$j" schema)" = allocbench/2 ]
check "tool name" [ "$(jq_get "$j" tool.name)" = allocbench ]
check "tool version" [ "$(jq_get "$j" tool.version)" = "$("$AB" --version | cut -d' ' -f2)" ]
for f in kernel cpu_model cpus libc libc_version page_size thp hostname mem_available_bytes; do
	check "host.$f present" sh -c '"$1" "$2" "$3" >/dev/null' - "$JSONQ" "$j" "host.$f"
done
avail_kib=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
check "host.mem_available_bytes is MemAvailable (within 25%)" \
	near "$(jq_get "$j" host.mem_available_bytes)" $((avail_kib * 1024)) $((avail_kib * 256))
check "config.total_bytes" [ "$(jq_get "$j" config.total_bytes)" = 1048576 ]
check "config.repeat" [ "$(jq_get "$j" config.repeat)" = 2 ]
check "config.touch" [ "$(jq_get "$j" config.touch)" = pages ]
check "config.align natural" [ "$(jq_get "$j" config.align)" = natural ]
check "config.sizes" [ "$(jq_get "$j" config.sizes)" = "[4,40,4000]" ]
check "config.backends" [ "$(jq_get "$j" config.backends)" = '["malloc","pool","pool-locked","arena"]' ]
check "config.workload" [ "$(jq_get "$j" config.workload)" = fill ]
check "one result per backend and size" [ "$(jq_get "$j" 'results#')" = 12 ]
check "one floor per size" [ "$(jq_get "$j" 'floor#')" = 3 ]
check "floor has alloc_ns" le 0 "$(jq_get "$j" 'floor[0].alloc_ns.median')"
check "the floor is measured as often as the cells (--repeat 2)" \
	[ "$(jq_get "$j" 'floor[0].alloc_ns.runs#')" = 2 -a "$(jq_get "$j" 'floor[2].alloc_ns.runs#')" = 2 ]
# x floor pairs each run with the floor run next to it.
xf=$(jq_get "$j" 'results[backend=pool,size=40].x_floor.runs[1]')
al=$(jq_get "$j" 'results[backend=pool,size=40].alloc_ns.runs[1]')
fl=$(jq_get "$j" 'floor[1].alloc_ns.runs[1]')
check "x floor of run 2 = its alloc ns over the floor's run 2" \
	awk -v x="$xf" -v a="$al" -v f="$fl" 'BEGIN { d = x - a / f; exit !(f > 0 && d < 1e-9 && d > -1e-9) }'
for b in malloc pool pool-locked arena; do
	for s in 4 40 4000; do
		r="results[backend=$b,size=$s]"
		check "$b $s status ok" [ "$(jq_get "$j" "$r.status")" = ok ]
		check "$b $s count = total / size" [ "$(jq_get "$j" "$r.count")" = $((1048576 / s)) ]
		check "$b $s workload" [ "$(jq_get "$j" "$r.workload")" = fill ]
		for m in overhead_bytes alloc_ns free_ns page_faults free_page_faults x_floor warm_alloc_ns warm_free_ns warm_page_faults; do
			check "$b $s $m has two runs" [ "$(jq_get "$j" "$r.$m.runs#")" = 2 ]
			check "$b $s $m min <= median <= max" \
				sh -c "awk -v a=$(jq_get "$j" "$r.$m.min") -v b=$(jq_get "$j" "$r.$m.median") -v c=$(jq_get "$j" "$r.$m.max") 'BEGIN{exit !(a<=b && b<=c)}'"
		done
		check "$b $s alloc_ns positive" le 0.000001 "$(jq_get "$j" "$r.alloc_ns.median")"
		check "$b $s rss_after >= rss_before" le "$(jq_get "$j" "$r.rss_before_bytes")" "$(jq_get "$j" "$r.rss_after_bytes")"
		check "$b $s resolution is a page over the count" near "$(jq_get "$j" "$r.resolution_bytes")" "$(awk -v s=$s 'BEGIN{print 4096/int(1048576/s)}')" 0.0001
	done
done
check "malloc reports its 16-byte alignment" [ "$(jq_get "$j" 'results[backend=malloc,size=4].align')" = 16 ]
check "pool 4 at natural alignment 4" [ "$(jq_get "$j" 'results[backend=pool,size=4].align')" = 4 ]
check "arena 40 at natural alignment 8" [ "$(jq_get "$j" 'results[backend=arena,size=40].align')" = 8 ]
check "pool 4000 at natural alignment capped at 16" [ "$(jq_get "$j" 'results[backend=pool,size=4000].align')" = 16 ]

run_ab --sizes 40 --backend pool,arena --total 1M --repeat 1 --align 64 -f json
check "--align reported in config" [ "$(jq_get "$tmp/out" config.align)" = 64 ]
check "--align reported per result" [ "$(jq_get "$tmp/out" 'results[backend=arena,size=40].align')" = 64 ]

# The text table: header, one row per backend and size, medians.
run_ab --sizes 4,40 --total 1M --repeat 1 -q
check "text run exits 0" [ "$rc" -eq 0 ]
check "text header names the workload and total" grep -q '^allocbench .*fill, 1 MiB per measurement, touch pages' "$tmp/out"
check "text header names the host" grep -Eq '^host: .*glibc [0-9.]+, [0-9]+ CPU' "$tmp/out"
check "text table headings" grep -Eq '^backend +B +count +KiB +B/chunk +ns +ns +faults +floor +ns$' "$tmp/out"
check "text has eight rows" [ "$(grep -Ec '^(malloc|pool|pool-locked|arena) +(4|40) +[0-9]+ ' "$tmp/out")" -eq 8 ]
check "text row has ten columns" [ "$(grep -E '^pool +40 ' "$tmp/out" | awk '{print NF}')" -eq 10 ]
check "text fits 80 columns" [ "$(awk 'length > 80' "$tmp/out" | wc -l)" -eq 0 ]
check_if GLIBC_MALLOC "text malloc 4 overhead is 28 B" grep -Eq '^malloc +4 +262144 +[0-9]+ +28\.[0-9]+ ' "$tmp/out"
check "quiet run prints nothing on stderr" [ ! -s "$tmp/err" ]

# Every line within 80 columns on a host whose CPU model is long (the host
# line of a machine with "Intel(R) Xeon(R) Processor" was 86 columns), whose
# names are long, and with many sizes: /proc/cpuinfo replaced in a private
# mount namespace.
long_model="Intel(R) Xeon(R) Processor @ 2.10GHz (a fake model name, long enough to need three lines of its own)"
if test_have_prereq UNSHARE; then
	sed "s/^model name.*/model name\t: $long_model/" /proc/cpuinfo >"$tmp/cpuinfo"
	with_file "$tmp/cpuinfo" /proc/cpuinfo "$AB" --sizes 1,2,3,4,5,6,7,8,9,10,11,12,13,14 \
		--backend arena --align 4096 --total 64K --repeat 1 -q >"$tmp/long.txt" 2>"$tmp/err"
	check "long CPU model: exits 0" [ $? -eq 0 ]
	check "long CPU model: every text line fits 80 columns" [ "$(awk 'length > 80' "$tmp/long.txt" | wc -l)" -eq 0 ]
	check "long CPU model: the whole model is there" \
		sh -c 'sed -n "/^host:/,/^page/p" "$1" | tr "\n" " " | tr -s " " | grep -qF "$2"' - "$tmp/long.txt" "$long_model"
	with_file "$tmp/cpuinfo" /proc/cpuinfo "$AB" --sizes 4 --backend arena --total 64K --repeat 1 -q -f json >"$tmp/long.json"
	check "long CPU model: the JSON has it whole" [ "$(jq_get "$tmp/long.json" host.cpu_model)" = "$long_model" ]
else
	skip "long CPU model: every text line fits 80 columns" "$prereq_why"
fi

# -o replaces a file atomically and keeps the old one when the run is refused.
echo old >"$tmp/keep.txt"
run_ab --sizes 4 --total 1M --repeat 1 --align 3 -o "$tmp/keep.txt"
check "refused run leaves -o untouched" [ "$(cat "$tmp/keep.txt")" = old ]
run_ab --sizes 4 --total 1M --repeat 1 -q -o "$tmp/keep.txt"
check "-o replaces the file" grep -q '^backend' "$tmp/keep.txt"

test_done
