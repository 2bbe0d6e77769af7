#!/bin/sh
# allocbench backends and --backend list: every backend, whether it runs
# here, and why not.
. "$(dirname "$0")/lib.sh"

# Any shared library of this machine stands in for an installed allocator:
# the list checks that the file is an ELF shared object, as --backend does.
libc=$(ldd "$AB" 2>/dev/null | awk '$1 ~ /^libc\.so/ { print $3; exit }')
mkdir -p "$tmp/empty" "$tmp/libs"

ALLOCBENCH_LIBRARY_PATH=$tmp/empty run_ab backends
check "backends exits 0" [ "$rc" -eq 0 ]
check "backends writes nothing on stderr" [ ! -s "$tmp/err" ]
check "backends has a header" grep -q '^backend  *available  *what$' "$tmp/out"
for b in malloc pool pool-locked arena; do
	check "backends: $b is built in and available" grep -Eq "^$b +yes " "$tmp/out"
done
for b in $DROP_IN; do
	check "backends: $b not installed is not available" grep -Eq "^$b +no " "$tmp/out"
done
# AddressSanitizer must be the first library loaded: a sanitizer build
# preloads nothing, and says so instead.
if ! test_have_prereq '!ASAN'; then
	check "backends: a sanitizer build says why it preloads nothing" \
		sh -c "tr -s ' \n' ' ' <'$tmp/out' | grep -q 'why not: this build uses AddressSanitizer'"
	test_done
	exit 0
fi
check "backends says why not, with the package" \
	sh -c "tr -s ' \n' ' ' <'$tmp/out' | grep -q 'why not: not installed: no libjemalloc.so.2 in \\\$ALLOCBENCH_LIBRARY_PATH ($tmp/empty); on Debian: apt-get install libjemalloc2'"
check "backends lines fit 80 columns" [ "$(awk 'length > 80' "$tmp/out" | wc -l)" -eq 0 ]

if [ -n "$libc" ] && [ -f "$libc" ]; then
	ln -s "$libc" "$tmp/libs/libmimalloc.so.2"
	ALLOCBENCH_LIBRARY_PATH=$tmp/libs run_ab backends --format json
	check "backends --format json exits 0" [ "$rc" -eq 0 ]
	check "json: nine backends" [ "$(jq_get "$tmp/out" 'backends#')" -eq 9 ]
	check "json: an installed allocator is available" \
		[ "$(jq_get "$tmp/out" 'backends[name=mimalloc].available')" = true ]
	check "json: its library is named" \
		sh -c "\"$JSONQ\" '$tmp/out' 'backends[name=mimalloc].what' | grep -q '$tmp/libs/libmimalloc.so.2'"
	check "json: a missing one is not" \
		[ "$(jq_get "$tmp/out" 'backends[name=tcmalloc].available')" = false ]
	check "json: with its reason and package" \
		[ "$(jq_get "$tmp/out" 'backends[name=tcmalloc].package')" = libtcmalloc-minimal4 ]
	check "json: a built-in has no reason" \
		sh -c "! \"$JSONQ\" '$tmp/out' 'backends[name=pool].reason' >/dev/null 2>&1"

	ALLOCBENCH_LIBRARY_PATH=$tmp/libs run_ab --backend list --preload "mine=$libc"
	check "--backend list exits 0" [ "$rc" -eq 0 ]
	check "--backend list measures nothing" sh -c "! grep -q 'per measurement' '$tmp/out'"
	check "--backend list is the list" grep -Eq '^mimalloc +yes ' "$tmp/out"
	check "--backend list names the --preload backends" grep -Eq '^mine +yes +preloads /.*libc\.so' "$tmp/out"
else
	for n in 1 2 3 4 5 6 7 8 9 10 11; do
		skip "backends with an installed library ($n)" "no libc.so found by ldd"
	done
fi

expect_usage "--backend list with others" "--backend list cannot be combined" --backend list,pool
expect_usage "backends takes no operand" "unexpected argument 'x'" backends x
expect_usage "backends --format is checked" "invalid --format 'csv' \(expected text or json\)" \
	backends --format csv
run_ab backends --help
check "backends --help" grep -q '^usage: allocbench backends' "$tmp/out"
test_done
