// SPDX-License-Identifier: GPL-2.0
/*
 * Every probe is a trace event GROUP/EVENT, built like trace_uprobe's: its
 * record holds the probe address and the raw argument values (strings as
 * __data_loc char[]), formatted only when read. ftrace files and perf
 * events that enable it are the probe's consumers (arm.c); the hit writes
 * the record to each enabled ftrace file and to perf, through which BPF
 * tracepoint programs attach (TRACE_EVENT_FL_TRACEPOINT).
 *
 * trace_add_event_call() and trace_remove_event_call() must be called with
 * event_mutex held, which is not exported. The tracing core holds it when
 * it calls an event's reg callback, so a static event of ours, "ctl", does
 * the adding and removing from its reg callback when we toggle it with
 * trace_set_clr_event(), for our own task only. The ctl event records
 * nothing.
 *
 * The events are dynamic (TRACE_EVENT_FL_DYNAMIC), like trace_uprobe's:
 * every holder the core knows of (perf events, eprobes, enable_event
 * triggers, trace_get_event_file() users) takes call->refcnt, and removal
 * is refused while it is not 0. Documentation/design.md, "Event lifecycle".
 */
#include <linux/magic.h>
#include <linux/module.h>
#include <linux/namei.h>
#include <linux/percpu.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/trace_events.h>
#include <linux/tracepoint.h>
#include <linux/workqueue.h>

#include "pc.h"
#include "testhook.h"

/* An ftrace file (trace instance) the event is enabled in. */
struct pc_event_link {
	struct list_head list;		/* pc_event.files, RCU */
	struct trace_event_file *file;
	struct rcu_head rcu;
};

struct pc_event {
	struct trace_event_class class;
	struct trace_event_call call;
	struct tracepoint tp;		/* only its name: see TRACE_EVENT_FL_TRACEPOINT */
	struct list_head files;		/* under event_mutex; read under RCU */
	/*
	 * Between TRACE_REG_PERF_REGISTER and _UNREGISTER. perf frees
	 * call->perf_events, and with the last perf event anywhere its
	 * buffers, after a tracepoint_synchronize_unregister() that follows
	 * _UNREGISTER, but clears the pointer only after the free: a hit must
	 * see this off, inside the same preempt-disabled section, first.
	 */
	bool perf_on;
};

/* probe.c allocates a probe and its event as one object. */
const size_t pc_event_size = sizeof(struct pc_event);

static struct pc_event *pc_ev(struct pc_probe *p)
{
	return (struct pc_event *)(p + 1);
}

/* Where a hit assembles its record: fetching may fault and sleep. */
struct pc_scratch {
	struct mutex lock;
	u8 rec[PC_RECORD_MAX];
};

static struct pc_scratch __percpu *pc_scratch;

#define PC_REC_BASE	((int)sizeof(struct trace_entry))

static const char *pc_field_type(enum pc_type t)
{
	static const char *const names[] = {
		"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
		"u8", "u16", "u32", "u64", "__data_loc char[]",
	};

	return names[t];
}

static const char *pc_field_fmt(enum pc_type t)
{
	static const char *const fmts[] = {
		"%u", "%u", "%u", "%llu", "%d", "%d", "%d", "%lld",
		"0x%x", "0x%x", "0x%x", "0x%llx", "\\\"%s\\\"",
	};

	return fmts[t];
}

static int pc_event_define_fields(struct trace_event_call *call)
{
	struct pc_probe *p = call->data;
	const int ul = sizeof(unsigned long);
	unsigned int i;
	int ret;

	if (p->retprobe) {
		ret = trace_define_field(call, "unsigned long", "__probe_func",
					 PC_REC_BASE, ul, 0, FILTER_OTHER);
		ret = ret ?: trace_define_field(call, "unsigned long",
						"__probe_ret_ip",
						PC_REC_BASE + ul, ul, 0,
						FILTER_OTHER);
	} else {
		ret = trace_define_field(call, "unsigned long", "__probe_ip",
					 PC_REC_BASE, ul, 0, FILTER_OTHER);
	}
	for (i = 0; !ret && i < p->nargs; i++) {
		const struct pc_arg *a = &p->args[i].arg;
		unsigned int size = pc_type_size(a->type);

		ret = trace_define_field(call, pc_field_type(a->type), a->name,
					 PC_REC_BASE + p->args[i].off,
					 size ? size : sizeof(u32),
					 a->type >= PC_T_S8 && a->type <= PC_T_S64,
					 FILTER_OTHER);
	}
	return ret;
}

