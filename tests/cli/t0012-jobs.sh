#!/bin/sh
# --jobs: measuring processes side by side. Overhead is a property of one
# process's resident memory, so the figures of --jobs 2 equal those of
# --jobs 1 exactly for the deterministic backends; the report records jobs,
# the text says the times were measured N at a time, compare does not gate
# times across different jobs; a signal stops every child.
# check: host
. "$(dirname "$0")/lib.sh"

sizes=16,40,400,4000
"$AB" --sizes $sizes --backend pool,arena,malloc --total 1M --repeat 2 -q -f json \
	-o "$tmp/j1.json" 2>"$tmp/err1"
check "--jobs 1: exits 0" [ $? -eq 0 ]
"$AB" --sizes $sizes --backend pool,arena,malloc --total 1M --repeat 2 -q -f json --jobs 2 \
	-o "$tmp/j2.json" 2>"$tmp/err2"
check "--jobs 2: exits 0" [ $? -eq 0 ]
check "--jobs 2: config.jobs is 2" [ "$(jq_get "$tmp/j2.json" config.jobs)" = 2 ]
check "--jobs 1: config.jobs is 1" [ "$(jq_get "$tmp/j1.json" config.jobs)" = 1 ]
check "--jobs 2: every row measured" [ "$(jq_get "$tmp/j2.json" 'results[size=4000,backend=malloc].status')" = ok ]
# Under the sanitizers the measuring process's own runtime (its shadow
# memory, its quarantine) moves the resident set from run to run, with or
# without --jobs: exact figures need a plain build.
if test_have_prereq '!SANITIZED'; then
	same=1
	for b in pool arena; do
		for s in 16 40 400 4000; do
			a=$(jq_get "$tmp/j1.json" "results[backend=$b,size=$s].overhead_bytes.median")
			c=$(jq_get "$tmp/j2.json" "results[backend=$b,size=$s].overhead_bytes.median")
			[ "$a" = "$c" ] || { same=0; echo "# $b $s: $a with --jobs 1, $c with --jobs 2"; }
		done
	done
	check "pool and arena: the same overhead with --jobs 2, to the byte" [ $same = 1 ]
else
	skip "pool and arena: the same overhead with --jobs 2, to the byte" "$prereq_why"
fi
if test_have_prereq GLIBC_MALLOC,PAGE_4K,THP_NOT_ALWAYS; then
	same=1
	for s in 16 40 400; do
		a=$(jq_get "$tmp/j1.json" "results[backend=malloc,size=$s].overhead_bytes.median")
		c=$(jq_get "$tmp/j2.json" "results[backend=malloc,size=$s].overhead_bytes.median")
		[ "$a" = "$c" ] || { same=0; echo "# malloc $s: $a with --jobs 1, $c with --jobs 2"; }
	done
	check "glibc malloc: the same overhead with --jobs 2, to the byte" [ $same = 1 ]
else
	skip "glibc malloc: the same overhead with --jobs 2" "$prereq_why"
fi
check "--jobs 2: the report validates" "$SCHEMACHECK" "$top/data/allocbench.schema.json" "$tmp/j2.json"

# Every workload and backend runs with --jobs.
for w in churn random threads; do
	case $w in
	churn) extra="--rounds 2" ;;
	threads) extra="--rounds 2 --threads 2" ;;
	*) extra= ;;
	esac
	# shellcheck disable=SC2086
	"$AB" --workload $w --sizes 40,64 --backend pool,pool-locked,arena,malloc --total 256K \
		--repeat 2 $extra -q -f json --jobs 3 -o "$tmp/$w.json" 2>"$tmp/err"
	check "--jobs 3, $w: exits 0, every row ok" sh -c "[ $? -eq 0 ] && [ \"\$('$JSONQ' '$tmp/$w.json' 'results[backend=malloc].status')\" = ok ] && ! grep -q '\"status\": *\"failed\"' '$tmp/$w.json'"
done

