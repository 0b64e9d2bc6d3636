// SPDX-License-Identifier: GPL-2.0
/*
 * The probe table: add (verify, then register on the verified inode), del,
 * clear, and the uprobe consumer callbacks. Table changes run under pc_lock;
 * a probe's memory lives as long as its kobject.
 */
#include <linux/delay.h>
#include <linux/jhash.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/ptrace.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/wait_bit.h>

#include "pc.h"
#include "trace.h"

#define PC_HASH_BITS	12

static DEFINE_HASHTABLE(pc_probe_hash, PC_HASH_BITS);
static LIST_HEAD(pc_probe_list);
static struct workqueue_struct *pc_wq;
static atomic_t pc_live = ATOMIC_INIT(0);	/* kobjects not yet released */
unsigned int pc_nr_probes;

static u32 pc_name_hash(const char *name)
{
	return jhash(name, strlen(name), 0);
}

static struct pc_probe *pc_probe_find(const char *name)
{
	struct pc_probe *p;

	hash_for_each_possible(pc_probe_hash, p, hnode, pc_name_hash(name))
		if (!strcmp(p->name, name))
			return p;
	return NULL;
}

u64 pc_probe_hits(const struct pc_probe *p)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *per_cpu_ptr(p->hits, cpu);
	return sum;
}

static int pc_hit(struct pc_probe *p, struct pt_regs *regs,
		  unsigned long bp_vaddr)
{
	/* Until the unregister sync, a stale or deleted probe may still run. */
	if (atomic_read(&p->state) != PC_STATE_ARMED)
		return 0;
	this_cpu_inc(*p->hits);
	/* A static branch: fetching costs nothing until someone traces. */
	if (trace_probecache_hit_enabled())
		pc_fetch_emit(p, regs, bp_vaddr);
	return 0;
}

/*
 * Entry of every probe, r: ones included (as trace_uprobe does): the uprobe
 * core takes UPROBE_HANDLER_REMOVE only from ->handler, and a task that is
 * not the pid's (a child that inherited the breakpoint by fork, or an mm
 * mapped before the filter could say no) must lose it, not keep it armed.
 */
int pc_uprobe_hit(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	struct pc_probe *p = container_of(uc, struct pc_probe, uc);

	if (p->mm && current->mm != p->mm)
		return UPROBE_HANDLER_REMOVE;
	if (p->retprobe)
		return 0;
	/* The uprobe core has already rewound ip to the breakpoint. */
	return pc_hit(p, regs, instruction_pointer(regs));
}

int pc_uprobe_ret_hit(struct uprobe_consumer *uc, unsigned long func,
		      struct pt_regs *regs)
{
	struct pc_probe *p = container_of(uc, struct pc_probe, uc);

	if (p->mm && current->mm != p->mm)
		return 0;
	pc_hit(p, regs, func);
	return 0;
}

static void pc_probe_queue_stale(struct pc_probe *p)
{
	if (test_and_set_bit(PC_F_STALE_QUEUED, &p->flags))
		return;
	kobject_get(&p->kobj);
	if (!queue_work(pc_wq, &p->stale_work))
		kobject_put(&p->kobj);
}

/*
 * Asked (under the uprobe core's locks) whether @mm may get the breakpoint,
 * typically when the file is mmapped. Refuse if the content changed since
 * verification; the disarming happens later in pc_stale_work().
 */
bool pc_uprobe_want(struct uprobe_consumer *uc, struct mm_struct *mm)
{
	struct pc_probe *p = container_of(uc, struct pc_probe, uc);

	if (p->mm && p->mm != mm)
		return false;
	if (atomic_read(&p->state) > PC_STATE_ARMED)
		return false;
	if (pc_ident_changed(&p->ident, p->inode)) {
		pc_probe_queue_stale(p);
		return false;
	}
	return true;
}

/* Writers were refused while armed (verify.c); let them in again. */
static void pc_probe_allow_writes(struct pc_probe *p)
{
	if (test_and_clear_bit(PC_F_WRITE_DENIED, &p->flags))
		pc_inode_allow_write(p->inode);
}

/*
 * Detach the consumer. After unregister no mm holds the breakpoint (only
 * handlers already running may still be in flight until the sync), so the
 * file may be written again.
 */
