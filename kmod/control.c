// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/probecache/control: split what was written into lines and
 * dispatch each to the parser (record.c) and the probe table (probe.c);
 * errors reported through err.c.
 * Write semantics are documented in include/uapi/linux/probecache.h.
 */
#include <linux/capability.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "pc.h"
#include "writer.h"

/* The probe table: see pc.h. */
DEFINE_MUTEX(pc_lock);

#define PC_MAX_WRITERS	64

static LIST_HEAD(pc_writers);
static DEFINE_MUTEX(pc_writers_lock);
static unsigned int pc_nr_writers;

/* Verify an add line's record and list the probe. */
static int pc_apply_add(const struct pc_record *rec, struct pc_err *err)
{
	struct pc_probe *p = pc_probe_prepare(rec, err);
	int ret;

	if (IS_ERR(p))
		return PTR_ERR(p);
	ret = pc_probe_publish(p, err);
	if (ret)
		pc_probe_put(p);
	return ret;
}

static int pc_apply_line(const char *line, size_t len, struct pc_command *cmd,
			 struct pc_err *err)
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
		ret = pc_apply_add(&cmd->rec, err);
		break;
	case PC_CMD_DEL:
		ret = pc_probe_del(cmd->group, cmd->event, err);
		break;
	case PC_CMD_CLEAR:
		ret = pc_probe_clear(err);
		break;
	case PC_CMD_SITE:
		ret = pc_site_add(cmd->group, cmd->event, cmd->rec.path,
				  cmd->rec.path_len, err);
		break;
	case PC_CMD_UNSITE:
		ret = pc_site_del(cmd->group, cmd->event, cmd->dev_major,
				  cmd->dev_minor, cmd->ino, err);
		break;
	case PC_CMD_COUNT:
	case PC_CMD_NOCOUNT:
		ret = pc_probe_count(cmd->group, cmd->event,
				     cmd->cmd == PC_CMD_COUNT, err);
		break;
	}
	/* Every rejection says why, allocation failures included. */
	if (ret && !err->why[0])
		pc_err_set(err, ret, "line", "%s", ret == -ENOMEM ?
			   "out of memory" : "rejected");
	if (ret && !err->col)
		err->col = pc_field_col(line, len, cmd, err->field);
	return ret;
}

static int pc_ctl_too_long(const struct pc_writer *w, size_t len,
			   struct pc_err *err)
{
	if (w->plen + len <= pc_max_line)
		return 0;
	pc_err_set(err, -E2BIG, "line", "longer than max_line (%u bytes)",
		   pc_max_line);
	err->col = pc_max_line + 1;
	return -E2BIG;
}

/* Keep @len bytes after the last '\n' of a write() as the next line's start. */
static int pc_ctl_hold(struct pc_writer *w, const char *buf, size_t len,
		       struct pc_err *err)
{
	int ret = pc_ctl_too_long(w, len, err);

	if (ret)
		return ret;
	memcpy(w->pend + w->plen, buf, len);
	w->plen += len;
	return 0;
}

/*
 * Apply the line that @buf (@len bytes up to its '\n') completes. The held
 * part is left as it was, so a rejected line is retried with the same bytes.
 */
static int pc_ctl_line(struct pc_writer *w, const char *buf, size_t len,
		       struct pc_command *cmd, struct pc_err *err)
{
	const char *line = buf;
	int ret = pc_ctl_too_long(w, len, err);

	if (ret)
		return ret;
	if (w->plen) {
		memcpy(w->pend + w->plen, buf, len);
		line = w->pend;
		len += w->plen;
	}
	return len ? pc_apply_line(line, len, cmd, err) : 0;
}

static void pc_writer_free(struct pc_writer *w)
{
	list_del(&w->node);
	pc_nr_writers--;
	fput(w->file);
	kfree(w);
}

