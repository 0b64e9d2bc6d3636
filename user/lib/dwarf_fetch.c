// SPDX-License-Identifier: GPL-2.0
/*
 * Where a variable lives at an address, as a fetch (struct fetch): its DWARF
 * location expression, the fields walked from it and the type suffix.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <elfutils/libdw.h>

#include "dwarf_int.h"

const char *const x86_regs[16] = {
	"%ax", "%dx", "%cx", "%bx", "%si", "%di", "%bp", "%sp",
	"%r8", "%r9", "%r10", "%r11", "%r12", "%r13", "%r14", "%r15",
};

static const char *op_name(unsigned int atom)
{
	static char buf[32];

	switch (atom) {
	case DW_OP_entry_value: case DW_OP_GNU_entry_value: return "DW_OP_entry_value";
	case DW_OP_piece: return "DW_OP_piece";
	case DW_OP_bit_piece: return "DW_OP_bit_piece";
	case DW_OP_implicit_pointer: case DW_OP_GNU_implicit_pointer:
		return "DW_OP_implicit_pointer";
	case DW_OP_stack_value: return "DW_OP_stack_value";
	case DW_OP_addr: return "DW_OP_addr";
	case DW_OP_deref: return "DW_OP_deref";
	case DW_OP_plus_uconst: return "DW_OP_plus_uconst";
	case DW_OP_plus: return "DW_OP_plus";
	case DW_OP_minus: return "DW_OP_minus";
	case DW_OP_and: return "DW_OP_and";
	case DW_OP_convert: case DW_OP_GNU_convert: return "DW_OP_convert";
	case DW_OP_regval_type: case DW_OP_GNU_regval_type: return "DW_OP_regval_type";
	case DW_OP_call_frame_cfa: return "DW_OP_call_frame_cfa";
	case DW_OP_GNU_parameter_ref: return "DW_OP_GNU_parameter_ref";
	case DW_OP_GNU_variable_value: return "DW_OP_GNU_variable_value";
	case DW_OP_fbreg: return "DW_OP_fbreg";
	case DW_OP_mul: return "DW_OP_mul";
	case DW_OP_neg: return "DW_OP_neg";
	case DW_OP_not: return "DW_OP_not";
	case DW_OP_or: return "DW_OP_or";
	case DW_OP_xor: return "DW_OP_xor";
	case DW_OP_shl: return "DW_OP_shl";
	case DW_OP_shr: return "DW_OP_shr";
	case DW_OP_shra: return "DW_OP_shra";
	case DW_OP_div: return "DW_OP_div";
	case DW_OP_mod: return "DW_OP_mod";
	case DW_OP_implicit_value: return "DW_OP_implicit_value";
	case DW_OP_deref_size: return "DW_OP_deref_size";
	case DW_OP_lit0 ... DW_OP_lit31: return "DW_OP_lit";
	case DW_OP_constu: case DW_OP_consts: return "DW_OP_const";
	}
	if (atom >= DW_OP_breg0 && atom <= DW_OP_breg31)
		snprintf(buf, sizeof(buf), "DW_OP_breg%u", atom - DW_OP_breg0);
	else if (atom >= DW_OP_reg0 && atom <= DW_OP_reg31)
		snprintf(buf, sizeof(buf), "DW_OP_reg%u", atom - DW_OP_reg0);
	else
		snprintf(buf, sizeof(buf), "DW_OP 0x%x", atom);
	return buf;
}

/* "DW_OP_breg3 0; DW_OP_breg0 0; DW_OP_plus; DW_OP_stack_value" */
static const char *expr_str(const Dwarf_Op *ops, size_t n, char *buf, size_t len)
{
	size_t k = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && k < len; i++) {
		unsigned int a = ops[i].atom;
		bool arg = (a >= DW_OP_breg0 && a <= DW_OP_breg31) || a == DW_OP_fbreg ||
			   a == DW_OP_plus_uconst;

		k += snprintf(buf + k, len - k, "%s%s", i ? "; " : "", op_name(a));
		if (arg && k < len)
			k += snprintf(buf + k, len - k, " %" PRId64, (int64_t)ops[i].number);
	}
	return buf;
}

static const char *reg_name(unsigned int regno)
{
	return regno < 16 ? x86_regs[regno] : NULL;
}

/* ---- locations ---- */

int dw_whyf(struct why *w, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->msg, sizeof(w->msg), fmt, ap);
	va_end(ap);
	return ret;
}

