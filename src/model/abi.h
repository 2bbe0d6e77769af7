/*
 * abi.h - the word size a row is measured in (run --abi): 64-bit rows in
 * this program (/proc/self/exe), 32-bit ones in allocbench-child32, the
 * measuring process's code built with -m32 from the same sources (make
 * builds it where the compiler can: gcc-multilib, libc6-dev-i386).
 *
 * The 32-bit program is found relative to this one's executable: beside it
 * (the build folder, ./allocbench), or in ../libexec/allocbench/ (make
 * install, the Debian package). A kernel that runs no 32-bit program (one
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

/* The 32-bit measuring program's file name. */
#define ABI_CHILD32 "allocbench-child32"

/* Where make install puts it, relative to the directory of the allocbench binary. */
#define ABI_CHILD32_LIBEXEC "../libexec/allocbench"

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
	char version[64];             /* what the program says of itself (32-bit), or "" */
};

/*
 * Makes ABI (32 or 64) ready for runner_measure(): for 64, this program;
 * for 32, finds allocbench-child32, runs it once (`--version`) directly or,
 * where the kernel cannot, under qemu-i386. Returns 0, or -1 with WHY
 * (WHY_SIZE bytes) saying what is missing and which Debian package brings
 * it. Call it from one thread, before any measurement.
 */
int abi_prepare(unsigned abi, char *why, size_t why_size);

/* The program of ABI after abi_prepare() succeeded for it (64: always), or NULL. */
const struct abi_program *abi_program(unsigned abi);

/* This build's own word size, bits (the 64-bit tool: 64). */
unsigned abi_native(void);

#endif
