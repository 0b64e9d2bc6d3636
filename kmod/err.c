// SPDX-License-Identifier: GPL-2.0
/*
 * Error reporting, in a unit of its own: the parser (control.c) and the
 * checks it runs (probe.c, verify.c, arm.c, event.c) all fill a struct
 * pc_err, and none of them should depend on the control file's code for it.
 * Here too: the column of a field a check found wrong, last_error (what the
 * writers of control read back), and the log for a probe that cannot arm.
 */
#include <linux/kernel.h>
#include <linux/printk.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "pc.h"
#include "writer.h"

/* last_error: a spinlock, so reading it never waits for a verification. */
static DEFINE_SPINLOCK(pc_last_error_lock);
static char pc_last_error[PC_WHY_MAX + 128];

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

/* The next space-separated token at or after *@pos; false at the end. */
static bool pc_token(const char *s, size_t len, size_t *pos, size_t *start,
		     size_t *end)
{
	size_t i = *pos;

	while (i < len && s[i] == ' ')
		i++;
	if (i == len)
		return false;
	*start = i;
	while (i < len && s[i] != ' ')
		i++;
	*end = i;
	*pos = i;
	return true;
}

/* 0-based token index of @field in a line the parser accepted, or -1. */
static int pc_field_token(const struct pc_command *cmd, const char *field)
{
	unsigned int n;

	if (!strcmp(field, "event") || !strcmp(field, "group"))
		return 1;
	if (cmd->cmd == PC_CMD_SITE)
		return strcmp(field, "path") ? -1 : 2;
	if (!strcmp(field, "build-id"))
		return 2;
	if (!strcmp(field, "path") || !strcmp(field, "offset") ||
	    !strcmp(field, "ref_ctr"))
		return 3;
	if (!strcmp(field, "pid"))
		return 4;
	if (sscanf(field, "arg%u", &n) == 1 && n >= 1)
		return 3 + (cmd->rec.pid ? 1 : 0) + n;
	return -1;
}

/* 1-based column where a kernel-side check found @field wrong. */
unsigned int pc_field_col(const char *line, size_t len,
			  const struct pc_command *cmd,
			  const char *field)
{
	int want = pc_field_token(cmd, field), i = 0;
	size_t pos = 0, s = 0, e = 0;
	const char *paren;

	while (want >= 0 && pc_token(line, len, &pos, &s, &e) && i < want)
		i++;
	if (want < 0 || i != want)
		return 1;
	if (!strcmp(field, "offset"))
		return s + cmd->rec.path_len + 2;
	if (!strcmp(field, "ref_ctr")) {
		paren = memchr(line + s, '(', e - s);
		return paren ? paren - line + 2 : s + 1;
	}
	return s + 1;
}

void pc_ctl_error(const struct pc_writer *w, const struct pc_err *err)
{
	char msg[sizeof(pc_last_error)];

	scnprintf(msg, sizeof(msg), "line %u col %u: %s: %s", w->line, err->col,
		  err->field ? err->field : "line", err->why);
	spin_lock(&pc_last_error_lock);
	strscpy(pc_last_error, msg, sizeof(pc_last_error));
	spin_unlock(&pc_last_error_lock);
}

ssize_t pc_last_error_show(char *buf)
{
	ssize_t n;

	spin_lock(&pc_last_error_lock);
	n = pc_last_error[0] ? sysfs_emit(buf, "%s\n", pc_last_error) : 0;
	spin_unlock(&pc_last_error_lock);
	return n;
}