/* Frame base of @sp at @addr as "register + constant". */
static int frame_base(struct dw_ctx *c, Dwarf_Die *sp, Dwarf_Addr addr, unsigned int *reg,
		      long *off, struct why *w)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;
	Dwarf_Frame *frame = NULL;
	int ret = 0;

	if (!dwarf_attr(sp, DW_AT_frame_base, &a) ||
	    dwarf_getlocation_addr(&a, addr, &ops, &n, 1) <= 0 || !n)
		return dw_whyf(w, -ENOENT, "%s has no frame base at 0x%" PRIx64,
			       dwarf_diename(sp), addr);
	if (n == 1 && ops[0].atom == DW_OP_call_frame_cfa) {
		if ((!c->cfi_eh || dwarf_cfi_addrframe(c->cfi_eh, addr + c->bias - c->eh_bias,
						       &frame)) &&
		    (!c->cfi_dbg || dwarf_cfi_addrframe(c->cfi_dbg, addr + c->bias - c->dbg_bias,
							&frame)))
			return dw_whyf(w, -ENOENT, "no call frame information for 0x%" PRIx64,
				       addr);
		if (dwarf_frame_cfa(frame, &ops, &n) || n != 1) {
			free(frame);
			return dw_whyf(w, -ENOTSUP, "CFA at 0x%" PRIx64 " is not register+offset",
				       addr);
		}
	}
	if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		*reg = ops[0].atom - DW_OP_breg0;
		*off = ops[0].number;
	} else if (ops[0].atom == DW_OP_bregx) {
		*reg = ops[0].number;
		*off = ops[0].number2;
	} else if (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31) {
		*reg = ops[0].atom - DW_OP_reg0;
		*off = 0;
	} else {
		ret = dw_whyf(w, -ENOTSUP, "frame base uses %s", op_name(ops[0].atom));
	}
	free(frame);
	return ret;
}

static int set_reg(struct fetch *f, unsigned int regno, struct why *w)
{
	f->kind = F_REG;
	f->reg = reg_name(regno);
	if (!f->reg)
		return dw_whyf(w, -ENOTSUP,
			       "lives in DWARF register %u, which uprobes cannot fetch", regno);
	return 0;
}

/* Constant pushed by @op, for DW_OP_lit*, DW_OP_const*. */
static bool op_const(const Dwarf_Op *op, long *v)
{
	if (op->atom >= DW_OP_lit0 && op->atom <= DW_OP_lit31) {
		*v = op->atom - DW_OP_lit0;
		return true;
	}
	switch (op->atom) {
	case DW_OP_const1u: case DW_OP_const2u: case DW_OP_const4u: case DW_OP_const8u:
	case DW_OP_constu:
	case DW_OP_const1s: case DW_OP_const2s: case DW_OP_const4s: case DW_OP_const8s:
	case DW_OP_consts:
		*v = (long)op->number;
		return true;
	}
	return false;
}

static int static_var(struct dw_ctx *c, uint64_t addr, struct fetch *f, struct why *w)
{
	f->kind = F_FILEOFF;
	f->nref = 1;
	f->ref[0] = 0;
	if (addr_to_off(c->elf, addr, false, &f->fileoff))
		return dw_whyf(w, -ERANGE, "static address 0x%" PRIx64 " is in no PT_LOAD", addr);
	return 0;
}

/* An expression whose result is a register value or a register-relative address. */
static int reg_expr(struct dw_ctx *c, Dwarf_Die *sp, Dwarf_Addr addr, const Dwarf_Op *op,
		    unsigned int *reg, long *off, bool *isref, struct why *w)
{
	unsigned int a = op->atom;

	*isref = true;
	if (a >= DW_OP_reg0 && a <= DW_OP_reg31) {
		*reg = a - DW_OP_reg0;
		*off = 0;
		*isref = false;
	} else if (a == DW_OP_regx) {
		*reg = op->number;
		*off = 0;
		*isref = false;
	} else if (a >= DW_OP_breg0 && a <= DW_OP_breg31) {
		*reg = a - DW_OP_breg0;
		*off = op->number;
	} else if (a == DW_OP_bregx) {
		*reg = op->number;
		*off = op->number2;
	} else if (a == DW_OP_fbreg) {
		int ret = frame_base(c, sp, addr, reg, off, w);

		if (ret)
			return ret;
		*off += op->number;
	} else {
		return dw_whyf(w, -ENOTSUP, "location uses %s", op_name(a));
	}
	return 0;
}

