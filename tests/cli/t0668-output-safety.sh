#!/bin/sh
# Hostile or unusual input (issue 45): a recorded program whose path holds
# an escape sequence, a newline and a C1 control; a --label of HTML; a text
# cell that a spreadsheet would run as a formula; sizes up to SIZE_MAX in a
# trace's histogram; a report written to a pipe whose reader went away.
. "$(dirname "$0")/lib.sh"

RECORD_LIB=$ABBUILD/liballocbench-record.so
test_lazy_prereq RECORD '[ -f "$RECORD_LIB" ] || { echo "no $RECORD_LIB (make check builds it)"; exit 1; }'

# ---- a failed malloc(SIZE_MAX - 10): the top size bucket

cat >"$tmp/huge.c" <<'EOF'
#include <stdint.h>
#include <stdlib.h>

int main(void)
{
	volatile size_t n = SIZE_MAX - 10;  /* volatile: no warning of a size too large */
	void *p = malloc(n);

	free(p);
	return p != NULL;
}
EOF
if test_have_prereq CC,RECORD && ${CC:-cc} -o "$tmp/huge" "$tmp/huge.c" 2>"$tmp/cc.err" &&
   "$AB" record -o "$tmp/huge.trace" -- "$tmp/huge" 2>"$tmp/err"; then
	run_ab report "$tmp/huge.trace"
	check "report: a malloc of SIZE_MAX - 10 is in the top bucket, 2^63 + 1 to 2^64 - 1" \
		grep -Eq '^ +9223372036854775809\.\.18446744073709551615 B +1 ' "$tmp/out"
	check "report: nothing on stderr (no sanitizer's shift of 64)" test ! -s "$tmp/err"
	run_ab report -f json "$tmp/huge.trace"
	check "report -f json: the top bucket's max_bytes is 2^64 - 1, not 1" \
		le 18446744073709000000 "$(jq_get "$tmp/out" 'size_histogram[0].max_bytes')"
else
	skip "report of a malloc of SIZE_MAX - 10" "${prereq_why:-$(cat "$tmp/cc.err" "$tmp/err" 2>/dev/null)}"
fi

# ---- text that repeats a recorded string cannot drive the terminal

# clean FILE: FILE holds no control character but newline and tab (no ESC),
# no C1 control in UTF-8 (U+0080..U+009F: U+009B is CSI), and no U+0085.
clean() {
	od -An -v -tx1 "$1" | awk '{
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^(0[0-8]|0[b-f]|1[0-9a-f]|7f)$/ || (prev == "c2" && $i ~ /^[89]/))
				bad = 1
			prev = $i
		}
	} END { exit bad }'
}