/* Measuring with len 0, then writing, as trace_probe's print fmt does. */
#define PC_FMT(...)	(pos += snprintf(buf ? buf + pos : NULL, \
					 len > pos ? len - pos : 0, __VA_ARGS__))

/* perf probe's look: "(0x%lx) a=%u s=\"%s\"", REC->__probe_ip, ... */
static int pc_print_fmt(const struct pc_probe *p, char *buf, int len)
{
	unsigned int i;
	int pos = 0;

	PC_FMT("\"%s", p->retprobe ? "(0x%lx <- 0x%lx)" : "(0x%lx)");
	for (i = 0; i < p->nargs; i++)
		PC_FMT(" %s=%s", p->args[i].arg.name,
		       pc_field_fmt(p->args[i].arg.type));
	PC_FMT("\", %s", p->retprobe ?
	       "REC->__probe_ret_ip, REC->__probe_func" : "REC->__probe_ip");
	for (i = 0; i < p->nargs; i++) {
		const struct pc_arg *a = &p->args[i].arg;

		PC_FMT(a->type == PC_T_STRING ? ", __get_str(%s)" : ", REC->%s",
		       a->name);
	}
	return pos;
}

/*
 * A string field's __data_loc (length incl. NUL << 16 | offset), checked
 * against the record it is in: a record another event wrote under a type id
 * since handed to this one holds anything there.
 */
static void pc_print_str(struct trace_seq *s, const char *name, const u8 *ent,
			 unsigned int ent_size, u32 loc)
{
	unsigned int off = loc & 0xffff, len = loc >> 16;

	if (!len)
		trace_seq_printf(s, " %s=(fault)", name);
	else if (off < PC_REC_BASE || off + len > ent_size)
		trace_seq_printf(s, " %s=(bad record)", name);
	else
		trace_seq_printf(s, " %s=\"%.*s\"", name, (int)len - 1,
				 (const char *)ent + off);
}

static void pc_print_arg(struct trace_seq *s, const struct pc_fetch_arg *fa,
			 const u8 *ent, unsigned int ent_size)
{
	const struct pc_arg *a = &fa->arg;
	const u8 *f = ent + PC_REC_BASE + fa->off;
	unsigned int size = pc_type_size(a->type);
	u32 loc;
	u64 v = 0;

	if (a->type == PC_T_STRING) {
		memcpy(&loc, f, sizeof(loc));
		pc_print_str(s, a->name, ent, ent_size, loc);
		return;
	}
	memcpy(&v, f, size);
	if (a->type >= PC_T_X8 && a->type <= PC_T_X64)
		trace_seq_printf(s, " %s=0x%llx", a->name, v);
	else if (a->type >= PC_T_S8 && a->type <= PC_T_S64)
		trace_seq_printf(s, " %s=%lld", a->name,
				 sign_extend64(v, size * 8 - 1));
	else
		trace_seq_printf(s, " %s=%llu", a->name, v);
}

