// SPDX-License-Identifier: GPL-2.0
/*
 * A defined probe is armed (its uprobe registered, the SDT semaphore raised
 * by the uprobe core) exactly while it has a consumer, as trace_uprobe
 * registers only while its event is enabled.
 * Consumers: each ftrace file that enabled the event, each perf event on it
 * (CPU-wide, or bound to a task: then only that task's mm gets the
 * breakpoint, as uprobe_perf_filter() does), and the module's hit counter.
 */
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>

#include "pc.h"
#include "testhook.h"

atomic_t pc_nr_armed = ATOMIC_INIT(0);

/*
 * uprobe_apply() is not exported. Registering a second consumer with the
 * probe's filter and unregistering it at once has the same effect: register
 * installs the breakpoint in every mm the filter now wants, unregister
 * removes it from every mm no remaining consumer wants.
 */
struct pc_applier {
	struct uprobe_consumer uc;
	struct pc_uprobe up;
	struct pc_site *s;
};

static DEFINE_MUTEX(pc_apply_lock);
static struct pc_applier pc_applier;

static bool pc_task_wants(struct pc_probe *p, struct mm_struct *mm)
{
	struct perf_event *event;

	list_for_each_entry(event, &p->perf_tasks, hw.tp_list)
		if (event->hw.target->mm == mm)
			return true;
	return false;
}

/* Does a consumer want the breakpoint in @mm? */
static bool pc_consumers_want(struct pc_probe *p, struct mm_struct *mm)
{
	bool ret;

	if (READ_ONCE(p->nr_systemwide))
		return true;
	read_lock(&p->filter_lock);
	ret = p->nr_systemwide || pc_task_wants(p, mm);
	read_unlock(&p->filter_lock);
	return ret;
}

static struct pc_site *pc_uc_site(struct uprobe_consumer *uc)
{
	if (uc == &pc_applier.uc)
		return pc_applier.s;
	return container_of(uc, struct pc_site, uc);
}

/*
 * Asked (under the uprobe core's locks) whether @mm may get the breakpoint:
 * on registration, on mmap of the file, and for the applier.
 */
bool pc_uprobe_want(struct uprobe_consumer *uc, struct mm_struct *mm)
{
	struct pc_probe *p = pc_uc_site(uc)->p;

	if (p->mm && p->mm != mm)
		return false;
	if (atomic_read(&p->state) != PC_STATE_ARMED)
		return false;
	return pc_consumers_want(p, mm);
}

static void pc_hit(struct pc_site *s, struct pt_regs *regs,
		   unsigned long func, unsigned long ip)
{
	struct pc_probe *p = s->p;

	/* Until the unregister sync, a disarmed probe may still run. */
	if (atomic_read(&p->state) != PC_STATE_ARMED)
		return;
	if (READ_ONCE(p->counting))
		this_cpu_inc(*s->hits);
	pc_event_hit(p, regs, func, ip);
}

/*
 * Entry of every probe, r: ones included (as trace_uprobe does): the uprobe
 * core takes UPROBE_HANDLER_REMOVE only from ->handler, and a task no
 * consumer wants (a child that inherited the breakpoint by fork, another
 * process than a per-task perf event's) must lose it, not keep it armed.
 */
int pc_uprobe_hit(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	struct pc_site *s;
	struct pc_probe *p;

	if (uc == &pc_applier.uc)
		return 0;
	s = container_of(uc, struct pc_site, uc);
	p = s->p;
	if ((p->mm && current->mm != p->mm) ||
	    !pc_consumers_want(p, current->mm))
		return UPROBE_HANDLER_REMOVE;
	if (!p->retprobe)	/* the core has rewound ip to the breakpoint */
		pc_hit(s, regs, 0, instruction_pointer(regs));
	return 0;
}

int pc_uprobe_ret_hit(struct uprobe_consumer *uc, unsigned long func,
		      struct pt_regs *regs)
{
	struct pc_site *s = container_of(uc, struct pc_site, uc);
	struct pc_probe *p = s->p;

