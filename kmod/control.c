// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/probecache/control: split what was written into lines and
 * dispatch each to the parser (record.c) and the probe table (probe.c).
 * Write semantics are documented in include/uapi/linux/probecache.h.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "pc.h"

/* Control writes, the probe table and last_error: see pc.h. */
DEFINE_MUTEX(pc_lock);

static char pc_last_error[PC_WHY_MAX + 128];

/*
 * Per-writer state: the open file whose write()s we are consuming, where its
 * next write() must start to continue them, the number of the line being
 * assembled (from offset 0, across write()s, for last_error), and the part
 * of that line received so far (text after the last '\n' of a write()).
 */
static struct {
	const struct file *file;
	loff_t next_off;
	unsigned int line;
	size_t plen;
	char pend[PAGE_SIZE];
} pc_ctl;

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
static unsigned int pc_field_col(const char *line, size_t len,
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

static int pc_apply_line(const char *line, size_t len,
			 struct pc_command *cmd, struct pc_err *err)
{
	struct pc_parse_error perr;
	int ret;

	ret = pc_parse_command(line, len, pc_max_args, cmd, &perr);
	if (ret) {
		pc_err_set(err, ret, perr.field, "%s", perr.why);
		err->col = perr.column;
		return ret;
	}
	switch (cmd->cmd) {
	case PC_CMD_ADD:
		ret = pc_probe_add(&cmd->rec, err);
		break;
	case PC_CMD_DEL:
		ret = pc_probe_del(cmd->group, cmd->event, err);
		break;
	case PC_CMD_CLEAR:
		pc_probe_clear();
		break;
	}
	if (ret && !err->col)
		err->col = pc_field_col(line, len, cmd, err->field);
	return ret;
}

static void pc_ctl_error(const struct pc_err *err)
{
	scnprintf(pc_last_error, sizeof(pc_last_error), "line %u col %u: %s: %s",
		  pc_ctl.line, err->col, err->field ? err->field : "line",
		  err->why);
}

static int pc_ctl_too_long(size_t len, struct pc_err *err)
{
	if (pc_ctl.plen + len <= pc_max_line)
		return 0;
	pc_err_set(err, -E2BIG, "line", "longer than max_line (%u bytes)",
		   pc_max_line);
	err->col = pc_max_line + 1;
	return -E2BIG;
}

/* Keep @len bytes after the last '\n' of a write() as the next line's start. */
static int pc_ctl_hold(const char *buf, size_t len, struct pc_err *err)
{
	int ret = pc_ctl_too_long(len, err);

	if (ret)
		return ret;
	memcpy(pc_ctl.pend + pc_ctl.plen, buf, len);
	pc_ctl.plen += len;
	return 0;
}

/*
 * Apply the line that @buf (@len bytes up to its '\n') completes. The held
 * part is left as it was, so a rejected line is retried with the same bytes.
 */
static int pc_ctl_line(const char *buf, size_t len, struct pc_command *cmd,
		       struct pc_err *err)
{
	const char *line = buf;
	int ret = pc_ctl_too_long(len, err);

	if (ret)
		return ret;
	if (pc_ctl.plen) {
		memcpy(pc_ctl.pend + pc_ctl.plen, buf, len);
		line = pc_ctl.pend;
		len += pc_ctl.plen;
	}
	return len ? pc_apply_line(line, len, cmd, err) : 0;
}

/*
 * kernfs hands a write() to us in chunks of at most PAGE_SIZE. Lines end at
 * '\n'; text after the last one is kept as the start of the next line of
 * the same writer, so any split of the text into write()s (stdio buffers,
 * kernfs chunks) gives the same lines. On a rejected line the lines before
 * it stay applied and we return their byte count; the writer resends from
 * the rejected line, which then comes first and fails write() with errno.
 */
ssize_t pc_control_write(struct file *file, const char *buf, loff_t off,
			 size_t count)
{
	struct pc_command *cmd;
	struct pc_err err;
	size_t done = 0, len;
	const char *nl;
	int ret = 0;

	cmd = kmalloc(sizeof(*cmd), GFP_KERNEL);
	if (!cmd)
		return -ENOMEM;
	mutex_lock(&pc_lock);
	if (off == 0 || file != pc_ctl.file || off != pc_ctl.next_off) {
		pc_ctl.file = file;
		pc_ctl.line = 1;
		pc_ctl.plen = 0;
	}
	while (done < count) {
		nl = memchr(buf + done, '\n', count - done);
		len = nl ? nl - (buf + done) : count - done;
		memset(&err, 0, sizeof(err));
		if (nl)
			ret = pc_ctl_line(buf + done, len, cmd, &err);
		else
			ret = pc_ctl_hold(buf + done, len, &err);
		if (ret) {
			pc_ctl_error(&err);
			break;
		}
		if (!nl) {
			done += len;
			break;
		}
		pc_ctl.plen = 0;
		done += len + 1;
		pc_ctl.line++;
	}
	pc_ctl.next_off = off + done;
	mutex_unlock(&pc_lock);
	kfree(cmd);
	return done ? done : ret;
}

ssize_t pc_last_error_show(char *buf)
{
	ssize_t n;

	mutex_lock(&pc_lock);
	n = pc_last_error[0] ? sysfs_emit(buf, "%s\n", pc_last_error) : 0;
	mutex_unlock(&pc_lock);
	return n;
}
