#!/bin/sh
# The project's shape (issues 26 and 44), counted so that it stays true: no
# source file over 800 lines, no function over 80 (headers too), no circle
# of files in a folder, the README at most 300 lines,
# cJSON only where a JSON document is written or read, and a saved report
# parsed in one place.
# check: once
. "$(dirname "$0")/lib.sh"
cd "$top" || exit 2

long_files=$(find src -name '*.[ch]' -exec wc -l {} + | awk '$2 != "total" && $1 > 800 { print $2 " " $1 }')
check "no source file is longer than 800 lines${long_files:+: $long_files}" test -z "$long_files"

# A function opens with "{" in the first column and closes with "}" there
# (the house style: tests/cli/t0990 counts what the style makes countable),
# in a header as in a .c file: the measuring loop is a static inline
# function in src/measure/measure.h (issue 44).
long_funcs=$(for f in $(find src -name '*.[ch]'); do
	awk -v F="$f" '/^\{/ { s = NR; name = prev }
		/^\}/ { if (s && NR - s - 1 > 80) print F ": " name " " NR - s - 1; s = 0 }
		{ prev = $0 }' "$f"
done)
check "no function is longer than 80 lines${long_funcs:+: $long_funcs}" test -z "$long_funcs"

# src/ holds the six layers (README.md, Architecture) and nothing else: no
# source file at its top level, no other folder.
folders=$(find src -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort | tr '\n' ' ')
check "src/ holds the six layers ($folders)" [ "$folders" = "cmd measure model platform report trace " ]
loose=$(find src -mindepth 1 -maxdepth 1 -type f | tr '\n' ' ')
check "no file at src/'s top level${loose:+ ($loose)}" test -z "$loose"
deep=$(find src -mindepth 2 -type d | tr '\n' ' ')
check "a layer has no folders of its own${deep:+ ($deep)}" test -z "$deep"

# A file is one idea: no files of a folder call each other in a circle (a
# file cut in two by a line count, whose halves call each other, is one
# idea in two rooms). File A calls B when A's object leaves undefined a
# symbol B's object defines (nm); a circle is two files each reaching the
# other. The objects are the build's; a file the build compiles into no
# object of its own (the recording library's, counters_nopapi.c with PAPI)
# is compiled here.
if ! command -v nm >/dev/null; then
	skip "no circle of files in a folder" "no nm (Debian: binutils)"