	if ((p->mm && current->mm != p->mm) ||
	    !pc_consumers_want(p, current->mm))
		return 0;
	pc_hit(s, regs, func, instruction_pointer(regs));
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

/* What a probe's state allows before any site is looked at. */
static int pc_arm_state_check(struct pc_probe *p, struct pc_err *err)
{
	if (atomic_read(&p->state) == PC_STATE_DELETED)
		return pc_err_set(err, -ENOENT, "event", "%s was deleted",
				  p->name);
	/* Still publishing: if its event fails, it is unlinked and freed. */
	if (atomic_read(&p->state) == PC_STATE_DEFINING)
		return pc_err_set(err, -ENOENT, "event",
				  "%s is still being defined", p->name);
	return 0;
}

/*
 * Register on the verified inode. Its writes have been denied since it was
 * verified, so it still holds what was verified: nothing is read again.
 */
static int pc_site_register(struct pc_site *s, struct pc_err *err)
{
	struct pc_probe *p = s->p;
	int ret;

	pc_uprobe_consumer_init(&s->uc, p->retprobe);
	ret = pc_uprobe_register(&s->up, s->inode, p->offset,
				 p->ref_ctr_offset, &s->uc);
	if (ret)
		return pc_register_error(s, ret, err);
	WRITE_ONCE(s->registered, true);
	return 0;
}

/*
 * Another site of an armed probe (site.c adds them; pc_arm() arms those
 * there already). Its failure is its own: the site stays, unarmed, and
 * says why in /proc/probecache_sites.
 */
int pc_site_arm(struct pc_site *s, struct pc_err *err)
{
	int ret;

	lockdep_assert_held(&s->p->lock);
	if (s->registered)
		return 0;
	ret = pc_site_register(s, err);
	WRITE_ONCE(s->error, ret);
	return ret;
}

/* First consumer: register on the probe's own inode, then on every other site. */
static int pc_arm(struct pc_probe *p, struct pc_err *err)
{
	struct pc_err site_err;
	struct pc_site *s;
	int ret;

	lockdep_assert_held(&p->lock);
	ret = pc_arm_state_check(p, err);
	if (ret)
		return ret;
	pc_test_delay(PC_TEST_ARM);
	atomic_set(&p->state, PC_STATE_ARMED);
	ret = pc_site_register(&p->site, err);
	if (ret) {
		atomic_set(&p->state, PC_STATE_DEFINED);
		return ret;
	}
	WRITE_ONCE(p->registered, true);
	atomic_inc(&pc_nr_armed);
	pc_test_delay(PC_TEST_ARM);
	list_for_each_entry(s, &p->sites, node)
		if (s != &p->site)
			pc_site_arm(s, &site_err);
	return 0;
}

/*
 * Detach the consumers; the caller syncs before a site's uc is registered again
 * or freed. After unregister no mm holds the breakpoint (only handlers
 * already running may still be in flight).
 */
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
	if (!p->registered)
		return;
	WRITE_ONCE(p->registered, false);
	atomic_cmpxchg(&p->state, PC_STATE_ARMED, PC_STATE_DEFINED);
	list_for_each_entry(s, &p->sites, node)
		pc_site_disarm_nosync(s);
	atomic_dec(&pc_nr_armed);
}

static int pc_apply_site(struct pc_site *s)
{
	struct pc_probe *p = s->p;
	int ret;

	mutex_lock(&pc_apply_lock);
	pc_applier.s = s;
	pc_uprobe_consumer_init(&pc_applier.uc, false);
	ret = pc_uprobe_register(&pc_applier.up, s->inode, p->offset,
				 p->ref_ctr_offset, &pc_applier.uc);
	if (!ret) {
		pc_uprobe_unregister_nosync(&pc_applier.up, s->inode, p->offset,
					    &pc_applier.uc);
		pc_uprobe_unregister_sync();
	}
	mutex_unlock(&pc_apply_lock);
	return ret;
}

/* Move the breakpoints of every armed site to the mms the filter now wants. */
static int pc_apply(struct pc_probe *p)
{
	struct pc_site *s;
	int ret;

	lockdep_assert_held(&p->lock);
	ret = pc_apply_site(&p->site);
	list_for_each_entry(s, &p->sites, node)
		if (!ret && s != &p->site && s->registered)
			ret = pc_apply_site(s);
	return ret;
}

