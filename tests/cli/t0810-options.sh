#!/bin/sh
# One entry per option: each command's option table (printed by the hidden
# CMD --dump-options) is what its --help lists, what the bash completion
# offers and what its man page's option list documents: every option of
# the table appears in each, and nothing else does. So an option added to a
# table without its documentation fails here. The man page is
# man/allocbench-CMD.1 (its OPTIONS section) when it exists, else the list
# that follows the comment '.\" OPTIONS CMD' in man/allocbench.1.
# check: once
. "$(dirname "$0")/lib.sh"

completion=$top/completion/allocbench.bash
test_lazy_prereq BASH 'command -v bash >/dev/null || { echo "no bash"; exit 1; }'
# The completion asks the binary the line names (allocbench): this build's.
PATH=$(dirname "$AB"):$PATH
export PATH

# The completions of "allocbench CMD -", one per line.
cat >"$tmp/comp.bash" <<'EOF2'
. "$1" || exit 2
COMP_WORDS=(allocbench "$2" -)
COMP_CWORD=2
COMP_LINE="allocbench $2 -"
COMP_POINT=${#COMP_LINE}
COMPREPLY=()
_allocbench || exit 3
printf '%s\n' "${COMPREPLY[@]}"
EOF2

# The options (-s and --sizes alike) in the words of standard input.
options() {
	grep -oE -- '(^|[ ,])--?[A-Za-z][A-Za-z0-9-]*' | tr -d ' ,' | sort -u
}

# man_options CMD: the options its man page's option list names.
man_options() {
	if [ -f "$top/man/allocbench-$1.1" ]; then
		awk '/^\.SH/ { on = $2 == "OPTIONS" } on' "$top/man/allocbench-$1.1"
	else
		awk -v m=".\\\\\" OPTIONS $1" 'on && /^\.S[HS]/ { exit }
			index($0, m) == 1 && (length($0) == length(m) || substr($0, length(m) + 1, 1) == " ") { on = 1 }
			on' "$top/man/allocbench.1"
	fi | awk 'prev ~ /^\.TP/ { print } { prev = $0 }' |
		grep -oE '\\-(\\-[a-z][a-z0-9-]*|[A-Za-z])' | sed 's/\\//g' | sort -u
}

# same WHAT: $tmp/table and $tmp/$WHAT hold the same options.
same() {
	missing=$(comm -23 "$tmp/table" "$tmp/$2" | tr '\n' ' ' | sed 's/ $//')
	extra=$(comm -13 "$tmp/table" "$tmp/$2" | tr '\n' ' ' | sed 's/ $//')
	check "$1: every option of the table is in $3${missing:+ (missing: $missing)}" [ -z "$missing" ]
	check "$1: $3 names no option the table lacks${extra:+ (extra: $extra)}" [ -z "$extra" ]
}

for cmd in run compare plot show counters backends record report advise history ab; do
	"$AB" "$cmd" --dump-options >"$tmp/dump" 2>"$tmp/err"
	rc=$?
	check "$cmd --dump-options prints the table" sh -c '[ "$1" = 0 ] && [ -s "$2" ]' sh "$rc" "$tmp/dump"
	options <"$tmp/dump" >"$tmp/table"
	"$AB" "$cmd" --help | grep -E '^ +(-[A-Za-z], )?--[a-z]' | sed 's/^ *\(\(-[A-Za-z], \)\{0,1\}--[a-z][a-z0-9-]*\).*/\1/' |
		options >"$tmp/help"
	same "$cmd" help "--help"
	man_options "$cmd" >"$tmp/man"
	same "$cmd" man "the man page"
	if test_have_prereq BASH; then
		bash "$tmp/comp.bash" "$completion" "$cmd" | options >"$tmp/comp"
		same "$cmd" comp "the bash completion"
	else
		skip "$cmd: the bash completion" "$prereq_why"
	fi
done

# The check can fail: a table with one option more than its documentation.
printf '%s\n' --sizes --no-such-option | sort >"$tmp/table"
printf '%s\n' --sizes >"$tmp/doc"
missing=$(comm -23 "$tmp/table" "$tmp/doc")
check "an option in the table and not documented is found" [ "$missing" = --no-such-option ]

test_done
