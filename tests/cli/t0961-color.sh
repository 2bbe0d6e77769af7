#!/bin/sh
# Colour on a terminal: compare's regressed lines and REGRESSION, a run's
# failed rows, in red; none when NO_COLOR is set (and not empty) or when the
# output is not a terminal (a pipe, a file). A terminal comes from script(1)
# (util-linux), which runs the command on a pseudo-terminal.
. "$(dirname "$0")/lib.sh"

test_lazy_prereq SCRIPT 'script -qec true /dev/null >/dev/null 2>&1 || { echo "no script(1) that runs a command on a pseudo-terminal (util-linux)"; exit 1; }'
esc=$(printf '\033')

"$AB" --backend pool,arena --sizes 40 --total 1M --repeat 1 -q -f json -o "$tmp/b.json"
doctor "$tmp/b.json" "results[backend=pool,size=40].overhead_bytes" +1 "$tmp/worse.json"

tty_run() {
	# The command's standard output is the pseudo-terminal; script copies what
	# reaches it into the typescript $tmp/typescript.
	script -qec "$1" "$tmp/typescript" >/dev/null 2>&1
	tr -d '\r' <"$tmp/typescript" >"$tmp/tty"
}

if test_have_prereq SCRIPT; then
	tty_run "NO_COLOR= '$AB' compare '$tmp/b.json' '$tmp/worse.json'"
	check "terminal: the regressed line in red" grep -q "^${esc}\[31mpool .*regressed${esc}\[0m\$" "$tmp/tty"
	check "terminal: REGRESSION in bold red" grep -q "^result: ${esc}\[1;31mREGRESSION${esc}\[0m\$" "$tmp/tty"
	check "terminal: unchanged lines plain" grep -q "^arena .*unchanged\$" "$tmp/tty"
	tty_run "NO_COLOR=1 '$AB' compare '$tmp/b.json' '$tmp/worse.json'"
	check "NO_COLOR: no colour on a terminal" sh -c "! grep -q '$esc' '$tmp/tty'"
	tty_run "NO_COLOR= ALLOCBENCH_TEST_FAULT=nomem:arena '$AB' --sizes 4096 --total 1M --backend pool,arena --repeat 1 -q"
	check "terminal: a failed row in red, then reset" sh -c "grep -A1 '^${esc}\[31marena .*failed: ' '$tmp/tty' | grep -q '${esc}\[0m'"
	check "terminal: an ok row plain" grep -q "^pool  " "$tmp/tty"
else
	skip "colour on a terminal" "$prereq_why"
fi
# Not a terminal: never colour.
NO_COLOR= "$AB" compare "$tmp/b.json" "$tmp/worse.json" >"$tmp/out" 2>&1
check "a pipe or a file: no colour" sh -c "! grep -q '$esc' '$tmp/out' && grep -q 'regressed' '$tmp/out'"
NO_COLOR= ALLOCBENCH_TEST_FAULT=nomem:arena "$AB" --sizes 4096 --total 1M --backend pool,arena --repeat 1 -q >"$tmp/out" 2>&1
check "a run's failed row in a file: no colour" sh -c "! grep -q '$esc' '$tmp/out' && grep -q 'failed: ' '$tmp/out'"
test_done