/* ftrace's text output of one record. */
static enum print_line_t pc_event_print(struct trace_iterator *iter,
					int flags, struct trace_event *event)
{
	struct trace_event_call *call =
		container_of(event, struct trace_event_call, event);
	const struct pc_probe *p = call->data;
	const u8 *ent = (const u8 *)iter->ent;
	const unsigned long *ip = (const unsigned long *)(ent + PC_REC_BASE);
	struct trace_seq *s = &iter->seq;
	unsigned int i;

	/* Shorter than this event's records: another event's, print nothing of it. */
	if (iter->ent_size < PC_REC_BASE + p->fixed_size) {
		trace_seq_printf(s, "%s: (bad record)\n", pc_probe_event(p));
		return trace_handle_return(s);
	}
	if (p->retprobe)
		trace_seq_printf(s, "%s: (0x%lx <- 0x%lx)", pc_probe_event(p),
				 ip[1], ip[0]);
	else
		trace_seq_printf(s, "%s: (0x%lx)", pc_probe_event(p), ip[0]);
	for (i = 0; i < p->nargs; i++)
		pc_print_arg(s, &p->args[i], ent, iter->ent_size);
	trace_seq_putc(s, '\n');
	return trace_handle_return(s);
}

static struct trace_event_functions pc_event_funcs = {
	.trace = pc_event_print,
};

/* ftrace enabled the event in one more trace instance. */
static int pc_event_enable(struct pc_probe *p, struct trace_event_file *file)
{
	struct pc_event_link *link;
	struct pc_err err = {};
	int ret;

	link = kmalloc(sizeof(*link), GFP_KERNEL);
	if (!link)
		return -ENOMEM;
	ret = pc_consumer_get(p, NULL, &err);
	if (ret) {
		pc_report(p, &err);
		kfree(link);
		return ret;
	}
	link->file = file;
	list_add_tail_rcu(&link->list, &pc_ev(p)->files);
	return 0;
}

static void pc_event_disable(struct pc_probe *p, struct trace_event_file *file)
{
	struct pc_event_link *link;

	list_for_each_entry(link, &pc_ev(p)->files, list) {
		if (link->file != file)
			continue;
		list_del_rcu(&link->list);
		kfree_rcu(link, rcu);
		pc_consumer_put(p, NULL);
		return;
	}
}

#ifdef CONFIG_PERF_EVENTS
/* A perf event bound to a task wants the breakpoint in that task only. */
static struct perf_event *pc_task_event(struct perf_event *event)
{
	return event->hw.target ? event : NULL;
}

/*
 * Arming writes into other users' processes and denies writes to their
 * files: a perf user needs what a control writer needs, whatever
 * perf_event_paranoid allows for tracepoints. An inherited event is opened
 * by the forking task; its parent was checked.
 */
static int pc_event_perf_open(struct pc_probe *p, struct perf_event *event)
{
	struct pc_err err = {};
	int ret;

	if (!event->parent && !perfmon_capable())
		return -EACCES;
	ret = pc_consumer_get(p, pc_task_event(event), &err);
	if (ret)
		pc_report(p, &err);
	return ret;
}
#endif

/* Called by the tracing core with event_mutex held. */
static int pc_event_reg(struct trace_event_call *call, enum trace_reg type,
			void *data)
{
	struct pc_probe *p = call->data;

	switch (type) {
	case TRACE_REG_REGISTER:
		return pc_event_enable(p, data);
	case TRACE_REG_UNREGISTER:
		pc_event_disable(p, data);
		return 0;
#ifdef CONFIG_PERF_EVENTS
	case TRACE_REG_PERF_OPEN:
		return pc_event_perf_open(p, data);
	case TRACE_REG_PERF_CLOSE:
		pc_consumer_put(p, pc_task_event(data));
		return 0;
	case TRACE_REG_PERF_REGISTER:
	case TRACE_REG_PERF_UNREGISTER:
		WRITE_ONCE(pc_ev(p)->perf_on, type == TRACE_REG_PERF_REGISTER);
		return 0;
	case TRACE_REG_PERF_ADD:
	case TRACE_REG_PERF_DEL:
		return 0;
#endif
	}
	return 0;
}

static struct trace_event_fields pc_event_fields[] = {
	{ .type = TRACE_FUNCTION_TYPE, .define_fields = pc_event_define_fields },
	{}
};

