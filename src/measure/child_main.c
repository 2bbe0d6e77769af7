/*
 * child_main.c - the entry of the measuring programs (abi.h):
 * allocbench-child64, the measuring process of 64-bit rows, and
 * allocbench-child32, the same sources built with -m32 for --abi 32. They
 * hold the sources of src/measure/ and what those use, without cJSON and
 * libm, which only the parent uses: a measurement is a freshly executed
 * process, and each library it loads costs its set-up (the 64-bit one
 * loads PAPI with dlopen only where it counts; the 32-bit one has no PAPI,
 * Debian having no multiarch PAPI to link with: its counters report "not
 * built with PAPI"). Commands, as the parent runs them:
 *
 *   `__measure protocol=N key=value...`  one measurement (runner.c);
 *   `--version`  "allocbench-childNN VERSION", run once to learn that this
 *                machine executes it and that it is this build's;
 *   `__entry`    the anonymous memory it had when main() began, bytes
 *                (abi_prepare(): what a replay's allocator set-up is
 *                counted from).
 */
#include "measure/child.h"
#include "platform/heap.h"
#include "platform/probe.h"
#include "platform/util.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define CHILD_NAME (sizeof(void *) == 4 ? "allocbench-child32" : "allocbench-child64")

int main(int argc, char **argv)
{
	/* Before anything of its own, as allocbench's main() does. */
	probe_entry_record();
	if (argc > 1 && !strcmp(argv[1], CHILD_COMMAND))
		return child_main(argc - 1, argv + 1);
	heap_private_end();
	if (argc == 2 && !strcmp(argv[1], "--version"))
		printf("%s %s\n", CHILD_NAME, ALLOCBENCH_VERSION);
	else if (argc == 2 && !strcmp(argv[1], "__entry"))
		printf("%" PRIu64 "\n", probe_entry_anon_bytes());
	else {
		fprintf(stderr, "%s: error: this is a measuring process of allocbench, started by "
			"allocbench itself (see allocbench(1))\n", CHILD_NAME);
		return 2;
	}
	return fflush(stdout) || ferror(stdout) ? 1 : 0;
}
