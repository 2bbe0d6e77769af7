#!/bin/sh
# Output that says what happened (issue 11, section 5): a ratio that does not
# exist is n/a (null in JSON), not 0; reserved names, limits and marks as the
# documentation promises; one number parser; input text made printable; the
# right message for getopt's errors and for a failed write.
# check: host
. "$(dirname "$0")/lib.sh"

# random with one chunk: 4 steps, alloc, free, alloc, free: nothing is alive
# at the end, so RSS/live (fragmentation) has no value.
for f in text markdown; do
	run_ab --workload random --sizes 64 --total 64 --repeat 1 --backend arena -q -f $f
	check "random, nothing live: exits 0 ($f)" [ "$rc" -eq 0 ]
	check "random, nothing live: RSS/live is n/a ($f)" \
		grep -Eq '^(\| )?arena .*(  |\| )n/a( \||  )' "$tmp/out"
	check "random, nothing live: no 0.00 ($f)" sh -c "! grep -q '0\.00' '$tmp/out'"
done
run_ab --workload random --sizes 64 --total 64 --repeat 1 --backend arena -q -f csv
col=$(head -n 1 "$tmp/out" | tr ',' '\n' | grep -n '^fragmentation_median$' | cut -d: -f1)
check "random, nothing live: CSV has a fragmentation column" [ -n "$col" ]
check "random, nothing live: CSV fragmentation is empty" \
	[ "$(sed -n 2p "$tmp/out" | cut -d, -f"${col:-1}")" = "" ]
run_ab --workload random --sizes 64 --total 64 --repeat 1 --backend arena -q -f json
check "random, nothing live: JSON fragmentation is absent (not measured)" \
	jq_absent "$tmp/out" 'results[0].fragmentation'
check "random, nothing live: JSON live_bytes is 0" \
	[ "$(jq_get "$tmp/out" 'results[0].live_bytes')" = 0 ]
cp "$tmp/out" "$tmp/random.json"
# The schema allows it absent, or null as allocbench/1 wrote it (and still a
# statistic where something lives).
"$SCHEMACHECK" "$top/data/allocbench.schema.json" "$tmp/random.json" >"$tmp/schema.err" 2>&1
check "random, nothing live: the schema does not reject a missing fragmentation" \
	sh -c "! grep -q fragmentation '$tmp/schema.err'"
"$JSONSET" "$tmp/random.json" 'results[0].fragmentation' '="0"' >"$tmp/bad.json"
"$SCHEMACHECK" "$top/data/allocbench.schema.json" "$tmp/bad.json" >"$tmp/schema.err" 2>&1
check "the schema describes fragmentation (a string is rejected)" \
	grep -q '/results/0/fragmentation' "$tmp/schema.err"
# compare and plot take no random report (no overhead, sizes mixed), but a
# missing fragmentation does not crash them: they refuse it as before.
run_ab compare "$tmp/random.json" "$tmp/random.json"
check "compare of a report without fragmentation refuses it (exit 2)" [ "$rc" -eq 2 ]
run_ab plot --metric fragmentation "$tmp/random.json"
check "plot of a report without fragmentation refuses it (exit 2)" [ "$rc" -eq 2 ]
run_ab --workload random --sizes 64 --total 64K --repeat 1 --backend arena -q -f json
check "random, something live: fragmentation is a number" \
	le 0.000001 "$(jq_get "$tmp/out" 'results[0].fragmentation.median')"


# "floor" is the floor's internal name, not a backend: refused before
# anything runs, where it used to crash the measuring process.
libc=$(ldd "$AB" | awk '$1 ~ /^libc\.so/ { print $3 }')
test_lazy_prereq LIBC_PATH '[ -f "$libc" ] || { echo "ldd does not show the C library"; exit 1; }'
if test_have_prereq LIBC_PATH; then
	expect_usage "--preload floor=PATH is refused, naming floor" \
		"invalid name 'floor' in --preload 'floor=.*': 'floor' is reserved for the floor" \
		--preload "floor=$libc" --backend floor --workload random --sizes 64 --total 64K --repeat 1
else
	skip "--preload floor=PATH is refused, naming floor" "$prereq_why"
fi
expect_usage "--backend floor is refused, naming floor" \
	"invalid backend 'floor' in --backend: 'floor' is reserved for the floor" \
	--backend floor --sizes 64 --total 64K --repeat 1