else
	for d in cmd measure model platform report trace; do
		mkdir -p "$tmp/o/$d"
		for c in src/$d/*.c; do
			o=$ABBUILD/${c%.c}.o
			f=${c##*/}
			if [ ! -f "$o" ]; then
				o=$tmp/o/$d/${f%.c}.o
				${CC:-cc} -std=c11 -D_GNU_SOURCE -pthread -Isrc -I"$ABBUILD" -c "$c" -o "$o" ||
					not_ok "$c compiles"
			fi
			nm --defined-only -g "$o" | awk -v f="$f" 'NF == 3 { print "D", f, $3 }'
			nm -u "$o" | awk -v f="$f" '{ print "U", f, $2 }'
		done >"$tmp/syms"
		circle=$(awk '$1 == "D" { def[$3] = $2; files[$2] = 1 }
			$1 == "U" { use[++n] = $2 " " $3 }
			END {
				for (i = 1; i <= n; i++) {
					split(use[i], u, " ")
					if ((u[2] in def) && def[u[2]] != u[1]) reach[u[1], def[u[2]]] = 1
				}
				for (k in files) for (a in files) if ((a, k) in reach)
					for (b in files) if ((k, b) in reach) reach[a, b] = 1
				for (a in files) for (b in files)
					if (a < b && ((a, b) in reach) && ((b, a) in reach)) print a " <-> " b
			}' "$tmp/syms" | sort | tr '\n' ' ')
		check "src/$d/: no files call each other in a circle${circle:+ ($circle)}" test -z "$circle"
	done
fi

# The measuring program is its folder plus the platform and the trace: it
# includes nothing of the commands, the model or the writers (the 32-bit
# measuring program is built from exactly these folders).
upward=$(grep -n '#include "\(cmd\|model\|report\)/' src/measure/*.[ch] | tr '\n' ' ')
check "src/measure/ includes only measure/, platform/ and trace/${upward:+ ($upward)}" test -z "$upward"

# The model includes nothing of the commands or the writers: it returns
# data and errors, and report/ reads and writes the documents.
for f in src/model/*.[ch]; do
	up=$(grep -n '#include "' "$f" | grep -v '#include "\(model\|measure\|platform\|trace\)/' | tr '\n' ' ')
	check "$f includes only model/, measure/, platform/ and trace/${up:+ ($up)}" test -z "$up"
done

# The model prints nothing: no file of it holds a FILE (a stream to write
# a report to, or one read as text: platform/ reads /proc) or writes on a
# stream itself. It says its progress through model/progress.h, whose sink
# the command sets (report/progress.c); its errors and warnings go through
# platform/'s error() and warning(), as git's layers call theirs.
writes=$(grep -nE 'FILE[[:space:]]*\*|[^_a-z](stdout|stderr)[,);]|\<(v?f?printf|f?puts|f?putc|putchar|dprintf)\(|isatty\(STDERR' \
	src/model/*.[ch] | grep -vE '^[^:]*:[0-9]+:[[:space:]]*(/?\*)' | tr '\n' ' ')
check "src/model/ prints nothing: no FILE in it, nothing on a stream of its own${writes:+ ($writes)}" test -z "$writes"

readme=$(wc -l <README.md)
check "the README is at most 300 lines ($readme)" test "$readme" -le 300

# cJSON only where a JSON document is written or read: the writers of the
# reports (run, compare, report, backends, history, ab) and their shared
# output, and the readers (of reports and of ab's comparisons). A figure, a
# verdict or a check computes nothing in cJSON's terms.
json_files='src/report/json_out.c src/report/report_json.c src/report/report_counters.c src/report/report_compare.c
src/report/report_history.c src/report/report_ab.c src/report/report_backends.c src/cmd/cmd_report.c src/report/results.c src/report/report_load.c
src/report/report_ab_load.c'
for f in $(grep -rl 'cjson/cJSON\.h' src | sort); do
	case " $(echo $json_files) " in
	*" $f "*) ok "$f includes cJSON: it writes or reads a JSON document" ;;
	*) not_ok "$f includes cJSON, but it neither writes nor reads a JSON document" ;;
	esac
done

# A saved report is parsed in one place: results.c (report_load.c builds a
# run's report from what results.c read).
parsers=$(grep -rl 'cJSON_Parse' src | tr '\n' ' ')
check "a JSON document is parsed in src/report/results.c alone ($parsers)" [ "$parsers" = "src/report/results.c " ]

# The tests' tags (tests/run.sh's TEST_SET): "# check: once" or "# check:
# host", nothing else; a test that reads the host's state (a prerequisite
# computed from it, or --jobs, which MemAvailable bounds) is tagged host, so
# that the host-state runs run it, unless it runs once.
badtag=$(grep -h '^# check:' tests/cli/t*.sh | grep -vx '# check: \(once\|host\)' | sort -u | tr '\n' ' ')
check "a test's tag is '# check: once' or '# check: host'${badtag:+ ($badtag)}" test -z "$badtag"
untagged=$(grep -lE 'PERF_EVENT|HW_COUNTERS|[^_]PMU|PAGE_FAULTS_EVENT|MEM_[0-9]G|RSS_EXACT|GLIBC_MALLOC|THP_NOT_ALWAYS|PAGE_4K|--jobs' tests/cli/t*.sh |
	xargs grep -Lx '# check: \(once\|host\)' | tr '\n' ' ')
check "every test that reads the host's state is tagged host${untagged:+ ($untagged)}" test -z "$untagged"
# What tests/run.sh runs of them.
TEST_SET=host sh tests/run.sh --list unit >"$tmp/host.list"
grep -lx '# check: host' tests/cli/t*.sh >"$tmp/host.want"
check "TEST_SET=host: the tests tagged host, no unit test" cmp -s "$tmp/host.list" "$tmp/host.want"
TEST_SET=variants sh tests/run.sh --list unit >"$tmp/variants.list"
{ echo unit; grep -Lx '# check: once' tests/cli/t*.sh; } >"$tmp/variants.want"
check "TEST_SET=variants: the unit tests and all but the tests tagged once" \
	cmp -s "$tmp/variants.list" "$tmp/variants.want"
sh tests/run.sh --list unit >"$tmp/all.list"
check "TEST_SET unset: every test" sh -c '[ "$(wc -l <"$1")" -eq $(($(ls tests/cli/t*.sh | wc -l) + 1)) ]' sh "$tmp/all.list"
TEST_SET=once sh tests/run.sh --list >"$tmp/out" 2>"$tmp/err"
check "TEST_SET=once: refused, naming it (exit 2)" \
	sh -c '[ "$1" -eq 2 ] && grep -qx "run.sh: TEST_SET must be all, variants or host, not '"'once'"'" "$2"' sh $? "$tmp/err"

test_done
