/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Why a line or an arming was refused (err.c): what every check of the
 * module fills in, and the log line for a probe a consumer could not arm.
 */
#ifndef _PC_ERR_H
#define _PC_ERR_H

#include <linux/compiler_attributes.h>

struct pc_probe;

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

#endif /* _PC_ERR_H */