expect_usage "--backend pool,floor is refused, naming floor" \
	"invalid backend 'floor' in --backend: 'floor' is reserved" \
	--backend pool,floor --sizes 64 --total 64K --repeat 1

# A --pool-block larger than a pool's 32-bit links can address (4 GiB less a
# page at alignment 1) is refused before measuring, naming --pool-block and
# the limit, not "chunk ... does not fit".
expect_usage "--pool-block above the link range at alignment 1 names --pool-block and its limit" \
	"invalid --pool-block: 8589934592 bytes is more than a pool of 5-byte chunks aligned to 1 B can address, $((4294967295 / 4096 * 4096)) bytes" \
	--sizes 5 --pool-block 8G --backend pool --total 1M --repeat 1
check "--pool-block above the link range does not blame the chunk" sh -c "! grep -q chunk.*does.not.fit '$tmp/err'"
expect_usage "--pool-block above 64 GiB at alignment 16 names its limit" \
	"invalid --pool-block: 107374182400 bytes .* aligned to 16 B can address, $((68719476736 - $(getconf PAGESIZE))) bytes" \
	--sizes 16 --pool-block 100G --backend pool-locked --total 1M --repeat 1
expect_usage "--pool-block limit follows --align" "aligned to 2 B can address, $(( (4294967295 * 2) / $(getconf PAGESIZE) * $(getconf PAGESIZE) )) bytes" \
	--sizes 5 --align 2 --pool-block 9G --backend pool --total 1M --repeat 1
run_ab --sizes 5 --pool-block 8G --backend arena --total 64K --repeat 1 -q
check "--pool-block is not limited when no pool is measured" [ "$rc" -eq 0 ]
run_ab --sizes 5 --pool-block 4G --backend pool --align 2 --total 64K --repeat 1 -q
check "--pool-block within the link range runs" [ "$rc" -eq 0 ]

# A negative metadata is always marked (*) and explained, also within the
# page resolution (mimalloc's 64-byte class at 1M read -0.25 B unmarked).
test_lazy_prereq MIMALLOC '
	"$AB" --backend mimalloc --sizes 64 --total 64K --repeat 1 -q >/dev/null 2>&1 ||
		{ echo "mimalloc is not installed (Debian: libmimalloc2.0)"; exit 1; }'
if test_have_prereq MIMALLOC; then
	run_ab --backend mimalloc --sizes 64,128,4000 --total 1M -q
	# The breakdown table: every metadata value (column 5) below 0 ends in '*'.
	awk '/^where the overhead goes/ { t = 1 } t && $1 == "mimalloc" && $5 ~ /^-/ && $5 !~ /\*$/ { bad = 1; print }
	     END { exit bad }' "$tmp/out" >"$tmp/unmarked"
	check "mimalloc: every negative metadata is marked" [ ! -s "$tmp/unmarked" ]
	marked=$(awk '/^where the overhead goes/ { t = 1 } t && $1 == "mimalloc" && $5 ~ /\*$/' "$tmp/out" | wc -l)
	notes=$(grep -c "metadata < 0 (\*)" "$tmp/out")
	check "mimalloc: every mark has its note" [ "$marked" -eq "$notes" ]
else
	skip "mimalloc: every negative metadata is marked" "$prereq_why"
	skip "mimalloc: every mark has its note" "$prereq_why"
fi

# counters --counters none: no event asked for, but PAPI is there all the same.
"$AB" counters -f json >"$tmp/counters.json" 2>/dev/null
papi=$(jq_get "$tmp/counters.json" papi_version 2>/dev/null)
test_lazy_prereq PAPI '[ -n "$papi" ] && [ "$papi" != null ] || { echo "this build or machine has no PAPI (allocbench counters says papi_version null)"; exit 1; }'
run_ab counters --counters none -f json
check "counters --counters none -f json exits 0" [ "$rc" -eq 0 ]
check_if PAPI "counters --counters none: papi_version is PAPI's, as with events" \
	[ "$(jq_get "$tmp/out" papi_version)" = "$papi" ]
run_ab counters --counters none
check_if PAPI "counters --counters none: the text names PAPI's version" \
	grep -q "^PAPI $papi: 0 of 0 events" "$tmp/out"
check_if PAPI "counters --counters none: not 'PAPI not available'" \
	sh -c "! grep -q 'PAPI not available' '$tmp/out'"

