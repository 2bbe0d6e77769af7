#!/bin/sh
# The man pages: one per command (allocbench-CMD.1, as git's), each with the
# sections a reader looks for, rendered by groff without a warning, of the
# binary's version, named by the last line of the command's short --help;
# allocbench(1) lists them all in SEE ALSO; the JSON fields they name are
# the schema's.
# check: once
. "$(dirname "$0")/lib.sh"

version=$("$AB" --version | cut -d' ' -f2)
cmds="run compare show plot counters backends record report advise history ab"
for c in $cmds; do
	run_ab "$c" --help
	check "$c --help exits 0" [ "$rc" -eq 0 ]
	# A short help that sends the reader to the page (issue 44): a line per
	# option, each line within 79 columns, the last naming the page; run's
	# lists every command's usage, its backends and its workloads besides.
	long=$(awk 'length > 79 { printf " %d", NR }' "$tmp/out")
	check "$c --help: no line over 79 columns${long:+ (line$long)}" [ -z "$long" ]
	limit=30
	[ "$c" = run ] && limit=75
	check "$c --help: at most $limit lines ($(wc -l <"$tmp/out"))" [ "$(wc -l <"$tmp/out")" -le $limit ]
	check "$c --help: the last line names allocbench-$c(1)" \
		sh -c 'tail -n 1 "$1" | grep -q "^allocbench-$2(1) says more"' sh "$tmp/out" "$c"
	check "man/allocbench-$c.1 exists" [ -f "$top/man/allocbench-$c.1" ]
	check "allocbench(1) lists allocbench-$c(1) in SEE ALSO" \
		sh -c "sed -n '/^\.SH SEE ALSO/,\$p' '$top/man/allocbench.1' | grep -q '^\.BR allocbench-$c (1)'"
done
check "every page in man/ is one of a command or the overview" \
	sh -c "cd '$top/man' && for f in *.1; do case \$f in allocbench.1) ;; allocbench-*.1)
		c=\${f#allocbench-}; case ' $cmds ' in *\" \${c%.1} \"*) ;; *) exit 1 ;; esac ;; *) exit 1 ;; esac; done"

# The JSON fields are listed twice, in the schema (data/allocbench.schema.json)
# and in the man pages: each checked against the other. Every member the
# schema describes is named in a page; every field of allocbench-run(1)'s
# table of units (JSON) is a member the schema describes.
test_lazy_prereq JQ 'command -v jq >/dev/null || { echo "jq is not installed (apt-get install jq)"; exit 1; }'
if test_have_prereq JQ; then
	jq -r '[.. | objects | .properties? // empty | keys[]] | unique[]' "$top/data/allocbench.schema.json" >"$tmp/members"
	unnamed=$(for m in $(cat "$tmp/members"); do grep -qw -- "$m" "$top"/man/*.1 || printf ' %s' "$m"; done)
	check "every member of the schema is named in a man page${unnamed:+ (not:$unnamed)}" \
		[ -s "$tmp/members" -a -z "$unnamed" ]
	sed -n '/^field  *unit  *scope$/,/^\.fi$/p' "$top/man/allocbench-run.1" | sed '1d;$d' |
		sed 's/  .*//' | grep -o '[a-z][a-z0-9_]*' | sort -u >"$tmp/fields"
	unknown=$(grep -vxF -f "$tmp/members" "$tmp/fields" | tr '\n' ' ')
	check "every field of allocbench-run(1)'s table of units is a member of the schema${unknown:+ (not: $unknown)}" \
		[ "$(wc -l <"$tmp/fields")" -gt 30 -a -z "$unknown" ]
else
	skip "the man pages' JSON fields against the schema" "$prereq_why"
fi

test_lazy_prereq GROFF 'command -v groff >/dev/null || { echo "no groff (apt-get install groff-base)"; exit 1; }'
for page in "$top"/man/*.1; do
	pg=$(basename "$page" .1)
	check "$pg: .TH names the page and the version $version" \
		grep -Eq "^\\.TH $(echo "$pg" | tr a-z A-Z) 1 \"[0-9-]+\" \"allocbench $version\"" "$page"
	for s in NAME SYNOPSIS DESCRIPTION 'EXIT STATUS' EXAMPLES 'SEE ALSO'; do
		check "$pg: has a section $s" grep -q "^\\.SH $s\$" "$page"
	done
	case $pg in allocbench) ;; *) check "$pg: has a section OPTIONS" grep -q '^\.SH OPTIONS$' "$page" ;; esac
	# A line that starts with '.' or "'" is a request of this list (or a
	# comment): prose that does not is not swallowed.
	check "$pg: every line starting with '.' or an apostrophe is a known request" sh -c "
		! grep -nE \"^[.']\" '$page' |
			grep -vE ':[.](B|BI|BR|I|IB|IR|IP|PP|RB|RE|RI|RS|SH|SS|TH|TP|br|nf|fi|EX|EE)( |\$)' |
			grep -vF ':.\\\"' | grep ."
	if test_have_prereq GROFF; then
		groff -ww -man -z "$page" >"$tmp/groff.err" 2>&1
		check "$pg: groff -ww -man renders it without a warning" [ ! -s "$tmp/groff.err" ]
	else
		skip "$pg: groff -ww -man renders it without a warning" "$prereq_why"
	fi
done
test_done
