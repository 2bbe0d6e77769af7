/*
 * replay.c - runs a fuzz target's LLVMFuzzerTestOneInput on every file given
 * (the committed corpus and crash inputs), without libFuzzer: make check
 * builds it with the ordinary compiler, so every input that once crashed is
 * checked on every build. Prints "ok - NAME: N inputs"; a crash or a
 * sanitizer report ends the process, which tests/run.sh counts as a failure.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
	int inputs = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s NAME [FILE...]\n", argv[0]);
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		uint8_t *buf;
		long len;

		if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
			printf("not ok - %s: cannot read '%s'\n", argv[1], argv[i]);
			return 1;
		}
		buf = malloc(len ? (size_t)len : 1);
		if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) {
			printf("not ok - %s: cannot read '%s'\n", argv[1], argv[i]);
			return 1;
		}
		fclose(f);
		/* A private copy of exactly LEN bytes, so overreads are caught. */
		LLVMFuzzerTestOneInput(buf, (size_t)len);
		free(buf);
		inputs++;
	}
	printf("ok - %s: %d inputs replayed\n", argv[1], inputs);
	return 0;
}
