/*
 * abi.h - the program each row is measured in, by word size (run --abi):
 * allocbench-child64 measures the 64-bit rows and allocbench-child32 the
 * 32-bit ones (src/measure/child_main.c): the measuring process's sources,
 * built without the libraries only the parent uses (cJSON, libm), the
 * 32-bit one with -m32 (make builds it where the compiler can: gcc-multilib,
 * libc6-dev-i386).
 *
 * Both are found relative to this program's executable: beside it (the
 * build folder, ./allocbench), or in ../libexec/allocbench/ (make install,
 * the Debian package). Where no allocbench-child64 is there (a binary
 * copied alone), this program measures its 64-bit rows itself
 * (/proc/self/exe __measure): the same figures, at the set-up cost of the
 * libraries it loads. A kernel that runs no 32-bit program (one
 * built without IA32 emulation, or that disables it, as some
 * paravirtualised guests do) still measures the 32-bit rows' bytes through
 * qemu-i386 (Debian package qemu-user), which runs the 32-bit process on
 * this one's memory: the resident bytes are the allocator's, the times are
 * the emulator's and the report says so.
 */
#ifndef ALLOCBENCH_ABI_H
#define ALLOCBENCH_ABI_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

/* The measuring programs' file names. */
#define ABI_CHILD32 "allocbench-child32"
#define ABI_CHILD64 "allocbench-child64"

/* Where make install puts them, relative to the directory of the allocbench binary. */
#define ABI_LIBEXEC "../libexec/allocbench"

/* The Debian packages that let make build it. */
#define ABI_PACKAGES "gcc-multilib libc6-dev-i386"

/* The emulator used where the kernel runs no 32-bit program, and its package. */
#define ABI_EMULATOR "qemu-i386"
#define ABI_EMULATOR_PACKAGE "qemu-user"

/* Environment variable: a file used instead of looking for ABI_CHILD32 (tests). */
#define ABI_CHILD32_ENV "ALLOCBENCH_CHILD32"

/* Environment variable: "emulate" runs the 32-bit rows under ABI_EMULATOR even where the kernel could run them (tests). */
#define ABI_EMULATE_ENV "ALLOCBENCH_ABI32_EMULATE"

/* How a measuring process of one ABI is started. */
struct abi_program {
	unsigned abi;                 /* 32 or 64 */
	char path[PATH_MAX];          /* the program to execute */
	char emulator[PATH_MAX];      /* the emulator that runs it, or "" */
	char version[64];             /* what the program says of itself, or "" (this program) */
	uint64_t entry_anon_bytes;    /* its anonymous memory when main() began, bytes, without
					 a measurement's preload (its `__entry`); 0 unknown */
};

/*
 * Makes ABI (32 or 64) ready for runner_measure(): finds its program and
 * runs it once (`--version`) directly or, for 32 where the kernel cannot,
 * under qemu-i386; for 64, also `__entry`, or takes this program when
 * there is no allocbench-child64. Returns 0, or -1 with WHY (WHY_SIZE
 * bytes) saying what is missing or broken and which Debian package brings
 * it. Call it from one thread, before any measurement; again, it does
 * nothing.
 */
int abi_prepare(unsigned abi, char *why, size_t why_size);

/* The program of ABI after abi_prepare() succeeded for it, or NULL. */
const struct abi_program *abi_program(unsigned abi);

/* This build's own word size, bits (the 64-bit tool: 64). */
unsigned abi_native(void);

#endif
