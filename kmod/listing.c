// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/probecache_probes: every probe, one line each, as uprobe_profile
 * lists uprobes. One seq_file and not a sysfs directory per probe: the 13
 * kernfs nodes of a directory with its attributes cost more kernel memory
 * than trace_uprobe spends on a whole event. In procfs because modules
 * cannot create tracefs files before 6.x (tracefs_create_file unexported).
 * Line format: include/uapi/linux/probecache.h.
 */
#include <linux/proc_fs.h>
#include <linux/seq_file.h>

#include "pc.h"

static void *pc_listing_start(struct seq_file *m, loff_t *pos)
{
	mutex_lock(&pc_lock);
	return seq_list_start(&pc_probe_list, *pos);
}

static void *pc_listing_next(struct seq_file *m, void *v, loff_t *pos)
{
	return seq_list_next(v, &pc_probe_list, pos);
}

static void pc_listing_stop(struct seq_file *m, void *v)
{
	mutex_unlock(&pc_lock);
}

/* The probe holds its inode: once unlinked, a new file there is not probed. */
static int pc_listing_show(struct seq_file *m, void *v)
{
	struct pc_probe *p = list_entry(v, struct pc_probe, node);

	seq_printf(m, "%s state=%s consumers=%u hits=%llu counting=%d type=%c pid=%d",
		   p->name, pc_probe_state(p), pc_nr_consumers(p),
		   pc_probe_hits(p), READ_ONCE(p->counting),
		   p->retprobe ? 'r' : 'p', p->pid);
	seq_printf(m, " unlinked=%d build_id=%*phN offset=0x%llx ref_ctr_offset=0x%llx",
		   !READ_ONCE(p->inode->i_nlink), p->build_id_len, p->build_id,
		   p->offset, p->ref_ctr_offset);
	seq_printf(m, " path=%s args=%s\n", p->pathname, p->args_text);
	return 0;
}

static const struct seq_operations pc_listing_sops = {
	.start = pc_listing_start,
	.next = pc_listing_next,
	.stop = pc_listing_stop,
	.show = pc_listing_show,
};

/*
 * Paths, arguments, pids and hit counts tell what other users' programs do:
 * root only unless public_probes=1.
 */
int pc_listing_init(void)
{
	if (!proc_create_seq(PROBECACHE_LISTING, pc_public_probes ? 0444 : 0400,
			     NULL, &pc_listing_sops))
		return -ENOMEM;
	return 0;
}

/* Waits for readers in the middle of a read; later reads fail. */
void pc_listing_exit(void)
{
	remove_proc_entry(PROBECACHE_LISTING, NULL);
}