# compare: a comparison that cannot be written exits 1 (the man page's "the
# report could not be written"), naming the reason; 2 is for bad usage and
# unusable input. The same for an unwritable path stays 2.
test_lazy_prereq DEV_FULL '[ -w /dev/full ] || { echo "no writable /dev/full"; exit 1; }'
base=$top/data/baseline.json
for f in text json markdown; do
	if test_have_prereq DEV_FULL; then
		run_ab compare "$base" "$base" -f $f -o /dev/full
		check "compare -f $f -o /dev/full exits 1" [ "$rc" -eq 1 ]
		check "compare -f $f -o /dev/full says No space left on device" \
			grep -q "cannot write the comparison to '/dev/full': No space left on device" "$tmp/err"
		"$AB" compare "$base" "$base" -f $f >/dev/full 2>"$tmp/err"
		check "compare -f $f >/dev/full exits 1" [ $? -eq 1 ]
	else
		skip "compare -f $f -o /dev/full exits 1" "$prereq_why"
		skip "compare -f $f -o /dev/full says No space left on device" "$prereq_why"
		skip "compare -f $f >/dev/full exits 1" "$prereq_why"
	fi
done
run_ab compare "$base" "$base" -o "$tmp/no/such/dir/out"
check "compare -o into a missing directory exits 2" [ "$rc" -eq 2 ]

# One number parser: decimal only, for run and compare alike, with one reason.
expect_usage "compare --max-overhead 0x10 is refused: numbers are decimal" \
	"invalid --max-overhead '0x10': numbers are decimal, not hexadecimal" \
	compare "$base" "$base" --max-overhead 0x10
expect_usage "compare --max-time 0x10 is refused: numbers are decimal" \
	"invalid --max-time '0x10': numbers are decimal, not hexadecimal" \
	compare "$base" "$base" --max-time 0x10
expect_usage "compare --alpha 0x0.1 is refused: numbers are decimal" \
	"invalid --alpha '0x0.1': numbers are decimal, not hexadecimal" \
	compare "$base" "$base" --alpha 0x0.1
expect_usage "compare --max-overhead 1e1 is refused (no exponent)" \
	"invalid --max-overhead '1e1': exponents are not allowed" \
	compare "$base" "$base" --max-overhead 1e1
expect_usage "compare --max-overhead inf is refused" "invalid --max-overhead 'inf'" \
	compare "$base" "$base" --max-overhead inf
expect_usage "run --repeat 0x3 is refused for the same reason" \
	"invalid --repeat '0x3': numbers are decimal, not hexadecimal" --repeat 0x3
expect_usage "run --total 0x10 is refused for the same reason" \
	"invalid --total '0x10': numbers are decimal, not hexadecimal" --total 0x10
run_ab compare "$base" "$base" --max-overhead 16 --max-time 10.5% --alpha 0.05
check "compare takes decimal numbers with a fraction and a %" [ "$rc" -eq 0 ]

# Text from an input file (or the host) reaches no report as control
# characters or invalid UTF-8: compare and plot read it cleaned (U+FFFD, tab
# and newline a space), as plot always wrote it, and every JSON document is
# cleaned before it is printed.
bad=$(printf 'h\001o\377s\033t\tx')
# clean FILE: valid UTF-8 and no control character other than tab and newline.
clean() {
	iconv -f UTF-8 -t UTF-8 "$1" >/dev/null 2>&1 &&
		! tr -d '\t\n' <"$1" | LC_ALL=C grep -q '[[:cntrl:]]'
}
LC_ALL=C sed "s/\"hostname\":[^,]*,/\"hostname\": \"$bad\",/; s/\"backend\":[[:space:]]*\"pool\"/\"backend\": \"po$bad\"/" \
	"$base" >"$tmp/dirty.json"
check "the doctored report holds the bytes (test set-up)" sh -c "! iconv -f UTF-8 -t UTF-8 '$tmp/dirty.json' >/dev/null 2>&1"
for f in text markdown json; do
	run_ab compare "$tmp/dirty.json" "$tmp/dirty.json" -f $f
	check "compare -f $f of a report with control bytes exits 0" [ "$rc" -eq 0 ]
	check "compare -f $f writes clean text" clean "$tmp/out"
	check "compare -f $f shows the replacement character" grep -q "h$(printf '\357\277\275')o" "$tmp/out"
