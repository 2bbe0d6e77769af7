/*
 * commands.h - the subcommands that main.c dispatches to from its table, one
 * cmd_*.c file each. ARGV[0] is the command's name ("plot"). Each returns the
 * process's exit status; like main.c, a command file may exit on bad usage
 * (status 2) and after --help (status 0).
 */
#ifndef ALLOCBENCH_COMMANDS_H
#define ALLOCBENCH_COMMANDS_H

/* allocbench plot: reports to an SVG chart (cmd_plot.c). */
int cmd_plot(int argc, char **argv);

#endif
