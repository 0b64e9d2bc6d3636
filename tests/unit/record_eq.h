/* SPDX-License-Identifier: GPL-2.0 */
/* Test helper shared by test_record and fuzz_record: equality of parsed args. */
#ifndef _PC_RECORD_EQ_H
#define _PC_RECORD_EQ_H

#include <stdbool.h>
#include <string.h>

#include "record.h"

/* Field-wise, so that padding and unused union bytes do not matter. */
static bool arg_eq(const struct pc_arg *a, const struct pc_arg *b)
{
	unsigned int i;

	if (strcmp(a->name, b->name) || a->kind != b->kind || a->type != b->type ||
	    a->nderef != b->nderef)
		return false;
	for (i = 0; i < a->nderef; i++)
		if (a->deref[i] != b->deref[i])
			return false;
	switch (a->kind) {
	case PC_BASE_REG:
		return a->reg == b->reg;
	case PC_BASE_IMM:
		return a->imm == b->imm;
	case PC_BASE_SIB:
		return a->sib.base == b->sib.base && a->sib.index == b->sib.index &&
		       a->sib.scale == b->sib.scale;
	case PC_BASE_FILEOFF:
		return a->fileoff == b->fileoff;
	case PC_BASE_RETVAL:
		return true;
	}
	return false;
}

#endif
