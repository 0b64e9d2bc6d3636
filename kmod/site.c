// SPDX-License-Identifier: GPL-2.0
/*
 * A probe's other sites: inodes besides the record's own file that carry
 * the same build-id (a copy at another path, one deleted while its
 * processes run, one in another mount namespace, named by the writer as
 * /proc/PID/map_files/RANGE or /proc/PID/root/PATH). Each is verified on
 * its own inode exactly as the probe's file was (pc_verify()), counted
 * with the probe; the CLI appends it to the probe's event. Who finds them
 * is the CLI's business (Documentation/design.md, "Following a build-id").
 * A deleted copy's site goes once no process maps it (pc_prune_work()).
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "pc.h"

/*
 * How often sites of deleted copies are looked at: nothing tells a module
 * that the last process mapping a file exited, and a site must not pin a
 * deleted inode (and its page cache) for the life of the probe.
 */
#define PC_PRUNE_DELAY	(2 * HZ)

static void pc_prune_work(struct work_struct *work);
static DECLARE_DELAYED_WORK(pc_prune_dwork, pc_prune_work);

void pc_site_free(struct pc_site *s)
{
	pc_site_put_refs(s);
	kfree(s);
}

/* A verified site of @p, not yet linked; ERR_PTR with @err filled. */
static struct pc_site *pc_site_new(struct pc_probe *p, const char *pathname,
				   size_t len, struct pc_err *err)
{
	struct pc_record *rec;
	struct pc_verified v;
	struct pc_site *s;
	int ret = -ENOMEM;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	rec = pc_probe_record(p);
	if (!s || !rec)
		goto err_free;
	s->p = p;
	s->hits = alloc_percpu(u64);
	s->pathname = kmemdup_nul(pathname, len, GFP_KERNEL);
	if (!s->hits || !s->pathname)
		goto err_free;
	ret = pc_verify(rec, s->pathname, PC_VERIFY_SITE, &v, err);
	if (ret)
		goto err_free;
	/* As for the probe's own file: writes stay denied while it is a site. */
	s->path = v.path;
	s->inode = v.inode;
	pc_facts_free(v.facts);
	kfree(rec);
	return s;

err_free:
	if (ret == -ENOMEM)
		pc_err_set(err, ret, "path", "out of memory");
	kfree(rec);
	if (s)
		pc_site_free(s);
	return ERR_PTR(ret);
}

/*
 * Whoever runs a copy hands it to the follower: files of one owner other
 * than root take at most max_sites_per_owner of a probe's PC_MAX_SITES, so
 * one user's copies leave room for every other owner's, and files of all
 * such owners together at most PC_MAX_SITES - PC_ROOT_SITES, so several
 * users' copies leave room for root's (packages', services').
 */
static int pc_site_check_owner(struct pc_probe *p, struct pc_site *new,
			       struct pc_err *err)
{
	kuid_t uid = new->inode->i_uid;
	unsigned int n = 0, users = 0, max = READ_ONCE(pc_max_sites_per_owner);
	struct pc_site *s;

	if (uid_eq(uid, GLOBAL_ROOT_UID))
		return 0;
	list_for_each_entry(s, &p->sites, node) {
		if (s == &p->site || uid_eq(s->inode->i_uid, GLOBAL_ROOT_UID))
			continue;
		users++;
		n += uid_eq(s->inode->i_uid, uid);
	}
	if (n >= max)
		return pc_err_set(err, -EDQUOT, "path",
				  "%s: %s has %u sites in files of uid %u, the most one owner may have (max_sites_per_owner)",
				  new->pathname, p->name, n,
				  from_kuid(&init_user_ns, uid));
	if (users >= PC_MAX_SITES - PC_ROOT_SITES)
		return pc_err_set(err, -EDQUOT, "path",
				  "%s: %s has %u sites in files of owners other than root, the most they may have (the other %u are root's)",
				  new->pathname, p->name, users, PC_ROOT_SITES);
	return 0;
}

/* Under p->lock: may @s join @p? */
static int pc_site_check_new(struct pc_probe *p, struct pc_site *new,
			     struct pc_err *err)
{
	struct pc_site *s;

	lockdep_assert_held(&p->lock);
	if (atomic_read(&p->state) == PC_STATE_DELETED)
		return pc_err_set(err, -ENOENT, "group",
				  "%s was deleted meanwhile", p->name);
	list_for_each_entry(s, &p->sites, node)
		if (s->inode == new->inode)
			return pc_err_set(err, -EEXIST, "path",
					  "%s is already a site of %s (as %s)",
					  new->pathname, p->name, s->pathname);
	if (p->nr_sites >= PC_MAX_SITES)
		return pc_err_set(err, -ENOSPC, "path",
				  "%s has %u sites, the most a probe may have",
				  p->name, PC_MAX_SITES);
	return pc_site_check_owner(p, new, err);
}

/*
 * site GROUP:EVENT PATH: verify the file at @pathname against the probe and
 * add its inode as a site; counted at once if the probe is. A site the probe
 * already has is EEXIST; a site that cannot be armed now is refused and
 * not added (the line changes nothing).
 */
int pc_site_add(const char *group, const char *event, const char *pathname,
		size_t len, struct pc_err *err)
{
	struct pc_probe *p = pc_probe_lookup(group, event, err);
	struct pc_site *s;
	int ret;

	if (!p)
		return -ENOENT;
	s = pc_site_new(p, pathname, len, err);
	if (IS_ERR(s)) {
		pc_probe_put(p);
		return PTR_ERR(s);
	}
	mutex_lock(&p->lock);
	ret = pc_site_check_new(p, s, err);
	if (!ret && p->counting)
		ret = pc_site_arm(s, err);
	if (!ret) {
		spin_lock(&p->sites_lock);
		list_add_tail(&s->node, &p->sites);
		spin_unlock(&p->sites_lock);
		WRITE_ONCE(p->nr_sites, p->nr_sites + 1);
	}
	mutex_unlock(&p->lock);
	if (ret)
		pc_site_free(s);
	else
		schedule_delayed_work(&pc_prune_dwork, PC_PRUNE_DELAY);
	pc_probe_put(p);
	return ret;
}

