/* SPDX-License-Identifier: GPL-2.0 */
/* probecache-resolve: every command's getopt_long, with the global options in it. */
#ifndef _PC_OPTS_H
#define _PC_OPTS_H

#include <getopt.h>

/*
 * getopt_long(3) for the command argv[0], its options @shortopts and
 * @longopts joined by the global ones, which are handled here and so
 * accepted anywhere among any command's options: -v/--verbose (again for
 * more), -q/--quiet, -C/--cache-dir DIR. An unknown option, or one missing
 * its argument, is said as "probecache-resolve: CMD: ..." with the closest
 * option of CMD offered, and returned as '?'. A ':' right after the leading
 * '+' of @shortopts returns a missing argument as ':' to the caller instead.
 * Short flags mean one thing across commands; the man page has the table.
 */
int pc_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts);

/* Handle one global option @c (main() before the command); -EINVAL reported, 1 not one. */
int pc_global_opt(int c, const char *arg);

#endif /* _PC_OPTS_H */
