#!/bin/sh
# The GitHub Actions job of allocbench-compare(1) builds as pasted: make, run with pkg-config
# seeing the .pc files of the Debian packages the job installs and no others,
# builds a working allocbench. A build dependency added to the Makefile
# without its package in the recipe fails here. Its Measure and Compare
# steps pass against the committed baseline and print the verdict to the log;
# its Time step runs ab with small totals and 9 pairs, the base branch's
# build supplied by the test (this allocbench, copied).
# check: once
. "$(dirname "$0")/lib.sh"

# The job and its steps (tests/ci-recipe.sh).
sh "$top/tests/ci-recipe.sh" "$tmp"
packages=$(sed -n 's/.*apt-get install -y //p' "$tmp/job.yml")
# The make lines that build (not the install), with their variables.
grep -E '^[[:space:]]*(sudo[[:space:]]+)?make([[:space:]]|$)' "$tmp/job.yml" |
	grep -v 'install' | sed -E 's/^[[:space:]]*(sudo[[:space:]]+)?make//' >"$tmp/make-lines"

check "allocbench-compare(1) has the job, its packages and its make" \
	test -s "$tmp/job.yml" -a -n "$packages" -a -s "$tmp/make-lines"

# Where the packages are installed here, their .pc files are the only ones
# pkg-config sees (PKG_CONFIG_LIBDIR replaces its search path).
test_lazy_prereq RECIPE_PACKAGES '
	command -v dpkg-query >/dev/null || { echo "no dpkg-query (not Debian)"; exit 1; }
	for p in '"$packages"'; do
		dpkg-query -W -f="\${Status}" "$p" 2>/dev/null | grep -q "ok installed" ||
			{ echo "package $p is not installed"; exit 1; }
	done'
mkdir -p "$tmp/pc" "$tmp/empty"
if test_have_prereq RECIPE_PACKAGES; then
	for p in $packages; do
		dpkg -L "$p" | grep '\.pc$' | while read -r f; do
			[ -f "$f" ] && cp "$f" "$tmp/pc/"
		done
	done
fi

# recipe_make PCDIR BUILD: make as the recipe runs it, into BUILD (never the
# source tree's ./allocbench), with only PCDIR's .pc files; not the variables
# of a make check that runs this test (CC, SANITIZE, PAPI...).
recipe_make() {
	(cd "$top" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u PKG_CONFIG_PATH \
		PKG_CONFIG_LIBDIR="$1" sh -c "make -s -j2 $(head -n 1 "$tmp/make-lines") \
		BUILD='$2' '$2/allocbench'" >"$tmp/make.out" 2>&1)
}

builds() {
	recipe_make "$tmp/pc" "$tmp/build" &&
		"$tmp/build/allocbench" --sizes 64 --total 64K --repeat 1 --backend pool \
			-q >"$tmp/run.out" 2>&1 ||
		{ cat "$tmp/make.out" "$tmp/run.out" 2>/dev/null | tail -n 5; return 1; }
}
check_if RECIPE_PACKAGES "make with only the recipe's packages ($packages) builds and runs" builds

# The check itself can fail: with none of the packages' .pc files, make
# stops and names what is missing.
hidden() {
	! recipe_make "$tmp/empty" "$tmp/build-none" &&
		grep -q 'missing build dependencies' "$tmp/make.out"
}
check_if RECIPE_PACKAGES "without the packages' .pc files make stops at the missing dependencies" hidden

# The job's own steps, Measure then Compare, run as written in a checkout
# (data/baseline.json) with this allocbench on PATH: the job log gets the
# verdict and the regressed rows, the job summary the Markdown table.
check "the job has a Measure step" grep -q '^allocbench ' "$tmp/measure.sh"
check "the job has a Compare step" grep -q 'allocbench compare' "$tmp/compare.sh"
check "the job has a Time step: ab of the base branch's build and this one" \
	grep -q '^allocbench ab \./base/allocbench \./allocbench ' "$tmp/time.sh"
check "... the base branch checked out into ./base and built" \
	sh -c "grep -q '^ *path: base$' '$tmp/job.yml' && grep -q '^ *make -C base$' '$tmp/job.yml'"
mkdir -p "$tmp/bin" "$tmp/checkout/data" "$tmp/checkout/base"
ln -s "$AB" "$tmp/bin/allocbench"
cp "$top/data/baseline.json" "$tmp/checkout/data/"
steps() {
	(cd "$tmp/checkout" && PATH="$tmp/bin:$PATH" GITHUB_STEP_SUMMARY="$tmp/summary.md" &&
		export GITHUB_STEP_SUMMARY && sh "$tmp/measure.sh" && sh "$tmp/compare.sh") \
		>"$tmp/log" 2>&1
}
if test_have_prereq SANITIZED; then
	skip "the job's steps" "built with -fsanitize=$sanitizers, the baseline without (compare refuses that)"
else
	steps
	check "the job's steps pass against the committed baseline" [ $? -eq 0 ]
	check "... the job log says the verdict and where the table went" \
		grep -q '^result: no regression (the comparison in markdown: comparison.md)$' "$tmp/log"
	check "... the job summary has the table" grep -q '^### allocbench compare: no regression$' "$tmp/summary.md"
fi

# The Time step with 9 pairs (the least that can fail over its 16 tests),
# 64 KiB and 2 rounds: ./base/allocbench and ./allocbench are this build (a
# copy and a link); its verdict, and the malloc rows gated. The copy has
# its measuring programs beside it, as make -C base builds them (alone, it
# would measure in itself, another program). --max-time 1000: the same
# build on both sides fails a series only when all 9 pairs say slower, by
# chance 1 in 512 per series, 16 series a run, several runs of this test
# in CI; a median slowdown of 11 times as well is never chance. (ab's own
# rates at its defaults, the recipe's: make gate-rates.)
cp "$AB" "$tmp/checkout/base/allocbench"
for c in allocbench-child64 allocbench-child32; do
	[ ! -f "$ABBUILD/$c" ] || cp "$ABBUILD/$c" "$tmp/checkout/base/$c"
done
ln -s "$AB" "$tmp/checkout/allocbench"
sed -E 's| ab ([^ ]+) ([^ ]+) | ab \1 \2 --pairs 9 --max-time 1000 |; s/--total [^ ]+/--total 64K/; s/$/ --rounds 2/' "$tmp/time.sh" >"$tmp/time-small.sh"
check "the Time step, made small, is ab with --pairs 9 --max-time 1000" \
	grep -q ' ab [^ ]* [^ ]* --pairs 9 --max-time 1000 .*--total 64K' "$tmp/time-small.sh"
(cd "$tmp/checkout" && PATH="$tmp/bin:$PATH" sh "$tmp/time-small.sh") >"$tmp/time.log" 2>&1
check "the Time step runs (the same build on both sides: exit 0)" [ $? -eq 0 ]
check "... and prints its verdict to the job log" grep -q '^verdict: ok (0 of [0-9]* slower)$' "$tmp/time.log"
check "... the malloc rows gated" grep -Eq '^malloc +[0-9]+ B +churn ns ' "$tmp/time.log"

test_done
