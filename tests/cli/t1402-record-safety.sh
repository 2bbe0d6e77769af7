#!/bin/sh
# allocbench record never harms the recorded program or the user's files:
# -o refuses a device, a FIFO or a directory untouched, writes through a
# symbolic link, refuses a path too long; a 32-bit program is refused; on a
# full file system the program runs as it would and the trace says how many
# calls it lost and why (its header read by tests/record/tracehead.c, not by
# allocbench's reader); every chunk and the header are sealed when the
# program ends, the window chunks left unsealed when it is killed; a SIGTERM
# to record reaches the program, which does not outlive it.
. "$(dirname "$0")/lib.sh"

HEAD=$ABBUILD/tests/record/tracehead
mnt=$tmp/mnt
child=
trap 'umount "$mnt" 2>/dev/null; [ -n "$child" ] && kill "$child" 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM

test_lazy_prereq JQ 'command -v jq >/dev/null || { echo "jq is not installed (apt-get install jq)"; exit 1; }'
test_lazy_prereq TMPFS_MOUNT '
	[ "$(id -u)" = 0 ] || { echo "not root (mount needs it)"; exit 1; }
	mkdir -p "$mnt" && mount -t tmpfs -o size=1m tmpfs "$mnt" 2>&1 || { echo "mount -t tmpfs is not permitted here"; exit 1; }
	umount "$mnt"'

# head_of TRACE: tracehead's line for TRACE in $h, each field also as h_NAME.
head_of() {
	h=$("$HEAD" "$1" 2>&1)
	for f in version state chunks lost lost_why lost_errno header sealed unsealed bad size; do
		eval "h_$f=\$(printf '%s\n' \"\$h\" | tr ' ' '\n' | sed -n 's/^$f=//p')"
	done
}

# ---------------------------------------------------------------- what -o may name

# same_files DIR: what DIR holds, with each file's type and device numbers.
same_files() { (cd "$1" && ls -A | while read -r f; do stat -c '%n %F %t:%T' "$f"; done); }

mkdir "$tmp/files"
mkfifo "$tmp/files/fifo"
mkdir "$tmp/files/dir"
if test_have_prereq ROOT; then
	mknod "$tmp/files/null" c 1 3
	kinds="fifo:FIFO dir:directory null:character.device"
else
	skip "-o on a character device made with mknod" "$prereq_why"
	kinds="fifo:FIFO dir:directory"
fi
before=$(same_files "$tmp/files")
for k in $kinds; do
	f=${k%%:*}
	# A program that forks: no FILE.PID beside it either.
	run_ab record -o "$tmp/files/$f" "$THREADS" fork
	check "-o on a ${k#*:} is refused (exit 2), the message names it" \
		sh -c '[ '"$rc"' = 2 ] && grep -q "cannot write a trace to .*/files/$1.: it is a $2" "$3" && [ ! -s "$4" ]' \
		sh "$f" "${k#*:}" "$tmp/err" "$tmp/out"
done
check "... each left as it was (type, device numbers), nothing created beside them" \
	test "$(same_files "$tmp/files")" = "$before"

ln -s target.trace "$tmp/files/link"
run_ab record -o "$tmp/files/link" "$THREADS"
head_of "$tmp/files/target.trace"
check "-o on a symbolic link: the target is written (converted to version 3), the link kept" \
	sh -c '[ '"$rc"' = 0 ] && [ -L "$1" ] && [ "$(readlink "$1")" = target.trace ] &&
	       [ -f "$2" ] && [ "$3" = 3 ]' sh "$tmp/files/link" "$tmp/files/target.trace" "$h_version"
run_ab record -o "$tmp/files/link" "$THREADS"
check "... and again, the target replaced" \
	sh -c '[ '"$rc"' = 0 ] && [ -L "$1" ] && "$2" "$3" >/dev/null' sh "$tmp/files/link" "$HEAD" "$tmp/files/target.trace"

