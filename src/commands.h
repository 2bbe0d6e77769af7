/*
 * commands.h - the subcommands besides run, one file each (cmd_*.c),
 * dispatched from the table in main.c. Each takes its own argv (argv[0] is
 * the command's name), parses its options, may exit on bad usage, and
 * returns the process's exit status.
 */
#ifndef ALLOCBENCH_COMMANDS_H
#define ALLOCBENCH_COMMANDS_H

/* allocbench compare BASELINE CURRENT: 0 no regression, 1 regression, 2 unusable input. */
int cmd_compare(int argc, char **argv);

#endif
