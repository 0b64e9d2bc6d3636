/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Record grammar parser (grammar: include/uapi/linux/probecache.h).
 * Plain C: built into probecache.ko and, unchanged, into host tests.
 */
#ifndef _PC_RECORD_H
#define _PC_RECORD_H

#include "pc_types.h"

/*
 * Machines whose register names the grammar knows. A record's registers are
 * indexes into its machine's table: enum pc_reg on x86-64, enum pc_a64_reg
 * on aarch64 (the names ftrace's uprobe_events uses on each).
 */
enum pc_mach { PC_MACH_X86_64, PC_MACH_AARCH64, PC_NR_MACHS };

/*
 * The machine of pc_parse_command(): the compiler's target, so the module's
 * own (its pt_regs) and, in user space, the host's.
 */
#ifdef __aarch64__
#define PC_MACH_NATIVE	PC_MACH_AARCH64
#else
#define PC_MACH_NATIVE	PC_MACH_X86_64
#endif

/* x86-64: %ax .. %r15, %ip */
enum pc_reg {
	PC_REG_AX, PC_REG_BX, PC_REG_CX, PC_REG_DX, PC_REG_SI, PC_REG_DI,
	PC_REG_BP, PC_REG_SP, PC_REG_R8, PC_REG_R9, PC_REG_R10, PC_REG_R11,
	PC_REG_R12, PC_REG_R13, PC_REG_R14, PC_REG_R15, PC_REG_IP,
	PC_NR_REGS
};

/* aarch64: %x0 .. %x30, %sp, %pc */
enum pc_a64_reg {
	PC_A64_X0 = 0, PC_A64_X29 = 29, PC_A64_X30 = 30, PC_A64_SP, PC_A64_PC,
	PC_A64_NR_REGS
};

/* SIB base of "+16(,%ax,8)": no base register, the address is index * scale + 16. */
#define PC_REG_NONE	0xff

/*
 * What the innermost part of a FETCHARG yields, before any dereference.
 * The value is then dereferenced nderef times, innermost first:
 *   v = base; for (i = 0; i < nderef; i++) v = *(u64 *)(v + deref[i]);
 * and the last load is done with the width of the arg's type.
 */
enum pc_base_kind {
	PC_BASE_REG,		/* %di          -> regs->di */
	PC_BASE_IMM,		/* \42          -> 42 */
	PC_BASE_RETVAL,		/* $retval      -> regs_return_value() */
	PC_BASE_SIB,		/* +8(%ax,%bx,4) -> ax + bx*4, then deref[0] = 8 */
	PC_BASE_FILEOFF,	/* @+0x1234     -> runtime address of file offset, deref[0] = 0 */
};

enum pc_type {
	PC_T_U8, PC_T_U16, PC_T_U32, PC_T_U64,
	PC_T_S8, PC_T_S16, PC_T_S32, PC_T_S64,
	PC_T_X8, PC_T_X16, PC_T_X32, PC_T_X64,
	PC_T_STRING,
};

struct pc_arg {
	char name[PROBECACHE_ARG_NAME_MAX + 1];
	enum pc_base_kind kind;
	union {
		u8 reg;				/* PC_BASE_REG */
		s64 imm;			/* PC_BASE_IMM */
		struct { u8 base, index, scale; } sib;	/* PC_BASE_SIB */
		u64 fileoff;			/* PC_BASE_FILEOFF */
	};
	u8 nderef;
	s64 deref[PROBECACHE_MAX_DEREF];
	enum pc_type type;
};

struct pc_record {
	u8 mach;		/* enum pc_mach: whose register names args use */
	bool retprobe;
	char group[PROBECACHE_NAME_MAX + 1];
	char event[PROBECACHE_NAME_MAX + 1];
	u8 build_id[PROBECACHE_BUILD_ID_MAX];
	u8 build_id_len;
	const char *path;	/* points into the parsed line, not NUL-terminated */
	size_t path_len;
	u64 offset;
	u64 ref_ctr_offset;	/* 0: no semaphore */
	s32 pid;		/* 0: every process */
	u8 nargs;
	struct pc_arg args[PROBECACHE_MAX_ARGS];
};

/* Where and why a line was rejected; column is 1-based, into the line. */
struct pc_parse_error {
	unsigned int column;
	const char *field;	/* "event", "build-id", "path", "offset", "arg2", ... */
	const char *why;	/* static string */
};

/*
 * Command parsed from one control line (without its newline).
 */
enum pc_cmd {
	PC_CMD_ADD, PC_CMD_DEL, PC_CMD_CLEAR, PC_CMD_COUNT, PC_CMD_NOCOUNT,
	PC_CMD_SITE, PC_CMD_UNSITE,
};

struct pc_command {
	enum pc_cmd cmd;
	struct pc_record rec;		/* PC_CMD_ADD; SITE: path only */
	char group[PROBECACHE_NAME_MAX + 1];	/* DEL, COUNT, NOCOUNT, SITE, UNSITE */
	char event[PROBECACHE_NAME_MAX + 1];
	u32 dev_major, dev_minor;	/* UNSITE: the site's inode */
	u64 ino;
};

/*
 * Parse one line of @len bytes (no NUL needed; embedded NULs are rejected).
 * @max_args caps the number of args (module parameter). Returns 0 or
 * -EINVAL / -E2BIG / -ENAMETOOLONG with @err filled in.
 * The full grammar, limits and column rules are in the comment above
 * pc_parse_command() in record.c. On success @err is zeroed; on failure
 * @cmd is partially filled and must not be used. rec.path points into @line.
 * Register names are those of PC_MACH_NATIVE.
 */
int pc_parse_command(const char *line, size_t len, unsigned int max_args,
		     struct pc_command *cmd, struct pc_parse_error *err);

/*
 * The same with the register names of @mach (a host reading records made
 * for another machine); -EINVAL if @mach is not an enum pc_mach.
 */
int pc_parse_command_mach(const char *line, size_t len, enum pc_mach mach,
			  unsigned int max_args, struct pc_command *cmd,
			  struct pc_parse_error *err);

/* enum pc_mach of ELF machine @e_machine (EM_X86_64, EM_AARCH64); -1 if none. */
int pc_mach_of_elf(unsigned int e_machine);

/*
 * Format @rec's args back into record syntax ("a=%di:s32 b=+8(%sp):u64"),
 * space-separated, every arg with its type, numbers canonical (offsets and
 * immediates decimal, @+ file offsets 0x hex). Returns the length without
 * the NUL, -ENOSPC if @size is too small (@buf then holds a NUL-terminated
 * prefix), -EINVAL if an arg is inconsistent (bad kind/reg/type/nderef, or
 * rec->mach unknown). Register names are those of rec->mach.
 */
int pc_format_args(const struct pc_record *rec, char *buf, size_t size);

/* Names without '%' ("di", "r12", "x0"); NULL for values outside the enums. */
const char *pc_type_name(enum pc_type t);
const char *pc_reg_name(enum pc_mach m, unsigned int r);
unsigned int pc_nr_regs(enum pc_mach m);	/* 0 for an unknown machine */
unsigned int pc_type_size(enum pc_type t);	/* bytes; 0 for string */

#endif /* _PC_RECORD_H */
