#!/bin/sh
# Replays the fuzz targets' committed corpus and every input that once
# crashed (tests/fuzz/corpus/TARGET, tests/fuzz/crashes/TARGET) through the
# same LLVMFuzzerTestOneInput, built with the ordinary compiler (and the
# sanitizers under make SANITIZE=...): a crash fixed once stays fixed.
. "$(dirname "$0")/lib.sh"

for t in parse counters results trace; do
	bin=$ABBUILD/tests/fuzz/replay_$t
	if [ ! -x "$bin" ]; then
		not_ok "replay $t" "$bin is not built (make check builds it)"
		continue
	fi
	set -- "$top"/tests/fuzz/corpus/$t/* "$top"/tests/fuzz/crashes/$t/*
	files=
	for f in "$@"; do
		[ -f "$f" ] && files="$files $f"
	done
	# The parsers print their errors on stderr: expected, not shown.
	# shellcheck disable=SC2086
	out=$("$bin" "$t" $files 2>"$tmp/err")
	rc=$?
	if [ "$rc" -eq 0 ] && printf '%s\n' "$out" | grep -q "^ok - $t: [1-9][0-9]* inputs replayed"; then
		ok "replay $t ($(printf '%s' "$out" | sed 's/.*: //'))"
	else
		not_ok "replay $t" "exit status $rc: $(tail -5 "$tmp/err")"
	fi
done

test_done
