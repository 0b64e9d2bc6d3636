/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Why a line or an arming was refused (err.c): what every check of the
 * module fills in, where in the line, last_error, and the log line for a
 * probe a consumer could not arm.
 */
#ifndef _PC_ERR_H
#define _PC_ERR_H

#include <linux/compiler_attributes.h>
#include <linux/types.h>

struct pc_command;
struct pc_probe;
struct pc_writer;

#define PC_WHY_MAX	256

/* Why a line was rejected; col 0 means "find the column from @field". */
struct pc_err {
	unsigned int col;
	const char *field;
	char why[PC_WHY_MAX];
};

/* Fill @err and return @ret, so error paths read "return pc_err_set(...)". */
__printf(4, 5)
int pc_err_set(struct pc_err *err, int ret, const char *field,
	       const char *fmt, ...);

void pc_report(const struct pc_probe *p, const struct pc_err *err);

/* 1-based column where a kernel-side check found @field wrong. */
unsigned int pc_field_col(const char *line, size_t len,
			  const struct pc_command *cmd,
			  const char *field);

/* last_error: what the writers of control read back (sysfs.c shows it). */
void pc_ctl_error(const struct pc_writer *w, const struct pc_err *err);
ssize_t pc_last_error_show(char *buf);
void pc_last_error_exit(void);

#endif /* _PC_ERR_H */
