// SPDX-License-Identifier: GPL-2.0
/*
 * Probe points from DWARF. The search rules follow perf probe (6.1) so that
 * the same probe-definition gives the same places and fetch args; where
 * perf makes up a value (a variable optimized out at one of several
 * locations becomes \deade12d) or refuses (ELF aliases such as malloc of
 * __libc_malloc), we report or resolve instead.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>

#include <linux/probecache.h>

#include "canon.h"
#include "debuginfo.h"
#include "dwarf.h"
#include "pc.h"
#include "sdt.h"

#define MAX_REFS	8
#define MAX_LOCS	256

enum fetch_kind { F_REG, F_IMM, F_FILEOFF, F_RETVAL };

/* A fetch: base, then each ref is "load at value + ref[i]" (innermost first). */
struct fetch {
	enum fetch_kind kind;
	const char *reg;	/* "%di" */
	long imm;
	uint64_t fileoff;
	int nref;
	long ref[MAX_REFS];
	char type[16];		/* "" for none */
};

struct dw_ctx {
	const char *bin;
	const struct pc_probe_desc *pd;
	bool force;
	Dwfl *dwfl;
	char *image;		/* the binary, read once: libdwfl would map it (SIGBUS if cut short) */
	size_t image_size;
	Dwfl_Module *mod;
	Dwarf *dw;
	Dwarf_Addr bias;
	Elf *elf;		/* the probed binary (may be stripped) */
	Dwarf_CFI *cfi_eh, *cfi_dbg;
	Dwarf_Addr eh_bias, dbg_bias;
	Dwarf_Die cu;
	const char *fname;	/* file the line/lazy search is about */
	int lno;
	int *lazy;		/* matched line numbers, -1 terminated */
	bool lazy_done;
	struct pc_dw_result *res;
	bool found;
	bool copy;		/* the DWARF is (now) in our uncompressed copy (debuginfo.h) */
	int err;		/* carried out of libdw iteration callbacks */
};

