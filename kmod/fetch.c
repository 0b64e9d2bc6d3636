// SPDX-License-Identifier: GPL-2.0
/*
 * Argument fetching for probecache:probecache_hit. Runs in the hit handler,
 * and only while the tracepoint is enabled (the caller checks). uprobe
 * handlers run in the probed task and may sleep, so user memory is read with
 * faulting copies, as trace_uprobe does: a value in a page not yet resident is
 * fetched, not reported as a fault. The per-cpu scratch is taken under its
 * mutex (a sleeping fetch may migrate), no allocation on the hit path.
 */
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <linux/uaccess.h>

#include "pc.h"
#include "regs.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

#define PC_TEXT_MAX	2048

struct pc_scratch {
	struct mutex lock;
	u64 vals[PROBECACHE_MAX_ARGS];
	char str[PROBECACHE_STRING_MAX + 1];
	char text[PC_TEXT_MAX];
};

static struct pc_scratch __percpu *pc_scratch;

static u64 pc_base(const struct pc_fetch_arg *fa, struct pt_regs *regs,
		   unsigned long bp_vaddr)
{
	const struct pc_arg *a = &fa->arg;

	switch (a->kind) {
	case PC_BASE_REG:
		return pc_reg(regs, a->reg);
	case PC_BASE_IMM:
		return (u64)a->imm;
	case PC_BASE_RETVAL:
		return regs_return_value(regs);
	case PC_BASE_SIB:
		return pc_reg(regs, a->sib.base) +
		       pc_reg(regs, a->sib.index) * a->sib.scale;
	case PC_BASE_FILEOFF:
		/* Both ends translated through the PT_LOAD table at add time. */
		return bp_vaddr + fa->delta;
	}
	return 0;
}

/* Narrow @v to @t's width, sign-extending the s* types. */
static u64 pc_narrow(u64 v, enum pc_type t)
{
	unsigned int bits = pc_type_size(t) * 8;

	if (!bits || bits == 64)
		return v;
	v &= (1ULL << bits) - 1;
	if (t >= PC_T_S8 && t <= PC_T_S64 && (v >> (bits - 1)))
		v |= ~0ULL << bits;
	return v;
}

static int pc_load(u64 addr, void *dst, size_t len)
{
	return copy_from_user(dst, (const void __user *)(uintptr_t)addr, len) ?
	       -EFAULT : 0;
}

/*
 * Walk the deref chain; *@addr is where the final load (of the arg's type)
 * reads. Returns 1 if there is no load at all (the value is *@addr).
 */
static int pc_walk(const struct pc_arg *a, u64 *addr)
{
	u64 v = *addr;
	unsigned int i;

	if (!a->nderef)
		return 1;
	for (i = 0; i + 1 < a->nderef; i++)
		if (pc_load(v + a->deref[i], &v, sizeof(v)))
			return -EFAULT;
	*addr = v + a->deref[a->nderef - 1];
	return 0;
}

/* Bytes that would break the quoted "..." in the text become '.'. */
static int pc_fetch_str(u64 addr, char *str)
{
	unsigned char c;
	long n;
	int i;

	n = strncpy_from_user(str, (const char __user *)(uintptr_t)addr,
			      PROBECACHE_STRING_MAX);
	if (n < 0)
		return -EFAULT;
	str[n] = '\0';
	for (i = 0; i < n; i++) {
		/* unsigned: the answer must not depend on -funsigned-char */
		c = str[i];
		if (c < 0x20 || c == '"' || c >= 0x7f)
			str[i] = '.';
	}
	return 0;
}

static int pc_fetch_one(const struct pc_fetch_arg *fa, struct pt_regs *regs,
			unsigned long bp_vaddr, u64 *val, char *str)
{
	const struct pc_arg *a = &fa->arg;
	u64 v = 0, addr = pc_base(fa, regs, bp_vaddr);
	int ret = pc_walk(a, &addr);

	if (ret < 0)
		return ret;
	*val = addr;
	if (a->type == PC_T_STRING)
		return pc_fetch_str(addr, str);
	if (ret == 0 && pc_load(addr, &v, pc_type_size(a->type)))
		return -EFAULT;
	*val = pc_narrow(ret ? addr : v, a->type);
	return 0;
}

static int pc_format_one(char *buf, size_t size, const struct pc_arg *a,
			 u64 v, const char *str, int fetched)
{
	if (fetched)
		return scnprintf(buf, size, " %s=(fault)", a->name);
	if (a->type == PC_T_STRING)
		return scnprintf(buf, size, " %s=\"%s\"", a->name, str);
	if (a->type >= PC_T_X8 && a->type <= PC_T_X64)
		return scnprintf(buf, size, " %s=0x%llx", a->name, v);
	if (a->type >= PC_T_S8 && a->type <= PC_T_S64)
		return scnprintf(buf, size, " %s=%lld", a->name, (s64)v);
	return scnprintf(buf, size, " %s=%llu", a->name, v);
}

void pc_fetch_emit(const struct pc_probe *p, struct pt_regs *regs,
		   unsigned long bp_vaddr)
{
	struct pc_scratch *s;
	unsigned int i;
	size_t len = 0;
	int ret;

	s = per_cpu_ptr(pc_scratch, raw_smp_processor_id());
	mutex_lock(&s->lock);
	s->text[0] = '\0';
	for (i = 0; i < p->nargs; i++) {
		s->vals[i] = 0;
		ret = pc_fetch_one(&p->args[i], regs, bp_vaddr, &s->vals[i],
				   s->str);
		len += pc_format_one(s->text + len, sizeof(s->text) - len,
				     &p->args[i].arg, s->vals[i], s->str, ret);
	}
	trace_probecache_hit(p->name, bp_vaddr, p->nargs, s->vals,
		  len ? s->text + 1 : s->text);
	mutex_unlock(&s->lock);
}

int pc_fetch_init(void)
{
	int cpu;

	pc_scratch = alloc_percpu(struct pc_scratch);
	if (!pc_scratch)
		return -ENOMEM;
	for_each_possible_cpu(cpu)
		mutex_init(&per_cpu_ptr(pc_scratch, cpu)->lock);
	return 0;
}

void pc_fetch_exit(void)
{
	free_percpu(pc_scratch);
}