static int expr_to_fetch(struct dw_ctx *c, Dwarf_Die *sp, Dwarf_Addr addr, Dwarf_Op *ops,
			 size_t n, struct fetch *f, struct why *w)
{
	unsigned int reg = 0;
	long off = 0;
	bool isref;
	int ret;

	for (size_t i = 0; i < n; i++)
		if (ops[i].atom == DW_OP_entry_value || ops[i].atom == DW_OP_GNU_entry_value)
			return dw_whyf(w, -ENOENT, "only known as its value at function entry "
				       "(DW_OP_entry_value) at 0x%" PRIx64, addr);
	if (n == 1 && ops[0].atom == DW_OP_addr)
		return static_var(c, ops[0].number, f, w);
	if (n == 2 && ops[1].atom == DW_OP_stack_value && op_const(&ops[0], &f->imm)) {
		f->kind = F_IMM;
		return 0;
	}
	if (n == 1 && ops[0].atom == DW_OP_implicit_value && ops[0].number <= 8) {
		const unsigned char *b = (const unsigned char *)(uintptr_t)ops[0].number2;

		f->kind = F_IMM;
		f->imm = 0;
		for (size_t i = ops[0].number; i > 0; i--)
			f->imm = (f->imm << 8) | b[i - 1];
		return 0;
	}
	if (n > 2 || (n == 2 && ops[1].atom != DW_OP_stack_value)) {
		char e[160];

		return dw_whyf(w, -ENOTSUP, "location (%s) at 0x%" PRIx64 " is computed, "
			       "not expressible as a fetch", expr_str(ops, n, e, sizeof(e)), addr);
	}
	ret = reg_expr(c, sp, addr, &ops[0], &reg, &off, &isref, w);
	if (ret)
		return ret;
	if (n == 2) {
		if (!isref || off)
			return dw_whyf(w, -ENOTSUP, "value is register %u %+ld (%s with %s), "
				       "not expressible as a fetch", reg, off, op_name(ops[0].atom),
				       op_name(ops[1].atom));
		isref = false;
	}
	ret = set_reg(f, reg, w);
	if (!ret && isref) {
		f->nref = 1;
		f->ref[0] = off;
	}
	return ret;
}

/* Where @var lives at @addr, as a fetch without type. */
int var_location(struct dw_ctx *c, Dwarf_Die *var, Dwarf_Die *sp, Dwarf_Addr addr,
		 struct fetch *f, struct why *w)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;
	int r;

	memset(f, 0, sizeof(*f));
	if (dwarf_attr_integrate(var, DW_AT_const_value, &a)) {
		Dwarf_Sword v;

		if (dwarf_formsdata(&a, &v))
			return dw_whyf(w, -ENOTSUP, "constant value is not an integer");
		f->kind = F_IMM;
		f->imm = v;
		return 0;
	}
	if (!dwarf_attr(var, DW_AT_location, &a)) {
		Dwarf_Attribute e;

		if (dwarf_attr_integrate(var, DW_AT_external, &e))
			return dw_whyf(w, -ENOENT, "is an external declaration without address");
		return dw_whyf(w, -ENOENT, "optimized out (no DW_AT_location)");
	}
	r = dwarf_getlocation_addr(&a, addr, &ops, &n, 1);
	if (r < 0)
		return dw_whyf(w, -EINVAL, "bad location: %s", dwarf_errmsg(-1));
	if (r == 0 || n == 0)
		return dw_whyf(w, -ENOENT, "optimized out at 0x%" PRIx64
			       " (no location list entry covers it)", addr);
	return expr_to_fetch(c, sp, addr, ops, n, f, w);
}

/* ---- types and fields ---- */

static int add_ref(struct fetch *f, long off, struct why *w)
{
	if (f->kind == F_IMM)
		return dw_whyf(w, -ENOTSUP, "is a constant, it has no memory to dereference");
	if (f->nref == MAX_REFS)
		return dw_whyf(w, -E2BIG, "more than %d dereferences", MAX_REFS);
	f->ref[f->nref++] = off;
	return 0;
}