done
run_ab compare "$tmp/dirty.json" "$tmp/dirty.json" -f json
check "compare -f json: the host name with U+FFFD for each bad byte, a space for the tab" \
	[ "$(jq_get "$tmp/out" baseline.hostname)" = "h$(printf '\357\277\275')o$(printf '\357\277\275')s$(printf '\357\277\275')t x" ]
run_ab plot "$tmp/dirty.json"
check "plot of it writes clean text" clean "$tmp/out"
# run --baseline reads the baseline with the same reader; it refuses, before
# measuring, the doctored backend this run cannot measure, naming it.
run_ab --sizes 4,40,400,4000 --total 4M --repeat 1 --backend malloc,pool-locked,arena,pool -q \
	--baseline "$tmp/dirty.json"
check "run --baseline with it writes clean text on stderr" clean "$tmp/err"
# (A sanitized build refuses the committed baseline, measured without
# sanitizers, before it reaches the rows.)
check_if '!SANITIZED' "run --baseline with it shows the replacement character" \
	grep -q "$(printf '\357\277\275')" "$tmp/err"

# The host name is any bytes root sets: in a UTS namespace of its own, the
# run's reports carry it cleaned.
test_lazy_prereq UTS_NAMESPACE '
	unshare -u sh -c "printf x >/proc/sys/kernel/hostname" ||
		{ echo "cannot set a host name in a UTS namespace (needs root and unshare)"; exit 1; }'
for f in text markdown json csv; do
	if test_have_prereq UTS_NAMESPACE; then
		unshare -u sh -c 'printf "%s" "$1" >/proc/sys/kernel/hostname && shift &&
			exec "$@"' sh "$bad" "$AB" --sizes 64 --total 64K --repeat 1 --backend arena -q \
			-f $f >"$tmp/out" 2>"$tmp/err"
		check "run -f $f with a host name of control bytes writes clean text" clean "$tmp/out"
	else
		skip "run -f $f with a host name of control bytes writes clean text" "$prereq_why"
	fi
done
if test_have_prereq UTS_NAMESPACE; then
	unshare -u sh -c 'printf "%s" "$1" >/proc/sys/kernel/hostname && shift && exec "$@"' \
		sh "$bad" "$AB" --sizes 64 --total 64K --repeat 1 --backend arena -q -f json >"$tmp/out"
	check "run -f json: the host name with U+FFFD for each bad byte, a space for the tab" \
		[ "$(jq_get "$tmp/out" host.hostname)" = "h$(printf '\357\277\275')o$(printf '\357\277\275')s$(printf '\357\277\275')t x" ]
else
	skip "run -f json: the host name with U+FFFD for each bad byte, a space for the tab" "$prereq_why"
fi

# getopt's errors, each reported as what it is: an unknown short option inside
# a cluster is not the previous argument's fault, an abbreviation of several
# long options is ambiguous (with the candidates), not unknown.
expect_usage "--quiet -Zq: the unknown option is -Z" "unknown option '-Z' \(see allocbench --help\)" --quiet -Zq
check "--quiet -Zq: --quiet is not blamed" sh -c "! grep -q -- '--quiet' '$tmp/err'"
expect_usage "--output=x -Zq: the unknown option is -Z" "unknown option '-Z'" --output="$tmp/x" -Zq
expect_usage "-qZ: the unknown option is -Z" "unknown option '-Z'" -qZ
expect_usage "--t is ambiguous, with every candidate" \
	"option '--t' is ambiguous: it could be --total, --touch, --threads, --trace, --timeout \(see allocbench --help\)" --t 1
expect_usage "--po abbreviates one option, named in full: --pool-block needs a value" \
	"option '--pool-block' needs a value" --po
expect_usage "compare --max is ambiguous" \
	"option '--max' is ambiguous: it could be --max-overhead, --max-time \(see allocbench compare --help\)" \
	compare --max 1 "$base" "$base"
expect_usage "-qt: the option that needs a value is -t" "option '-t' needs a value" -qt
expect_usage "--qui=x: the option is named in full" "option '--quiet' takes no value \(given '--qui=x'" --qui=x
expect_usage "counters --h=1 takes no value" "option '--help' takes no value .*counters --help" counters --h=1
expect_usage "plot --bogus=1 is unknown, named without its value" \
	"unknown option '--bogus' \(given '--bogus=1'; see allocbench plot --help\)" plot --bogus=1

