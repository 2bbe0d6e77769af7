#!/bin/sh
# The project's shape (issue 26), counted so that it stays true: no source
# file over 800 lines, no function over 80, the README at most 300 lines,
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

# The measuring program is its folder plus the platform and the trace: it
# includes nothing of the commands, the model or the writers (the 32-bit
# measuring program is built from exactly these folders).
upward=$(grep -n '#include "\(cmd\|model\|report\)/' src/measure/*.[ch] | tr '\n' ' ')
check "src/measure/ includes only measure/, platform/ and trace/${upward:+ ($upward)}" test -z "$upward"

# The model includes nothing of the commands or the writers: it returns
# data and errors, and report/ writes them. The exceptions below are
# being removed (issue 26): delete each from the list when its file no
# longer includes upward (the test says so), and the list when it is empty.
model_exceptions='src/model/compare.h'
for f in src/model/*.[ch]; do
	up=$(grep -n '#include "' "$f" | grep -v '#include "\(model\|measure\|platform\|trace\)/' | tr '\n' ' ')
	case " $model_exceptions " in
	*" $f "*)
		ok "$f is a temporary exception (${up:-it includes no other layer now: delete it from the list})" ;;
	*) check "$f includes only model/, measure/, platform/ and trace/${up:+ ($up)}" test -z "$up" ;;
	esac
done

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
