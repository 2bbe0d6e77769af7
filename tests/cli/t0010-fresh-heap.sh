#!/bin/sh
# The measured allocator is found as a fresh program finds it: whatever the
# measuring process does for itself (PAPI's set-up, reading /proc, stdio) is
# served by its private heap (src/platform/heap.h), so a row measured with counters
# equals the row measured with --counters none, at every size across glibc's
# mmap threshold (128 KiB), for every backend, built in or preloaded.
# check: host
. "$(dirname "$0")/lib.sh"

test_lazy_prereq GLIBC_4K '
	"$AB" --sizes 4 --total 4K --repeat 1 --backend arena -f json >"$tmp/host.json" 2>/dev/null
	libc=$(jq_get "$tmp/host.json" host.libc) page=$(jq_get "$tmp/host.json" host.page_size)
	[ "$libc" = glibc ] && [ "$page" = 4096 ] || { echo "libc $libc, page $page B"; exit 1; }'

# jemalloc places large extents at random offsets drawn from addresses:
# without address-space randomisation every backend gives the same figure in
# every run, so one run of each is compared, to within the resolution.
test_lazy_prereq NO_ASLR '
	setarch "$(uname -m)" -R true 2>/dev/null || { echo "setarch -R cannot turn off address randomisation here"; exit 1; }'

sizes=4,40000,131072,200000,1048576
if test_have_prereq 'NO_ASLR,!ASAN'; then
	norandom() { setarch "$(uname -m)" -R "$@"; }
	rc=0
	norandom "$AB" --sizes $sizes --total 8M --backend all --repeat 1 -q -f json --counters default \
		-o "$tmp/on.json" 2>"$tmp/err" || rc=$?
	check "with counters: exit 0" [ "$rc" -eq 0 ]
	norandom "$AB" --sizes $sizes --total 8M --backend all --repeat 1 -q -f json --counters none \
		-o "$tmp/off.json" 2>"$tmp/err" || rc=$?
	check "without counters: exit 0" [ "$rc" -eq 0 ]
	n=$(jq_get "$tmp/on.json" 'results#')
	check "$n rows, one per backend and size" [ "$n" -ge 20 ]
	i=0
	while [ "$i" -lt "$n" ]; do
		r="results[$i]"
		b=$(jq_get "$tmp/on.json" "$r.backend") s=$(jq_get "$tmp/on.json" "$r.size")
		o="results[backend=$b,size=$s]"
		on=$(jq_get "$tmp/on.json" "$r.overhead_bytes.median")
		off=$(jq_get "$tmp/off.json" "$o.overhead_bytes.median")
		tol=$(jq_get "$tmp/on.json" "$r.resolution_bytes")
		check "$b $s B: the same overhead with and without counters ($on, $off; within $tol)" \
			near "$on" "$off" "$tol"
		i=$((i + 1))
	done
else
	skip "rows with and without counters agree" "$prereq_why"
fi

# The case that showed it: PAPI's set-up freed a large block, glibc raised
# its mmap threshold, and 128 KiB chunks came from the heap (15 B instead of
# a page each).
if test_have_prereq 'GLIBC_4K,!ASAN'; then
	run_ab --sizes 131072 --total 4M --backend malloc --repeat 1 -q -f json --counters default
	got=$(jq_get "$tmp/out" 'results[0].overhead_bytes.median')
	check "glibc, counters on: 131072-byte chunks are mmapped ($got B, a page each)" \
		near "$got" 4096 32
else
	skip "glibc, counters on: 131072-byte chunks are mmapped" "$prereq_why"
fi

# An allocator whose malloc always fails: only the measured loop calls it, so
# the row says which allocation failed (the measuring process's own work,
# argument decoding included, never reaches it).
test_lazy_prereq CC '${CC:-cc} --version >/dev/null 2>&1 || { echo "no C compiler (${CC:-cc})"; exit 1; }'
if test_have_prereq 'CC,!ASAN'; then
	cat >"$tmp/null.c" <<'EOC'
#include <errno.h>
#include <stddef.h>
void *malloc(size_t n) { (void)n; errno = ENOMEM; return NULL; }
void *calloc(size_t a, size_t b) { (void)a; (void)b; errno = ENOMEM; return NULL; }
void *realloc(void *p, size_t n) { (void)p; (void)n; errno = ENOMEM; return NULL; }
void free(void *p) { (void)p; }
EOC
	${CC:-cc} -shared -fPIC -o "$tmp/libnull.so" "$tmp/null.c"
	run_ab --preload null="$tmp/libnull.so" --backend null --sizes 40 --total 1M --repeat 1 -q -f json
	check "a malloc that returns NULL: exit 1" [ "$rc" -eq 1 ]
	check "... its row says which allocation failed" \
		sh -c "\"$JSONQ\" '$tmp/out' 'results[0].error' | grep -q '^allocation 1 of 26214 (40 bytes) failed'"
	check "... and nothing else is blamed" sh -c "! grep -q internal '$tmp/err'"
else
	skip "a malloc that returns NULL" "$prereq_why"
fi

test_done
