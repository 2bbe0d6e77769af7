#!/bin/sh
# The bad-input matrix: one case per bad value, across run, compare, plot and
# counters, each checking the exit status (2), an empty stdout and a message
# that names the bad value. It complements t0002 (run's options), t0602
# (compare's files) and t0700 (plot) with what they did not cover.
. "$(dirname "$0")/lib.sh"

"$AB" --sizes 4 --total 64K --repeat 1 --backend arena -q -f json -o "$tmp/r.json" 2>/dev/null
printf '{' >"$tmp/cut.json"
printf '[]' >"$tmp/array.json"
printf '{"schema":"allocbench/9","results":[]}' >"$tmp/v9.json"
: >"$tmp/empty.json"

# run
expect_usage "run --timeout 0" "invalid --timeout '0': must be at least 1 second" --timeout 0
expect_usage "run --timeout abc" "invalid --timeout 'abc': not a number" --timeout abc
expect_usage "run --timeout -1" "invalid --timeout '-1': negative" --timeout -1
expect_usage "run --timeout too long" "invalid --timeout '99999': number too large" --timeout 99999
expect_usage "run --timeout 1.5" "invalid --timeout '1.5'" --timeout 1.5
expect_usage "run --timeout without a value" "option '--timeout' needs a value" --timeout
expect_usage "run --force with a value" "option '--force' takes no value \(given '--force=yes'" --force=yes
expect_usage "run --quiet with a value" "option '--quiet' takes no value \(given '--quiet=1'" --quiet=1
expect_usage "compare --allow-missing with a value" "option '--allow-missing' takes no value \(given '--allow-missing=1'; see allocbench compare --help\)" compare --allow-missing=1 a b
expect_usage "run --threads abc names the reason" "invalid --threads 'abc': not a number" -w threads --threads abc
expect_usage "run --repeat abc names the reason" "invalid --repeat 'abc': not a number" --repeat abc
expect_usage "run --rounds x names the reason" "invalid --rounds 'x': not a number" -w churn --rounds x
expect_usage "run --sizes above 1 GiB" "invalid size '2G' in --sizes: larger than the 1 GiB limit" --sizes 2G
expect_usage "run --sizes range factor 1" "invalid size '1..1024:x1' in --sizes: a range factor must be at least 2" --sizes 1..1024:x1
expect_usage "run --total fraction" "invalid --total '1.5M'" --total 1.5M
expect_usage "run --pool-block above 1T" "invalid --pool-block '2T'" --pool-block 2T
expect_usage "run --counters empty" "invalid event '' in --counters: the list is empty" --counters ''
expect_usage "run --preload without =" "invalid --preload 'foo' \(expected NAME=PATH" --preload foo
expect_usage "run --preload without a name" "invalid --preload '=x'" --preload =x
expect_usage "run --baseline missing" "'$tmp/nope.json': cannot read" --baseline "$tmp/nope.json" --total 64K
expect_usage "run --baseline cut short" "'$tmp/cut.json': not valid JSON" --baseline "$tmp/cut.json" --total 64K
expect_usage "run --total above MemAvailable" "needs about [0-9]+ MiB at size 4 .*MemAvailable" --sizes 4 --total 1T
# The results the runs keep, 16384000 of them (4096 sizes, 3 backends and
# the floor): about 120000 MiB, allocated up front, where every fork failed.
avail_mib=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)
if [ -n "$avail_mib" ] && [ "$avail_mib" -lt 240000 ]; then
	expect_usage "run: results above half of MemAvailable" \
		"--repeat 1000 makes 16384000 runs, whose results take about [0-9]+ MiB \([0-9]+ bytes each\), more than half the [0-9]+ MiB available \(MemAvailable\); use a smaller --repeat" \
		--sizes 1..4096:+1 --repeat 1000 --backend malloc,pool,arena
else
	skip "run: results above half of MemAvailable" "MemAvailable is ${avail_mib:-unknown} MiB: half of it holds them"
fi

# compare
expect_usage "compare with one file" "compare needs two reports, BASELINE and CURRENT \(got 1" compare "$tmp/r.json"
expect_usage "compare with three files" "compare needs two reports.*\(got 3" compare "$tmp/r.json" "$tmp/r.json" "$tmp/r.json"
expect_usage "compare a missing file" "'$tmp/nope.json': cannot read" compare "$tmp/r.json" "$tmp/nope.json"
expect_usage "compare an empty file" "'$tmp/empty.json'" compare "$tmp/r.json" "$tmp/empty.json"
expect_usage "compare a cut file" "'$tmp/cut.json': not valid JSON" compare "$tmp/cut.json" "$tmp/r.json"
expect_usage "compare a JSON array" "'$tmp/array.json': not an allocbench report" compare "$tmp/r.json" "$tmp/array.json"
expect_usage "compare another schema major" "'$tmp/v9.json'.*allocbench/9" compare "$tmp/r.json" "$tmp/v9.json"
expect_usage "compare --max-overhead abc" "invalid --max-overhead 'abc'" compare "$tmp/r.json" "$tmp/r.json" --max-overhead abc
expect_usage "compare unknown option" "unknown option '--bogus'.*compare --help" compare "$tmp/r.json" "$tmp/r.json" --bogus

# plot
expect_usage "plot unknown --metric" "unknown metric 'bogus' in --metric" plot --metric bogus "$tmp/r.json"
expect_usage "plot a missing file" "'$tmp/nope.json': cannot read" plot "$tmp/nope.json"
expect_usage "plot a cut file" "'$tmp/cut.json': not valid JSON" plot "$tmp/cut.json"
expect_usage "plot empty -o" "empty file name for --output" plot -o '' "$tmp/r.json"
expect_usage "plot unknown option" "unknown option '--bogus'.*plot --help" plot --bogus

# counters
expect_usage "counters bad --format" "invalid --format 'xml' \(expected text or json\)" counters --format xml
expect_usage "counters empty item" "invalid event '' in --counters: empty item" counters --counters 'PAPI_TOT_CYC,,x'
expect_usage "counters stray argument" "unexpected argument 'extra'.*counters --help" counters extra
expect_usage "counters unknown option" "unknown option '--bogus'.*counters --help" counters --bogus

test_done