# What the text says, and what compare gates.
"$AB" --sizes 40 --backend pool --total 256K --repeat 1 --jobs 2 >"$tmp/text" 2>/dev/null
check "text: the times were measured 2 at a time" grep -q 'times measured 2 at a time (--jobs)' "$tmp/text"
"$AB" --sizes 40 --backend pool --total 256K --repeat 1 -f markdown --jobs 2 >"$tmp/md" 2>/dev/null
check "markdown: the same" grep -q 'times measured 2 at a time (--jobs)' "$tmp/md"
"$AB" --sizes 40 --backend pool --total 256K --repeat 1 >"$tmp/text1" 2>/dev/null
check "text: nothing said with --jobs 1" sh -c "! grep -q 'at a time' '$tmp/text1'"
"$AB" compare --gate-time "$tmp/j1.json" "$tmp/j2.json" >"$tmp/cmp" 2>&1
check "compare across jobs: exits 0 (the overhead is unchanged)" [ $? -eq 0 ]
check "compare across jobs: says why times are not gated" \
	sh -c "tr '\n' ' ' <'$tmp/cmp' | tr -s ' ' | grep -q 'time: not gated: the baseline measured 1 at a time (--jobs), the current 2'"
check "compare across jobs: no time verdict" sh -c "grep 'alloc ns' '$tmp/cmp' | grep -q 'not gated' && ! grep 'alloc ns' '$tmp/cmp' | grep -q 'p 0'"
"$AB" compare --gate-time -f json "$tmp/j1.json" "$tmp/j2.json" >"$tmp/cmp.json" 2>/dev/null
check "compare JSON: time_other_jobs counts them" [ "$(jq_get "$tmp/cmp.json" summary.time_other_jobs)" = 24 ]
doctor "$tmp/j1.json" config.jobs '=1.5' "$tmp/bad.json"
"$AB" compare "$tmp/bad.json" "$tmp/j2.json" >/dev/null 2>"$tmp/err"
check "compare: a config.jobs that is no whole number is refused" \
	sh -c "[ $? -eq 2 ] && grep -q 'config.jobs: 1.5 is not a whole number from 1 to 256' '$tmp/err'"

# Bad values, named.
expect_usage "--jobs -1 refused" "invalid --jobs '-1'" --jobs -1
expect_usage "--jobs 257 refused" "invalid --jobs '257'.*0, one per CPU, to 256" --jobs 257
expect_usage "--jobs x refused" "invalid --jobs 'x'" --jobs x
"$AB" --sizes 4,8,16 --backend pool,arena --total 64K --repeat 2 --jobs 0 -q -f json \
	>"$tmp/j0.json" 2>/dev/null
cpus=$(getconf _NPROCESSORS_ONLN)
want=$((cpus < 15 ? cpus : 15))
check "--jobs 0: one per CPU ($cpus), at most one per measurement (15)" \
	[ "$(jq_get "$tmp/j0.json" config.jobs)" = $want ]
"$AB" --sizes 40 --backend pool --total 64K --repeat 1 --jobs 4 -q -f json >"$tmp/j4.json" 2>/dev/null
check "--jobs 4 with 2 measurements: 2 ran at once" [ "$(jq_get "$tmp/j4.json" config.jobs)" = 2 ]

# A signal stops every measuring process of a --jobs run.
measuring_children() {
	for e in /proc/[0-9]*/environ; do
		d=${e%/environ}
		grep -qa "ABTEST=$tmp" "$e" 2>/dev/null || continue
		tr '\0' ' ' <"$d/cmdline" 2>/dev/null | grep -q __measure || continue
		[ "$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' "$d/status" 2>/dev/null)" = Z ] && continue
		echo "${d#/proc/}"
	done
}
ABTEST=$tmp ALLOCBENCH_TEST_FAULT=hang "$AB" --sizes 4,8,16 --total 64K --repeat 1 \
	--backend pool,arena --jobs 3 -q --timeout 120 -o "$tmp/hung.json" 2>"$tmp/err" &
pid=$!
n=0
for i in $(seq 300); do
	n=$(measuring_children | wc -l)
	[ "$n" -ge 3 ] && break
	sleep 0.1
done
check "--jobs 3: three measuring processes at once" [ "$n" -ge 3 ]
kill -TERM $pid
wait $pid 2>/dev/null
rc=$?
check "--jobs 3, SIGTERM: exit status 143" [ "$rc" -eq 143 ]
for i in $(seq 50); do [ -z "$(measuring_children)" ] && break; sleep 0.1; done
check "--jobs 3, SIGTERM: no measuring process is left" [ -z "$(measuring_children)" ]
for c in $(measuring_children); do kill -9 "$c"; done

test_done
