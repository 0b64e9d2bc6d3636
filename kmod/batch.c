// SPDX-License-Identifier: GPL-2.0
/*
 * Batching the add lines of a control write(). An add line wholly inside
 * the write() is verified when read but only queued; the queue is published
 * (one trace event operation for all its probes, not one each) before a
 * line of another kind and when the write() ends, and a publish that fails
 * rewinds the write() to the line that failed, as if it had been rejected
 * when read. Apart from control.c, whose line parser then reads on its own:
 * control.c decides which lines are batched (pc_ctl_step()).
 */
#include <linux/string.h>

#include "pc.h"
#include "writer.h"
#include "batch.h"

/* An add line wholly inside this write(): it can wait for the flush. */
bool pc_ctl_batchable(const struct pc_writer *w, const char *s,
		      size_t len)
{
	size_t i = 0;

	while (i < len && s[i] == ' ')
		i++;
	return !w->plen && len - i > 4 && !memcmp(s + i, "add ", 4);
}

/*
 * An add line that began in an earlier write() is published at once: its
 * start cannot be rewound to. Rejected like any line, held part kept.
 */
int pc_ctl_publish_now(struct pc_writer *w, size_t len,
		       struct pc_batch *batch, struct pc_command *cmd,
		       struct pc_err *err)
{
	unsigned int failed;
	int ret;

	ret = pc_probe_publish(batch, &failed, err);
	pc_batch_put(batch, failed);
	if (!ret)
		return 0;
	memset(cmd, 0, sizeof(*cmd));
	err->col = pc_field_col(w->pend, w->plen + len, cmd, err->field);
	return ret;
}

/*
 * Publish the add lines queued on @batch (one trace event operation for
 * all). If one fails, it and the lines after it are not applied: rewind
 * *@done and the line count to it, as if it had been rejected when read.
 */
int pc_ctl_flush(struct pc_writer *w, const char *buf,
		 struct pc_batch *batch, struct pc_command *cmd,
		 size_t *done)
{
	struct pc_err err = {};
	struct pc_batch_ent *e;
	unsigned int failed;
	int ret;

	if (!batch->n)
		return 0;
	ret = pc_probe_publish(batch, &failed, &err);
	if (ret) {
		e = &batch->ent[failed];
		*done = e->start;
		w->line = e->line;
		w->plen = 0;
		memset(cmd, 0, sizeof(*cmd));
		err.col = pc_field_col(buf + e->start, e->len, cmd, err.field);
		pc_ctl_error(w, &err);
	}
	pc_batch_put(batch, failed);
	return ret;
}

/* Note where @batch's newest add line is: a failed publish rewinds there. */
void pc_ctl_mark(const struct pc_writer *w, struct pc_batch *batch,
		 size_t start, size_t len)
{
	struct pc_batch_ent *e = &batch->ent[batch->n - 1];

	e->line = w->line;
	e->start = start;
	e->len = len;
}
