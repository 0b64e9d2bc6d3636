/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module's machine: the ELF files it accepts and where in pt_regs each
 * register of the record grammar (record.h, ftrace's names) lives. One
 * section per architecture; record.c parses with PC_MACH_NATIVE, which the
 * compiler's target decides the same way.
 */
#ifndef _PC_REGS_H
#define _PC_REGS_H

#include <linux/build_bug.h>
#include <linux/elf.h>
#include <linux/ptrace.h>
#include <linux/stddef.h>

#include "record.h"

#if defined(CONFIG_X86_64)

#define PC_ELF_MACHINE		EM_X86_64
#define PC_REGS_MACH		PC_MACH_X86_64

#define PC_REG_OFFSETS {						\
	[PC_REG_AX] = offsetof(struct pt_regs, ax),			\
	[PC_REG_BX] = offsetof(struct pt_regs, bx),			\
	[PC_REG_CX] = offsetof(struct pt_regs, cx),			\
	[PC_REG_DX] = offsetof(struct pt_regs, dx),			\
	[PC_REG_SI] = offsetof(struct pt_regs, si),			\
	[PC_REG_DI] = offsetof(struct pt_regs, di),			\
	[PC_REG_BP] = offsetof(struct pt_regs, bp),			\
	[PC_REG_SP] = offsetof(struct pt_regs, sp),			\
	[PC_REG_R8] = offsetof(struct pt_regs, r8),			\
	[PC_REG_R9] = offsetof(struct pt_regs, r9),			\
	[PC_REG_R10] = offsetof(struct pt_regs, r10),			\
	[PC_REG_R11] = offsetof(struct pt_regs, r11),			\
	[PC_REG_R12] = offsetof(struct pt_regs, r12),			\
	[PC_REG_R13] = offsetof(struct pt_regs, r13),			\
	[PC_REG_R14] = offsetof(struct pt_regs, r14),			\
	[PC_REG_R15] = offsetof(struct pt_regs, r15),			\
	[PC_REG_IP] = offsetof(struct pt_regs, ip),			\
}
#define PC_REGS_NR		PC_NR_REGS

#elif defined(CONFIG_ARM64)

#define PC_ELF_MACHINE		EM_AARCH64
#define PC_REGS_MACH		PC_MACH_AARCH64

/* x0..x30 (PC_A64_X0 + n, in order) are pt_regs.regs[n], as in regoffset_table. */
#define PC_A64_X(n)	offsetof(struct pt_regs, regs[n])
#define PC_REG_OFFSETS {						\
	PC_A64_X(0), PC_A64_X(1), PC_A64_X(2), PC_A64_X(3),		\
	PC_A64_X(4), PC_A64_X(5), PC_A64_X(6), PC_A64_X(7),		\
	PC_A64_X(8), PC_A64_X(9), PC_A64_X(10), PC_A64_X(11),		\
	PC_A64_X(12), PC_A64_X(13), PC_A64_X(14), PC_A64_X(15),		\
	PC_A64_X(16), PC_A64_X(17), PC_A64_X(18), PC_A64_X(19),		\
	PC_A64_X(20), PC_A64_X(21), PC_A64_X(22), PC_A64_X(23),		\
	PC_A64_X(24), PC_A64_X(25), PC_A64_X(26), PC_A64_X(27),		\
	PC_A64_X(28), PC_A64_X(29), PC_A64_X(30),			\
	[PC_A64_SP] = offsetof(struct pt_regs, sp),			\
	[PC_A64_PC] = offsetof(struct pt_regs, pc),			\
}
#define PC_REGS_NR		PC_A64_NR_REGS

#else
#error "probecache: no register table for this architecture (kmod/regs.h)"
#endif

/*
 * Register @reg (an index into PC_REGS_MACH's names) of the probed task.
 * PC_REG_NONE, the missing base of "+OFF(,%I,S)", reads as 0.
 */
static inline u64 pc_reg(struct pt_regs *regs, u8 reg)
{
	static const unsigned short offs[PC_REGS_NR] = PC_REG_OFFSETS;

	BUILD_BUG_ON(PC_REGS_MACH != PC_MACH_NATIVE);
	if (reg >= ARRAY_SIZE(offs))
		return 0;
	return regs_get_register(regs, offs[reg]);
}

#endif /* _PC_REGS_H */
