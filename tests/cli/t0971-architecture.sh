#!/bin/sh
# The README's Architecture section says where each kind of change goes,
# naming files: every path it names (a `...` span that starts with src/,
# man/, tests/, data/, completion/, debian/ or .ci/; a * or NAME in it
# matches any file) exists, so that a file moved or renamed takes the map
# with it.
# check: once
. "$(dirname "$0")/lib.sh"

sed -n '/^## Architecture$/,/^## /p' "$top/README.md" >"$tmp/arch"
check "the README has an Architecture section" [ -s "$tmp/arch" ]
check "it says where each kind of change goes (an option, a figure, a workload, a backend, a format, a command)" \
	sh -c "for w in 'an option' 'a figure' 'a workload' 'a backend' 'an output format' 'a command'; do
		grep -q \"^| \$w\" '$tmp/arch' || exit 1; done"

grep -o '`[^`]*`' "$tmp/arch" | tr -d '`' |
	grep -E '^(src|man|tests|data|completion|debian|\.ci)/' | sort -u >"$tmp/paths"
n=$(wc -l <"$tmp/paths")
check "the section names files ($n; 20 or more)" [ "$n" -ge 20 ]
while read -r p; do
	# NAME and NNNN stand for any name; a trailing / is a folder.
	glob=$(printf '%s' "$p" | sed 's/NAME/*/g; s/NNNN/[0-9][0-9][0-9][0-9]/g')
	found=
	for f in $top/$glob; do
		[ -e "$f" ] && { found=1; break; }
	done
	check "the file the Architecture names exists: $p" [ -n "$found" ]
done <"$tmp/paths"
test_done
