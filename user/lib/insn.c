// SPDX-License-Identifier: GPL-2.0
/*
 * Instruction boundaries, proven with a real disassembler (capstone): a
 * func+OFF probe that lands inside an instruction would make the uprobe
 * core decode garbage, and the traced program crash or compute wrong
 * values. Linear sweep from the function's entry: compilers put jump
 * tables in .rodata on the machines we handle, so the sweep stays in step.
 */
#include <errno.h>
#include <elf.h>
#include <stdio.h>
#include <capstone/capstone.h>

#include "pc.h"

static int insn_mode(uint16_t machine, bool is64, cs_arch *arch, cs_mode *mode)
{
	if (machine == EM_X86_64 || machine == EM_386) {
		*arch = CS_ARCH_X86;
		*mode = is64 ? CS_MODE_64 : CS_MODE_32;
		return 0;
	}
	if (machine == EM_AARCH64) {
		*arch = CS_ARCH_ARM64;
		*mode = CS_MODE_ARM;
		return 0;
	}
	return -ENOTSUP;
}

int pc_insn_boundary(uint16_t machine, bool is64, const uint8_t *code, size_t len,
		     uint64_t entry, uint64_t addr, struct pc_insn *at)
{
	const uint8_t *p = code;
	uint64_t pc = entry;
	size_t left = len;
	cs_insn *insn;
	cs_arch arch;
	cs_mode mode;
	csh h;
	int ret;

	ret = insn_mode(machine, is64, &arch, &mode);
	if (ret)
		return ret;
	if (addr < entry || addr - entry >= len)
		return -ERANGE;
	if (cs_open(arch, mode, &h) != CS_ERR_OK)
		return -ENOMEM;
	insn = cs_malloc(h);
	ret = insn ? -EILSEQ : -ENOMEM;
	while (insn && pc <= addr && cs_disasm_iter(h, &p, &left, &pc, insn)) {
		if (insn->address == addr) {
			ret = 0;
			break;
		}
		if (insn->address + insn->size > addr) {
			at->addr = insn->address;
			at->size = insn->size;
			snprintf(at->text, sizeof(at->text), "%s %s", insn->mnemonic, insn->op_str);
			ret = -EINVAL;
			break;
		}
	}
	if (insn)
		cs_free(insn, 1);
	cs_close(&h);
	return ret;
}
