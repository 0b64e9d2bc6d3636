// SPDX-License-Identifier: GPL-2.0
/*
 * The probe table: define (verify, deny writes, list), count, del and
 * clear. Table changes run under pc_lock. A probe's memory lives as long
 * as its last kref: the table holds one (and with it a module reference),
 * and so does each operation using it. Operations hold their probes in
 * arrays of their own (struct pc_batch). The probe's trace event is not
 * ours: the CLI defines it in uprobe_events after the add and removes it
 * before the del (Documentation/design.md, "Events").
 */
#include <linux/jhash.h>
#include <linux/mm.h>		/* kvmalloc_array */
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/wait_bit.h>

#include "pc.h"

#define PC_HASH_BITS	12

static DEFINE_HASHTABLE(pc_probe_hash, PC_HASH_BITS);
LIST_HEAD(pc_probe_list);
static atomic_t pc_live = ATOMIC_INIT(0);	/* probes not yet released */
static struct kmem_cache *pc_probe_cache;
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

/* A referenced probe by name, or NULL with @err filled. */
struct pc_probe *pc_probe_lookup(const char *group, const char *event,
				 struct pc_err *err)
{
	char name[2 * PROBECACHE_NAME_MAX + 2];
	struct pc_probe *p;

	snprintf(name, sizeof(name), "%s:%s", group, event);
	mutex_lock(&pc_lock);
	p = pc_probe_find(name);
	if (p)
		pc_probe_get(p);
	mutex_unlock(&pc_lock);
	if (!p)
		pc_err_set(err, -ENOENT, "group", "no probe %s", name);
	return p;
}

u64 pc_site_hits(const struct pc_site *s)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *per_cpu_ptr(s->hits, cpu);
	return sum;
}

/* Every site's: the probe's event counts every copy's hits. */
u64 pc_probe_hits(struct pc_probe *p)
{
	u64 sum = atomic64_read(&p->pruned_hits);
	struct pc_site *s;

	spin_lock(&p->sites_lock);
	list_for_each_entry(s, &p->sites, node)
		sum += pc_site_hits(s);
	spin_unlock(&p->sites_lock);
	return sum;
}

/* What a site holds; the probe's own is part of the probe. */
void pc_site_put_refs(struct pc_site *s)
{
	if (s->inode) {
		pc_inode_allow_write(s->inode);
		iput(s->inode);
	}
	path_put(&s->path);
	free_percpu(s->hits);
	kfree(s->pathname);
}

static void pc_probe_release(struct kref *ref)
{
	struct pc_probe *p = container_of(ref, struct pc_probe, ref);
	struct pc_site *s, *tmp;

	if (p->mm)
		mmdrop(p->mm);
	list_for_each_entry_safe(s, tmp, &p->sites, node)
		if (s != &p->site)
			pc_site_free(s);
	pc_site_put_refs(&p->site);
	kfree(p->args_text);
	kfree(p->name);
	kmem_cache_free(pc_probe_cache, p);
	if (atomic_dec_and_test(&pc_live))
		wake_up_var(&pc_live);
}

void pc_probe_put(struct pc_probe *p)
{
	kref_put(&p->ref, pc_probe_release);
}