static void pc_probe_unregister(struct pc_probe *p)
{
	pc_uprobe_unregister_nosync(&p->up, &p->uc);
	pc_probe_allow_writes(p);
}

/* Detach the consumer unless the stale work already did; no sync here. */
static void pc_probe_disarm(struct pc_probe *p)
{
	int old = atomic_xchg(&p->state, PC_STATE_DISARMED);

	if (old == PC_STATE_ARMED)
		pc_probe_unregister(p);
}

static void pc_stale_work(struct work_struct *work)
{
	struct pc_probe *p = container_of(work, struct pc_probe, stale_work);
	const char *what;

	/*
	 * Cleared before looking at the state: the filter may have seen the
	 * change while the probe was still arming, and the re-check that
	 * follows arming must be able to queue us again (the fully ordered
	 * cmpxchg below keeps the clear before our look at the state).
	 */
	clear_bit(PC_F_STALE_QUEUED, &p->flags);
	what = pc_ident_changed(&p->ident, p->inode);
	if (atomic_cmpxchg(&p->state, PC_STATE_ARMED, PC_STATE_STALE) ==
	    PC_STATE_ARMED) {
		/* Say why before the (slow) unregister sync: state is already stale. */
		pr_warn("%s: %s (offset 0x%llx) changed since verification (%s); disarming, state stale\n",
			p->name, p->pathname, p->offset, what ? what : "content");
		pc_probe_unregister(p);
		pc_uprobe_unregister_sync();
	}
	kobject_put(&p->kobj);
}

void pc_probe_release(struct kobject *kobj)
{
	struct pc_probe *p = container_of(kobj, struct pc_probe, kobj);

	if (p->mm)
		mmdrop(p->mm);
	if (p->inode) {
		pc_probe_allow_writes(p);
		iput(p->inode);
	}
	path_put(&p->path);
	free_percpu(p->hits);
	kfree(p->pathname);
	kfree(p->args_text);
	kfree(p);
	if (atomic_dec_and_test(&pc_live))
		wake_up_var(&pc_live);
}

static const char *pc_arg_field(unsigned int i)
{
	static const char *const names[] = {
		"arg1", "arg2", "arg3", "arg4", "arg5", "arg6", "arg7", "arg8",
		"arg9", "arg10", "arg11", "arg12", "arg13", "arg14", "arg15",
		"arg16",
	};

	BUILD_BUG_ON(ARRAY_SIZE(names) != PROBECACHE_MAX_ARGS);
	return i < ARRAY_SIZE(names) ? names[i] : "arg";
}

/* Resolve @rec's @+FILEOFF args through the verified PT_LOAD table. */
static int pc_probe_set_args(struct pc_probe *p, const struct pc_record *rec,
			     const struct pc_elf_info *elf, struct pc_err *err)
{
	u64 base, vaddr;
	unsigned int i;

	if (pc_elf_off_to_vaddr(elf, rec->offset, &base))
		return pc_err_set(err, -ERANGE, "offset",
				  "0x%llx is not inside any PT_LOAD", rec->offset);
	for (i = 0; i < p->nargs; i++) {
		const struct pc_arg *a = &rec->args[i];

		p->args[i].arg = *a;
		if (a->kind == PC_BASE_RETVAL && !rec->retprobe)
			return pc_err_set(err, -EINVAL, pc_arg_field(i),
					  "$retval needs an r: probe");
		if (a->kind != PC_BASE_FILEOFF)
			continue;
		if (pc_elf_off_to_vaddr(elf, a->fileoff, &vaddr))
			return pc_err_set(err, -ERANGE, pc_arg_field(i),
					  "@+0x%llx is not inside any PT_LOAD",
					  a->fileoff);
		p->args[i].delta = (s64)(vaddr - base);
	}
	return 0;
}

static int pc_probe_set_pid(struct pc_probe *p, pid_t nr, struct pc_err *err)
{
	struct task_struct *task = NULL;
	struct mm_struct *mm;
	struct pid *pid;

	pid = find_get_pid(nr);
	if (pid)
		task = get_pid_task(pid, PIDTYPE_TGID);
	put_pid(pid);
	if (!task)
		return pc_err_set(err, -ESRCH, "pid", "no process with pid %d",
				  nr);
	mm = get_task_mm(task);
	put_task_struct(task);
	if (!mm)
		return pc_err_set(err, -EINVAL, "pid",
				  "process %d has no user address space", nr);
	mmgrab(mm);
	mmput(mm);
	p->mm = mm;
	p->pid = nr;
	return 0;
}