/* Member @name of struct/union @type, looking into anonymous members. */
static bool find_member(Dwarf_Die *type, const char *name, Dwarf_Die *mem, long *off)
{
	Dwarf_Die child;

	if (dwarf_child(type, &child))
		return false;
	do {
		Dwarf_Word loc = 0;
		const char *n;
		Dwarf_Die sub;

		if (dwarf_tag(&child) != DW_TAG_member)
			continue;
		if (dwarf_tag(type) != DW_TAG_union_type)
			udata_attr(&child, DW_AT_data_member_location, &loc);
		n = dwarf_diename(&child);
		if (n && !strcmp(n, name)) {
			*mem = child;
			*off = loc;
			return true;
		}
		if (!n && real_type(&child, &sub, true) && find_member(&sub, name, mem, off)) {
			*off += loc;
			return true;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

static int one_field(Dwarf_Die *cur, const struct pc_pp_field *fl, const char *prev,
		     struct fetch *f, Dwarf_Die *out, struct why *w)
{
	Dwarf_Die type, elem;
	long off;
	int tag;

	if (!real_type(cur, &type, true))
		return dw_whyf(w, -ENOENT, "%s has no type information", prev);
	tag = dwarf_tag(&type);
	if (!fl->name) {
		if (tag != DW_TAG_array_type && tag != DW_TAG_pointer_type)
			return dw_whyf(w, -EINVAL, "%s is not a pointer nor an array", prev);
		if (!real_type(&type, &elem, true))
			return dw_whyf(w, -ENOENT, "element type of %s unknown", prev);
		*out = type;	/* the next step reads the element type through it */
		if (tag == DW_TAG_pointer_type)
			return add_ref(f, dwarf_bytesize(&elem) * fl->index, w);
		if (!f->nref)
			return dw_whyf(w, -ENOTSUP, "array %s is in a register", prev);
		f->ref[f->nref - 1] += dwarf_bytesize(&elem) * fl->index;
		return 0;
	}
	if (tag == DW_TAG_pointer_type) {
		if (!fl->ref)
			return dw_whyf(w, -EINVAL, "%s is a pointer: use '->%s'", prev, fl->name);
		if (!real_type(&type, &type, true))
			return dw_whyf(w, -ENOENT, "%s points to an unknown type", prev);
		tag = dwarf_tag(&type);
		if (tag != DW_TAG_structure_type && tag != DW_TAG_union_type)
			return dw_whyf(w, -EINVAL, "%s does not point to a struct or union", prev);
		if (add_ref(f, 0, w))
			return -E2BIG;
	} else if (tag == DW_TAG_structure_type || tag == DW_TAG_union_type) {
		if (fl->ref)
			return dw_whyf(w, -EINVAL, "%s is not a pointer: use '.%s'", prev,
				       fl->name);
		if (!f->nref)
			return dw_whyf(w, -ENOTSUP, "structure %s is in a register", prev);
	} else {
		return dw_whyf(w, -EINVAL, "%s is not a struct or union", prev);
	}
	if (!find_member(&type, fl->name, out, &off))
		return dw_whyf(w, -EINVAL, "%s (type %s) has no member %s", prev,
			       dwarf_diename(&type) ?: "<anonymous>", fl->name);
	f->ref[f->nref - 1] += off;
	return 0;
}

/*
 * After the walk, @out is a DIE whose DW_AT_type is the value's type: the
 * member, or for an index step the array/pointer type itself (as in perf).
 */
int walk_fields(const struct pc_pp_arg *a, Dwarf_Die *var, struct fetch *f,
		Dwarf_Die *out, struct why *w)
{
	Dwarf_Die cur = *var, next;
	const char *prev = a->var;

	for (size_t i = 0; i < a->nfields; i++) {
		int ret = one_field(&cur, &a->fields[i], prev, f, &next, w);

		if (ret)
			return ret;
		cur = next;
		if (a->fields[i].name)
			prev = a->fields[i].name;
	}
	*out = cur;
	return 0;
}

static bool is_char(Dwarf_Die *t)
{
	const char *n = dwarf_diename(t);

	return n && (!strcmp(n, "char") || !strcmp(n, "unsigned char"));
}

/* Type suffix as perf chooses it; @tdie's DW_AT_type is the value's type. */
int fetch_type(Dwarf_Die *tdie, const char *cast, const char *what, struct fetch *f,
	       struct why *w)
{
	Dwarf_Die type, elem;
	Dwarf_Word enc = 0;
	int size, tag;
	char prefix;

	if (cast && strcmp(cast, "string") && strcmp(cast, "u") && strcmp(cast, "s") &&
	    strcmp(cast, "x")) {
		snprintf(f->type, sizeof(f->type), "%s", cast);
		return 0;
	}
	if (dwarf_attr_integrate(tdie, DW_AT_bit_size, &(Dwarf_Attribute){0}))
		return dw_whyf(w, -ENOTSUP, "%s is a bitfield, which records cannot fetch", what);
	if (!real_type(tdie, &type, true))
		return dw_whyf(w, -ENOENT, "%s has no type information", what);
	tag = dwarf_tag(&type);
	if (cast && !strcmp(cast, "string")) {
		if (tag != DW_TAG_pointer_type && tag != DW_TAG_array_type)
			return dw_whyf(w, -EINVAL, "%s is not a pointer nor an array", what);
		if (!real_type(&type, &elem, true) || !is_char(&elem))
			return dw_whyf(w, -EINVAL, "%s is not (unsigned) char * or []", what);
		if (tag == DW_TAG_pointer_type && add_ref(f, 0, w))
			return -E2BIG;
		strcpy(f->type, "string");
		return 0;
	}
	udata_attr(&type, DW_AT_encoding, &enc);
	if (cast)
		prefix = cast[0];
	else
		prefix = (enc == DW_ATE_signed || enc == DW_ATE_signed_char) ? 's' : 'x';
	size = dwarf_bytesize(&type);
	if (size <= 0)
		return 0;
	size = size * 8 > 64 ? 64 : size * 8;
	snprintf(f->type, sizeof(f->type), "%c%d", prefix, size);
	return 0;
}