/* In place: the event is the zeroed space after @p. */
int pc_event_create(struct pc_probe *p)
{
	struct pc_event *ev = pc_ev(p);
	struct trace_event_call *call = &ev->call;
	int len;

	INIT_LIST_HEAD(&ev->files);
	INIT_LIST_HEAD(&ev->class.fields);
	ev->class.system = pc_probe_group(p);
	ev->class.reg = pc_event_reg;
	ev->class.fields_array = pc_event_fields;
	ev->tp.name = pc_probe_event(p);
	call->class = &ev->class;
	call->tp = &ev->tp;
	call->flags = TRACE_EVENT_FL_TRACEPOINT | TRACE_EVENT_FL_DYNAMIC;
	call->event.funcs = &pc_event_funcs;
	call->data = p;
	len = pc_print_fmt(p, NULL, 0) + 1;
	call->print_fmt = kmalloc(len, GFP_KERNEL);
	if (!call->print_fmt)
		return -ENOMEM;
	pc_print_fmt(p, call->print_fmt, len);
	return 0;
}

void pc_event_free(struct pc_probe *p)
{
	WARN_ON(p->event_live);
	kfree(pc_ev(p)->call.print_fmt);
}

/* event_mutex held (ctl). */
static int pc_event_add_locked(struct pc_probe *p)
{
	struct trace_event_call *call = &pc_ev(p)->call;
	int ret;

	ret = pc_test_publish_fail();
	if (ret)
		return ret;
	if (!register_trace_event(&call->event))
		return -ENODEV;
	ret = trace_add_event_call(call);
	if (ret) {
		unregister_trace_event(&call->event);
		return ret;
	}
	p->event_live = true;
	return 0;
}

/*
 * event_mutex held (ctl). EBUSY while enabled or open in perf (the core's
 * check) or referenced (ours, as trace_uprobe's unregister does: the core
 * leaves it to the owner of a dynamic event). References are taken under
 * event_mutex and only while the event is listed, so none can come after.
 */
static int pc_event_remove_locked(struct pc_probe *p)
{
	struct trace_event_call *call = &pc_ev(p)->call;
	int ret;

	if (!p->event_live)
		return 0;
	if (atomic_read(&call->refcnt))
		return -EBUSY;
	ret = trace_remove_event_call(call);
	if (!ret)
		p->event_live = false;
	return ret;
}

/*
 * The operation the ctl event's reg callback runs, for the task that
 * submitted it and no other: a user enabling or disabling ctl (in an
 * instance being removed, instance_rmdir holds trace_types_lock, which
 * adding an event takes again) finds nothing to do. Only the owner reads
 * or writes the fields after owner.
 */
static struct pc_ctl_op {
	struct task_struct *owner;	/* set under pc_ctl_lock */
	bool add;			/* add or remove the events of */
	struct pc_batch *batch;		/* these (ent[].ret) */
	bool done;
	enum trace_reg ran_on;		/* the reg call that ran it */
} pc_ctl_op;

static DEFINE_MUTEX(pc_ctl_lock);

static void pc_ctl_run(struct pc_ctl_op *op)
{
	struct pc_batch *b = op->batch;
	unsigned int i;
	int ret = 0;

	/*
	 * A hit may still write to an ftrace file it read from an event's
	 * list before that file was disabled (preemptible RCU), and with the
	 * counter on the uprobe stays registered, so removal, which frees the
	 * files, waits for those readers first. Disables take event_mutex, as
	 * we hold it: none comes between this wait and the removal.
	 */
	if (!op->add)
		synchronize_rcu();
	/* In order, and none after a failure: lines apply in order. */
	for (i = 0; i < b->n; i++) {
		if (op->add)
			b->ent[i].ret = ret = ret ? -ECANCELED :
					  pc_event_add_locked(b->ent[i].p);
		else
			b->ent[i].ret = pc_event_remove_locked(b->ent[i].p);
	}
}

