#!/bin/sh
# Nothing but the measurement reaches the report: what a measuring process
# writes on its standard output and error stays in its row's notes; no
# descriptor leaks into the children; -o writes through a symbolic link and
# keeps the file's mode, and never overwrites an input; every terminating
# signal removes -o's temporary file and the measuring processes.
. "$(dirname "$0")/lib.sh"

# A preloaded allocator that talks: glibc's malloc under its own name, with a
# constructor that prints a banner on stdout and stderr (not with
# BANNER_QUIET) and names every descriptor it inherited that is one of
# allocbench's -o temporary files. With BANNER_FORK=FILE it also forks a
# helper that keeps every descriptor (the result pipe too) and sleeps, and
# appends the helper's pid to FILE.
cat >"$tmp/banner.c" <<'C'
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
extern void *__libc_malloc(size_t), *__libc_calloc(size_t, size_t), *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
void *malloc(size_t n) { return __libc_malloc(n); }
void *calloc(size_t n, size_t m) { return __libc_calloc(n, m); }
void *realloc(void *p, size_t n) { return __libc_realloc(p, n); }
void free(void *p) { __libc_free(p); }
__attribute__((constructor)) static void banner(void)
{
	const char *helper = getenv("BANNER_FORK");
	char link[64], target[512];

	if (!getenv("BANNER_QUIET")) {
		printf("BANNER on stdout\n");
		fflush(stdout);
		fprintf(stderr, "BANNER on stderr\n");
	}
	for (int fd = 0; fd < 1024; fd++) {
		ssize_t n;

		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		n = readlink(link, target, sizeof(target) - 1);
		if (n < 0)
			continue;
		target[n] = '\0';
		if (strstr(target, ".tmp"))
			printf("LEAKED fd %d: %s\n", fd, target);
	}
	fflush(stdout);
	if (helper && *helper) {
		pid_t pid = fork();

		if (!pid) {
			sleep(120);
			_exit(0);
		}
		/*
		 * The parent writes the pid: the helper itself may not run
		 * before the measurement ends on a loaded machine, and is
		 * then killed before it could say it started.
		 */
		if (pid > 0) {
			FILE *f = fopen(helper, "a");

			if (f) {
				fprintf(f, "%d\n", (int)pid);
				fclose(f);
			}
		}
	}
}
C
test_lazy_prereq CC '${CC:-cc} -shared -fPIC -o "$tmp/banner.so" "$tmp/banner.c" || { echo "cannot build a shared library with ${CC:-cc}"; exit 1; }'
test_lazy_prereq BANNER 'test_have_prereq CC && [ $asan = 0 ] || { echo "no preload under AddressSanitizer, or no compiler"; exit 1; }'

