// SPDX-License-Identifier: GPL-2.0
/*
 * Error reporting, in a unit of its own: the parser (control.c) and the
 * checks it runs (probe.c, verify.c, arm.c, event.c) all fill a struct
 * pc_err, and none of them should depend on the control file's code for it.
 */
#include <linux/kernel.h>
#include <linux/printk.h>

#include "pc.h"

int pc_err_set(struct pc_err *err, int ret, const char *field,
	       const char *fmt, ...)
{
	va_list ap;

	err->col = 0;
	err->field = field;
	va_start(ap, fmt);
	vscnprintf(err->why, sizeof(err->why), fmt, ap);
	va_end(ap);
	return ret;
}

/*
 * A consumer (ftrace enable, perf open) could not arm @p: the log names the
 * probe. Not last_error, which answers the writers of control; rate-limited,
 * as any user who may enable events can make it print.
 */
void pc_report(const struct pc_probe *p, const struct pc_err *err)
{
	pr_warn_ratelimited("%s: cannot arm: %s: %s\n", p->name, err->field,
			    err->why);
}
