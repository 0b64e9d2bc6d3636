// SPDX-License-Identifier: GPL-2.0
/*
 * A probe's other sites: inodes besides the record's own file that carry
 * the same build-id (a copy at another path, one deleted while its
 * processes run, one in another mount namespace, named by the writer as
 * /proc/PID/map_files/RANGE or /proc/PID/root/PATH). Each is verified on
 * its own inode exactly as the probe's file was (pc_verify()), armed and
 * disarmed with the probe, and feeds the probe's one event. Who finds them
 * is the CLI's business (Documentation/design.md, "Following a build-id").
 */
#include <linux/slab.h>

#include "pc.h"

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
	pc_arm_init_site(p, s);
	s->hits = alloc_percpu(u64);
	s->pathname = kmemdup_nul(pathname, len, GFP_KERNEL);
	if (!s->hits || !s->pathname)
		goto err_free;
	ret = pc_verify(rec, s->pathname, &v, err);
	if (ret)
		goto err_free;
	/* As for the probe's own file: denied again only while armed. */
	pc_inode_allow_write(v.inode);
	s->path = v.path;
	s->inode = v.inode;
	s->ident = v.ident;
	kfree(v.elf);
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
	return 0;
}

/*
 * site GROUP:EVENT PATH: verify the file at @pathname against the probe and
 * add its inode as a site; armed at once if the probe is. A site the probe
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
	if (!ret && p->registered)
		ret = pc_site_arm(s, err);
	if (!ret) {
		spin_lock(&p->sites_lock);
		list_add_tail(&s->node, &p->sites);
		spin_unlock(&p->sites_lock);
		p->nr_sites++;
	}
	mutex_unlock(&p->lock);
	if (ret)
		pc_site_free(s);
	pc_probe_put(p);
	return ret;
}
