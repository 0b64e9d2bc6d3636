// SPDX-License-Identifier: GPL-2.0
/*
 * Error reporting, in a unit of its own: the parser (control.c) and the
 * checks it runs (probe.c, verify.c, arm.c, event.c) all fill a struct
 * pc_err, and none of them should depend on the control file's code for it.
 * Here too: the column of a field a check found wrong, last_error (what the
 * writers of control read back), and the log for a probe that cannot arm.
 */
#include <linux/kernel.h>
#include <linux/pid.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "pc.h"
#include "writer.h"

/*
 * last_error answers the process reading it: a writer reads it back right
 * after its write() failed, and another writer's error in between must not
 * take its place. So the last few errors are kept, each with the thread
 * group that made it (its struct pid, referenced: the number may be reused
 * by a new process, the pointer cannot while we hold it). A reader gets its
 * own, else the most recent of all, which is what a reader that wrote
 * nothing (a shell's cat after a helper's write) always had. A new writer
 * takes the oldest entry. A spinlock: reading never waits for a
 * verification.
 */
#define PC_LAST_ERRORS	16

struct pc_last_error {
	struct pid *tgid;		/* referenced; NULL: unused */
	u64 seq;			/* larger is more recent */
	char msg[PC_WHY_MAX + 128];
};

static DEFINE_SPINLOCK(pc_last_error_lock);
static struct pc_last_error pc_last_errors[PC_LAST_ERRORS];
static u64 pc_last_error_seq;

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
	if (cmd->cmd == PC_CMD_UNSITE)
		return !strcmp(field, "dev") ? 2 : !strcmp(field, "ino") ? 3 : -1;
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

/* @tgid's entry, else the oldest (an unused one is oldest). */
static struct pc_last_error *pc_last_error_slot(const struct pid *tgid)
{
	struct pc_last_error *e, *old = pc_last_errors;

	lockdep_assert_held(&pc_last_error_lock);
	for (e = pc_last_errors; e < pc_last_errors + PC_LAST_ERRORS; e++) {
		if (e->tgid == tgid)
			return e;
		if (e->seq < old->seq)
			old = e;
	}
	return old;
}

void pc_ctl_error(const struct pc_writer *w, const struct pc_err *err)
{
	struct pid *tgid = get_pid(task_tgid(current)), *old;
	char msg[sizeof(pc_last_errors[0].msg)];
	struct pc_last_error *e;

	scnprintf(msg, sizeof(msg), "line %u col %u: %s: %s", w->line, err->col,
		  err->field ? err->field : "line", err->why);
	spin_lock(&pc_last_error_lock);
	e = pc_last_error_slot(tgid);
	old = e->tgid;
	e->tgid = tgid;
	e->seq = ++pc_last_error_seq;
	strscpy(e->msg, msg, sizeof(e->msg));
	spin_unlock(&pc_last_error_lock);
	put_pid(old);	/* the evicted writer's, or our second reference */
}

/* In the reader's context (sysfs show): its own error, else the latest. */
ssize_t pc_last_error_show(char *buf)
{
	const struct pid *tgid = task_tgid(current);
	struct pc_last_error *e, *pick = NULL;
	ssize_t n = 0;

	spin_lock(&pc_last_error_lock);
	for (e = pc_last_errors; e < pc_last_errors + PC_LAST_ERRORS; e++) {
		if (!e->tgid)
			continue;
		if (e->tgid == tgid) {
			pick = e;
			break;
		}
		if (!pick || e->seq > pick->seq)
			pick = e;
	}
	if (pick)
		n = sysfs_emit(buf, "%s\n", pick->msg);
	spin_unlock(&pc_last_error_lock);
	return n;
}

/* At unload, once last_error and control are gone. */
void pc_last_error_exit(void)
{
	unsigned int i;

	for (i = 0; i < PC_LAST_ERRORS; i++) {
		put_pid(pc_last_errors[i].tgid);
		pc_last_errors[i] = (struct pc_last_error){};
	}
}