# The program's path: an escape sequence that turns the terminal red, a
# newline that would forge a line of the report, and U+009B (CSI).
evil=$(printf 'a\033[31mb\nforged line\302\233c')
if test_have_prereq RECORD; then
	mkdir "$tmp/bin"
	cp /bin/sh "$tmp/bin/$evil"
	"$AB" record -o "$tmp/evil.trace" -- "$tmp/bin/$evil" -c true >"$tmp/out" 2>"$tmp/err"
	check "record: its summary on stderr holds no control character" clean "$tmp/err"
	check "record: the path's newline is a space in the summary" \
		grep -q "\[31mb forged line" "$tmp/err"
	run_ab report "$tmp/evil.trace"
	check "report: the program's path is printed cleaned" clean "$tmp/out"
	check "report: the path's newline forges no line" eval '! grep -q "^forged line" "$tmp/out"'
	check "report: the program is on the trace's line, the newline a space" \
		grep -Eq "^trace .*evil.trace: pid [0-9]+, .*\[31mb forged line.*c, ended by" "$tmp/out"
	# Two processes: the list of them, the choice and the file names.
	"$AB" record -o "$tmp/two.trace" -- sh -c '"$1" -c true; "$1" -c true' - "$tmp/bin/$evil" \
		>"$tmp/out" 2>"$tmp/err"
	check "record of three processes: the summary holds no control character" clean "$tmp/err"
	run_ab report "$tmp/two.trace"
	check "report of three processes: the list holds no control character" clean "$tmp/out"
	check "report of three processes: each program on its row" \
		test "$(grep -c "\[31mb forged line" "$tmp/out")" = 2
	run_ab report -f json "$tmp/evil.trace"
	check "report -f json: the command holds no control character either" clean "$tmp/out"
	# A trace named by the user with an escape in its name, replayed.
	cp "$tmp/evil.trace" "$tmp/t$evil"
	run_ab --trace "$tmp/t$evil" --backend arena --repeat 1 -q
	check "run --trace: the replay's line names the trace cleaned" clean "$tmp/out"
else
	skip "reports of a program with an escape sequence in its path" "$prereq_why"
fi
run_ab --sizes 4 --total 4K --repeat 1 --backend arena -q --label "$evil"
check "run --label: the text's label line is cleaned" clean "$tmp/out"
check "run --label: its newline forges no line" eval '! grep -q "^forged line" "$tmp/out"'

# ---- Markdown shows HTML, CSV runs no formula

html='<script>alert(1)</script> | a & b'
run_ab --sizes 4 --total 4K --repeat 1 --backend arena,malloc -q -f markdown --label "$html"
check "run -f markdown: the label's HTML is escaped, no tag left" \
	eval '! grep -q "<script>" "$tmp/out" && grep -qF "&lt;script&gt;alert(1)&lt;/script&gt; \\| a &amp; b" "$tmp/out"'
run_ab --sizes 4 --total 4K --repeat 1 --backend malloc -q -f json --label "$html"
cp "$tmp/out" "$tmp/html.json"
# The version set too: the CSV cell is "NAME VERSION", or NAME alone where
# the version is unknown (AddressSanitizer's malloc).
"$JSONSET" "$tmp/html.json" 'results[0].allocator.name' '="=HYPERLINK(\"http://x\")<b>"' \
	>"$tmp/formula0.json"
"$JSONSET" "$tmp/formula0.json" 'results[0].allocator.version' '="1.0"' >"$tmp/formula.json"
run_ab show -f markdown "$tmp/formula.json"
check "show -f markdown: the label and the allocator's name escaped" \
	eval '! grep -q "<script>\|<b>" "$tmp/out" && grep -qF "&lt;script&gt;" "$tmp/out" &&
	      grep -qF "=HYPERLINK(\"http://x\")&lt;b&gt;" "$tmp/out"'
run_ab compare -f markdown "$tmp/html.json" "$tmp/formula.json"
check "compare -f markdown: the labels escaped" \
	eval '! grep -q "<script>" "$tmp/out" && test "$(grep -cF "&lt;script&gt;alert(1)&lt;/script&gt; \\| a &amp; b" "$tmp/out")" = 1'
run_ab show -f csv "$tmp/formula.json"
check "show -f csv: a text cell that begins with = gets a ' before it" \
	grep -qF ",\"'=HYPERLINK(\"\"http://x\"\")<b> 1.0\"," "$tmp/out"
check "show -f csv: no cell begins with = + - @ (numbers apart)" \
	eval '! tr , "\n" <"$tmp/out" | grep -Eq "^\"?[=+@]|^\"?-[^0-9]"'

# ---- a pipe whose reader went away: status 141 and nothing said, as cat

# closed_pipe [ignore] ARGS...: allocbench ARGS with standard output a pipe
# that nobody reads any more (a FIFO opened read-write, then its write end,
# then the read end closed: no timing involved); with "ignore", SIGPIPE is
# ignored, as a caller may leave it. Its status in $rc, stderr in $tmp/err.
closed_pipe() {
	trap_pipe=:
	[ "$1" = ignore ] && { trap_pipe="trap '' PIPE"; shift; }
	rm -f "$tmp/fifo"
	mkfifo "$tmp/fifo" || return
	rc=$(eval "$trap_pipe"; exec 8<>"$tmp/fifo" 9>"$tmp/fifo" 8<&-
	     "$AB" "$@" >&9 2>"$tmp/err"; echo $?)
}
if test_have_prereq RECORD && [ -f "$tmp/evil.trace" ]; then
	set -- "report:report $tmp/evil.trace"
else
	set --
fi
for how in default ignore; do
	for c in "$@" "run:--sizes 4 --total 4K --repeat 1 --backend arena -q" \
		 "show:show $tmp/html.json" "compare:compare $tmp/html.json $tmp/html.json" \
		 "show -f csv:show -f csv $tmp/html.json" "backends:backends" "--help:--help"; do
		name=${c%%:*}
		# Unquoted: the arguments hold no space (mktemp -d).
		if [ $how = ignore ]; then closed_pipe ignore ${c#*:}; else closed_pipe ${c#*:}; fi
		check "$name to a closed pipe (SIGPIPE $how): status 141, nothing on stderr" \
			eval '[ "$rc" = 141 ] && [ ! -s "$tmp/err" ] || { echo "status $rc: $(cat "$tmp/err")"; false; }'
	done
done

test_done