static const char *const x86_regs[16] = {
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

/* ---- ELF helpers ---- */

/* File offset of link-time address @addr, in an executable PT_LOAD if @exec. */
static int addr_to_off(Elf *elf, uint64_t addr, bool exec, uint64_t *off)
{
	size_t n;

	if (elf_getphdrnum(elf, &n))
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (exec && !(ph.p_flags & PF_X))
			continue;
		if (addr >= ph.p_vaddr && addr < ph.p_vaddr + (exec ? ph.p_filesz : ph.p_memsz)) {
			*off = addr - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -ERANGE;
}

static void hex_id(const void *p, int len, char out[41])
{
	const unsigned char *b = p;

	out[0] = '\0';
	if (len <= 0 || len > 20)
		return;
	for (int i = 0; i < len; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
}

/* ---- DIE helpers (same meaning as perf's dwarf-aux) ---- */

enum { CB_END, CB_CHILD = 1, CB_SIBLING = 2, CB_CONTINUE = 3 };

static Dwarf_Die *find_child(Dwarf_Die *rt, int (*cb)(Dwarf_Die *, void *), void *data,
			     Dwarf_Die *mem)
{
	Dwarf_Die child;
	int r;

	if (dwarf_child(rt, mem) != 0)
		return NULL;
	do {
		r = cb(mem, data);
		if (r == CB_END)
			return mem;
		if ((r & CB_CHILD) && find_child(mem, cb, data, &child)) {
			*mem = child;
			return mem;
		}
	} while ((r & CB_SIBLING) && dwarf_siblingof(mem, mem) == 0);
	return NULL;
}

static int die_entrypc(Dwarf_Die *d, Dwarf_Addr *addr)
{
	Dwarf_Attribute a;
	Dwarf_Addr base, end;

	if (dwarf_entrypc(d, addr) == 0)
		return 0;
	if (!dwarf_attr(d, DW_AT_ranges, &a))
		return -ENOENT;
	return dwarf_ranges(d, 0, &base, addr, &end) < 0 ? -ENOENT : 0;
}

static bool is_func_def(Dwarf_Die *d)
{
	Dwarf_Attribute a;
	Dwarf_Addr addr;

	if (dwarf_tag(d) != DW_TAG_subprogram || dwarf_attr(d, DW_AT_declaration, &a))
		return false;
	return dwarf_attr(d, DW_AT_inline, &a) || die_entrypc(d, &addr) == 0;
}

static bool is_func_instance(Dwarf_Die *d)
{
	Dwarf_Attribute a;
	Dwarf_Addr tmp;
	int tag = dwarf_tag(d);

	if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
		return false;
	return dwarf_entrypc(d, &tmp) == 0 || dwarf_attr(d, DW_AT_ranges, &a);
}

static bool match_name(Dwarf_Die *d, const char *glob)
{
	Dwarf_Attribute a;
	const char *n = dwarf_diename(d);

	if (n && pc_glob_match(n, glob))
		return true;
	n = dwarf_attr_integrate(d, DW_AT_linkage_name, &a) ? dwarf_formstring(&a) : NULL;
	return n && pc_glob_match(n, glob);
}

/* 0 if the shorter string is a tail of the longer (perf's strtailcmp). */
static int tailcmp(const char *a, const char *b)
{
	size_t i = a ? strlen(a) : 0, j = b ? strlen(b) : 0;

	if (!a || !b)
		return -1;
	while (i && j)
		if (a[--i] != b[--j])
			return 1;
	return 0;
}

static int udata_attr(Dwarf_Die *d, unsigned int name, Dwarf_Word *v)
{
	Dwarf_Attribute a;

	if (!dwarf_attr_integrate(d, name, &a) || dwarf_formudata(&a, v))
		return -ENOENT;
	return 0;
}

static const char *call_file(Dwarf_Die *in)
{
	Dwarf_Die cu;
	Dwarf_Files *files;
	Dwarf_Word idx;

	if (udata_attr(in, DW_AT_call_file, &idx) || !dwarf_diecu(in, &cu, NULL, NULL) ||
	    dwarf_getsrcfiles(&cu, &files, NULL))
		return NULL;
	return dwarf_filesrc(files, idx, NULL, NULL);
}

static int call_line(Dwarf_Die *in)
{
	Dwarf_Word v;

	return udata_attr(in, DW_AT_call_line, &v) ? -ENOENT : (int)v;
}

struct addr_search {
	Dwarf_Addr addr;
	Dwarf_Die *mem;
};

static int realfunc_cb(Dwarf_Die *fn, void *data)
{
	struct addr_search *as = data;

	if (dwarf_tag(fn) == DW_TAG_subprogram && dwarf_haspc(fn, as->addr) > 0) {
		*as->mem = *fn;
		return DWARF_CB_ABORT;
	}
	return DWARF_CB_OK;
}

/* The out-of-line function containing @addr. */
static Dwarf_Die *find_realfunc(Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Die *mem)
{
	struct addr_search as = { addr, mem };

	return dwarf_getfuncs(cu, realfunc_cb, &as, 0) ? mem : NULL;
}

static int inline_at_cb(Dwarf_Die *d, void *data)
{
	Dwarf_Addr *addr = data;

	if (dwarf_tag(d) == DW_TAG_inlined_subroutine && dwarf_haspc(d, *addr) > 0)
		return CB_END;
	return CB_CONTINUE;
}

/* Innermost inlined instance in @sp containing @addr. */
static Dwarf_Die *find_inline_at(Dwarf_Die *sp, Dwarf_Addr addr, Dwarf_Die *mem)
{
	Dwarf_Die tmp, *d = find_child(sp, inline_at_cb, &addr, &tmp);

	if (!d)
		return NULL;
	while (d) {
		*mem = *d;
		d = find_child(mem, inline_at_cb, &addr, &tmp);
	}
	return mem;
}

static Dwarf_Die *real_type(Dwarf_Die *d, Dwarf_Die *mem, bool skip_typedef)
{
	Dwarf_Attribute a;
	int tag;

	do {
		if (!dwarf_attr_integrate(d, DW_AT_type, &a) || !dwarf_formref_die(&a, mem))
			return NULL;
		d = mem;
		tag = dwarf_tag(d);
	} while (tag == DW_TAG_const_type || tag == DW_TAG_volatile_type ||
		 tag == DW_TAG_restrict_type || tag == DW_TAG_shared_type ||
		 tag == DW_TAG_atomic_type || (skip_typedef && tag == DW_TAG_typedef));
	return mem;
}

/* ---- locations ---- */

/* Why an argument could not be fetched; filled by the converters. */
struct why {
	char msg[256];
};

static int whyf(struct why *w, int ret, const char *fmt, ...)
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
		return whyf(w, -ENOENT, "%s has no frame base at 0x%" PRIx64,
			    dwarf_diename(sp), addr);
	if (n == 1 && ops[0].atom == DW_OP_call_frame_cfa) {
		if ((!c->cfi_eh || dwarf_cfi_addrframe(c->cfi_eh, addr + c->bias - c->eh_bias,
						       &frame)) &&
		    (!c->cfi_dbg || dwarf_cfi_addrframe(c->cfi_dbg, addr + c->bias - c->dbg_bias,
							&frame)))
			return whyf(w, -ENOENT, "no call frame information for 0x%" PRIx64, addr);
		if (dwarf_frame_cfa(frame, &ops, &n) || n != 1) {
			free(frame);
			return whyf(w, -ENOTSUP, "CFA at 0x%" PRIx64 " is not register+offset", addr);
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
		ret = whyf(w, -ENOTSUP, "frame base uses %s", op_name(ops[0].atom));
	}
	free(frame);
	return ret;
}

static int set_reg(struct fetch *f, unsigned int regno, struct why *w)
{
	f->kind = F_REG;
	f->reg = reg_name(regno);
	if (!f->reg)
		return whyf(w, -ENOTSUP, "lives in DWARF register %u, which uprobes cannot fetch",
			    regno);
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
		return whyf(w, -ERANGE, "static address 0x%" PRIx64 " is in no PT_LOAD", addr);
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
		return whyf(w, -ENOTSUP, "location uses %s", op_name(a));
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
			return whyf(w, -ENOENT, "only known as its value at function entry "
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

		return whyf(w, -ENOTSUP, "location (%s) at 0x%" PRIx64 " is computed, "
			    "not expressible as a fetch", expr_str(ops, n, e, sizeof(e)), addr);
	}
	ret = reg_expr(c, sp, addr, &ops[0], &reg, &off, &isref, w);
	if (ret)
		return ret;
	if (n == 2) {
		if (!isref || off)
			return whyf(w, -ENOTSUP, "value is register %u %+ld (%s with %s), "
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
static int var_location(struct dw_ctx *c, Dwarf_Die *var, Dwarf_Die *sp, Dwarf_Addr addr,
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
			return whyf(w, -ENOTSUP, "constant value is not an integer");
		f->kind = F_IMM;
		f->imm = v;
		return 0;
	}
	if (!dwarf_attr(var, DW_AT_location, &a)) {
		Dwarf_Attribute e;

		if (dwarf_attr_integrate(var, DW_AT_external, &e))
			return whyf(w, -ENOENT, "is an external declaration without address");
		return whyf(w, -ENOENT, "optimized out (no DW_AT_location)");
	}
	r = dwarf_getlocation_addr(&a, addr, &ops, &n, 1);
	if (r < 0)
		return whyf(w, -EINVAL, "bad location: %s", dwarf_errmsg(-1));
	if (r == 0 || n == 0)
		return whyf(w, -ENOENT, "optimized out at 0x%" PRIx64
			    " (no location list entry covers it)", addr);
	return expr_to_fetch(c, sp, addr, ops, n, f, w);
}

/* ---- types and fields ---- */

static int add_ref(struct fetch *f, long off, struct why *w)
{
	if (f->kind == F_IMM)
		return whyf(w, -ENOTSUP, "is a constant, it has no memory to dereference");
	if (f->nref == MAX_REFS)
		return whyf(w, -E2BIG, "more than %d dereferences", MAX_REFS);
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
		return whyf(w, -ENOENT, "%s has no type information", prev);
	tag = dwarf_tag(&type);
	if (!fl->name) {
		if (tag != DW_TAG_array_type && tag != DW_TAG_pointer_type)
			return whyf(w, -EINVAL, "%s is not a pointer nor an array", prev);
		if (!real_type(&type, &elem, true))
			return whyf(w, -ENOENT, "element type of %s unknown", prev);
		*out = type;	/* the next step reads the element type through it */
		if (tag == DW_TAG_pointer_type)
			return add_ref(f, dwarf_bytesize(&elem) * fl->index, w);
		if (!f->nref)
			return whyf(w, -ENOTSUP, "array %s is in a register", prev);
		f->ref[f->nref - 1] += dwarf_bytesize(&elem) * fl->index;
		return 0;
	}
	if (tag == DW_TAG_pointer_type) {
		if (!fl->ref)
			return whyf(w, -EINVAL, "%s is a pointer: use '->%s'", prev, fl->name);
		if (!real_type(&type, &type, true))
			return whyf(w, -ENOENT, "%s points to an unknown type", prev);
		tag = dwarf_tag(&type);
		if (tag != DW_TAG_structure_type && tag != DW_TAG_union_type)
			return whyf(w, -EINVAL, "%s does not point to a struct or union", prev);
		if (add_ref(f, 0, w))
			return -E2BIG;
	} else if (tag == DW_TAG_structure_type || tag == DW_TAG_union_type) {
		if (fl->ref)
			return whyf(w, -EINVAL, "%s is not a pointer: use '.%s'", prev, fl->name);
		if (!f->nref)
			return whyf(w, -ENOTSUP, "structure %s is in a register", prev);
	} else {
		return whyf(w, -EINVAL, "%s is not a struct or union", prev);
	}
	if (!find_member(&type, fl->name, out, &off))
		return whyf(w, -EINVAL, "%s (type %s) has no member %s", prev,
			    dwarf_diename(&type) ?: "<anonymous>", fl->name);
	f->ref[f->nref - 1] += off;
	return 0;
}

/*
 * After the walk, @out is a DIE whose DW_AT_type is the value's type: the
 * member, or for an index step the array/pointer type itself (as in perf).
 */
static int walk_fields(const struct pc_pp_arg *a, Dwarf_Die *var, struct fetch *f,
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
static int fetch_type(Dwarf_Die *tdie, const char *cast, const char *what, struct fetch *f,
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
		return whyf(w, -ENOTSUP, "%s is a bitfield, which records cannot fetch", what);
	if (!real_type(tdie, &type, true))
		return whyf(w, -ENOENT, "%s has no type information", what);
	tag = dwarf_tag(&type);
	if (cast && !strcmp(cast, "string")) {
		if (tag != DW_TAG_pointer_type && tag != DW_TAG_array_type)
			return whyf(w, -EINVAL, "%s is not a pointer nor an array", what);
		if (!real_type(&type, &elem, true) || !is_char(&elem))
			return whyf(w, -EINVAL, "%s is not (unsigned) char * or []", what);
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

/* ---- arguments at one location ---- */

struct var_search {
	const char *name;
	Dwarf_Addr addr;
};

static int var_cb(Dwarf_Die *d, void *data)
{
	struct var_search *vs = data;
	Dwarf_Attribute a;
	const char *n = dwarf_diename(d);
	int tag = dwarf_tag(d);

	if ((tag == DW_TAG_formal_parameter || tag == DW_TAG_variable) &&
	    n && !strcmp(n, vs->name) &&
	    (dwarf_attr(d, DW_AT_external, &a) || dwarf_attr(d, DW_AT_location, &a) ||
	     dwarf_attr(d, DW_AT_const_value, &a)))
		return CB_END;
	return dwarf_haspc(d, vs->addr) > 0 ? CB_CONTINUE : CB_SIBLING;
}

static int fmt_fetch(const struct fetch *f, bool record, char *buf, size_t len)
{
	int n = 0, first = 0;
	char base[40];

	switch (f->kind) {
	case F_REG:
		snprintf(base, sizeof(base), "%s", f->reg);
		break;
	case F_IMM:
		snprintf(base, sizeof(base), "\\%ld", f->imm);
		break;
	case F_RETVAL:
		snprintf(base, sizeof(base), "$retval");
		break;
	case F_FILEOFF:
		snprintf(base, sizeof(base), "@+0x%" PRIx64, f->fileoff + f->ref[0]);
		first = 1;
		break;
	}
	if (record && f->nref - first > PROBECACHE_MAX_DEREF)
		return -E2BIG;
	for (int i = f->nref - 1; i >= first; i--)
		n += snprintf(buf + n, len > (size_t)n ? len - n : 0, "%+ld(", f->ref[i]);
	n += snprintf(buf + n, len > (size_t)n ? len - n : 0, "%s", base);
	for (int i = f->nref - 1; i >= first; i--)
		n += snprintf(buf + n, len > (size_t)n ? len - n : 0, ")");
	if (f->type[0])
		n += snprintf(buf + n, len > (size_t)n ? len - n : 0, ":%s", f->type);
	return (size_t)n < len ? 0 : -E2BIG;
}

static bool record_type_ok(const char *t)
{
	static const char *const ok[] = {
		"", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
		"x8", "x16", "x32", "x64", "string",
	};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (!strcmp(t, ok[i]))
			return true;
	return false;
}

/* Per-location output being built. */
struct argbuf {
	char up[2048];
	char rec[2048];
	size_t nup, nrec;
	unsigned int idx;	/* 1-based position, for unnamed args */
};

static int emit_arg(struct argbuf *b, const char *name, const struct fetch *f, struct why *w)
{
	char fu[256], fr[256], rname[PROBECACHE_ARG_NAME_MAX + 2];
	int n;

	b->idx++;
	if (fmt_fetch(f, false, fu, sizeof(fu)))
		return whyf(w, -E2BIG, "fetch expression too long");
	if (!record_type_ok(f->type))
		return whyf(w, -ENOTSUP, "type %s cannot be fetched by probecache records",
			    f->type);
	if (fmt_fetch(f, true, fr, sizeof(fr)))
		return whyf(w, -E2BIG, "needs more than %d dereferences", PROBECACHE_MAX_DEREF);
	if (name)
		n = snprintf(rname, sizeof(rname), "%s", name);
	else
		n = snprintf(rname, sizeof(rname), "arg%u", b->idx);
	if (n > PROBECACHE_ARG_NAME_MAX)
		return whyf(w, -ENAMETOOLONG, "name longer than %d", PROBECACHE_ARG_NAME_MAX);
	if (name)
		n = snprintf(b->up + b->nup, sizeof(b->up) - b->nup, " %s=%s", name, fu);
	else
		n = snprintf(b->up + b->nup, sizeof(b->up) - b->nup, " %s", fu);
	if ((size_t)n >= sizeof(b->up) - b->nup)
		return whyf(w, -E2BIG, "argument list too long");
	b->nup += n;
	n = snprintf(b->rec + b->nrec, sizeof(b->rec) - b->nrec, "%s%s=%s",
		     b->nrec ? " " : "", rname, fr);
	if ((size_t)n >= sizeof(b->rec) - b->nrec)
		return whyf(w, -E2BIG, "argument list too long");
	b->nrec += n;
	return 0;
}

static const char *param_names(Dwarf_Die *sc, char *buf, size_t len)
{
	Dwarf_Die child;
	size_t k = 0;

	buf[0] = '\0';
	if (dwarf_child(sc, &child) == 0) {
		do {
			const char *n = dwarf_diename(&child);

			if (dwarf_tag(&child) == DW_TAG_formal_parameter && n && k < len)
				k += snprintf(buf + k, len - k, "%s%s", k ? ", " : "", n);
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	return k ? buf : "none";
}

/* Declared by the function but absent from this instance: optimized out here. */
static int var_missing(Dwarf_Die *sc, const char *name, Dwarf_Addr addr, struct why *w)
{
	char names[120];
	Dwarf_Attribute a;
	Dwarf_Die orig, child;
	const char *n;

	if (dwarf_attr(sc, DW_AT_abstract_origin, &a) && dwarf_formref_die(&a, &orig) &&
	    !dwarf_child(&orig, &child)) {
		do {
			n = dwarf_diename(&child);
			if (n && !strcmp(n, name))
				return whyf(w, -ENOENT, "optimized out at 0x%" PRIx64 " (this %s "
					    "instance of %s has no location for it)", addr,
					    dwarf_tag(sc) == DW_TAG_inlined_subroutine ?
					    "inlined" : "out-of-line", dwarf_diename(sc));
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	return whyf(w, -ENOENT, "no variable '%s' in %s (its parameters here: %s)", name,
		    dwarf_diename(sc) ?: "this scope", param_names(sc, names, sizeof(names)));
}

static int resolve_var(struct dw_ctx *c, const struct pc_pp_arg *a, Dwarf_Die *sc,
		       Dwarf_Die *sp, Dwarf_Addr addr, struct fetch *f, struct why *w)
{
	struct var_search vs = { a->var, addr };
	Dwarf_Die var, tdie;
	int ret;

	if (!find_child(sc, var_cb, &vs, &var)) {
		vs.addr = 0;
		if (!find_child(&c->cu, var_cb, &vs, &var))
			return var_missing(sc, a->var, addr, w);
	}
	ret = var_location(c, &var, sp, addr, f, w);
	if (!ret)
		ret = walk_fields(a, &var, f, &tdie, w);
	if (!ret)
		ret = fetch_type(&tdie, a->type, a->nfields ? "the field" : a->var, f, w);
	return ret;
}

struct expand {
	struct dw_ctx *c;
	Dwarf_Die *sp;
	Dwarf_Addr addr;
	bool vars;
	size_t n;
	const char *names[PC_PP_MAX_ARGS * 4];
};

static int expand_cb(Dwarf_Die *d, void *data)
{
	struct expand *e = data;
	Dwarf_Attribute a;
	struct fetch f;
	struct why w;
	int tag = dwarf_tag(d);

	if ((tag == DW_TAG_formal_parameter || (tag == DW_TAG_variable && e->vars)) &&
	    dwarf_diename(d) && e->n < sizeof(e->names) / sizeof(e->names[0]) &&
	    !var_location(e->c, d, e->sp, e->addr, &f, &w) &&
	    (f.kind != F_IMM || dwarf_attr_integrate(d, DW_AT_const_value, &a)))
		e->names[e->n++] = dwarf_diename(d);
	return dwarf_haspc(d, e->addr) > 0 ? CB_CONTINUE : CB_SIBLING;
}

static int one_arg(struct dw_ctx *c, const struct pc_pp_arg *a, Dwarf_Die *sc, Dwarf_Die *sp,
		   Dwarf_Addr addr, struct argbuf *b, struct why *w)
{
	struct fetch f = { 0 };
	char name[64];
	int ret;

	switch (a->kind) {
	case PC_PP_RETVAL:
		f.kind = F_RETVAL;
		break;
	case PC_PP_REG:
		f.kind = F_REG;
		for (int i = 0; i < 16 && !f.reg; i++)
			if (!strcmp(a->var, x86_regs[i]))
				f.reg = x86_regs[i];
		if (!f.reg && !strcmp(a->var, "%ip"))
			f.reg = "%ip";
		if (!f.reg)
			return whyf(w, -EINVAL, "unknown register %s", a->var);
		break;
	default:
		ret = resolve_var(c, a, sc, sp, addr, &f, w);
		if (ret)
			return ret;
		if (pc_pp_arg_tvname(a, name, sizeof(name)))
			return whyf(w, -ENAMETOOLONG, "argument name too long");
		return emit_arg(b, name, &f, w);
	}
	if (a->type)
		snprintf(f.type, sizeof(f.type), "%s", a->type);
	return emit_arg(b, a->name, &f, w);
}

static int arg_failed(struct dw_ctx *c, const char *ev, Dwarf_Addr addr, const char *arg,
		      struct why *w, unsigned int *dropped, int ret)
{
	if (c->force) {
		pc_warn("%s: %s at 0x%" PRIx64 ": argument %s left out: %s", c->bin, ev, addr,
			arg, w->msg);
		(*dropped)++;
		return 0;
	}
	pc_err("%s: %s at 0x%" PRIx64 ": argument %s: %s", c->bin, ev, addr, arg, w->msg);
	return ret;
}

static int build_args(struct dw_ctx *c, Dwarf_Die *sc, Dwarf_Die *sp, Dwarf_Addr addr,
		      const char *ev, struct argbuf *b, unsigned int *dropped)
{
	const struct pc_probe_desc *pd = c->pd;
	struct why w;
	int ret;

	for (size_t i = 0; i < pd->nargs; i++) {
		const struct pc_pp_arg *a = &pd->args[i];
		struct expand e = { c, sp, addr, a->kind == PC_PP_VARS, 0, { 0 } };
		Dwarf_Die mem;

		if (a->kind != PC_PP_PARAMS && a->kind != PC_PP_VARS) {
			ret = one_arg(c, a, sc, sp, addr, b, &w);
			if (ret)
				ret = arg_failed(c, ev, addr, a->var, &w, dropped, ret);
			if (ret)
				return ret;
			continue;
		}
		find_child(sc, expand_cb, &e, &mem);
		for (size_t j = 0; j < e.n; j++) {
			struct pc_pp_arg v = { .kind = PC_PP_VAR, .var = (char *)e.names[j] };

			ret = one_arg(c, &v, sc, sp, addr, b, &w);
			if (ret)
				ret = arg_failed(c, ev, addr, v.var, &w, dropped, ret);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* ---- locations ---- */

static bool is_glob(const char *s)
{
	return s && strpbrk(s, "*?[");
}

static void event_name(struct dw_ctx *c, Dwarf_Die *sc, char *buf, size_t len)
{
	const struct pc_probe_desc *pd = c->pd;
	char base[100];
	char *p;

	if (pd->event)
		snprintf(base, sizeof(base), "%s", pd->event);
	else if (pd->function && !is_glob(pd->function) && pd->line)
		snprintf(base, sizeof(base), "%s_L%d", pd->function, pd->line);
	else if (pd->function && !is_glob(pd->function))
		snprintf(base, sizeof(base), "%s", pd->function);
	else
		snprintf(base, sizeof(base), "%s", dwarf_diename(sc) ?: "probe");
	p = base[0] == '.' ? base + 1 : base;
	if (strpbrk(p + 1, ".@"))
		*strpbrk(p + 1, ".@") = '\0';
	snprintf(buf, len, "%s%s", p, pd->retprobe ? "__return" : "");
}

/*
 * FUNC+OFF is the user's arithmetic: prove it lands on an instruction of
 * the binary's own code (the bytes that will get the breakpoint), unless
 * --force. Addresses DWARF gives (entries, line starts) need no proof.
 */
static int check_boundary(struct dw_ctx *c, Dwarf_Die *sp, Dwarf_Addr addr,
			  const char *ev)
{
	Dwarf_Addr entry;
	struct pc_insn at;
	GElf_Ehdr eh;
	uint64_t eoff;
	int ret;

	if (!c->pd->offset || c->force)
		return 0;
	if (die_entrypc(sp, &entry) || addr_to_off(c->elf, entry, true, &eoff) ||
	    !gelf_getehdr(c->elf, &eh) || eoff >= c->image_size) {
		pc_err("%s: %s: cannot find the code of %s to check that +%lu"
		       " is an instruction boundary (--force skips the check)",
		       c->bin, ev, dwarf_diename(sp), c->pd->offset);
		return -ENOENT;
	}
	ret = pc_insn_boundary(eh.e_machine, eh.e_ident[EI_CLASS] == ELFCLASS64,
			       (const uint8_t *)c->image + eoff, c->image_size - eoff,
			       entry, addr, &at);
	if (ret == -EINVAL)
		pc_err("%s: %s: %s+%lu (0x%" PRIx64 ") is inside the %u-byte "
		       "instruction at %s+%" PRIu64 " (%s); probe an instruction boundary "
		       "(--force skips the check)", c->bin, ev, dwarf_diename(sp),
		       c->pd->offset, addr, at.size, dwarf_diename(sp), at.addr - entry,
		       at.text);
	else if (ret)
		pc_err("%s: %s: cannot check that %s+%lu is an instruction boundary:"
		       " %s (--force skips the check)", c->bin, ev, dwarf_diename(sp),
		       c->pd->offset, ret == -EILSEQ ? "the code before it does not decode" :
		       strerror(-ret));
	return ret;
}

static int add_location(struct dw_ctx *c, Dwarf_Die *sc, Dwarf_Addr addr)
{
	struct pc_dw_result *r = c->res;
	struct pc_dw_loc *l;
	struct argbuf b = { .up = "" };
	Dwarf_Die sp;
	Dwarf_Addr entry;
	char ev[128];
	unsigned int dropped = 0;
	uint64_t off;
	int ret;

	for (size_t i = 0; i < r->nlocs; i++)
		if (r->locs[i].addr == addr)
			return 0;
	event_name(c, sc, ev, sizeof(ev));
	if (r->nlocs == MAX_LOCS) {
		pc_err("%s: %s: more than %d locations", c->bin, ev, MAX_LOCS);
		return -ERANGE;
	}
	if (is_func_def(sc))
		sp = *sc;
	else if (!find_realfunc(&c->cu, addr, &sp)) {
		pc_err("%s: %s: 0x%" PRIx64 " is in no function", c->bin, ev, addr);
		return -ENOENT;
	}
	if (dwarf_haspc(&sp, addr) <= 0) {
		pc_err("%s: %s: 0x%" PRIx64 " is outside %s", c->bin, ev, addr, dwarf_diename(&sp));
		return -EINVAL;
	}
	if (c->pd->retprobe && (die_entrypc(&sp, &entry) || entry != addr)) {
		pc_err("%s: %s%%return: this instance is inlined and has no return point",
		       c->bin, c->pd->function);
		return -EINVAL;
	}
	if (addr_to_off(c->elf, addr, true, &off)) {
		pc_err("%s: %s: 0x%" PRIx64 " is in no executable PT_LOAD", c->bin, ev, addr);
		return -ERANGE;
	}
	ret = check_boundary(c, &sp, addr, ev);
	if (ret)
		return ret;
	ret = build_args(c, sc, &sp, addr, ev, &b, &dropped);
	if (ret)
		return ret;
	l = realloc(r->locs, (r->nlocs + 1) * sizeof(*l));
	if (!l)
		return -ENOMEM;
	r->locs = l;
	l = &r->locs[r->nlocs];
	memset(l, 0, sizeof(*l));
	snprintf(l->event, sizeof(l->event), "%s", ev);
	l->retprobe = c->pd->retprobe;
	l->addr = addr;
	l->offset = off;
	l->ndropped = dropped;
	l->uprobe_args = strdup(b.up);
	l->rec_args = strdup(b.rec);
	r->nlocs++;
	return l->uprobe_args && l->rec_args ? 0 : -ENOMEM;
}

/* perf: a CU is "optimized" if any variable in it has a location list. */
static bool has_loclist(Dwarf_Die *d)
{
	Dwarf_Die child;
	Dwarf_Attribute a;
	int tag = dwarf_tag(d), form;

	if ((tag == DW_TAG_formal_parameter || tag == DW_TAG_variable) &&
	    dwarf_attr_integrate(d, DW_AT_location, &a)) {
		form = dwarf_whatform(&a);
		if (form == DW_FORM_sec_offset || form == DW_FORM_loclistx)
			return true;
	}
	if (dwarf_child(d, &child))
		return false;
	do {
		if (has_loclist(&child))
			return true;
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

static bool wants_vars(const struct pc_probe_desc *pd)
{
	for (size_t i = 0; i < pd->nargs; i++)
		if (pd->args[i].kind == PC_PP_VAR || pd->args[i].kind == PC_PP_PARAMS ||
		    pd->args[i].kind == PC_PP_VARS)
			return true;
	return false;
}

/*
 * At -O0 parameters are only valid after the prologue stored them: probe
 * the first line-table address past the entry's line, as perf does.
 */
static void skip_prologue(struct dw_ctx *c, Dwarf_Die *sp, Dwarf_Addr *addr)
{
	const struct pc_probe_desc *pd = c->pd;
	Dwarf_Lines *lines;
	Dwarf_Addr high, a = 0;
	size_t n, i, ent;
	int eline, ln;
	bool pend;

	if (!pd->function || pd->line || pd->retprobe || pd->lazy || pd->offset ||
	    !wants_vars(pd) || has_loclist(&c->cu))
		return;
	if (dwarf_highpc(sp, &high) || dwarf_getsrclines(&c->cu, &lines, &n))
		return;
	for (ent = 0; ent < n; ent++)
		if (!dwarf_lineaddr(dwarf_onesrcline(lines, ent), &a) && a == *addr)
			break;
	if (ent == n || dwarf_lineno(dwarf_onesrcline(lines, ent), &eline))
		return;
	for (i = ent; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);

		if (dwarf_lineaddr(l, &a) || dwarf_lineno(l, &ln) || dwarf_lineprologueend(l, &pend))
			return;
		if (a >= high || pend || ln != eline || i != ent)
			break;
	}
	if (i == n)
		i--;
	dwarf_lineaddr(dwarf_onesrcline(lines, i), &a);
	if (a >= high)
		dwarf_lineaddr(dwarf_onesrcline(lines, i - 1), &a);
	pc_info("%s: %s compiled without optimization: probing 0x%" PRIx64
		" after the prologue instead of 0x%" PRIx64, c->bin, dwarf_diename(sp), a, *addr);
	*addr = a;
}

/* ---- line walking (perf's die_walk_lines) ---- */

typedef int (*line_fn)(struct dw_ctx *c, const char *fname, int lineno, Dwarf_Addr addr);

struct funclines {
	struct dw_ctx *c;
	line_fn fn;
	bool recursive;
	int ret;
};

static int funclines_cb(Dwarf_Die *d, void *data)
{
	struct funclines *fl = data;
	Dwarf_Addr addr = 0;
	const char *f;
	int ln;

	if (dwarf_tag(d) == DW_TAG_inlined_subroutine) {
		f = call_file(d);
		ln = call_line(d);
		if (f && ln > 0 && die_entrypc(d, &addr) == 0) {
			fl->ret = fl->fn(fl->c, f, ln, addr);
			if (fl->ret)
				return CB_END;
		}
		if (!fl->recursive)
			return CB_SIBLING;
	}
	if (addr) {
		f = dwarf_decl_file(d);
		if (f && dwarf_decl_line(d, &ln) == 0) {
			fl->ret = fl->fn(fl->c, f, ln, addr);
			if (fl->ret)
				return CB_END;
		}
	}
	return CB_CONTINUE;
}

static int walk_funclines(struct dw_ctx *c, Dwarf_Die *sp, bool recursive, line_fn fn)
{
	struct funclines fl = { c, fn, recursive, 0 };
	Dwarf_Die mem;
	Dwarf_Addr addr;
	const char *f = dwarf_decl_file(sp);
	int ln;

	if (f && dwarf_decl_line(sp, &ln) == 0 && die_entrypc(sp, &addr) == 0) {
		fl.ret = fn(c, f, ln, addr);
		if (fl.ret)
			return fl.ret;
	}
	find_child(sp, funclines_cb, &fl, &mem);
	return fl.ret;
}

struct culines {
	struct dw_ctx *c;
	line_fn fn;
	int ret;
};

static int culines_cb(Dwarf_Die *sp, void *data)
{
	struct culines *cl = data;

	cl->ret = walk_funclines(cl->c, sp, true, cl->fn);
	return cl->ret ? DWARF_CB_ABORT : DWARF_CB_OK;
}

/* Is the line at @addr inside @rt itself rather than in something inlined into it? */
static bool line_in_rt(Dwarf_Die *rt, const char *decf, int decl, int lineno, Dwarf_Addr addr)
{
	Dwarf_Die in;
	const char *f;
	int inl;

	if (dwarf_haspc(rt, addr) <= 0)
		return false;
	if (!find_inline_at(rt, addr, &in))
		return true;
	f = call_file(&in);
	if (f && decf && !strcmp(f, decf) && call_line(&in) == lineno)
		return true;
	dwarf_decl_line(&in, &inl);
	return inl == decl && dwarf_decl_file(&in) == decf;
}

static int walk_lines(struct dw_ctx *c, Dwarf_Die *rt, line_fn fn)
{
	bool is_cu = dwarf_tag(rt) == DW_TAG_compile_unit;
	const char *decf = is_cu ? NULL : dwarf_decl_file(rt);
	Dwarf_Lines *lines;
	size_t n;
	int decl = 0, ret;

	if (!is_cu)
		dwarf_decl_line(rt, &decl);
	if (dwarf_getsrclines(&c->cu, &lines, &n))
		return 0;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr addr;
		int ln;
		bool flag;

		if (!l || dwarf_lineno(l, &ln) || dwarf_lineaddr(l, &addr))
			continue;
		if (dwarf_lineendsequence(l, &flag) || flag)
			continue;
		if (dwarf_linebeginstatement(l, &flag) || !flag)
			continue;
		if (!is_cu && !line_in_rt(rt, decf, decl, ln, addr))
			continue;
		ret = fn(c, dwarf_linesrc(l, NULL, NULL), ln, addr);
		if (ret)
			return ret;
	}
	if (!is_cu)
		return walk_funclines(c, rt, false, fn);
	{
		struct culines cl = { c, fn, 0 };

		dwarf_getfuncs(&c->cu, culines_cb, &cl, 0);
		return cl.ret;
	}
}

/* ---- scopes, line and lazy probes ---- */

struct scope_search {
	const char *function;
	const char *file;
	int line, diff;
	Dwarf_Die *mem;
	bool found;
};

static int best_scope_step(Dwarf_Die *fn, struct scope_search *s)
{
	const char *f;
	int ln = 0;

	if (s->file && (!(f = dwarf_decl_file(fn)) || strcmp(s->file, f)))
		return 0;
	if (s->function) {
		if (match_name(fn, s->function)) {
			*s->mem = *fn;
			s->found = true;
			return 1;
		}
		return 0;
	}
	dwarf_decl_line(fn, &ln);
	if (ln < s->line && s->diff > s->line - ln) {
		s->diff = s->line - ln;
		*s->mem = *fn;
		s->found = true;
	}
	return 0;
}

/* The function or inlined instance at @addr that the probe is "in", as perf picks it. */
static Dwarf_Die *best_scope(struct dw_ctx *c, Dwarf_Addr addr, Dwarf_Die *mem)
{
	struct scope_search s = { c->pd->function, c->fname, c->lno, 1 << 30, mem, false };
	Dwarf_Die cur, tmp, *d;
	bool stop = false;

	for (d = find_realfunc(&c->cu, addr, &cur); d && !stop;
	     d = find_child(&cur, inline_at_cb, &addr, &tmp) ? (cur = tmp, &cur) : NULL)
		stop = best_scope_step(d, &s);
	if (!stop && !s.found) {
		for (d = find_realfunc(&c->cu, addr, &cur); d;
		     d = find_child(&cur, inline_at_cb, &addr, &tmp) ? (cur = tmp, &cur) : NULL) {
			*mem = *d;
			s.found = true;
		}
	}
	return s.found ? mem : NULL;
}

/* Statement line record for @addr (perf's cu_getsrc_die). */
static Dwarf_Line *stmt_line_at(Dwarf_Die *cu, Dwarf_Addr addr)
{
	Dwarf_Lines *lines;
	Dwarf_Addr la;
	size_t n, lo = 0, hi, mid;
	Dwarf_Line *l;
	bool stmt;

	if (dwarf_getsrclines(cu, &lines, &n) || !n)
		return NULL;
	hi = n - 1;
	while (lo < hi) {
		mid = hi - (hi - lo) / 2;
		if (dwarf_lineaddr(dwarf_onesrcline(lines, mid), &la))
			return NULL;
		if (addr < la)
			hi = mid - 1;
		else
			lo = mid;
	}
	while (lo > 0 && !dwarf_lineaddr(dwarf_onesrcline(lines, lo - 1), &la) && la == addr)
		lo--;
	for (; lo < n; lo++) {
		l = dwarf_onesrcline(lines, lo);
		if (dwarf_lineaddr(l, &la) || la > addr || dwarf_linebeginstatement(l, &stmt))
			return NULL;
		if (stmt)
			return l;
	}
	return NULL;
}

/* perf refuses a line whose address really belongs to another line. */
static int check_line(struct dw_ctx *c, const char *fname, int lineno, Dwarf_Addr addr)
{
	Dwarf_Die fn;
	Dwarf_Addr fa;
	const char *rf = NULL;
	int rl = 0, decl;

	if (find_realfunc(&c->cu, addr, &fn) && !die_entrypc(&fn, &fa) && fa == addr) {
		rf = dwarf_decl_file(&fn);
		dwarf_decl_line(&fn, &rl);
	} else {
		Dwarf_Line *l = stmt_line_at(&c->cu, addr);

		if (l && !dwarf_lineno(l, &rl))
			rf = dwarf_linesrc(l, NULL, NULL);
	}
	if (!rf || !rl || strcmp(fname, rf) || lineno == rl)
		return 0;
	if (c->pd->function && best_scope(c, addr, &fn) && match_name(&fn, c->pd->function) &&
	    !dwarf_decl_line(&fn, &decl))
		pc_err("%s: line %d shares its address with line %d; probe %s:%d instead",
		       c->bin, lineno, rl, dwarf_diename(&fn), rl - decl);
	else
		pc_err("%s: line %d shares its address with line %d; probe %s:%d instead",
		       c->bin, lineno, rl, rf, rl);
	return -ENOENT;
}

static int line_cb(struct dw_ctx *c, const char *fname, int lineno, Dwarf_Addr addr)
{
	Dwarf_Die sc;
	int ret;

	if (lineno != c->lno || tailcmp(fname, c->fname))
		return 0;
	ret = check_line(c, fname, lineno, addr);
	if (ret)
		return ret;
	if (!best_scope(c, addr, &sc)) {
		pc_err("%s: no function contains line %d at 0x%" PRIx64, c->bin, lineno, addr);
		return -ENOENT;
	}
	return add_location(c, &sc, addr);
}

#define LAZY_SRC_MAX	(64u << 20)	/* a source file, generated ones included */

/*
 * The source file of a lazy pattern. libdw already prefixes a DWARF 5 file
 * name with its line-table directory, which may be the CU's own relative
 * comp_dir ("./malloc"): joining that again would give ./malloc/./malloc/x.c.
 */
static void lazy_path(struct dw_ctx *c, char *path, size_t size)
{
	Dwarf_Attribute a;
	const char *dir = dwarf_attr(&c->cu, DW_AT_comp_dir, &a) ? dwarf_formstring(&a) : NULL;
	size_t dl = dir ? strlen(dir) : 0;

	if (c->fname[0] == '/' || !dir ||
	    (!strncmp(c->fname, dir, dl) && c->fname[dl] == '/'))
		snprintf(path, size, "%s", c->fname);
	else
		snprintf(path, size, "%s/%s", dir, c->fname);
}

/* Line numbers of @buf matching the lazy pattern, -1 terminated, in c->lazy. */
static int lazy_lines(struct dw_ctx *c, char *buf, size_t len)
{
	char *pos = buf, *line;
	size_t n = 0;
	int ln = 0, *nl;
	bool newline;

	c->lazy = malloc(sizeof(int));
	while (c->lazy && (line = pc_next_line(&pos, buf + len, &newline))) {
		ln++;
		if (!pc_lazy_match(line, c->pd->lazy))
			continue;
		nl = realloc(c->lazy, (n + 2) * sizeof(int));
		if (!nl)
			break;
		c->lazy = nl;
		c->lazy[n++] = ln;
	}
	if (!c->lazy)
		return -ENOMEM;
	c->lazy[n] = -1;
	return 0;
}

static int load_lazy(struct dw_ctx *c)
{
	char path[PATH_MAX], *buf;
	size_t len;
	int ret;

	lazy_path(c, path, sizeof(path));
	ret = pc_read_file(path, 0, LAZY_SRC_MAX, &buf, &len);
	if (ret) {
		pc_err("%s: lazy pattern needs the source: %s: %s", c->bin, path,
		       pc_file_strerror(ret));
		return ret;
	}
	ret = lazy_lines(c, buf, len);
	free(buf);
	if (!ret)
		c->lazy_done = true;
	return ret;
}

static int lazy_cb(struct dw_ctx *c, const char *fname, int lineno, Dwarf_Addr addr)
{
	Dwarf_Die sc;
	bool hit = false;

	for (int *p = c->lazy; *p >= 0; p++)
		hit |= (*p == lineno);
	if (!hit || tailcmp(fname, c->fname))
		return 0;
	c->lno = lineno;
	if (!best_scope(c, addr, &sc)) {
		pc_err("%s: no function contains line %d at 0x%" PRIx64, c->bin, lineno, addr);
		return -ENOENT;
	}
	return add_location(c, &sc, addr);
}

static int find_lazy(struct dw_ctx *c, Dwarf_Die *rt)
{
	int ret;

	if (!c->lazy_done && (ret = load_lazy(c)))
		return ret;
	return walk_lines(c, rt, lazy_cb);
}

/* ---- function probes ---- */

static int probe_instance(struct dw_ctx *c, Dwarf_Die *in)
{
	Dwarf_Addr addr;

	if (c->pd->lazy)
		return find_lazy(c, in);
	if (die_entrypc(in, &addr) || !addr)
		return 0;	/* perf skips instances without an entry address */
	return add_location(c, in, addr + c->pd->offset);
}

struct inst_walk {
	struct dw_ctx *c;
	void *origin;
	int ret;
};

static int inst_cb(Dwarf_Die *in, void *data)
{
	struct inst_walk *iw = data;
	Dwarf_Attribute a;
	Dwarf_Die orig;
	Dwarf_Word cf, df;
	int dl;

	if (!is_func_instance(in) || !dwarf_attr(in, DW_AT_abstract_origin, &a) ||
	    !dwarf_formref_die(&a, &orig) || orig.addr != iw->origin)
		return CB_CONTINUE;
	/* perf ignores "instances" sitting on the origin's own declaration */
	if (dwarf_tag(in) == DW_TAG_inlined_subroutine && !dwarf_decl_line(&orig, &dl) &&
	    call_line(in) == dl && !udata_attr(&orig, DW_AT_decl_file, &df) &&
	    !udata_attr(in, DW_AT_call_file, &cf) && cf == df)
		return CB_CONTINUE;
	iw->ret = probe_instance(iw->c, in);
	return iw->ret ? CB_END : CB_CONTINUE;
}

static int func_matched(struct dw_ctx *c, Dwarf_Die *sp)
{
	const struct pc_probe_desc *pd = c->pd;
	Dwarf_Addr addr;
	int ret = 0;

	c->found = true;
	c->fname = dwarf_decl_file(sp);
	if (pd->line) {
		size_t before = c->res->nlocs;

		dwarf_decl_line(sp, &c->lno);
		c->lno += pd->line;
		/* perf walks the whole CU for FUNC:RLN: the line may be inlined elsewhere */
		ret = walk_lines(c, &c->cu, line_cb);
		if (!ret && c->res->nlocs == before) {
			pc_err("%s: %s:%d is %s:%d, which has no code (no statement in the "
			       "line table)", c->bin, pd->function, pd->line, c->fname, c->lno);
			ret = -ENOENT;
		}
	} else if (is_func_instance(sp)) {
		if (die_entrypc(sp, &addr) || !addr)
			return 0;
		if (pd->lazy)
			return find_lazy(c, sp);
		skip_prologue(c, sp, &addr);
		ret = add_location(c, sp, addr + pd->offset);
	} else {
		struct inst_walk iw = { c, sp->addr, 0 };
		Dwarf_Die mem;

		find_child(&c->cu, inst_cb, &iw, &mem);
		ret = iw.ret;
	}
	return ret;
}

static int func_cb(Dwarf_Die *sp, void *data)
{
	struct dw_ctx *c = data;
	int ret;

	if (!is_func_def(sp) || !match_name(sp, c->pd->function))
		return DWARF_CB_OK;
	if (c->pd->file && tailcmp(c->pd->file, dwarf_decl_file(sp)))
		return DWARF_CB_OK;
	ret = func_matched(c, sp);
	if (ret) {
		c->err = ret;
		return DWARF_CB_ABORT;
	}
	/* perf: one definition per CU for a plain name, every match for a glob */
	return is_glob(c->pd->function) ? DWARF_CB_OK : DWARF_CB_ABORT;
}

/* The CU's name for @file, if the CU has that file (tail match). */
static const char *cu_file(Dwarf_Die *cu, const char *file)
{
	Dwarf_Files *files;
	size_t n;

	if (dwarf_getsrcfiles(cu, &files, &n))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const char *s = dwarf_filesrc(files, i, NULL, NULL);

		if (s && !tailcmp(s, file))
			return s;
	}
	return NULL;
}

static int search_cu(struct dw_ctx *c)
{
	const struct pc_probe_desc *pd = c->pd;

	c->fname = pd->file ? cu_file(&c->cu, pd->file) : NULL;
	if (pd->file && !c->fname)
		return 0;
	if (pd->function) {
		c->err = 0;
		dwarf_getfuncs(&c->cu, func_cb, c, 0);
		return c->err;
	}
	c->found = true;
	if (pd->lazy)
		return find_lazy(c, &c->cu);
	c->lno = pd->line;
	return walk_lines(c, &c->cu, line_cb);
}

struct defn_search {
	Dwarf_Addr addr;
	Dwarf_Die *mem;
};

static int defn_cb(Dwarf_Die *sp, void *data)
{
	struct defn_search *ds = data;
	Dwarf_Addr a;

	if (is_func_instance(sp) && dwarf_tag(sp) == DW_TAG_subprogram &&
	    !die_entrypc(sp, &a) && a == ds->addr) {
		*ds->mem = *sp;
		return DWARF_CB_ABORT;
	}
	return DWARF_CB_OK;
}

/* "fopen" matches "fopen", "fopen@@GLIBC_2.2.5" and "fopen@GLIBC_2.2.5". */
static bool sym_name_is(const char *sym, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(sym, name, n) && (sym[n] == '\0' || sym[n] == '@');
}

/*
 * No DWARF function of that name: it may be an ELF alias (malloc ->
 * __libc_malloc). Find the symbol and the DWARF function starting there.
 */
static int find_by_symbol(struct dw_ctx *c)
{
	int nsym = dwfl_module_getsymtab(c->mod);

	for (int i = 1; i < nsym; i++) {
		struct defn_search ds;
		Dwarf_Die sp, *cu;
		GElf_Sym sym;
		GElf_Addr addr, cubias;
		const char *name = dwfl_module_getsym_info(c->mod, i, &sym, &addr, NULL, NULL,
							   NULL);

		if (!name || !sym_name_is(name, c->pd->function) || !sym.st_value)
			continue;
		if (GELF_ST_TYPE(sym.st_info) == STT_GNU_IFUNC) {
			pc_err("%s: %s is a GNU indirect function (its symbol is the resolver); "
			       "probe the implementation it selects", c->bin, name);
			return -EINVAL;
		}
		if (GELF_ST_TYPE(sym.st_info) != STT_FUNC)
			continue;
		cu = dwfl_module_addrdie(c->mod, addr, &cubias);
		if (!cu)
			continue;
		c->cu = *cu;
		ds.addr = addr - cubias;
		ds.mem = &sp;
		if (dwarf_getfuncs(&c->cu, defn_cb, &ds, 0) <= 0)
			continue;
		pc_info("%s: %s is an ELF alias of %s", c->bin, name, dwarf_diename(&sp));
		c->found = true;
		c->fname = dwarf_decl_file(&sp);
		return func_matched(c, &sp);
	}
	return 0;
}

/*
 * libdwfl does not name a file that its debuginfod client fetched; the
 * client's cache file is still open, so find it among our descriptors.
 */
static bool debuginfod_file(const char *bid, char *path, size_t len)
{
	char want[64], link[300];
	struct dirent *de;
	DIR *d;
	bool found = false;

	if (!bid[0] || !getenv("DEBUGINFOD_URLS"))
		return false;
	snprintf(want, sizeof(want), "/%s/debuginfo", bid);
	d = opendir("/proc/self/fd");
	while (d && !found && (de = readdir(d))) {
		ssize_t n;

		snprintf(link, sizeof(link), "/proc/self/fd/%s", de->d_name);
		n = readlink(link, path, len - 1);
		if (n <= 0)
			continue;
		path[n] = '\0';
		found = (size_t)n > strlen(want) && !strcmp(path + n - strlen(want), want);
	}
	if (d)
		closedir(d);
	return found;
}

/* debuginfo_path: our uncompressed copies first (debuginfo.h), then libdwfl's places */
static char *debuginfo_path;
static const Dwfl_Callbacks offline_cb = {
	.debuginfo_path = &debuginfo_path,
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

#define DW_MAX_ELF	(2ull << 30)	/* the probed binary is held in memory */

/*
 * The ELF checks of scan first (a truncated file is said to be truncated,
 * not to lack DWARF), then the whole file into memory for libdwfl. The file
 * must not change from the first look to the last byte read.
 */
static int read_image(struct dw_ctx *c, const char *bin, size_t *size)
{
	struct stat before, after;
	char hex[41];
	int ret;

	if (stat(bin, &before)) {
		ret = -errno;
		pc_err("%s: %s", bin, strerror(-ret));
		return ret;
	}
	ret = pc_read_build_id(bin, hex);
	if (ret && ret != -ENOENT)
		return ret;	/* said by pc_read_build_id() */
	ret = pc_read_file(bin, 0, DW_MAX_ELF, &c->image, size);
	if (ret) {
		pc_err("%s: %s", bin, pc_file_strerror(ret));
		return ret;
	}
	if (stat(bin, &after) || !pc_same_content(&before, &after) ||
	    (uint64_t)before.st_size != *size) {
		pc_err("%s: changed while being read (%lld bytes, now %zu): nothing recorded, "
		       "try again once it is complete", bin, (long long)before.st_size, *size);
		return -EAGAIN;
	}
	return 0;
}

static int dw_open(struct dw_ctx *c, const char *bin)
{
	const unsigned char *bid;
	const void *dbid;
	GElf_Addr vaddr;
	const char *main_f = NULL, *debug_f = NULL;
	bool separate;
	size_t size;
	int len, ret;

	ret = read_image(c, bin, &size);
	if (ret)
		return ret;
	c->image_size = size;
	debuginfo_path = pc_debugcache_search_path();
	c->dwfl = dwfl_begin(&offline_cb);
	if (!c->dwfl)
		return -ENOMEM;
	dwfl_report_begin(c->dwfl);
	c->mod = dwfl_report_offline_memory(c->dwfl, bin, bin, c->image, size);
	dwfl_report_end(c->dwfl, NULL, NULL);
	if (!c->mod) {
		pc_err("%s: %s", bin, dwfl_errmsg(-1));
		return -ENOENT;
	}
	c->elf = dwfl_module_getelf(c->mod, &c->bias);
	len = dwfl_module_build_id(c->mod, &bid, &vaddr);
	hex_id(bid, len, c->res->build_id);
	c->dw = dwfl_module_getdwarf(c->mod, &c->bias);
	if (!c->dw || !c->elf) {
		pc_err("%s: no debuginfo found (looked in the binary, .gnu_debuglink, "
		       "/usr/lib/debug/.build-id%s): %s", bin,
		       getenv("DEBUGINFOD_URLS") ? " and DEBUGINFOD_URLS" : "", dwfl_errmsg(-1));
		return -ENOENT;
	}
	dwfl_module_info(c->mod, NULL, NULL, NULL, NULL, NULL, &main_f, &debug_f);
	separate = debug_f || debuginfod_file(c->res->build_id, c->res->debuginfo_path,
					      sizeof(c->res->debuginfo_path));
	if (debug_f || !separate)
		snprintf(c->res->debuginfo_path, sizeof(c->res->debuginfo_path), "%s",
			 debug_f ? debug_f : main_f ? main_f : bin);
	if (separate)	/* the next resolve maps it uncompressed */
		c->copy = pc_debugcache_note(c->res->debuginfo_path, c->res->build_id,
					     dwarf_getelf(c->dw));
	len = dwelf_elf_gnu_build_id(dwarf_getelf(c->dw), &dbid);
	hex_id(dbid, len, c->res->debuginfo_id);
	if (!c->res->debuginfo_id[0])
		strcpy(c->res->debuginfo_id, c->res->build_id);
	c->cfi_eh = dwfl_module_eh_cfi(c->mod, &c->eh_bias);
	c->cfi_dbg = dwfl_module_dwarf_cfi(c->mod, &c->dbg_bias);
	return 0;
}

static int check_machine(const char *bin, Elf *elf)
{
	GElf_Ehdr eh;

	if (!gelf_getehdr(elf, &eh))
		return -EINVAL;
	if (eh.e_machine != EM_X86_64) {
		pc_err("%s: machine %u: only x86-64 register names are known", bin, eh.e_machine);
		return -ENOTSUP;
	}
	return 0;
}

/*
 * One binary's debuginfo, opened once for any number of definitions: the
 * decompression of the debug sections and libdw's CU cache are the cost
 * (zlib is most of a single libc6-dbg definition), so a batch pays it once.
 */
struct pc_dw_file {
	struct dw_ctx base;	/* the per-binary half of every query's context */
	struct pc_dw_result meta;	/* path and ids, copied into each result */
	struct fn_ref *idx;	/* function names (see build_index), NULL until needed */
	size_t nidx;
	char *saved;		/* the names of a saved index (debuginfo.h), idx points in */
	unsigned int nqueries;
};

/*
 * libdw 0.188 has no lookup by name (.debug_names is not exposed), and
 * every plain-name query walks every CU with dwarf_getfuncs. For a batch,
 * that walk is done once to learn which CUs define which names; a query
 * then runs the same per-CU search (search_cu) only on those CUs, in the
 * same order, so the result is that of the full walk.
 */
struct fn_ref {
	const char *name;	/* in libdw's .debug_str, lives as long as the Dwarf */
	Dwarf_Off cu;		/* offset of the CU DIE */
};

struct idx_walk {
	struct pc_dw_file *f;
	size_t cap;
	Dwarf_Off cu;
	int err;
};

static int idx_push(struct idx_walk *w, const char *name)
{
	struct pc_dw_file *f = w->f;

	if (!name)
		return 0;
	if (f->nidx == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 4096;
		struct fn_ref *v = realloc(f->idx, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		f->idx = v;
		w->cap = cap;
	}
	f->idx[f->nidx++] = (struct fn_ref){ name, w->cu };
	return 0;
}

/* The names func_cb's match_name() compares: DW_AT_name and the linkage name. */
static int idx_cb(Dwarf_Die *sp, void *data)
{
	struct idx_walk *w = data;
	Dwarf_Attribute a;

	if (!is_func_def(sp))
		return DWARF_CB_OK;
	w->err = idx_push(w, dwarf_diename(sp));
	if (!w->err && dwarf_attr_integrate(sp, DW_AT_linkage_name, &a))
		w->err = idx_push(w, dwarf_formstring(&a));
	return w->err ? DWARF_CB_ABORT : DWARF_CB_OK;
}

static int fn_ref_cmp(const void *a, const void *b)
{
	const struct fn_ref *x = a, *y = b;
	int r = strcmp(x->name, y->name);

	return r ? r : (x->cu > y->cu) - (x->cu < y->cu);
}

static int build_index(struct pc_dw_file *f)
{
	struct idx_walk w = { .f = f };
	Dwarf_Off off = 0, next;
	Dwarf_Die cu;
	size_t hl;

	while (!w.err && dwarf_nextcu(f->base.dw, off, &next, &hl, NULL, NULL, NULL) == 0) {
		w.cu = off + hl;
		if (dwarf_offdie(f->base.dw, w.cu, &cu))
			dwarf_getfuncs(&cu, idx_cb, &w, 0);
		off = next;
	}
	if (w.err)
		return w.err;
	qsort(f->idx, f->nidx, sizeof(*f->idx), fn_ref_cmp);
	return 0;
}

/* Size of .debug_info: what a saved index is checked against. */
static uint64_t info_size(Dwarf *dw)
{
	Elf *elf = dwarf_getelf(dw);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstr;
	const char *name;

	if (elf_getshdrstrndx(elf, &shstr))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstr, sh.sh_name);
		if (name && !strcmp(name, ".debug_info"))
			return sh.sh_size;	/* libdw has inflated it: the real size */
	}
	return 0;
}

/* "NAME CU\n" lines, as build_index() sorted them. */
static int save_index(const struct pc_dw_file *f, uint64_t isize)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	int ret;

	if (!m)
		return -ENOMEM;
	for (size_t i = 0; i < f->nidx; i++)
		fprintf(m, "%s %" PRIx64 "\n", f->idx[i].name, (uint64_t)f->idx[i].cu);
	if (fclose(m))
		return -ENOMEM;
	ret = pc_debugcache_funcs_write(f->meta.build_id, isize, text, len);
	free(text);
	return ret;
}

/* The saved index of this debuginfo, if there is one for its .debug_info. */
static int load_index(struct pc_dw_file *f, uint64_t isize)
{
	char *pos, *end, *s, *sp, *e;
	size_t len, n = 0;
	bool nl;

	if (pc_debugcache_funcs_read(f->meta.build_id, isize, &f->saved, &len))
		return -ENOENT;
	end = f->saved + len;
	for (size_t i = 0; i < len; i++)
		n += f->saved[i] == '\n';
	f->idx = malloc((n ? n : 1) * sizeof(*f->idx));
	if (!f->idx)
		return -ENOMEM;
	for (pos = f->saved; (s = pc_next_line(&pos, end, &nl)) && nl;) {
		sp = strrchr(s, ' ');	/* names may hold blanks ("operator new") */
		if (!sp)
			break;
		*sp = '\0';
		f->idx[f->nidx++] = (struct fn_ref){ s, strtoull(sp + 1, &e, 16) };
		if (*e)
			break;
	}
	if (f->nidx == n && !s)
		return 0;
	free(f->idx);	/* damaged: walk the CUs instead */
	free(f->saved);
	f->idx = NULL;
	f->saved = NULL;
	f->nidx = 0;
	return -ENOENT;
}

/*
 * The name index: saved with an uncompressed copy, so one definition
 * searches only the CUs defining its name; else built by the second query
 * of a batch (a single query walks once anyway).
 */
static int get_index(struct pc_dw_file *f)
{
	uint64_t isize = f->base.copy ? info_size(f->base.dw) : 0;
	int ret;

	if (isize && !load_index(f, isize))
		return 0;
	if (!isize && ++f->nqueries < 2)
		return 0;
	ret = build_index(f);
	if (!ret && isize && save_index(f, isize))
		pc_info("%s: function index of its debuginfo not saved", f->meta.path);
	return ret;
}

/* The index answers only a plain name with no file: that is what it keys. */
static bool index_fits(const struct pc_probe_desc *pd)
{
	return pd->function && !pd->file && !strpbrk(pd->function, "*?[\\");
}

static int search_indexed(struct dw_ctx *c, const struct pc_dw_file *f)
{
	struct fn_ref key = { c->pd->function, 0 };
	size_t lo = 0, hi = f->nidx;
	Dwarf_Off last = 0;
	int ret = 0;

	while (lo < hi) {	/* first entry >= key */
		size_t mid = lo + (hi - lo) / 2;

		if (fn_ref_cmp(&f->idx[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; !ret && lo < f->nidx && !strcmp(f->idx[lo].name, key.name); lo++) {
		if (f->idx[lo].cu == last)
			continue;
		last = f->idx[lo].cu;
		if (dwarf_offdie(c->dw, last, &c->cu))
			ret = search_cu(c);
	}
	return ret;
}

static int search_all(struct dw_ctx *c, struct pc_dw_file *f)
{
	Dwarf_Off off = 0, next;
	size_t hl;
	int ret = 0;

	if (index_fits(c->pd) && !f->idx)
		ret = get_index(f);
	if (!ret && f->idx && index_fits(c->pd))
		ret = search_indexed(c, f);
	while (!ret && !(f->idx && index_fits(c->pd)) &&
	       dwarf_nextcu(c->dw, off, &next, &hl, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(c->dw, off + hl, &c->cu))
			ret = search_cu(c);
		off = next;
	}
	if (!ret && !c->found && c->pd->function && !is_glob(c->pd->function) && !c->pd->file)
		ret = find_by_symbol(c);
	return ret;
}

void pc_dw_close(struct pc_dw_file *f)
{
	if (!f)
		return;
	if (f->base.dwfl)
		dwfl_end(f->base.dwfl);
	free(f->base.image);
	free(f->idx);
	free(f->saved);
	free(f);
}

int pc_dw_open(const char *binary, struct pc_dw_file **out)
{
	struct pc_dw_file *f = calloc(1, sizeof(*f));
	int ret;

	*out = NULL;
	if (!f)
		return -ENOMEM;
	ret = pc_canonical_path(binary, f->meta.path);
	if (ret) {
		pc_err("%s: %s", binary, strerror(-ret));
		goto fail;
	}
	f->base.bin = f->meta.path;
	f->base.res = &f->meta;
	ret = dw_open(&f->base, f->meta.path);
	if (!ret)
		ret = check_machine(f->meta.path, f->base.elf);
	if (ret)
		goto fail;
	f->base.res = NULL;
	*out = f;
	return 0;
fail:
	pc_dw_close(f);
	return ret;
}

static void report_none(struct dw_ctx *c, const struct pc_probe_desc *pd,
			const struct pc_dw_result *res)
{
	if (pd->function && !c->found)
		pc_err("%s: no function %s%s%s in %s", res->path, pd->function,
		       pd->file ? " declared in " : "", pd->file ?: "", res->debuginfo_path);
	else if (!pd->function && !c->found)
		pc_err("%s: no compilation unit has a file %s", res->path, pd->file);
	else if (pd->lazy)
		pc_err("%s: lazy pattern '%s' matches no line with code in %s", res->path,
		       pd->lazy, pd->function ?: pd->file);
	else
		pc_err("%s: %s:%d has no code (no statement in the line table)",
		       res->path, pd->file, pd->line);
}

int pc_dw_resolve_in(struct pc_dw_file *f, const struct pc_probe_desc *pd, bool force,
		     struct pc_dw_result *res)
{
	struct dw_ctx c = f->base;	/* per-query fields start zeroed in base */
	int ret;

	memcpy(res, &f->meta, sizeof(*res));
	res->nlocs = 0;
	res->locs = NULL;
	c.pd = pd;
	c.force = force;
	c.res = res;
	ret = pd->group ? (snprintf(res->group, sizeof(res->group), "%s", pd->group), 0)
			: pc_pp_default_group(res->path, res->group, sizeof(res->group));
	if (ret)
		pc_err("%s: no usable group name from the file name; give GROUP:EVENT",
		       res->path);
	if (!ret)
		ret = search_all(&c, f);
	if (!ret && !res->nlocs) {
		report_none(&c, pd, res);
		ret = -ENOENT;
	}
	free(c.lazy);
	if (ret)
		pc_dw_result_free(res);
	return ret;
}

int pc_dw_resolve(const char *binary, const struct pc_probe_desc *pd, bool force,
		  struct pc_dw_result *res)
{
	struct pc_dw_file *f;
	int ret;

	memset(res, 0, sizeof(*res));
	ret = pc_dw_open(binary, &f);
	if (!ret)
		ret = pc_dw_resolve_in(f, pd, force, res);
	pc_dw_close(f);
	return ret;
}

void pc_dw_result_free(struct pc_dw_result *res)
{
	for (size_t i = 0; i < res->nlocs; i++) {
		free(res->locs[i].uprobe_args);
		free(res->locs[i].rec_args);
	}
	free(res->locs);
	res->locs = NULL;
	res->nlocs = 0;
}
