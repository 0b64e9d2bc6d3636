/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SDT argument specs ("[-]SIZE@OPERAND"): parsing and translation.
 *
 * Pure C (no libelf): the operand text comes from an untrusted ELF note, so
 * everything here is bounds-checked and fuzzed (tests/fuzz/fuzz_argspec.c).
 * Symbol lookup and address translation are supplied by the caller through
 * struct pc_argctx, which keeps this file testable with fake binaries.
 *
 * Two outputs per argument:
 *  - RECORD syntax (include/uapi/linux/probecache.h), every form we can
 *    express exactly: registers %ax..%r15, \IMM, +OFF(%REG), +OFF(%B,%I,S),
 *    rip-relative and absolute symbol operands as @+FILEOFF.
 *  - perf syntax: what perf 6.1's synthesize_sdt_probe_command() writes into
 *    uprobe_events for the whole argument string, quirks included, so that
 *    `list --format=uprobe` can be compared line by line with `perf probe -D`.
 */
#ifndef _PC_ARGSPEC_H
#define _PC_ARGSPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PC_ARGSPEC_SYM_MAX	127	/* longest symbol name kept from an operand */

/* Machines the parser knows (values are ELF e_machine numbers). */
#define PC_ARGSPEC_X86_64	62	/* EM_X86_64 */
#define PC_ARGSPEC_I386		3	/* EM_386: same AT&T syntax, 32-bit registers */
#define PC_ARGSPEC_AARCH64	183	/* EM_AARCH64 */

enum pc_argspec_kind {
	PC_AS_REG,	/* %reg / xN */
	PC_AS_MEM,	/* disp(%base,%index,scale) / [xN, off] / sym(%rip) / sym */
	PC_AS_IMM,	/* $imm / #imm / imm */
};

/* Register numbers: x86 uses the order of the ftrace names below, aarch64 0..30 = xN, 31 = sp. */
#define PC_AS_NOREG	0xff
#define PC_AS_X86_IP	16	/* %rip / %eip: only as a memory base */

struct pc_argspec {
	uint16_t machine;
	int size;		/* -8..8 as written; 0 when the spec had no "N@" */
	enum pc_argspec_kind kind;
	uint8_t reg;		/* PC_AS_REG */
	uint8_t regbytes;	/* width of the register as written: 1, 2, 4, 8 */
	bool hi8;		/* %ah %bh %ch %dh: bits 8..15 */
	int64_t disp;		/* PC_AS_MEM: numeric part of the displacement */
	char sym[PC_ARGSPEC_SYM_MAX + 1];	/* PC_AS_MEM: symbol part, "" if none */
	uint8_t base, index;	/* PC_AS_MEM: PC_AS_NOREG if absent */
	uint8_t scale;		/* 1, 2, 4, 8 (1 when no index) */
	int64_t imm;		/* PC_AS_IMM */
};

/*
 * Parse one arg spec (no surrounding blanks) for @machine. 0, or -EINVAL /
 * -EOPNOTSUPP with @why set to a static explanation.
 */
int pc_argspec_parse(const char *spec, uint16_t machine, struct pc_argspec *a,
		     const char **why);

/* What translation needs to know about the binary. */
struct pc_argctx {
	/* Value (link-time address) of symbol @name: 0, -ENOENT, -EEXIST (ambiguous). */
	int (*sym_value)(void *priv, const char *name, uint64_t *value);
	/* File offset that link-time address @vaddr loads from (memsz counts, for .bss). */
	int (*vaddr_to_off)(void *priv, uint64_t vaddr, uint64_t *off);
	void *priv;
	bool fixed;		/* ET_EXEC: link-time addresses are runtime addresses */
	unsigned int wordsize;	/* 4 or 8: the type of a size-less operand */
};

/*
 * Write @a as one record FETCHARG with type ("%di:s32", "@+0x1c40:u64") to
 * @buf. aarch64 operands use the aarch64 register names (%x0, +8(%sp)): they
 * parse and list, and the x86-64 module refuses them. 0, -ENOSPC, or
 * -ENOENT / -EEXIST / -EOPNOTSUPP / -ERANGE with @why set.
 */
int pc_argspec_record(const struct pc_argspec *a, const struct pc_argctx *ctx,
		      char *buf, size_t len, const char **why);

/* Record type for @a ("u8".."s64"). */
const char *pc_argspec_type(const struct pc_argspec *a, unsigned int wordsize);

/*
 * Split a note's argument string the way we read it: on blanks, except
 * inside [...] (aarch64 "[sp, 8]"). Calls @fn(spec, idx, priv) for each,
 * idx from 0, with @spec NUL-terminated in a scratch buffer. Stops at and
 * returns the first non-zero return of @fn; -E2BIG if a spec is too long.
 */
int pc_argspec_split(const char *argstr,
		     int (*fn)(const char *spec, unsigned int idx, void *priv),
		     void *priv);

/*
 * The uprobe_events argument list perf 6.1 writes for the note argument
 * string @argstr on @machine (as perf on a host of that machine would):
 * " arg1=%di:u64 arg3=+8(%bx):s32" (leading blank per arg, "" if none).
 * Perf's quirks are kept on purpose: high-byte registers read as the full
 * register, "N(%rip)" kept as written, args it cannot parse dropped but
 * still counted in the numbering, arm64 args split on blanks except "[sp,".
 * Returns 0; -EINVAL where perf would fail the note (size outside -8..8),
 * -ENOSPC if @len is too small.
 */
int pc_argspec_perf(const char *argstr, uint16_t machine, char *buf, size_t len);

#endif /* _PC_ARGSPEC_H */