static int pc_probe_set_text(struct pc_probe *p, const struct pc_record *rec)
{
	char *buf;
	int ret;

	buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	ret = pc_format_args(rec, buf, PAGE_SIZE);
	if (ret >= 0) {
		p->args_text = kstrdup(buf, GFP_KERNEL);
		ret = p->args_text ? 0 : -ENOMEM;
	}
	kfree(buf);
	return ret;
}

/* Everything about @p that does not need the file. */
static struct pc_probe *pc_probe_alloc(const struct pc_record *rec)
{
	struct pc_probe *p;

	p = kzalloc(struct_size(p, args, rec->nargs), GFP_KERNEL);
	if (!p)
		return NULL;
	kobject_init(&p->kobj, &pc_probe_ktype);
	atomic_inc(&pc_live);
	INIT_WORK(&p->stale_work, pc_stale_work);
	atomic_set(&p->state, PC_STATE_ARMING);
	p->nargs = rec->nargs;
	p->retprobe = rec->retprobe;
	p->offset = rec->offset;
	p->ref_ctr_offset = rec->ref_ctr_offset;
	p->build_id_len = rec->build_id_len;
	memcpy(p->build_id, rec->build_id, rec->build_id_len);
	snprintf(p->name, sizeof(p->name), "%s:%s", rec->group, rec->event);
	p->hits = alloc_percpu(u64);
	p->pathname = kmemdup_nul(rec->path, rec->path_len, GFP_KERNEL);
	if (!p->hits || !p->pathname || pc_probe_set_text(p, rec)) {
		kobject_put(&p->kobj);
		return NULL;
	}
	return p;
}

/* Test hook: widen the windows between verify, register and armed. */
static void pc_test_delay(void)
{
	unsigned int ms = READ_ONCE(pc_test_arm_delay_ms);

	if (ms)
		msleep(ms);
}

/* uprobe_register() says only an errno: name the likeliest field. */
static int pc_register_error(const struct pc_probe *p, int ret,
			     struct pc_err *err)
{
	if (ret == -ENOMEM)
		return pc_err_set(err, ret, "event", "out of memory");
	if (ret == -EIO)
		return pc_err_set(err, ret, "path",
				  "%s cannot be read through the page cache",
				  p->pathname);
	if (ret == -EINVAL && p->ref_ctr_offset)
		return pc_err_set(err, ret, "ref_ctr",
				  "uprobe_register refused 0x%llx(0x%llx): another probe at this offset uses another semaphore, or the offset is invalid",
				  p->offset, p->ref_ctr_offset);
	return pc_err_set(err, ret, "offset",
			  "uprobe_register refused 0x%llx: error %d",
			  p->offset, ret);
}

/*
 * Verify the file, then register on the very inode that was verified.
 * Verification denied writes to that inode first, so its content stays the
 * verified one for as long as the probe is armed. No lock held: this reads
 * the file and faults pages of it in.
 */
static int pc_probe_arm(struct pc_probe *p, const struct pc_record *rec,
			struct pc_err *err)
{
	struct pc_verified v;
	int ret;

	ret = pc_verify(rec, p->pathname, &v, err);
	if (ret)
		return ret;
	ret = pc_probe_set_args(p, rec, v.elf, err);
	if (ret)
		goto err_verified;
	/* The probe owns the references and the write denial from here. */
	p->path = v.path;
	p->inode = v.inode;
	p->ident = v.ident;
	set_bit(PC_F_WRITE_DENIED, &p->flags);
	kfree(v.elf);
	pc_test_delay();
	pc_uprobe_consumer_init(&p->uc, p->retprobe);
	ret = pc_uprobe_register(&p->up, p->inode, p->offset,
				 p->ref_ctr_offset, &p->uc);
	if (ret)
		return pc_register_error(p, ret, err);
	pc_test_delay();
	atomic_set(&p->state, PC_STATE_ARMED);
	/* A change the filter saw during registration was not acted on yet. */
	if (pc_ident_changed(&p->ident, p->inode))
		pc_probe_queue_stale(p);
	return 0;

err_verified:
	pc_verified_release(&v);
	return ret;
}