static int pc_ctl_reg(struct trace_event_call *call, enum trace_reg type,
		      void *data)
{
	struct pc_ctl_op *op = &pc_ctl_op;

	if (type != TRACE_REG_REGISTER && type != TRACE_REG_UNREGISTER)
		return 0;
	if (READ_ONCE(op->owner) != current || op->done)
		return 0;
	pc_ctl_run(op);
	op->done = true;
	op->ran_on = type;
	return 0;
}

static enum print_line_t pc_ctl_print(struct trace_iterator *iter, int flags,
				      struct trace_event *event)
{
	return TRACE_TYPE_HANDLED;
}

static struct trace_event_fields pc_ctl_fields[] = { {} };

static struct trace_event_functions pc_ctl_funcs = {
	.trace = pc_ctl_print,
};

static struct trace_event_class pc_ctl_class = {
	.system = "probecache",
	.reg = pc_ctl_reg,
	.fields_array = pc_ctl_fields,
	.fields = LIST_HEAD_INIT(pc_ctl_class.fields),
	.raw_init = trace_event_raw_init,
};

static struct trace_event_call pc_ctl_call = {
	.class = &pc_ctl_class,
	.name = "probecache_ctl",
	.event.funcs = &pc_ctl_funcs,
	.print_fmt = "\"\"",
};

/*
 * Enabling any event starts the recording of task names at every context
 * switch (options/record-cmd), and the first one registers that probe on
 * sched_switch: tens of ms, on every toggle of ctl if nothing else is
 * enabled. So a burst of operations holds a second event, "hold", enabled
 * and lets it go HZ/5 after the last one.
 */
static int pc_hold_reg(struct trace_event_call *call, enum trace_reg type,
		       void *data)
{
	return 0;
}

static struct trace_event_class pc_hold_class = {
	.system = "probecache",
	.reg = pc_hold_reg,
	.fields_array = pc_ctl_fields,
	.fields = LIST_HEAD_INIT(pc_hold_class.fields),
	.raw_init = trace_event_raw_init,
};

static struct trace_event_call pc_hold_call = {
	.class = &pc_hold_class,
	.name = "probecache_hold",
	.event.funcs = &pc_ctl_funcs,
	.print_fmt = "\"\"",
};

/* Registered by the module loader, like a TRACE_EVENT(). */
static struct trace_event_call __used __section("_ftrace_events")
	*pc_ctl_callp[] = { &pc_ctl_call, &pc_hold_call };

static bool pc_hold_on;		/* under pc_ctl_lock */

static void pc_hold_release(struct work_struct *work)
{
	mutex_lock(&pc_ctl_lock);
	if (pc_hold_on)
		trace_set_clr_event("probecache", "probecache_hold", 0);
	pc_hold_on = false;
	mutex_unlock(&pc_ctl_lock);
}

static DECLARE_DELAYED_WORK(pc_hold_work, pc_hold_release);

static void pc_hold(void)
{
	lockdep_assert_held(&pc_ctl_lock);
	if (!pc_hold_on)
		pc_hold_on = !trace_set_clr_event("probecache",
						  "probecache_hold", 1);
	mod_delayed_work(system_wq, &pc_hold_work, HZ / 5);
}

/*
 * Run @add or remove of @b's events under event_mutex. Of two opposite
 * toggles of ctl, one calls reg in this task whatever state a user left
 * ctl in; if that was the disable, the user had it enabled: give it back.
 * A trigger or eprobe on ctl keeps it registered (soft mode) and no toggle
 * calls reg: EBUSY.
 */
static int pc_event_op(bool add, struct pc_batch *b)
{
	struct pc_ctl_op *op = &pc_ctl_op;
	int ret;

	mutex_lock(&pc_ctl_lock);
	op->add = add;
	op->batch = b;
	op->done = false;
	WRITE_ONCE(op->owner, current);
	pc_hold();
	trace_set_clr_event("probecache", "probecache_ctl", 1);
	trace_set_clr_event("probecache", "probecache_ctl", 0);
	if (op->done && op->ran_on == TRACE_REG_UNREGISTER)
		trace_set_clr_event("probecache", "probecache_ctl", 1);
	WRITE_ONCE(op->owner, NULL);
	ret = op->done ? 0 : -EBUSY;
	mutex_unlock(&pc_ctl_lock);
	return ret;
}

