/*
 * child32_main.c - the entry of allocbench-child32, the measuring process
 * of run --abi 32 (abi.h): the sources of src/measure/ and what they use,
 * built with -m32, without PAPI and without cJSON (neither is needed to
 * measure: the counters report "not built with PAPI"; Debian has no
 * multiarch PAPI to link a 32-bit program with). It only measures:
 * `allocbench-child32 __measure protocol=N key=value...` as the parent
 * starts it (runner.c), and --version, which the parent runs once to learn
 * that this machine can execute it.
 */
#include "measure/child.h"
#include "platform/heap.h"
#include "platform/util.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], CHILD_COMMAND))
		return child_main(argc - 1, argv + 1);
	heap_private_end();
	if (argc == 2 && !strcmp(argv[1], "--version")) {
		printf("allocbench-child32 %s\n", ALLOCBENCH_VERSION);
		return fflush(stdout) || ferror(stdout) ? 1 : 0;
	}
	fprintf(stderr, "allocbench-child32: error: this is the 32-bit measuring process of "
		"allocbench, started by 'allocbench --abi 32' (see allocbench(1))\n");
	return 2;
}
