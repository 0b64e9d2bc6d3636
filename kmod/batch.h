/* SPDX-License-Identifier: GPL-2.0 */
/* Batching the add lines of a control write() (batch.c), for control.c. */
#ifndef _PC_BATCH_H
#define _PC_BATCH_H

#include <linux/types.h>

struct pc_batch;
struct pc_command;
struct pc_err;
struct pc_writer;

bool pc_ctl_batchable(const struct pc_writer *w, const char *s, size_t len);
int pc_ctl_publish_now(struct pc_writer *w, size_t len,
		       struct pc_batch *batch, struct pc_command *cmd,
		       struct pc_err *err);
int pc_ctl_flush(struct pc_writer *w, const char *buf,
		 struct pc_batch *batch, struct pc_command *cmd,
		 size_t *done);
void pc_ctl_mark(const struct pc_writer *w, struct pc_batch *batch,
		 size_t start, size_t len);

#endif /* _PC_BATCH_H */