/*
 * tracefs names every event events/GROUP/EVENT: one lookup there answers
 * "does GROUP/EVENT exist" where trace_get_event_file() walks the list of
 * all events, which made defining n probes O(n^2). Used when tracefs is
 * mounted whole at /sys/kernel/tracing in the writer's namespace (it is one
 * superblock wherever mounted); 1 = exists, 0 = not, -errno = cannot tell.
 * (vfs_path_lookup() would save the second walk: 6.1 does not declare it.)
 * A miss leaves no negative dentry that could hide the event we then add:
 * 6.1's tracefs_create_dir() reuses it, eventfs drops it at once.
 */
#define PC_TRACEFS_EVENTS	"/sys/kernel/tracing/events"

static int pc_event_lookup_tracefs(const char *group, const char *event)
{
	char name[sizeof(PC_TRACEFS_EVENTS "/") + 2 * PROBECACHE_NAME_MAX + 1];
	struct super_block *sb;
	struct path path;
	int ret;

	ret = kern_path(PC_TRACEFS_EVENTS, LOOKUP_FOLLOW, &path);
	if (ret)
		return ret;
	sb = path.dentry->d_sb;
	if (sb->s_magic != TRACEFS_MAGIC || path.mnt->mnt_root != sb->s_root ||
	    path.dentry->d_parent != sb->s_root)
		ret = -ENOENT;
	path_put(&path);
	if (ret)
		return -ENOENT;
	snprintf(name, sizeof(name), PC_TRACEFS_EVENTS "/%s/%s", group, event);
	ret = kern_path(name, 0, &path);
	if (ret)
		return ret == -ENOENT ? 0 : ret;
	ret = path.dentry->d_sb == sb ? 1 : -ENOENT;
	path_put(&path);
	return ret;
}

/* The core does not refuse a second GROUP/EVENT; we must. */
int pc_event_check_name(struct pc_probe *p, struct pc_err *err)
{
	struct trace_event_file *file;
	int ret;

	ret = pc_event_lookup_tracefs(pc_probe_group(p), pc_probe_event(p));
	if (ret < 0) {
		file = trace_get_event_file(NULL, pc_probe_group(p),
					    pc_probe_event(p));
		ret = !IS_ERR(file);
		if (ret)
			trace_put_event_file(file);
	}
	if (!ret)
		return 0;
	return pc_err_set(err, -EEXIST, "event",
			  "trace event %s/%s already exists (uprobe_events, kprobe_events or a module)",
			  pc_probe_group(p), pc_probe_event(p));
}

/* Add the events of @b in order; ent[].ret says which failed. */
int pc_event_register(struct pc_batch *b)
{
	return pc_event_op(true, b);
}

int pc_event_unregister(struct pc_batch *b)
{
	return pc_event_op(false, b);
}

static void pc_emit_ftrace(struct pc_event *ev, const u8 *rec,
			   unsigned int size)
{
	struct trace_event_buffer fbuffer;
	struct pc_event_link *link;
	u8 *entry;

	rcu_read_lock();
	list_for_each_entry_rcu(link, &ev->files, list) {
		if (trace_trigger_soft_disabled(link->file))
			continue;
		pc_test_hit_spin();
		entry = trace_event_buffer_reserve(&fbuffer, link->file,
						   PC_REC_BASE + size);
		if (!entry)
			continue;
		memcpy(entry + PC_REC_BASE, rec, size);
		trace_event_buffer_commit(&fbuffer);
	}
	rcu_read_unlock();
}

#ifdef CONFIG_PERF_EVENTS
static bool pc_perf_wanted(struct pc_event *ev)
{
	struct trace_event_call *call = &ev->call;

	if (!READ_ONCE(ev->perf_on))
		return false;
#ifdef CONFIG_BPF_EVENTS
	if (bpf_prog_array_valid(call))
		return true;
#endif
	return READ_ONCE(call->perf_events);
}