# banner_run ARGS...: a JSON run with the talking allocator as backend "talk".
banner_run() {
	"$AB" --preload talk="$tmp/banner.so" --backend talk,pool --sizes 64 --total 64K \
		--repeat 2 -q -f json "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# valid_report FILE: FILE is one allocbench JSON report, valid for the schema.
valid_report() { "$SCHEMACHECK" "$top/data/allocbench.schema.json" "$1" >/dev/null 2>&1; }

# ---- descriptors: 0, 1, 2 always valid, nothing inherited but them and the result pipe ----
ALLOCBENCH_TEST_FAULT=bogus:pool "$AB" --backend arena,pool --sizes 64 --total 64K --repeat 1 \
	-f json -o "$tmp/closed.json" 2>&-
check "2>&-: the report is valid JSON" valid_report "$tmp/closed.json"
check "2>&-: the child's message is not in the report" sh -c "! grep -q '^allocbench: error' '$tmp/closed.json'"
check "the child's stderr is in its row's notes" sh -c "'$JSONQ' '$tmp/closed.json' 'results[backend=pool].notes' | grep -q 'stderr: allocbench: error: invalid ALLOCBENCH_TEST_FAULT'"
if test_have_prereq BANNER; then
	banner_run -o "$tmp/fds.json" 3</dev/null
	check "-o's temporary file is not inherited" sh -c "! cat '$tmp/fds.json' '$tmp/out' '$tmp/err' | grep -q LEAKED"
	"$AB" --preload talk="$tmp/banner.so" --backend talk,pool --sizes 64 --total 64K \
		--repeat 2 -q -f json -o "$tmp/fds2.json" >"$tmp/out" 2>&-
	check "2>&-: -o's temporary file is not the children's stderr" sh -c "! cat '$tmp/fds2.json' '$tmp/out' | grep -q LEAKED"
	check "2>&-: the report with a talking preload is valid" valid_report "$tmp/fds2.json"
else
	for n in "-o's temporary file is not inherited" "2>&-: -o's temporary file is not the children's stderr" \
		 "2>&-: the report with a talking preload is valid"; do
		skip "$n" "$prereq_why"
	done
fi

# ---- a measuring process's stdout and stderr stay in its row's notes ----
# gone PID: no such process, or only its zombie.
gone() { ! grep -qv '^[^)]*) Z' "/proc/$1/stat" 2>/dev/null; }
# no_banner FILE: FILE has no line of the preload's banner.
no_banner() { ! grep -q BANNER "$1"; }
if test_have_prereq BANNER; then
	banner_run
	check "talking preload: exit status 0" [ "$rc" -eq 0 ]
	check "talking preload: -f json is one valid report" valid_report "$tmp/out"
	check "talking preload: its row is ok" [ "$(jq_get "$tmp/out" 'results[backend=talk].status')" = ok ]
	jq_get "$tmp/out" 'results[backend=talk].notes' >"$tmp/notes"
	check "talking preload: its stdout is in the row's notes" grep -q '"stdout: BANNER on stdout"' "$tmp/notes"
	check "talking preload: its stderr is in the row's notes" grep -q '"stderr: BANNER on stderr"' "$tmp/notes"
	check "talking preload: not in the other row's notes" [ "$(jq_get "$tmp/out" 'results[backend=pool].notes')" = '[]' ]
	check "talking preload: stderr says where it went" grep -q "measuring process of talk at 64 B wrote on its standard output.*notes" "$tmp/err"
	"$AB" plot "$tmp/out" -o "$tmp/talk.svg" 2>"$tmp/err"
	check "talking preload: plot reads the report" [ $? -eq 0 -a -s "$tmp/talk.svg" ]
	"$AB" --preload talk="$tmp/banner.so" --backend talk,pool --sizes 64 --total 64K --repeat 1 \
		-q -f json 2>/dev/null | "$AB" plot -o "$tmp/piped.svg" 2>"$tmp/err"
	check "talking preload: -f json | plot works" [ $? -eq 0 -a -s "$tmp/piped.svg" ]
	status=$("$AB" --preload talk="$tmp/banner.so" --backend talk --sizes 64 --total 64K \
		--repeat 1 -q -f json 2>/dev/null | "$JSONQ" - 'results[backend=talk].status')
	check "talking preload: -f json | jsonq reads it" [ "$status" = ok ]
	for f in text csv markdown; do
		banner_run -f $f
		check "talking preload: -f $f has none of it" no_banner "$tmp/out"
	done

	# A helper that keeps the pipes open: the complete result is taken, the helper killed.
	rm -f "$tmp/helpers"
	BANNER_QUIET=1 BANNER_FORK=$tmp/helpers banner_run --timeout 20
	check "forking preload: exit status 0" [ "$rc" -eq 0 ]
	check "forking preload: its row is ok, not timed out" [ "$(jq_get "$tmp/out" 'results[backend=talk].status')" = ok ]
	check "forking preload: both helpers started" [ "$(wc -l <"$tmp/helpers" 2>/dev/null)" -eq 2 ]
	all_gone=yes
	for p in $(cat "$tmp/helpers" 2>/dev/null); do gone "$p" || { all_gone=no; kill -9 "$p"; }; done
	check "forking preload: its helpers were killed with it" [ $all_gone = yes ]
else
	for n in "talking preload: -f json is one valid report" "forking preload: its row is ok"; do
		skip "$n" "$prereq_why"
	done
fi

# ---- -o writes through a symbolic link and keeps the file's mode ----
test_lazy_prereq ROOT '[ "$(id -u)" = 0 ] || { echo "not root"; exit 1; }'
test_lazy_prereq NOBODY 'id -u nobody >/dev/null 2>&1 || { echo "no user nobody"; exit 1; }'
# small_run ARGS...: a small JSON run, its stdout in $tmp/out.
small_run() {
	"$AB" --backend arena --sizes 64 --total 64K --repeat 1 -q -f json "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}
echo old >"$tmp/real.json"
ln -s real.json "$tmp/link.json"
small_run -o "$tmp/link.json"
check "-o LINK: exit status 0" [ "$rc" -eq 0 ]
check "-o LINK: the link is still a link" [ -L "$tmp/link.json" ]
check "-o LINK: its target holds the report" valid_report "$tmp/real.json"
ln -s new.json "$tmp/dangling.json"
small_run -o "$tmp/dangling.json"
check "-o DANGLING-LINK: the link is still a link" [ -L "$tmp/dangling.json" ]
check "-o DANGLING-LINK: its target was created" valid_report "$tmp/new.json"
mkdir "$tmp/sub"
echo old >"$tmp/chained.json"
ln -s ../chained.json "$tmp/sub/l1"
ln -s sub/l1 "$tmp/l2.json"
small_run -o "$tmp/l2.json"
check "-o LINK-TO-LINK: both links stay" [ -L "$tmp/l2.json" -a -L "$tmp/sub/l1" ]
check "-o LINK-TO-LINK: the last target holds the report" valid_report "$tmp/chained.json"
check "-o LINK: no temporary file is left" [ -z "$(find "$tmp" -name '*.tmp??????')" ]
echo old >"$tmp/private.json"
chmod 600 "$tmp/private.json"
small_run -o "$tmp/private.json"
check "-o FILE: a 0600 file stays 0600" [ "$(stat -c %a "$tmp/private.json")" = 600 ]
chmod 640 "$tmp/private.json"
ln -s private.json "$tmp/private-link.json"
small_run -o "$tmp/private-link.json"
check "-o LINK: the target's mode (0640) is kept" [ "$(stat -c %a "$tmp/private.json")" = 640 ]
echo old >"$tmp/owned.json"
chown nobody "$tmp/owned.json" 2>/dev/null
small_run -o "$tmp/owned.json"
check_if ROOT,NOBODY "-o FILE: the file's owner is kept (as root)" [ "$(stat -c %U "$tmp/owned.json")" = nobody ]
# /dev/stdout is such a link into /proc; a copy of it here, so that a broken
# build cannot replace the machine's /dev/stdout.
ln -s /proc/self/fd/1 "$tmp/stdout-link"
small_run -o "$tmp/stdout-link"
check "-o LINK-INTO-/proc: the link stays" [ -L "$tmp/stdout-link" ]
check "-o LINK-INTO-/proc: the report went to standard output" valid_report "$tmp/out"
mkfifo "$tmp/fifo" 2>/dev/null
cat "$tmp/fifo" >"$tmp/from-fifo" &
small_run -o "$tmp/fifo"
wait
check "-o FIFO: still a FIFO" [ -p "$tmp/fifo" ]
check "-o FIFO: the reader got the report" valid_report "$tmp/from-fifo"

# ---- every terminating signal cleans up as SIGINT does ----
# The measuring processes this test started (marked with ABTEST=$tmp in
# their environment) that are still there, zombies excepted.
measuring_children() {
	for e in /proc/[0-9]*/environ; do
		d=${e%/environ}
		grep -qa "ABTEST=$tmp" "$e" 2>/dev/null || continue
		tr '\0' ' ' <"$d/cmdline" 2>/dev/null | grep -q __measure || continue
		gone "${d#/proc/}" || echo "${d#/proc/}"
	done
}
# hung_run: a run whose pool child hangs, -o $tmp/keep.json (holding "old"),
# in the background: $pid, and $child once the hung child runs.
hung_run() {
	echo old >"$tmp/keep.json"
	ABTEST=$tmp ALLOCBENCH_TEST_FAULT=hang:pool "$AB" --sizes 4 --total 64K --repeat 1 \
		--backend arena,pool -q --timeout 120 -o "$tmp/keep.json" 2>"$tmp/err" &
	pid=$!
	child=
	for i in $(seq 300); do
		child=$(measuring_children)
		[ -n "$child" ] && break
		sleep 0.1
	done
}
# cleaned_up NAME: -o as it was, no temporary file, no measuring process.
cleaned_up() {
	check "SIG$1: -o is left as it was" [ "$(cat "$tmp/keep.json")" = old ]
	check "SIG$1: no temporary file is left" [ -z "$(find "$tmp" -name 'keep.json.tmp*')" ]
	check "SIG$1: no measuring process is left" [ -z "$(measuring_children)" ]
}
for sig in HUP QUIT USR1 USR2 ALRM PIPE TERM; do
	if [ $sig = HUP ] && ! test_have_prereq HUP_NOT_IGNORED; then
		skip "SIGHUP cleans up" "$prereq_why"
		continue
	fi
	hung_run
	check "SIG$sig: the hung child started" [ -n "$child" ]
	kill -$sig $pid
	wait $pid 2>/dev/null
	rc=$?
	want=$((128 + $(signum $sig)))
	check "SIG$sig: exit status $want (128 + the signal)" [ "$rc" -eq "$want" ]
	if [ $sig = PIPE ]; then
		check "SIGPIPE: nothing said" [ ! -s "$tmp/err" ]
	else
		check "SIG$sig: the message says interrupted" grep -q "interrupted by SIG$sig" "$tmp/err"
	fi
	cleaned_up $sig
	for c in $(measuring_children); do kill -9 "$c"; done
	rm -f "$tmp"/keep.json.tmp*
done

# The parent killed outright: its measuring process dies with it.
hung_run
check "SIGKILL: the hung child started" [ -n "$child" ]
kill -KILL $pid
wait $pid 2>/dev/null
for i in $(seq 300); do [ -z "$(measuring_children)" ] && break; sleep 0.1; done
check "SIGKILL of the parent: no measuring process is left" [ -z "$(measuring_children)" ]
for c in $(measuring_children); do kill -9 "$c"; done
rm -f "$tmp"/keep.json.tmp*

# SIGINT while -o FIFO waits for its reader: an interrupt (130), not bad usage.
rm -f "$tmp/fifo2"
mkfifo "$tmp/fifo2"
"$AB" --sizes 4 --total 64K --repeat 1 --backend arena -q -o "$tmp/fifo2" 2>"$tmp/err" &
pid=$!
# Waiting in open() for a reader: the kernel's wait_for_partner, or at least asleep.
for i in $(seq 300); do
	grep -q partner "/proc/$pid/wchan" 2>/dev/null && break
	sleep 0.1
done
kill -INT $pid
wait $pid 2>/dev/null
rc=$?
check "SIGINT while -o FIFO waits for a reader: exit status 130" [ "$rc" -eq 130 ]
check "SIGINT while -o FIFO waits: the message says interrupted" grep -q "interrupted by SIGINT" "$tmp/err"
check "SIGINT while -o FIFO waits: still a FIFO" [ -p "$tmp/fifo2" ]

# plot and compare: a signal before the commit leaves -o as it was.
"$AB" --backend arena --sizes 64 --total 64K --repeat 1 -q -f json -o "$tmp/in.json"
echo old >"$tmp/keep.json"
mkfifo "$tmp/slow"
"$AB" plot "$tmp/in.json" - -o "$tmp/keep.json" <"$tmp/slow" 2>"$tmp/err" &
pid=$!
exec 7>"$tmp/slow"
for i in $(seq 300); do
	grep -q pipe "/proc/$pid/wchan" 2>/dev/null && break
	sleep 0.1
done
kill -HUP $pid 2>/dev/null
exec 7>&-
wait $pid 2>/dev/null
rc=$?
if test_have_prereq HUP_NOT_IGNORED; then
	check "plot: SIGHUP while it reads its input: it ends by the signal (129)" [ "$rc" -eq 129 ]
	check "plot: SIGHUP: -o is left as it was" [ "$(cat "$tmp/keep.json")" = old ]
	check "plot: SIGHUP: no temporary file is left" [ -z "$(find "$tmp" -name 'keep.json.tmp*')" ]
else
	skip "plot: SIGHUP while reading" "$prereq_why"
fi

# ---- -o never overwrites an input ----
"$AB" --backend arena --sizes 64 --total 64K --repeat 1 -q -f json -o "$tmp/a.json"
cp "$tmp/a.json" "$tmp/b.json"
cp "$tmp/b.json" "$tmp/b.orig"
ln -s "$tmp/a.json" "$tmp/link-a.json"
expect_usage "compare A B -o B is refused" "the output '.*b.json' is also an input" \
	compare "$tmp/a.json" "$tmp/b.json" -o "$tmp/b.json"
check "compare A B -o B: B is left as it was" cmp -s "$tmp/b.json" "$tmp/b.orig"
expect_usage "plot A -o A is refused" "the output '.*a.json' is also an input \('.*a.json'\)" \
	plot "$tmp/a.json" -o "$tmp/a.json"
expect_usage "plot A -o LINK-TO-A is refused" "the output '.*link-a.json' is also an input" \
	plot "$tmp/b.json" "$tmp/a.json" -o "$tmp/link-a.json"
"$AB" plot - -o "$tmp/b.json" <"$tmp/b.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "plot - -o A < A is refused" [ "$rc" -eq 2 ]
check "plot - -o A < A names standard input" grep -q "also an input ('standard input')" "$tmp/err"
check "plot - -o A < A: A is left as it was" cmp -s "$tmp/b.json" "$tmp/b.orig"
run_ab compare "$tmp/a.json" "$tmp/b.json" -o "$tmp/c.json"
check "compare A B -o C still works" [ "$rc" -eq 0 -a -s "$tmp/c.json" ]

test_done
