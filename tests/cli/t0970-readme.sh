#!/bin/sh
# The README's examples and the man pages' EXAMPLES run as written, so that
# they stay true. In the README a block is run when an HTML comment
# "<!-- readme-test: run -->" (invisible on GitHub) stands above it, alone on
# its line: the indented lines that follow, up to the next blank or less
# indented line, are run in order by sh -e in one directory (a block may use
# what an earlier one wrote), with `allocbench` on the PATH. In a man page
# every .EX/.EE block of its EXAMPLES section is run, unescaped (\- is -),
# the blocks of one page in a directory of their own. Every run of the
# measuring command (not compare, plot, show, counters, backends, record,
# report, history or ab) gets --total 256K --repeat 1 --jobs 2 -q appended (and --rounds 2
# for churn and threads; a replay, whose trace decides the sizes and the
# total, gets --repeat 1 --jobs 2 -q), which win over the block's own: the
# totals of the examples are for people, not for make check. advise, whose
# COMMAND's arguments come last, gets --repeat 1 -q first.
# check: once
. "$(dirname "$0")/lib.sh"

readme=$top/README.md
mkdir -p "$tmp/bin" "$tmp/work" "$tmp/blocks"
cat >"$tmp/bin/allocbench" <<EOF
#!/bin/sh
case \${1-} in
compare | plot | show | counters | backends | record | report | history | -h | --help | -V | --version) exec "$AB" "\$@" ;;
# ab of a build against its copy: a page's example runs as written, but a
# slowdown by chance (all 6 pairs slower, 1 in 64 a series, on a busy
# machine) is a verdict, not a failure of the example: --max-time 1000.
ab) shift; exec "$AB" ab --max-time 1000 "\$@" ;;
advise) shift; exec "$AB" advise --repeat 1 -q "\$@" ;;
esac
# churn and threads: two rounds, not the 16 million operations of the default.
rounds=
for a in "\$@"; do
	case \$a in
	churn | threads | --workload=churn | --workload=threads) rounds="--rounds 2" ;;
	replay | --workload=replay) exec "$AB" "\$@" --repeat 1 --jobs 2 -q ;;
	esac
done
exec "$AB" "\$@" --total 256K --repeat 1 --jobs 2 -q \$rounds
EOF
chmod +x "$tmp/bin/allocbench"

# The marked blocks, one file each (block.N), their README line in line.N.
awk -v dir="$tmp/blocks" '
	/^ *<!-- readme-test: run -->$/ {
		match($0, /^ */); ind = RLENGTH + 4; want = 1; n++; file = dir "/block." n
		printf "" >file; print NR >(dir "/line." n); next
	}
	want && /^[[:space:]]*$/ { if (want == 2) want = 0; next }
	want {
		match($0, /^ */)
		if (RLENGTH < ind) { want = 0; next }
		print substr($0, ind + 1) >>file; want = 2
	}' "$readme"
nreadme=$(ls "$tmp/blocks" | grep -c '^block\.')
check "the README marks its runnable examples (6 blocks or more, $nreadme found)" [ "$nreadme" -ge 6 ]
for i in $(seq 1 "$nreadme"); do
	l=$(cat "$tmp/blocks/line.$i")
	echo "README line $l" >"$tmp/blocks/line.$i"
	echo "$tmp/work" >"$tmp/blocks/dir.$i"
done

