// SPDX-License-Identifier: GPL-2.0
/*
 * count: the module's one uprobe consumer, registered on every site of a
 * probe while it counts, for the hits /proc/probecache_probes shows. The
 * probe's trace event is the kernel's own uprobe event (the CLI defines it
 * in uprobe_events once the module has verified the file), which
 * trace_uprobe arms while ftrace, perf or BPF use it: nothing here knows of
 * them (Documentation/design.md, "Events").
 */
#include <linux/sched.h>

#include "pc.h"
#include "testhook.h"

atomic_t pc_nr_armed = ATOMIC_INIT(0);

/*
 * Asked (under the uprobe core's locks) whether @mm may get the breakpoint:
 * on registration and on mmap of the file. A pid= probe counts one mm.
 */
bool pc_uprobe_want(struct uprobe_consumer *uc, struct mm_struct *mm)
{
	struct pc_probe *p = container_of(uc, struct pc_site, uc)->p;

	return !p->mm || p->mm == mm;
}

static void pc_hit(struct pc_site *s)
{
	pc_test_hit_spin();
	this_cpu_inc(*s->hits);
}

/*
 * Entry of every probe, r: ones included: the uprobe core takes
 * UPROBE_HANDLER_REMOVE only from ->handler, and a child that inherited the
 * breakpoint of a pid= probe by fork must lose it.
 */
int pc_uprobe_hit(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	struct pc_site *s = container_of(uc, struct pc_site, uc);

	if (s->p->mm && current->mm != s->p->mm)
		return UPROBE_HANDLER_REMOVE;
	if (!s->p->retprobe)
		pc_hit(s);
	return 0;
}

int pc_uprobe_ret_hit(struct uprobe_consumer *uc, unsigned long func,
		      struct pt_regs *regs)
{
	struct pc_site *s = container_of(uc, struct pc_site, uc);

	if (!s->p->mm || current->mm == s->p->mm)
		pc_hit(s);
	return 0;
}

/* uprobe_register() says only an errno: name the likeliest field. */
static int pc_register_error(const struct pc_site *s, int ret,
			     struct pc_err *err)
{
	const struct pc_probe *p = s->p;

	if (ret == -ENOMEM)
		return pc_err_set(err, ret, "event", "out of memory");
	if (ret == -EIO)
		return pc_err_set(err, ret, "path",
				  "%s cannot be read through the page cache",
				  s->pathname);
	if (ret == -EINVAL && p->ref_ctr_offset)
		return pc_err_set(err, ret, "ref_ctr",
				  "uprobe_register refused 0x%llx(0x%llx): another probe at this offset uses another semaphore, or the offset is invalid",
				  p->offset, p->ref_ctr_offset);
	return pc_err_set(err, ret, "offset",
			  "uprobe_register refused 0x%llx: error %d",
			  p->offset, ret);
}

/*
 * Register on the verified inode. Its writes have been denied since it was
 * verified, so it still holds what was verified: nothing is read again.
 * A site's failure is its own: it stays, uncounted, and says why in
 * /proc/probecache_sites.
 */
int pc_site_arm(struct pc_site *s, struct pc_err *err)
{
	struct pc_probe *p = s->p;
	int ret;

	lockdep_assert_held(&p->lock);
	if (s->registered)
		return 0;
	pc_test_delay(PC_TEST_ARM);
	pc_uprobe_consumer_init(&s->uc, p->retprobe);
	ret = pc_uprobe_register(&s->up, s->inode, p->offset,
				 p->ref_ctr_offset, &s->uc);
	if (ret)
		ret = pc_register_error(s, ret, err);
	else
		WRITE_ONCE(s->registered, true);
	WRITE_ONCE(s->error, ret);
	return ret;
}

/* The caller syncs before @s is registered again or freed. */
void pc_site_disarm_nosync(struct pc_site *s)
{
	lockdep_assert_held(&s->p->lock);
	if (!s->registered)
		return;
	WRITE_ONCE(s->registered, false);
	pc_uprobe_unregister_nosync(&s->up, s->inode, s->p->offset, &s->uc);
}

void pc_disarm_nosync(struct pc_probe *p)
{
	struct pc_site *s;

	lockdep_assert_held(&p->lock);
	if (!p->counting)
		return;
	WRITE_ONCE(p->counting, false);
	list_for_each_entry(s, &p->sites, node)
		pc_site_disarm_nosync(s);
	atomic_dec(&pc_nr_armed);
}

/* Count on the probe's own inode, then on every other site. */
static int pc_arm(struct pc_probe *p, struct pc_err *err)
{
	struct pc_err site_err;
	struct pc_site *s;
	int ret;

	if (atomic_read(&p->state) == PC_STATE_DELETED)
		return pc_err_set(err, -ENOENT, "event", "%s was deleted",
				  p->name);
	ret = pc_site_arm(&p->site, err);
	if (ret)
		return ret;
	WRITE_ONCE(p->counting, true);
	atomic_inc(&pc_nr_armed);
	list_for_each_entry(s, &p->sites, node)
		if (s != &p->site)
			pc_site_arm(s, &site_err);
	return 0;
}

int pc_count_set(struct pc_probe *p, bool on, struct pc_err *err)
{
	int ret = 0;

	mutex_lock(&p->lock);
	if (on && !p->counting) {
		ret = pc_arm(p, err);
	} else if (!on && p->counting) {
		pc_disarm_nosync(p);
		pc_uprobe_unregister_sync();
	}
	mutex_unlock(&p->lock);
	return ret;
}

void pc_arm_init_probe(struct pc_probe *p)
{
	mutex_init(&p->lock);
	spin_lock_init(&p->sites_lock);
	INIT_LIST_HEAD(&p->sites);
	p->site.p = p;
	list_add(&p->site.node, &p->sites);
	p->nr_sites = 1;
}
