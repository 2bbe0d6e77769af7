#!/bin/sh
# Bad input: exit 2, nothing on stdout, nothing measured, a message that names
# the bad value and says what is expected.
# check: host
. "$(dirname "$0")/lib.sh"

expect_usage "unknown option" "unknown option '--bogus'" --bogus
expect_usage "unknown short option" "unknown option '-Z'" -Z
expect_usage "unknown command" "unknown command 'frobnicate'" frobnicate
expect_usage "unknown command: nothing near, no guess" "unknown command 'frobnicate' \(expected" frobnicate
expect_usage "mistyped command: did you mean" "unknown command 'compre'; did you mean compare\? \(expected" compre
expect_usage "mistyped command, swapped letters" "unknown command 'plto'; did you mean plot\?" plto
expect_usage "mistyped backend: did you mean" "unknown backend 'mallco' in --backend; did you mean malloc\? \(known backends" --backend mallco
expect_usage "mistyped backend in a list" "unknown backend 'arean' in --backend; did you mean arena\?" --backend pool,arean
expect_usage "mistyped third-party backend" "unknown backend 'jemaloc' in --backend; did you mean jemalloc\?" --backend jemaloc
expect_usage "stray argument" "unexpected argument 'extra'" --total 1M extra
expect_usage "missing value" "option '--sizes' needs a value" --sizes
expect_usage "unknown backend lists the known" "unknown backend 'tcmallocx'.*malloc, pool, pool-locked, arena" --backend tcmallocx
expect_usage "empty backend item" "empty item in --backend" --backend malloc,,pool
expect_usage "duplicate backend" "backend 'pool' appears more than once" --backend pool,pool
expect_usage "unknown format" "invalid --format 'xml'.*text, json, csv or markdown" --format xml
expect_usage "empty --sizes" "invalid size '' in --sizes: the list is empty" --sizes ''
expect_usage "--sizes abc" "invalid size 'abc' in --sizes: not a number" --sizes abc
expect_usage "--sizes 0" "invalid size '0' in --sizes: sizes must be positive" --sizes 0
expect_usage "--sizes -4" "invalid size '-4' in --sizes: negative" --sizes -4
expect_usage "--sizes 4,,40" "invalid size '' in --sizes: empty item" --sizes 4,,40
expect_usage "--sizes 4x" "invalid size '4x' in --sizes: unknown suffix" --sizes 4x
expect_usage "--sizes overflow" "invalid size '99999999999999999999999' in --sizes: number too large" --sizes 99999999999999999999999
expect_usage "--sizes duplicate" "invalid size '40' in --sizes: this size appears more than once" --sizes 4,40,40
expect_usage "--sizes backwards range" "invalid size '64..8' in --sizes" --sizes 64..8
expect_usage "size larger than --total" "size 4096 in --sizes is larger than --total \(1024 bytes\)" --sizes 4,4096 --total 1K
expect_usage "--total 0" "invalid --total '0': must be more than 0" --total 0
expect_usage "--total unparsable" "invalid --total 'lots': not a number" --total lots
expect_usage "--total bad suffix" "invalid --total '1Q': unknown suffix" --total 1Q
expect_usage "--repeat 0" "invalid --repeat '0': must be at least 1" --repeat 0
expect_usage "--repeat abc" "invalid --repeat 'abc'" --repeat abc
expect_usage "--repeat too many" "invalid --repeat '1001'" --repeat 1001
expect_usage "--align 3" "invalid --align '3' \(expected a power of two" --align 3
expect_usage "--align 0" "invalid --align '0'" --align 0
expect_usage "--align 8192" "invalid --align '8192'" --align 8192
expect_usage "--touch bad" "invalid --touch 'some'.*none, first, pages or full" --touch some
expect_usage "--pool-block 0" "invalid --pool-block '0'" --pool-block 0
expect_usage "unwritable -o" "cannot write '$tmp/no/such/dir/out.json'" --total 1M -o "$tmp/no/such/dir/out.json"
expect_usage "empty -o" "empty file name for --output" -o ''

expect_usage "unknown workload" "unknown workload 'sweep' \(expected fill, churn, random, threads or replay\)" --workload sweep
expect_usage "--threads 0" "invalid --threads '0': must be at least 1" --workload threads --threads 0
expect_usage "--threads too many" "invalid --threads '257'" --workload threads --threads 257
expect_usage "--rounds 0" "invalid --rounds '0': must be at least 1" --workload churn --rounds 0
expect_usage "--seed not a number" "invalid --seed 'x'" --workload random --seed x
expect_usage "--rounds for fill" "--rounds '3' applies to the churn and threads workloads, not 'fill'" --rounds 3
expect_usage "--rounds for random" "--rounds '3' applies to the churn and threads workloads, not 'random'" --workload random --rounds 3
expect_usage "--seed for churn" "--seed '7' applies to the random workload, not 'churn'" --workload churn --seed 7
expect_usage "--threads for fill" "--threads '2' applies to the threads workload, not 'fill'" --threads 2
expect_usage "--threads for churn" "--threads '2' applies to the threads workload, not 'churn'" -w churn --threads 2

expect_usage "--counters for churn" "--counters 'allocbench' applies to the fill workload, not 'churn'" -w churn --counters allocbench

# Nothing ran: a bad option after a long --total must fail at once.
start=$(date +%s)
run_ab --total 1G --sizes 4 --align 3
check "bad usage is refused before measuring" [ "$rc" -eq 2 ] && [ $(( $(date +%s) - start )) -lt 5 ]
expect_usage "--total with a fraction" "invalid --total '1.5M': fractions are not allowed" --total 1.5M

test_done