# The man pages' EXAMPLES: each .EX block, numbered after the README's.
n=$nreadme
for page in "$top"/man/*.1; do
	name=$(basename "$page")
	mkdir -p "$tmp/man-work/$name"
	before=$n
	n=$(awk -v dir="$tmp/blocks" -v n="$n" -v name="$name" -v wdir="$tmp/man-work/$name" '
		/^\.SH / { ex = ($0 == ".SH EXAMPLES"); next }
		ex && /^\.EX$/ {
			n++; file = dir "/block." n; printf "" >file
			print "man/" name " line " NR >(dir "/line." n); print wdir >(dir "/dir." n)
			inblock = 1; next
		}
		inblock && /^\.EE$/ { inblock = 0; next }
		inblock {
			gsub(/\\-/, "-"); gsub(/\\e/, "\\"); gsub(/\\\(aq/, "\047")
			print >>file
		}
		END { print n }' "$page")
	check "man/$name has examples to run (an .EX block in EXAMPLES)" [ "$n" -gt "$before" ]
done
nblocks=$n

# ABI32: this build has the 32-bit measuring program and this machine runs
# it (as in t0016).
test_lazy_prereq ABI32 '
	"$AB" --abi 32 --sizes 4 --total 4K --repeat 1 --backend arena -q -f json \
		>"$tmp/.abi32.json" 2>"$tmp/.abi32.err" && exit 0
	tail -n 1 "$tmp/.abi32.err"; exit 1'

i=1
while [ "$i" -le "$nblocks" ]; do
	b=$tmp/blocks/block.$i
	line=$(cat "$tmp/blocks/line.$i")
	dir=$(cat "$tmp/blocks/dir.$i")
	first=$(grep -v '^#' "$b" | head -n 1)
	if [ ! -s "$b" ]; then
		not_ok "$line: a marked block holds commands" "no commands in the block"
		i=$((i + 1))
		continue
	fi
	cp "$b" "$b.run"
	# AddressSanitizer must be the first library loaded: no LD_PRELOAD example there.
	if grep -q 'LD_PRELOAD=' "$b.run" && ! test_have_prereq '!ASAN'; then
		skip "$line: the LD_PRELOAD example" "$prereq_why"
		grep -v 'LD_PRELOAD=' "$b.run" >"$b.tmp" && mv "$b.tmp" "$b.run"
	fi
	# --abi 32 needs the 32-bit measuring program (make CHILD32=0 has none).
	if grep -q -- '--abi 32' "$b.run" && ! test_have_prereq ABI32; then
		skip "$line: the --abi 32 example" "$prereq_why"
		grep -v -- '--abi 32' "$b.run" >"$b.tmp" && mv "$b.tmp" "$b.run"
	fi
	# The gate's examples promise exit 0 because bytes are exact; where they
	# are not (RSS_EXACT), the gate may find a regression (exit 1), but the
	# example must still run: no usage error (exit 2), its files written.
	gate='allocbench compare [^-]|--baseline '
	if grep -Eq "$gate" "$b.run" && ! test_have_prereq RSS_EXACT; then
		skip "$line: the gate example's exit 0" "$prereq_why"
		sed -E "/$gate/{s/[[:space:]]+#.*\$//; s/\$/ || [ \$? -eq 1 ]/;}" \
			"$b.run" >"$b.tmp" && mv "$b.tmp" "$b.run"
	fi
	(cd "$dir" && PATH="$tmp/bin:$PATH" sh -e "$b.run") >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -eq 0 ]; then
		ok "$line runs as written: $first"
	else
		not_ok "$line runs as written: $first" "exit $rc: $(tail -n 3 "$tmp/err")"
	fi
	i=$((i + 1))
done

# What the examples promise they make.
for f in run.json run.md base.json now.json overhead.svg before.json after.json compare.svg \
	panels.svg sort.trace sorted.txt; do
	check "the README's examples make $f" [ -s "$tmp/work/$f" ]
done
for f in allocbench-run.1/sweep.json allocbench-run.1/run.csv allocbench-show.1/run.json \
	allocbench-plot.1/facets.svg allocbench-record.1/sort.trace allocbench-report.1/ls.json \
	allocbench-compare.1/now.json allocbench-advise.1/sort.trace allocbench-advise.1/advice.json; do
	check "the man pages' examples make man/$f" [ -s "$tmp/man-work/$f" ]
done
check "the labelled runs name the files in the plot" \
	sh -c "grep -q '>before<' '$tmp/work/compare.svg' && grep -q '>after<' '$tmp/work/compare.svg'"
test_done