/* Under p->lock: unlink @s (not p->site), disarmed; the caller syncs, frees. */
static void pc_site_unlink(struct pc_probe *p, struct pc_site *s)
{
	lockdep_assert_held(&p->lock);
	pc_site_disarm_nosync(s);
	spin_lock(&p->sites_lock);
	list_del(&s->node);
	atomic64_add(pc_site_hits(s), &p->pruned_hits);
	spin_unlock(&p->sites_lock);
	WRITE_ONCE(p->nr_sites, p->nr_sites - 1);
}

/* Under p->lock: @p's site on the inode @dev:@ino, or NULL. */
static struct pc_site *pc_site_find(struct pc_probe *p, dev_t dev, u64 ino)
{
	struct pc_site *s;

	lockdep_assert_held(&p->lock);
	list_for_each_entry(s, &p->sites, node)
		if (s->inode->i_sb->s_dev == dev && s->inode->i_ino == ino)
			return s;
	return NULL;
}

/*
 * unsite GROUP:EVENT MAJ:MIN INO: drop another site of @p that no process
 * maps, whatever names it: writes to it are allowed again. The kernel's
 * event on the copy (GROUP/EVENT_copyN) must be gone first: it keeps the
 * file and would arm it unprotected. Mapped: EBUSY (it runs; keep it).
 */
int pc_site_del(const char *group, const char *event, u32 major, u32 minor,
		u64 ino, struct pc_err *err)
{
	struct pc_probe *p = pc_probe_lookup(group, event, err);
	struct pc_site *s;
	int ret = 0;

	if (!p)
		return -ENOENT;
	mutex_lock(&p->lock);
	s = pc_site_find(p, MKDEV(major, minor), ino);
	if (!s)
		ret = pc_err_set(err, -ENOENT, "dev", "%s has no site %u:%u %llu",
				 p->name, major, minor, ino);
	else if (s == &p->site)
		ret = pc_err_set(err, -EINVAL, "dev",
				 "%u:%u %llu is %s's own file: del deletes the probe",
				 major, minor, ino, p->name);
	else if (mapping_mapped(s->inode->i_mapping))
		ret = pc_err_set(err, -EBUSY, "dev",
				 "%s (%u:%u %llu) is mapped by a process: it stays a site",
				 s->pathname, major, minor, ino);
	else
		pc_site_unlink(p, s);
	mutex_unlock(&p->lock);
	if (!ret) {
		pc_uprobe_unregister_sync();
		pc_site_free(s);
	}
	pc_probe_put(p);
	return ret;
}

/*
 * Another site no process maps any more and whose inode has no name left:
 * nothing can open it for writing again, so the denial may go while the
 * kernel's event on the copy (the CLI's GROUP/EVENT_copyN) still holds it.
 * A copy with a name, even one only another mount namespace sees, stays
 * write-denied until its probe is deleted: the event on it may outlive any
 * process mapping it.
 */
static bool pc_site_dead(struct pc_site *s)
{
	return s != &s->p->site && !mapping_mapped(s->inode->i_mapping) &&
	       !READ_ONCE(s->inode->i_nlink);
}

/*
 * Unlink @p's dead sites onto @dead, disarmed (the caller syncs before
 * freeing them); true if @p still has other sites to look at later.
 */
static bool pc_prune_probe(struct pc_probe *p, struct list_head *dead)
{
	struct pc_site *s, *tmp;
	bool more;

	mutex_lock(&p->lock);
	list_for_each_entry_safe(s, tmp, &p->sites, node) {
		if (!pc_site_dead(s))
			continue;
		pc_site_unlink(p, s);
		list_add(&s->node, dead);
	}
	more = p->nr_sites > 1;
	mutex_unlock(&p->lock);
	return more;
}

static void pc_prune_free(struct pc_probe *p, struct list_head *dead)
{
	struct pc_site *s, *tmp;

	list_for_each_entry_safe(s, tmp, dead, node)
		pc_site_free(s);
}

/* Every probe with other sites, referenced, into @b. */
static int pc_prune_collect(struct pc_batch *b)
{
	struct pc_probe *p;
	int ret = 0;

	mutex_lock(&pc_lock);
	list_for_each_entry(p, &pc_probe_list, node) {
		if (READ_ONCE(p->nr_sites) < 2)
			continue;
		ret = pc_batch_add(b, p);
		if (ret)
			break;
		pc_probe_get(p);
	}
	mutex_unlock(&pc_lock);
	return ret;
}

static void pc_prune_work(struct work_struct *work)
{
	struct pc_batch b = {};
	bool again = false;
	unsigned int i;
	LIST_HEAD(dead);

	/* Out of memory: try again next time, nothing is lost. */
	again = pc_prune_collect(&b) != 0;
	for (i = 0; i < b.n; i++) {
		struct pc_probe *p = b.ent[i].p;

		INIT_LIST_HEAD(&dead);
		again |= pc_prune_probe(p, &dead);
		if (list_empty(&dead))
			continue;
		pc_uprobe_unregister_sync();
		pc_prune_free(p, &dead);
	}
	pc_batch_put(&b, 0);
	if (again)
		schedule_delayed_work(&pc_prune_dwork, PC_PRUNE_DELAY);
}

/* Module exit, every probe deleted: no site is left to look at. */
void pc_site_exit(void)
{
	cancel_delayed_work_sync(&pc_prune_dwork);
}
