/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A writer of /sys/kernel/probecache/control: control.c keeps it, batch.c
 * rewinds it to an add line that failed to publish, err.c names its line
 * in last_error. A header of its own so that neither of those two needs
 * control.c's.
 */
#ifndef _PC_WRITER_H
#define _PC_WRITER_H

#include <linux/fs.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mutex.h>

/*
 * Per-writer state: the open file whose write()s we are consuming, where its
 * next write() must start to continue them, the number of the line being
 * assembled (from offset 0, across write()s, for last_error), and the part
 * of that line received so far (text after the last '\n' of a write()).
 *
 * sysfs gives a bin attribute no open or release hook, so a writer is found
 * by its struct file, which we hold a reference on: the key cannot be freed
 * and reused while we keep its state. A writer whose file only we still
 * hold has been closed; it is reaped when the next new writer comes, or at
 * unload. Writers run in parallel; one writer's write()s are serialized.
 */
struct pc_writer {
	struct list_head node;		/* pc_writers, under pc_writers_lock */
	struct mutex lock;
	struct file *file;		/* referenced */
	loff_t next_off;
	unsigned int line;
	size_t plen;
	char pend[PAGE_SIZE];
};

#endif /* _PC_WRITER_H */