/* Cheap refusals first, and again at insert: writers race in between. */
static int pc_probe_check_room(const struct pc_probe *p, struct pc_err *err)
{
	lockdep_assert_held(&pc_lock);
	if (pc_nr_probes >= pc_max_probes)
		return pc_err_set(err, -ENOSPC, "event",
				  "max_probes (%u) reached", pc_max_probes);
	if (pc_probe_find(p->name))
		return pc_err_set(err, -EEXIST, "event", "%s already exists",
				  p->name);
	return 0;
}

static int pc_probe_insert(struct pc_probe *p, struct pc_err *err)
{
	int ret;

	mutex_lock(&pc_lock);
	ret = pc_probe_check_room(p, err);
	if (ret)
		goto out;
	ret = kobject_add(&p->kobj, pc_probes_kobj, "%s", p->name);
	if (ret) {
		pc_err_set(err, ret, "event", "cannot create sysfs directory");
		goto out;
	}
	hash_add(pc_probe_hash, &p->hnode, pc_name_hash(p->name));
	list_add_tail(&p->node, &pc_probe_list);
	pc_nr_probes++;
out:
	mutex_unlock(&pc_lock);
	return ret;
}

int pc_probe_add(const struct pc_record *rec, struct pc_err *err)
{
	struct pc_probe *p;
	int ret;

	p = pc_probe_alloc(rec);
	if (!p)
		return pc_err_set(err, -ENOMEM, "event", "out of memory");
	mutex_lock(&pc_lock);
	ret = pc_probe_check_room(p, err);
	mutex_unlock(&pc_lock);
	if (ret)
		goto err_put;
	if (rec->pid) {
		ret = pc_probe_set_pid(p, rec->pid, err);
		if (ret)
			goto err_put;
	}
	ret = pc_probe_arm(p, rec, err);
	if (ret)
		goto err_put;
	ret = pc_probe_insert(p, err);
	if (ret)
		goto err_disarm;
	return 0;

err_disarm:
	pc_probe_disarm(p);
	pc_uprobe_unregister_sync();
err_put:
	kobject_put(&p->kobj);
	return ret;
}

/* Remove @p from the table; the caller disarms, syncs and puts it. */
static void pc_probe_unlink(struct pc_probe *p)
{
	lockdep_assert_held(&pc_lock);
	hash_del(&p->hnode);
	list_del(&p->node);
	pc_nr_probes--;
	kobject_del(&p->kobj);
}

int pc_probe_del(const char *group, const char *event, struct pc_err *err)
{
	char name[2 * PROBECACHE_NAME_MAX + 2];
	struct pc_probe *p;

	snprintf(name, sizeof(name), "%s:%s", group, event);
	mutex_lock(&pc_lock);
	p = pc_probe_find(name);
	if (p)
		pc_probe_unlink(p);
	mutex_unlock(&pc_lock);
	if (!p)
		return pc_err_set(err, -ENOENT, "group", "no probe %s", name);
	pc_probe_disarm(p);
	pc_uprobe_unregister_sync();
	kobject_put(&p->kobj);
	return 0;
}

/* One unregister_sync for the whole batch: clear of 10k probes stays fast. */
void pc_probe_clear(void)
{
	struct pc_probe *p, *tmp;
	LIST_HEAD(dead);

	mutex_lock(&pc_lock);
	list_for_each_entry_safe(p, tmp, &pc_probe_list, node) {
		pc_probe_unlink(p);
		list_add_tail(&p->node, &dead);
	}
	mutex_unlock(&pc_lock);
	list_for_each_entry(p, &dead, node)
		pc_probe_disarm(p);
	pc_uprobe_unregister_sync();
	list_for_each_entry_safe(p, tmp, &dead, node) {
		list_del(&p->node);
		kobject_put(&p->kobj);
	}
}

int pc_probe_init(void)
{
	pc_wq = alloc_workqueue("probecache", WQ_UNBOUND, 0);
	return pc_wq ? 0 : -ENOMEM;
}

/* After pc_probe_clear(): wait for stale work and the last kobject put. */
void pc_probe_exit(void)
{
	destroy_workqueue(pc_wq);
	wait_var_event(&pc_live, !atomic_read(&pc_live));
}