/* What the listing says: armed while the module counts it. */
const char *pc_probe_state(struct pc_probe *p)
{
	if (atomic_read(&p->state) == PC_STATE_DELETED)
		return "deleted";
	return READ_ONCE(p->counting) ? PROBECACHE_STATE_ARMED :
					PROBECACHE_STATE_DEFINED;
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

static void pc_probe_copy_record(struct pc_probe *p, const struct pc_record *rec)
{
	p->retprobe = rec->retprobe;
	p->offset = rec->offset;
	p->ref_ctr_offset = rec->ref_ctr_offset;
	p->build_id_len = rec->build_id_len;
	memcpy(p->build_id, rec->build_id, rec->build_id_len);
}

/* One buffer "GROUP:EVENT\0GROUP\0": the name, the event, the group. */
static int pc_probe_set_names(struct pc_probe *p, const struct pc_record *rec)
{
	size_t glen = strlen(rec->group), elen = strlen(rec->event);

	BUILD_BUG_ON(PROBECACHE_NAME_MAX > U8_MAX);
	p->name = kmalloc(2 * glen + elen + 3, GFP_KERNEL);
	if (!p->name)
		return -ENOMEM;
	sprintf(p->name, "%s:%s", rec->group, rec->event);
	strcpy(p->name + glen + elen + 2, rec->group);
	p->group_len = glen;
	return 0;
}

/* Everything about @p that does not need the file. */
static struct pc_probe *pc_probe_alloc(const struct pc_record *rec)
{
	struct pc_probe *p;
	int ret = -ENOMEM;

	p = kmem_cache_zalloc(pc_probe_cache, GFP_KERNEL);
	if (!p)
		return ERR_PTR(-ENOMEM);
	kref_init(&p->ref);
	atomic_inc(&pc_live);
	pc_arm_init_probe(p);
	atomic_set(&p->state, PC_STATE_DEFINING);
	p->site.hits = alloc_percpu(u64);
	p->site.pathname = kmemdup_nul(rec->path, rec->path_len, GFP_KERNEL);
	pc_probe_copy_record(p, rec);
	if (p->site.hits && p->site.pathname)
		ret = pc_probe_set_names(p, rec) ?: pc_probe_set_text(p, rec);
	if (ret) {
		pc_probe_put(p);
		return ERR_PTR(ret);
	}
	return p;
}

/*
 * Verify the file and keep the verified inode, writes to it denied until
 * the probe is released. No lock held: this reads the file and faults pages
 * of it in.
 */
static int pc_probe_verify(struct pc_probe *p, const struct pc_record *rec,
			   struct pc_err *err)
{
	struct pc_verified v;
	int ret;

	ret = pc_verify(rec, p->site.pathname, 0, &v, err);
	if (ret)
		return ret;
	p->site.path = v.path;
	p->site.inode = v.inode;
	pc_facts_free(v.facts);
	return 0;
}

/* What verification checks of @p's file, as a record (pc_verify()). */
struct pc_record *pc_probe_record(const struct pc_probe *p)
{
	struct pc_record *rec;

	rec = kzalloc(sizeof(*rec), GFP_KERNEL);
	if (!rec)
		return NULL;
	strscpy(rec->group, pc_probe_group(p), sizeof(rec->group));
	memcpy(rec->build_id, p->build_id, p->build_id_len);
	rec->build_id_len = p->build_id_len;
	rec->offset = p->offset;
	rec->ref_ctr_offset = p->ref_ctr_offset;
	return rec;
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

/*
 * The table's reference also pins the module: its files stay write-denied
 * until "clear", so rmmod is EBUSY until then.
 * try_module_get(): a control write can still come while rmmod is exiting.
 */
static int pc_probe_insert(struct pc_probe *p, struct pc_err *err)
{
	int ret;

	if (!try_module_get(THIS_MODULE))
		return pc_err_set(err, -ENODEV, "event",
				  "probecache is being unloaded");
	mutex_lock(&pc_lock);
	ret = pc_probe_check_room(p, err);
	if (!ret) {
		hash_add(pc_probe_hash, &p->hnode, pc_name_hash(p->name));
		list_add_tail(&p->node, &pc_probe_list);
		pc_nr_probes++;
	}
	mutex_unlock(&pc_lock);
	if (ret)
		module_put(THIS_MODULE);
	return ret;
}

/*
 * Remove @p from the table if it is still there; true if this call did, and
 * so owns the table's reference (the caller disarms and puts it). Two dels
 * of one probe, or a del and a clear, may both get here.
 */
static bool pc_probe_unlink(struct pc_probe *p)
{
	bool listed;

	mutex_lock(&pc_lock);
	listed = hash_hashed(&p->hnode);
	if (listed) {
		hash_del(&p->hnode);
		list_del(&p->node);
		pc_nr_probes--;
	}
	mutex_unlock(&pc_lock);
	if (listed)
		module_put(THIS_MODULE);
	return listed;
}

/* Append @p (its reference goes with it) to @b; -ENOMEM leaves @p to the caller. */
int pc_batch_add(struct pc_batch *b, struct pc_probe *p)
{
	struct pc_batch_ent *ent;
	unsigned int max;

	if (b->n == b->max) {
		max = b->max ? 2 * b->max : 16;
		ent = kvmalloc_array(max, sizeof(*ent), GFP_KERNEL);
		if (!ent)
			return -ENOMEM;
		if (b->n)
			memcpy(ent, b->ent, b->n * sizeof(*ent));
		kvfree(b->ent);
		b->ent = ent;
		b->max = max;
	}
	b->ent[b->n++] = (struct pc_batch_ent){ .p = p };
	return 0;
}

/* Put the references of @b's entries from @from on, and forget them all. */
void pc_batch_put(struct pc_batch *b, unsigned int from)
{
	unsigned int i;

	for (i = from; i < b->n; i++)
		pc_probe_put(b->ent[i].p);
	kvfree(b->ent);
	*b = (struct pc_batch){};
}

/* A verified probe, not yet listed: PC_STATE_DEFINING, which nothing counts. */
struct pc_probe *pc_probe_prepare(const struct pc_record *rec,
				  struct pc_err *err)
{
	struct pc_probe *p;
	int ret;

	p = pc_probe_alloc(rec);
	if (IS_ERR(p)) {
		ret = PTR_ERR(p);
		if (ret == -ENOMEM)
			pc_err_set(err, ret, "event", "out of memory");
		else
			pc_err_set(err, ret, "event",
				   "cannot set up the probe: error %d", ret);
		return p;
	}
	mutex_lock(&pc_lock);
	ret = pc_probe_check_room(p, err);
	mutex_unlock(&pc_lock);
	if (!ret && rec->pid)
		ret = pc_probe_set_pid(p, rec->pid, err);
	if (!ret)
		ret = pc_probe_verify(p, rec, err);
	if (ret) {
		pc_probe_put(p);
		return ERR_PTR(ret);
	}
	return p;
}

/*
 * List @p, prepared: the table takes the caller's reference. Verified
 * already, it may be counted as soon as a lookup finds it.
 */
int pc_probe_publish(struct pc_probe *p, struct pc_err *err)
{
	atomic_set(&p->state, PC_STATE_DEFINED);
	return pc_probe_insert(p, err);
}

int pc_probe_count(const char *group, const char *event, bool on,
		   struct pc_err *err)
{
	struct pc_probe *p = pc_probe_lookup(group, event, err);
	int ret;

	if (!p)
		return -ENOENT;
	ret = pc_count_set(p, on, err);
	pc_probe_put(p);
	return ret;
}

/* Unlisted: only our counter can still hold it armed. */
static void pc_probe_kill(struct pc_probe *p)
{
	mutex_lock(&p->lock);
	pc_disarm_nosync(p);
	atomic_set(&p->state, PC_STATE_DELETED);
	mutex_unlock(&p->lock);
}

/*
 * Delete @b's probes. Entries another operation deleted first get -ENOENT:
 * an error for a del, not for a @clear. One unregister sync for the whole
 * batch: clear of 10k probes stays fast. Drops the batch's references.
 */
static int pc_probe_del_batch(struct pc_batch *b, bool clear,
			      struct pc_err *err)
{
	struct pc_batch_ent *e;
	unsigned int i;
	int ret = 0;

	for (i = 0; i < b->n; i++) {
		e = &b->ent[i];
		e->ret = pc_probe_unlink(e->p) ? 0 : -ENOENT;
		if (!e->ret)
			pc_probe_kill(e->p);
		else if (!clear && !ret)
			ret = pc_err_set(err, -ENOENT, "group",
					 "no probe %s (deleted meanwhile)",
					 e->p->name);
	}
	pc_uprobe_unregister_sync();
	for (i = 0; i < b->n; i++)
		if (!b->ent[i].ret)
			pc_probe_put(b->ent[i].p);	/* the table's */
	pc_batch_put(b, 0);
	return ret;
}

int pc_probe_del(const char *group, const char *event, struct pc_err *err)
{
	struct pc_probe *p = pc_probe_lookup(group, event, err);
	struct pc_batch b = {};

	if (!p)
		return -ENOENT;
	if (pc_batch_add(&b, p)) {
		pc_probe_put(p);
		return pc_err_set(err, -ENOMEM, "event", "out of memory");
	}
	return pc_probe_del_batch(&b, false, err);
}

/* Every probe. */
int pc_probe_clear(struct pc_err *err)
{
	struct pc_batch b = {};
	struct pc_probe *p;
	int ret = 0;

	mutex_lock(&pc_lock);
	list_for_each_entry(p, &pc_probe_list, node) {
		ret = pc_batch_add(&b, p);
		if (ret)
			break;
		pc_probe_get(p);
	}
	mutex_unlock(&pc_lock);
	if (ret) {
		pc_batch_put(&b, 0);
		return pc_err_set(err, ret, "command", "out of memory");
	}
	return pc_probe_del_batch(&b, true, err);
}

int pc_probe_init(void)
{
	pc_probe_cache = kmem_cache_create("probecache_probe",
					   sizeof(struct pc_probe),
					   __alignof__(struct pc_probe), 0, NULL);
	return pc_probe_cache ? 0 : -ENOMEM;
}

/* After pc_probe_clear(): wait for the prune work and the last put. */
void pc_probe_exit(void)
{
	pc_site_exit();
	wait_var_event(&pc_live, !atomic_read(&pc_live));
	kmem_cache_destroy(pc_probe_cache);
}
