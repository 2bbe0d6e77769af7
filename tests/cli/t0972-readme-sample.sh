#!/bin/sh
# The README's sample output, which make readme-sample pastes between two
# marker comments from ./allocbench, has the shape of what the program prints
# today: a fresh run with the same defaults (a small total) gives the same
# heading lines, the same tables' headers, a row for the same backends and
# sizes with as many columns, and the same paragraphs (their first line up to
# its first colon, digits masked). A column, a table or a section added to
# the output and not to the README (make readme-sample) fails here. And the
# README stays at most 300 lines (issue 26).
# check: once
. "$(dirname "$0")/lib.sh"

begin='<!-- readme-sample: begin (make readme-sample writes this block) -->'
end='<!-- readme-sample: end -->'
awk -v b="$begin" -v e="$end" '$0 == e { p = 0 } p && !/^```/ { print } $0 == b { p = 1 }' \
	"$top/README.md" >"$tmp/sample"
check "the README has the sample between its markers" [ -s "$tmp/sample" ]
lines=$(wc -l <"$top/README.md")
check "the README is read in five minutes: at most 300 lines ($lines)" [ "$lines" -le 300 ]
check "make readme-sample writes the sample between the same markers" \
	sh -c "grep -qF -- '$begin' '$top/Makefile' && grep -qF -- '$end' '$top/Makefile'"

# shape: what does not depend on the machine or the noise.
shape() {
	awk '
	BEGIN { para = 1 }
	/^[[:space:]]*$/ { para = 1; next }
	/^[a-z]/ && $1 ~ /^[a-z][a-z0-9-]*(\/(32|64))?$/ && $2 ~ /^[0-9]+$/ && NF >= 4 {
		print "row " $1 " " $2 ", " NF " columns"; para = 0; next
	}
	/^ +size / || /^backend / { l = $0; gsub(/ +/, " ", l); print "table header:" l; para = 0; next }
	para { l = $0; sub(/:.*/, "", l); gsub(/[0-9]+/, "N", l); print "paragraph: " l; para = 0 }
	' "$1"
}

# The sample is the ordinary build's: under AddressSanitizer malloc is the
# sanitizer's, and its rows and sections are another allocator's.
if test_have_prereq GLIBC_MALLOC; then
	run_ab -q --total 256K --repeat 1 --jobs 2
	check "a fresh run with the defaults succeeds" [ "$rc" -eq 0 ]
	shape "$tmp/sample" >"$tmp/sample.shape"
	shape "$tmp/out" >"$tmp/fresh.shape"
	check "the fresh run has tables (its shape is not empty)" grep -q '^row ' "$tmp/fresh.shape"
	if cmp -s "$tmp/sample.shape" "$tmp/fresh.shape"; then
		ok "the README's sample has the shape of today's output (make readme-sample)"
	else
		not_ok "the README's sample has the shape of today's output (make readme-sample)" \
			"$(diff "$tmp/sample.shape" "$tmp/fresh.shape" | grep '^[<>]' | head -n 5 | tr '\n' ' ')"
	fi

	# The comparison can fail: a sample without its last column differs.
	awk '/^ +size / || /^backend / { $NF = "" } { print }' "$tmp/sample" >"$tmp/cut"
	shape "$tmp/cut" >"$tmp/cut.shape"
	check "a sample that lost a column does not pass" sh -c "! cmp -s '$tmp/cut.shape' '$tmp/fresh.shape'"
else
	for n in "a fresh run with the defaults succeeds" \
		 "the fresh run has tables (its shape is not empty)" \
		 "the README's sample has the shape of today's output (make readme-sample)" \
		 "a sample that lost a column does not pass"; do
		skip "$n" "$prereq_why"
	done
fi
test_done
