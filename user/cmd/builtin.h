/* SPDX-License-Identifier: GPL-2.0 */
/* probecache-resolve: the command table, exit codes and usage (main.c and the commands). */
#ifndef _PC_BUILTIN_H
#define _PC_BUILTIN_H

/*
 * Every command is int fn(int argc, char **argv) with argv[0] the command
 * name, parsed with getopt_long. It returns 0 or -errno (or a positive
 * PC_EXIT_* for documented partial outcomes); only main() maps that to an
 * exit status.
 */
struct pc_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;	/* one line: "scan [-r] PATH..." */
	const char *help;	/* one-line description */
};

/* Exit codes (documented in probecache-resolve(1)). */
#define PC_EXIT_OK		0
#define PC_EXIT_ERROR		1	/* the command failed */
#define PC_EXIT_USAGE		2	/* bad command line */
#define PC_EXIT_PARTIAL		3	/* some items done, some skipped (stale/missing) */

/* Print "usage: probecache-resolve USAGE" for @cmd to stderr, return -EINVAL. */
int pc_usage(const char *cmd);

/* Commands. */
int cmd_scan(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_del(int argc, char **argv);
int cmd_clear(int argc, char **argv);
int cmd_arm(int argc, char **argv);
int cmd_define(int argc, char **argv);
int cmd_disarm(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_gc(int argc, char **argv);
int cmd_add(int argc, char **argv);
int cmd_load(int argc, char **argv);
int cmd_unload(int argc, char **argv);
int cmd_preload(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_sites(int argc, char **argv);
int cmd_follow(int argc, char **argv);
int cmd_show(int argc, char **argv);

#endif /* _PC_BUILTIN_H */