# A path longer than the recording library keeps (4048 bytes): refused, not silently unrecorded.
long=$tmp/long
while [ ${#long} -lt 4000 ]; do long=$long/$(printf '%0100d' 0); done
mkdir -p "$long"
run_ab record -o "$long/a-trace-whose-path-is-too-long.trace" "$THREADS"
check "-o with a path too long for the library: refused (exit 2), said so, nothing run" \
	sh -c '[ '"$rc"' = 2 ] && grep -q "too long" "$1" && [ -z "$(ls -A "$2")" ]' sh "$tmp/err" "$long"

# ---------------------------------------------------------------- what can be recorded

# An ELF header of a 32-bit x86 executable: the dynamic loader would skip a 64-bit library.
printf '\177ELF\001\001\001\000\000\000\000\000\000\000\000\000\002\000\003\000\001\000\000\000' >"$tmp/elf32"
head -c 100 /dev/zero >>"$tmp/elf32"
chmod +x "$tmp/elf32"
run_ab record -o "$tmp/e.trace" "$tmp/elf32"
check "a 32-bit program is refused before it runs (exit 2), said so" \
	sh -c '[ '"$rc"' = 2 ] && grep -q "32-bit program" "$1" && [ ! -e "$2" ]' sh "$tmp/err" "$tmp/e.trace"
if [ -x "$ABBUILD/allocbench-child32" ]; then
	run_ab record -o "$tmp/e.trace" "$ABBUILD/allocbench-child32"
	check "... a real one (allocbench-child32) too" \
		sh -c '[ '"$rc"' = 2 ] && grep -q "32-bit program" "$1"' sh "$tmp/err"
else
	skip "a real 32-bit program is refused" "no allocbench-child32 in this build"
fi

# ---------------------------------------------------------------- seals

ALLOCBENCH_TEST_RECORD_V2=1 run_ab record -o "$tmp/s.trace" "$THREADS"
head_of "$tmp/s.trace"
check "exit: version 2, every chunk sealed, the header sealed, nothing lost" \
	test "$h_version $h_state $h_header $h_unsealed $h_bad $h_lost $h_lost_why" = "2 1 ok 0 0 0 0"
check "... and the trace's chunks are all of it" \
	test $((h_chunks * 4096 + 256)) = "$h_size"
ALLOCBENCH_TEST_RECORD_V2=1 run_ab record -o "$tmp/s.trace" "$THREADS" _exit
head_of "$tmp/s.trace"
check "_exit: every chunk and the header sealed" \
	test "$h_state $h_header $h_unsealed $h_bad" = "3 ok 0 0"
ALLOCBENCH_TEST_RECORD_V2=1 run_ab record -o "$tmp/s.trace" "$THREADS" exec
head_of "$tmp/s.trace"
check "exec: every chunk and the header sealed" \
	test "$h_state $h_header $h_unsealed $h_bad" = "2 ok 0 0"
ALLOCBENCH_TEST_RECORD_V2=1 run_ab record -o "$tmp/s.trace" "$THREADS" execfail
head_of "$tmp/s.trace"
"$AB" report "$tmp/s.trace" -f json >"$tmp/s.json" 2>/dev/null
check "a failed exec: the trace goes on (2000 calls more), sealed again at exit, no damaged chunk" \
	sh -c '[ "$1 $2 $3 $4" = "1 ok 0 0" ] && [ "$5" -ge 131530 ]' sh \
	"$h_state" "$h_header" "$h_unsealed" "$h_bad" "$(jq_get "$tmp/s.json" calls.total)"
ALLOCBENCH_TEST_RECORD_V2=1 run_ab record -o "$tmp/s.trace" "$THREADS" segv
head_of "$tmp/s.trace"
check "a crash: state writing, the header not sealed, only window chunks unsealed (6 threads of 8)" \
	sh -c '[ "$1 $2 $3" = "0 none 0" ] && [ "$4" -gt 0 ] && [ "$4" -le 48 ] && [ "$5" -gt 0 ]' sh \
	"$h_state" "$h_header" "$h_bad" "$h_unsealed" "$h_sealed"

# ---------------------------------------------------------------- a full file system

if test_have_prereq TMPFS_MOUNT; then
	mkdir -p "$mnt" && mount -t tmpfs -o size=1m tmpfs "$mnt"
	if test_have_prereq JQ; then
		# About 500000 calls: 1.5 MiB of trace.
		awk 'BEGIN { printf "["; for (i = 0; i < 60000; i++) printf "%s{\"id\":%d,\"v\":[%d,%d]}", i ? "," : "", i, i, i * 2; print "]" }' >"$tmp/data.json"
		jq -c 'map(.v | add) | add' "$tmp/data.json" >"$tmp/jq.want"
		ALLOCBENCH_TEST_RECORD_V2=1 run_ab record -o "$mnt/jq.trace" jq -c 'map(.v | add) | add' "$tmp/data.json"
		check "jq on a 1 MiB file system: its output and exit status as without record" \
			sh -c '[ '"$rc"' = 0 ] && cmp -s "$1" "$2"' sh "$tmp/out" "$tmp/jq.want"
		head_of "$mnt/jq.trace"
		check "... the trace says calls were lost, because it could not be written (ENOSPC)" \
			sh -c '[ "$1" -gt 0 ] && [ "$2 $3" = "2 28" ]' sh "$h_lost" "$h_lost_why" "$h_lost_errno"
		check "... and it is sound: ended by exit, sealed, no damaged chunk" \
			test "$h_state $h_header $h_unsealed $h_bad" = "1 ok 0 0"
		check "... no larger than the blocks it has (no holes)" \
			sh -c 'set -- $(stat -c "%s %b %B" "$1"); [ "$1" -le $(($2 * $3)) ]' sh "$mnt/jq.trace"
		check "... record's summary says it is incomplete, how much and why" \
			grep -q "incomplete: $h_lost calls not recorded (the file could not be written: No space left on device)" "$tmp/err"
		rm -f "$mnt"/jq.trace*
	else
		skip "jq on a full file system" "$prereq_why"
	fi
	# All but 64 KiB taken: the multi-threaded program's trace cannot grow.
	head -c $((960 * 1024)) /dev/zero >"$mnt/fill" 2>/dev/null
	run_ab record -o "$mnt/th.trace" "$THREADS" fork
	head_of "$mnt/th.trace"
	check "threads on a full file system: exit 0, its trace lost calls (ENOSPC), sealed" \
		test "$rc $h_lost_why $h_lost_errno $h_state $h_header $h_bad" = "0 2 28 1 ok 0"
	check "... and record said so" grep -q "incomplete: [1-9][0-9]* calls not recorded" "$tmp/err"
	rm -f "$mnt"/th.trace*
	# About 700 KiB free: room for the recorder's trace (635 to 700 KiB here;
	# calls lost where it needs more), none for its conversion beside it (150 KiB).
	head -c $((324 * 1024)) /dev/zero >"$mnt/fill" 2>/dev/null
	run_ab record -o "$mnt/th.trace" "$THREADS"
	check "no room to convert it: exit 0, the trace left in version 2 and readable, record says why" \
		sh -c '[ '"$rc"' = 0 ] && grep -q "th.trace.threads.[0-9]*.* (left in format version 2)" "$1" &&
		       [ "$("$2" report -f json "$3" | "$4" - trace.format_version)" = 2 ]' \
		sh "$tmp/err" "$AB" "$mnt/th.trace" "$JSONQ"
	check "... and no file of the conversion left behind" sh -c '! ls "$1"/*.v3-* 2>/dev/null' sh "$mnt"
	rm -f "$mnt"/th.trace*
	head -c $((960 * 1024)) /dev/zero >"$mnt/fill" 2>/dev/null
	head -c $((1024 * 1024)) /dev/zero >>"$mnt/fill" 2>/dev/null
	run_ab record -o "$mnt/th.trace" "$THREADS"
	what="a file system with no room at all: the program runs (record exits 1: no trace), record says why"
	if [ "$rc" = 1 ] && grep -q "no room" "$tmp/err"; then ok "$what"
	else not_ok "$what" "exit $rc: $(head -c 400 "$tmp/err")"; fi
	umount "$mnt"
else
	skip "recording on a full file system" "$prereq_why"
fi

# ---------------------------------------------------------------- signals

# sig_record SIG SCRIPT: record runs sh -c SCRIPT (which writes its pid),
# gets SIG once the program runs; $rc is record's status, $child the program.
sig_record() {
	rm -f "$tmp/pid"
	"$AB" record -o "$tmp/sig.trace" sh -c "echo \$\$ >'$tmp/pid'; $2" >"$tmp/out" 2>"$tmp/err" &
	rp=$!
	for i in $(seq 50); do [ -s "$tmp/pid" ] && break; sleep 0.1; done
	child=$(cat "$tmp/pid" 2>/dev/null)
	kill -"$1" "$rp"
	wait "$rp"
	rc=$?
}
# Under an address-space limit (ulimit -v) the trace's mapping takes a
# quarter of it (16 MiB at least), not 64 GiB: the program is recorded, and
# a trace that outgrows that says why it stopped.
if test_have_prereq CC,NOASAN; then
	cat >"$tmp/loop.c" <<'EOF'
#include <stdlib.h>
int main(void)
{
	for (int i = 0; i < 10000000; i++) {
		void *volatile p = malloc(16 + i % 64);
		free(p);
	}
	return 0;
}
EOF
	${CC:-cc} -O1 -o "$tmp/loop" "$tmp/loop.c"
	(ulimit -v 64000 && exec "$AB" record -o "$tmp/limited.trace" -- "$tmp/loop") >"$tmp/out" 2>"$tmp/err"
	check "ulimit -v 64000: the program is recorded (exit 0)" [ $? -eq 0 ]
	check "... until the trace fills its mapping, which is said" \
		grep -q "calls not recorded (the trace reached the largest size the process's address-space limit (ulimit -v) left it)" "$tmp/err"
	check "... and the trace reads whole" sh -c '"$1" report "$2" >"$3"' sh "$AB" "$tmp/limited.trace" "$tmp/out"
else
	for t in "ulimit -v 64000: the program is recorded (exit 0)" \
		 "... until the trace fills its mapping, which is said" "... and the trace reads whole"; do
		skip "$t" "$prereq_why"
	done
fi

for s in TERM:143 HUP:129; do
	if [ $s = HUP:129 ] && ! test_have_prereq HUP_NOT_IGNORED; then
		skip "SIGHUP to record: the program is gone, record exits 129" "$prereq_why"
		continue
	fi
	sig_record "${s%:*}" 'exec sleep 30'
	gone=yes
	[ -n "$child" ] && kill -0 "$child" 2>/dev/null && gone=no
	check "SIG${s%:*} to record: the program is gone, record exits ${s#*:}" \
		test "$rc $gone" = "${s#*:} yes"
	[ $gone = no ] && kill "$child"
	child=
done
sig_record TERM 'trap "kill \$!; exit 5" TERM; sleep 30 & wait'
check "SIGTERM to record, which the program handles: record exits as the program did (5)" \
	test "$rc" = 5
# (Where it failed, the program is still there: its trap ends its sleep too.)
[ -n "$child" ] && kill "$child" 2>/dev/null
child=

test_done
