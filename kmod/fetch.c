// SPDX-License-Identifier: GPL-2.0
/*
 * A probe's trace event record and how a hit fills it: after the common
 * trace_entry come the probe address (p:) or function and return address
 * (r:), then each arg's raw value at its natural alignment, then the
 * strings the __data_loc fields point to. Nothing is formatted here.
 *
 * uprobe handlers run in the probed task and may sleep, so user memory is
 * read with faulting copies, as trace_uprobe does: a value in a page not yet
 * resident is fetched, not reported as a fault.
 */
#include <linux/ptrace.h>
#include <linux/trace_events.h>
#include <linux/uaccess.h>

#include "pc.h"
#include "regs.h"

/*
 * Offsets are from the end of trace_entry; a string's field is its u32 loc.
 * The largest fixed part, with a byte for each string's NUL, always fits.
 */
void pc_fetch_layout(struct pc_probe *p)
{
	unsigned int i, size, off, strings = 0;

	BUILD_BUG_ON((2 + PROBECACHE_MAX_ARGS) * sizeof(u64) +
		     PROBECACHE_MAX_ARGS > PC_RECORD_MAX);
	off = (p->retprobe ? 2 : 1) * sizeof(unsigned long);
	for (i = 0; i < p->nargs; i++) {
		size = pc_type_size(p->args[i].arg.type);
		if (!size)
			size = sizeof(u32);
		off = ALIGN(off, size);
		p->args[i].off = off;
		off += size;
	}
	p->fixed_size = off;
	p->nofault = true;
	for (i = p->nargs; i-- > 0; ) {
		p->args[i].strings_after = strings;
		if (p->args[i].arg.type == PC_T_STRING)
			strings++;
		if (p->args[i].arg.nderef || p->args[i].arg.type == PC_T_STRING)
			p->nofault = false;
	}
}

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

/*
 * Copy the string at @addr to @rec + *@dyn and point the field at it
 * (length in the high 16 bits, offset from the record start in the low
 * ones); length 0 marks a fault, as trace_probe does. @keep bytes stay for
 * the NULs of the strings after it, so one the record has no room left for
 * is cut, to "" at worst: never shown as a fault it was not.
 */
static void pc_fetch_str(u64 addr, unsigned int keep, u8 *rec,
			 unsigned int *dyn, u32 *loc)
{
	unsigned int room = min_t(unsigned int, PC_RECORD_MAX - *dyn - keep,
				  PROBECACHE_STRING_MAX + 1);
	long n = 0;

	if (room > 1)
		n = strncpy_from_user((char *)rec + *dyn,
				      (const char __user *)(uintptr_t)addr,
				      room - 1);
	if (n < 0) {
		*loc = (sizeof(struct trace_entry) + *dyn) & 0xffff;
		return;
	}
	rec[*dyn + n] = '\0';
	*loc = (u32)(n + 1) << 16 | ((sizeof(struct trace_entry) + *dyn) & 0xffff);
	*dyn += n + 1;
}

static void pc_fetch_one(const struct pc_fetch_arg *fa, struct pt_regs *regs,
			 unsigned long bp_vaddr, u8 *rec, unsigned int *dyn)
{
	const struct pc_arg *a = &fa->arg;
	u64 v = 0, addr = pc_base(fa, regs, bp_vaddr);
	int ret = pc_walk(a, &addr);
	u32 loc;

	if (a->type == PC_T_STRING) {
		if (ret < 0)
			loc = (sizeof(struct trace_entry) + *dyn) & 0xffff;
		else
			pc_fetch_str(addr, fa->strings_after, rec, dyn, &loc);
		memcpy(rec + fa->off, &loc, sizeof(loc));
		return;
	}
	if (ret == 1)
		v = addr;
	else if (ret < 0 || pc_load(addr, &v, pc_type_size(a->type)))
		v = 0;
	/* Little-endian: the low bytes of @v are the value at its width. */
	memcpy(rec + fa->off, &v, pc_type_size(a->type));
}

/* Fill @rec (the record after trace_entry); returns its size. */
unsigned int pc_fetch_record(const struct pc_probe *p, struct pt_regs *regs,
			     unsigned long func, unsigned long ip, u8 *rec)
{
	unsigned long *w = (unsigned long *)rec;
	unsigned int i, dyn = p->fixed_size;

	memset(rec, 0, p->fixed_size);
	w[0] = p->retprobe ? func : ip;
	if (p->retprobe)
		w[1] = ip;
	for (i = 0; i < p->nargs; i++)
		pc_fetch_one(&p->args[i], regs, p->retprobe ? func : ip, rec,
			     &dyn);
	return dyn;
}
