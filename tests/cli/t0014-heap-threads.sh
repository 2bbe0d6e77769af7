#!/bin/sh
# The measured allocator's first calls from threads (src/platform/heap.c): a
# measuring process's main thread never calls glibc's malloc (its own calls
# go to the private zone), so heap_measured() sets glibc's malloc up in the
# main thread before any thread calls it. glibc 2.34 to 2.41 do that set-up
# on the first call without a lock and hand the caller the main arena: when
# several threads made the first calls at once (the replay's per-thread
# mode), two could take the main arena with its one attached-thread count,
# and the second to exit aborted on "a->attached_threads > 0".
# tests/heap/threads.c is built from src/platform/heap.c and src/platform/heap_interpose.c
# as the binary is; never under a sanitizer, which must own malloc.
. "$(dirname "$0")/lib.sh"

HEAPT=$ABBUILD/tests/heap/threads
test_lazy_prereq GLIBC_HEAP '
	[ -x "$HEAPT" ] || { echo "tests/heap/threads is not built (a sanitizer build)"; exit 1; }
	libc=$(jq_get "$host_json" host.libc)
	[ "$libc" = glibc ] || { echo "libc $libc: the chunk header read is glibc'"'"'s"; exit 1; }'

if test_have_prereq GLIBC_HEAP; then
	# Deterministic: the thread whose call is the first gets an arena of its
	# own; without the set-up in the main thread it got the main arena.
	check "the first measured malloc, in a thread, is served by an arena of its own" \
		test "$("$HEAPT" arena)" = thread
	# The abort itself is a race: 60 processes of 8 threads showed it about
	# 5 times without the fix; with it none may die.
	check "60 processes, each with 8 threads making the first malloc at once: none dies" \
		test "$("$HEAPT" burst 60 2>"$tmp/err")" = 0
else
	skip "first measured malloc from threads" "$prereq_why"
fi
test_done