/*
 * Is @task_event's mm already covered by the other consumers? Then the
 * breakpoints need not move (trace_uprobe_filter_add(): a child's inherited
 * event has the parent's breakpoints, enable_on_exec gets them at exec).
 */
static bool pc_covered(struct pc_probe *p, struct perf_event *task_event)
{
	if (p->nr_systemwide)
		return true;
	if (!task_event)
		return false;
	return task_event->parent || task_event->attr.enable_on_exec ||
	       pc_task_wants(p, task_event->hw.target->mm);
}

static int pc_consumer_get_locked(struct pc_probe *p,
				  struct perf_event *task_event,
				  struct pc_err *err)
{
	bool covered;
	int ret = 0;

	write_lock(&p->filter_lock);
	covered = pc_covered(p, task_event);
	if (task_event)
		list_add(&task_event->hw.tp_list, &p->perf_tasks);
	else
		p->nr_systemwide++;
	write_unlock(&p->filter_lock);
	/*
	 * An inherited perf event (a fork in a traced tree) never arms, as
	 * in trace_uprobe: a failure here would fail the fork.
	 */
	if (task_event && task_event->parent)
		return 0;
	if (!p->registered)
		ret = pc_arm(p, err);
	else if (!covered)
		ret = pc_apply(p);
	if (!ret)
		return 0;
	write_lock(&p->filter_lock);
	if (task_event)
		list_del(&task_event->hw.tp_list);
	else
		p->nr_systemwide--;
	write_unlock(&p->filter_lock);
	return ret;
}

static void pc_consumer_put_locked(struct pc_probe *p,
				   struct perf_event *task_event)
{
	bool covered, last;

	write_lock(&p->filter_lock);
	if (task_event)
		list_del(&task_event->hw.tp_list);
	else
		p->nr_systemwide--;
	covered = p->nr_systemwide ||
		  (task_event && ((task_event->hw.target->flags & PF_EXITING) ||
				  pc_task_wants(p, task_event->hw.target->mm)));
	last = !p->nr_systemwide && list_empty(&p->perf_tasks);
	write_unlock(&p->filter_lock);
	if (last) {
		pc_disarm_nosync(p);
		pc_uprobe_unregister_sync();
	} else if (!covered && p->registered) {
		pc_apply(p);
	}
}

/* ftrace files, the counter and CPU-wide perf events, then per-task ones. */
unsigned int pc_nr_consumers(struct pc_probe *p)
{
	struct perf_event *event;
	unsigned int n;

	read_lock(&p->filter_lock);
	n = p->nr_systemwide;
	list_for_each_entry(event, &p->perf_tasks, hw.tp_list)
		n++;
	read_unlock(&p->filter_lock);
	return n;
}

/* @task_event: a perf event bound to a task, NULL for any other consumer. */
int pc_consumer_get(struct pc_probe *p, struct perf_event *task_event,
		    struct pc_err *err)
{
	int ret;

	mutex_lock(&p->lock);
	ret = pc_consumer_get_locked(p, task_event, err);
	mutex_unlock(&p->lock);
	return ret;
}

void pc_consumer_put(struct pc_probe *p, struct perf_event *task_event)
{
	mutex_lock(&p->lock);
	pc_consumer_put_locked(p, task_event);
	mutex_unlock(&p->lock);
}

/* The module's own consumer: counts the hits /proc/probecache_probes shows. */
int pc_count_set(struct pc_probe *p, bool on, struct pc_err *err)
{
	int ret = 0;

	mutex_lock(&p->lock);
	if (on && !p->counting) {
		ret = pc_consumer_get_locked(p, NULL, err);
		if (!ret)
			WRITE_ONCE(p->counting, true);
	} else if (!on && p->counting) {
		WRITE_ONCE(p->counting, false);
		pc_consumer_put_locked(p, NULL);
	}
	mutex_unlock(&p->lock);
	return ret;
}

void pc_arm_init_probe(struct pc_probe *p)
{
	mutex_init(&p->lock);
	rwlock_init(&p->filter_lock);
	spin_lock_init(&p->sites_lock);
	INIT_LIST_HEAD(&p->perf_tasks);
	INIT_LIST_HEAD(&p->sites);
	p->site.p = p;
	list_add(&p->site.node, &p->sites);
	p->nr_sites = 1;
}