/* Drop writers whose file only we still hold (closed by their owner). */
static void pc_writers_reap(void)
{
	struct pc_writer *w, *tmp;

	lockdep_assert_held(&pc_writers_lock);
	list_for_each_entry_safe(w, tmp, &pc_writers, node)
		if (file_count(w->file) == 1)
			pc_writer_free(w);
}

/*
 * The writer of @file, created on its first write(); returned locked, or
 * ERR_PTR(-EBUSY) when PC_MAX_WRITERS are open. It cannot be reaped while
 * we wait for its lock: a write() in flight holds the file (the fd table's
 * reference, or fdget's), so only we are not the last holder.
 */
static struct pc_writer *pc_writer_get(struct file *file)
{
	struct pc_writer *w;

	mutex_lock(&pc_writers_lock);
	list_for_each_entry(w, &pc_writers, node)
		if (w->file == file)
			goto unlock;
	pc_writers_reap();
	w = ERR_PTR(-EBUSY);
	if (pc_nr_writers >= PC_MAX_WRITERS)
		goto unlock;
	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w) {
		w = ERR_PTR(-ENOMEM);
		goto unlock;
	}
	mutex_init(&w->lock);
	w->file = get_file(file);
	list_add(&w->node, &pc_writers);
	pc_nr_writers++;
unlock:
	mutex_unlock(&pc_writers_lock);
	if (!IS_ERR(w))
		mutex_lock(&w->lock);
	return w;
}

/* At unload, after control is gone: no write() can be in flight. */
void pc_control_exit(void)
{
	struct pc_writer *w, *tmp;

	mutex_lock(&pc_writers_lock);
	list_for_each_entry_safe(w, tmp, &pc_writers, node)
		pc_writer_free(w);
	mutex_unlock(&pc_writers_lock);
}

/*
 * Both the task writing and the one that opened the file must be allowed to
 * trace every process (as perf_event_open() asks of a system-wide event):
 * mode 0200 lets any uid-0 task through, even one that dropped every
 * capability, and an fd handed across a privilege boundary proves nothing.
 */
static bool pc_ctl_capable(const struct file *file)
{
	return perfmon_capable() &&
	       (file_ns_capable(file, &init_user_ns, CAP_PERFMON) ||
		file_ns_capable(file, &init_user_ns, CAP_SYS_ADMIN));
}

/* Consume @count bytes of @w's write() at @off; see pc_control_write(). */
static ssize_t pc_ctl_consume(struct pc_writer *w, const char *buf,
			      loff_t off, size_t count, struct pc_command *cmd)
{
	size_t done = 0, len;
	struct pc_err err = {};
	const char *nl;
	int ret = 0;

	if (off == 0 || off != w->next_off) {
		w->line = 1;
		w->plen = 0;
	}
	while (done < count) {
		nl = memchr(buf + done, '\n', count - done);
		if (!nl) {
			ret = pc_ctl_hold(w, buf + done, count - done, &err);
			if (ret)
				pc_ctl_error(w, &err);
			else
				done = count;
			break;
		}
		len = nl - (buf + done);
		ret = pc_ctl_line(w, buf + done, len, cmd, &err);
		if (ret) {
			pc_ctl_error(w, &err);
			break;
		}
		w->plen = 0;
		done += len + 1;
		w->line++;
	}
	w->next_off = off + done;
	return done ? done : ret;
}

ssize_t pc_control_write(struct file *file, const char *buf, loff_t off,
			 size_t count)
{
	struct pc_command *cmd;
	struct pc_writer *w;
	ssize_t ret;

	if (!pc_ctl_capable(file))
		return -EPERM;
	cmd = kmalloc(sizeof(*cmd), GFP_KERNEL);
	if (!cmd)
		return -ENOMEM;
	w = pc_writer_get(file);
	if (IS_ERR(w)) {
		kfree(cmd);
		return PTR_ERR(w);
	}
	ret = pc_ctl_consume(w, buf, off, count, cmd);
	mutex_unlock(&w->lock);
	kfree(cmd);
	return ret;
}