/* perf_trace_run_bpf_submit() runs BPF programs, then perf's buffers. */
static void pc_emit_perf(struct pc_event *ev, struct pt_regs *regs,
			 const u8 *rec, unsigned int size)
{
	struct trace_event_call *call = &ev->call;
	struct hlist_head __percpu *heads;
	struct hlist_head *head;
	int esize, rctx;
	u8 *entry;

	esize = ALIGN(PC_REC_BASE + size + sizeof(u32), sizeof(u64)) -
		sizeof(u32);
	preempt_disable();
	if (!READ_ONCE(ev->perf_on))
		goto out;
	heads = READ_ONCE(call->perf_events);
	if (!heads)
		goto out;
	head = this_cpu_ptr(heads);
	entry = perf_trace_buf_alloc(esize, NULL, &rctx);
	if (!entry)
		goto out;
	memcpy(entry + PC_REC_BASE, rec, size);
	memset(entry + PC_REC_BASE + size, 0, esize - PC_REC_BASE - size);
	perf_trace_run_bpf_submit(entry, esize, rctx, call, 1, regs, head,
				  NULL);
out:
	preempt_enable();
}
#else
static bool pc_perf_wanted(struct pc_event *ev)
{
	return false;
}

static void pc_emit_perf(struct pc_event *ev, struct pt_regs *regs,
			 const u8 *rec, unsigned int size)
{
}
#endif

static void pc_emit(struct pc_event *ev, struct pt_regs *regs, const u8 *rec,
		    unsigned int size, bool ftrace, bool perf)
{
	if (ftrace)
		pc_emit_ftrace(ev, rec, size);
	if (perf)
		pc_emit_perf(ev, regs, rec, size);
}

/* A record of registers and constants only is small: it goes on the stack. */
#define PC_STACK_RECORD	128

void pc_event_hit(struct pc_probe *p, struct pt_regs *regs,
		  unsigned long func, unsigned long ip)
{
	struct pc_event *ev = pc_ev(p);
	bool ftrace = !list_empty(&ev->files);
	bool perf = pc_perf_wanted(ev);
	struct pc_scratch *s;
	unsigned int size;
	u8 *buf;

	if (!ftrace && !perf)
		return;
	if (p->nofault && p->fixed_size <= PC_STACK_RECORD) {
		u64 rec[PC_STACK_RECORD / sizeof(u64)];

		size = pc_fetch_record(p, regs, func, ip, (u8 *)rec);
		pc_emit(ev, regs, (u8 *)rec, size, ftrace, perf);
		return;
	}
	/*
	 * The scratch's mutex, not preemption: fetching may sleep. A hit
	 * that finds it taken (its holder may be waiting for a page from a
	 * FUSE server or a userfaultfd) does not wait behind it.
	 */
	s = per_cpu_ptr(pc_scratch, raw_smp_processor_id());
	if (mutex_trylock(&s->lock)) {
		size = pc_fetch_record(p, regs, func, ip, s->rec);
		pc_emit(ev, regs, s->rec, size, ftrace, perf);
		mutex_unlock(&s->lock);
		return;
	}
	buf = kmalloc(PC_RECORD_MAX, GFP_KERNEL);
	if (!buf)
		return;
	size = pc_fetch_record(p, regs, func, ip, buf);
	pc_emit(ev, regs, buf, size, ftrace, perf);
	kfree(buf);
}

int pc_event_init(void)
{
	int cpu;

	pc_scratch = alloc_percpu(struct pc_scratch);
	if (!pc_scratch)
		return -ENOMEM;
	for_each_possible_cpu(cpu)
		mutex_init(&per_cpu_ptr(pc_scratch, cpu)->lock);
	return 0;
}

void pc_event_exit(void)
{
	cancel_delayed_work_sync(&pc_hold_work);
	pc_hold_release(NULL);
	free_percpu(pc_scratch);
}