# A write to a full device fails with its own reason, the first write's
# errno, not EIO: run's --help is longer than stdout's buffer, so its first
# write fails before the final flush.
for args in "--help" "compare --help" "plot --help" "counters --help" "--version" "counters"; do
	if test_have_prereq DEV_FULL; then
		"$AB" $args >/dev/full 2>"$tmp/err"
		rc=$?
		check "$args > /dev/full exits 1" [ "$rc" -eq 1 ]
		check "$args > /dev/full says No space left on device" \
			grep -q "cannot write to standard output: No space left on device" "$tmp/err"
	else
		skip "$args > /dev/full exits 1" "$prereq_why"
		skip "$args > /dev/full says No space left on device" "$prereq_why"
	fi
done
check "run --help is longer than a stdio buffer (what the check above relies on)" \
	[ "$("$AB" --help | wc -c)" -gt 4096 ]

# The man page: a line that starts with '.' or "'" is a request, so prose
# must not (".BR x ). Then one row ..." joined its words into one). Every
# such line is one of the requests the page uses, and the rendered page has
# no run-together prose: a word over 30 characters is a path, an
# assignment or an identifier.
page=$top/man/allocbench-run.1
# no_stray_dot: no line starts with '.' or "'" but a request of this list
# (or a comment, .\").
no_stray_dot() {
	! grep -nE "^[.']" "$page" |
		grep -vE ':[.](B|BI|BR|I|IB|IR|IP|PP|RB|RE|RI|RS|SH|SS|TH|TP|br|nf|fi|EX|EE)( |$)' |
		grep -vF ':.\"' | grep .
}
check "man: every line starting with '.' or an apostrophe is a known request" no_stray_dot
test_lazy_prereq MAN 'man -l "$page" >/dev/null 2>&1 || { echo "man cannot render a page here (apt-get install man-db)"; exit 1; }'
if test_have_prereq MAN; then
	MANWIDTH=80 man -l "$page" 2>/dev/null | col -b >"$tmp/man.txt"
	# Justified and wrapped as man likes: compare with white space squeezed.
	tr -s ' \t\n' '   ' <"$tmp/man.txt" >"$tmp/man.flat"
	check "man: 'Then one row per backend' renders as words" grep -q "Then one row per" "$tmp/man.flat"
	tr -s ' \t' '\n\n' <"$tmp/man.txt" | awk 'length > 30 && !/[\/=_]/' >"$tmp/long-words"
	check "man: no run-together prose (no word over 30 characters without / = _)" [ ! -s "$tmp/long-words" ]
else
	skip "man: 'Then one row per backend' renders as words" "$prereq_why"
	skip "man: no run-together prose (no word over 30 characters without / = _)" "$prereq_why"
fi

# What a measuring process says (its row's error, the allocator's path) is
# cleaned too: a library whose file name holds a stray byte and a control
# character, preloaded under another allocator's name, fails its row naming
# the file.
if test_have_prereq MIMALLOC; then
	mim=$(ldconfig -p 2>/dev/null | awk '/libmimalloc\.so\.2 / { print $NF; exit }')
	[ -f "$mim" ] || mim=/usr/lib/x86_64-linux-gnu/libmimalloc.so.2
	odd="$tmp/lib$(printf '\377\001')m.so"
	cp "$mim" "$odd"
	for f in text markdown csv json; do
		run_ab --preload "jemalloc=$odd" --backend jemalloc --sizes 64 --total 64K --repeat 1 -q -f $f
		check "a row's error naming an odd file: exit 1 (-f $f)" [ "$rc" -eq 1 ]
		check "a row's error naming an odd file is clean text (-f $f)" clean "$tmp/out"
		check "a row's error naming an odd file shows U+FFFD (-f $f)" \
			grep -q "lib$(printf '\357\277\275\357\277\275')m.so" "$tmp/out"
	done
else
	for f in text markdown csv json; do
		skip "a row's error naming an odd file: exit 1 (-f $f)" "$prereq_why"
		skip "a row's error naming an odd file is clean text (-f $f)" "$prereq_why"
		skip "a row's error naming an odd file shows U+FFFD (-f $f)" "$prereq_why"
	done
fi
test_done
