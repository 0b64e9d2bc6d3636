// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/probecache_probes: every probe, one line each; /proc/probecache_sites: every probe's sites, one line
 * each. One seq_file and not a sysfs directory per probe: the 13
 * kernfs nodes of a directory with its attributes cost more kernel memory
 * than trace_uprobe spends on the probe's event. In procfs because modules
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

	seq_printf(m, "%s state=%s hits=%llu counting=%d type=%c pid=%d",
		   p->name, pc_probe_state(p),
		   pc_probe_hits(p), READ_ONCE(p->counting),
		   p->retprobe ? 'r' : 'p', p->pid);
	seq_printf(m, " unlinked=%d build_id=%*phN offset=0x%llx ref_ctr_offset=0x%llx",
		   !READ_ONCE(p->site.inode->i_nlink), p->build_id_len,
		   p->build_id, p->offset, p->ref_ctr_offset);
	seq_printf(m, " path=%s args=%s\n", p->site.pathname, p->args_text);
	return 0;
}

static const struct seq_operations pc_listing_sops = {
	.start = pc_listing_start,
	.next = pc_listing_next,
	.stop = pc_listing_stop,
	.show = pc_listing_show,
};

static const char *pc_site_state(struct pc_site *s)
{
	if (READ_ONCE(s->registered))
		return PROBECACHE_STATE_ARMED;
	return PROBECACHE_STATE_DEFINED;
}

/* One line a site, the probe's own first: format in the UAPI header. */
static int pc_sites_show(struct seq_file *m, void *v)
{
	struct pc_probe *p = list_entry(v, struct pc_probe, node);
	struct pc_site *s;
	unsigned int i = 0;

	spin_lock(&p->sites_lock);
	list_for_each_entry(s, &p->sites, node) {
		seq_printf(m, "%s site=%u state=%s hits=%llu error=%d unlinked=%d mapped=%d uid=%u dev=%u:%u ino=%llu path=%s\n",
			   p->name, i++, s == &p->site ? pc_probe_state(p) :
			   pc_site_state(s), pc_site_hits(s),
			   READ_ONCE(s->error), !READ_ONCE(s->inode->i_nlink),
			   mapping_mapped(s->inode->i_mapping),
			   from_kuid_munged(&init_user_ns, s->inode->i_uid),
			   MAJOR(s->inode->i_sb->s_dev),
			   MINOR(s->inode->i_sb->s_dev),
			   (unsigned long long)s->inode->i_ino,
			   s->pathname);
	}
	spin_unlock(&p->sites_lock);
	return 0;
}

static const struct seq_operations pc_sites_sops = {
	.start = pc_listing_start,
	.next = pc_listing_next,
	.stop = pc_listing_stop,
	.show = pc_sites_show,
};

/*
 * Paths, arguments, pids and hit counts tell what other users' programs do:
 * root only unless public_probes=1.
 */
int pc_listing_init(void)
{
	umode_t mode = pc_public_probes ? 0444 : 0400;

	if (!proc_create_seq(PROBECACHE_LISTING, mode, NULL, &pc_listing_sops))
		return -ENOMEM;
	if (!proc_create_seq(PROBECACHE_SITES, mode, NULL, &pc_sites_sops)) {
		remove_proc_entry(PROBECACHE_LISTING, NULL);
		return -ENOMEM;
	}
	return 0;
}

/* Waits for readers in the middle of a read; later reads fail. */
void pc_listing_exit(void)
{
	remove_proc_entry(PROBECACHE_SITES, NULL);
	remove_proc_entry(PROBECACHE_LISTING, NULL);
}
