// SPDX-License-Identifier: GPL-2.0
/*
 * The fetch args of one probe location: each argument of the definition
 * found in scope and written in both uprobe_events and record syntax.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <dwarf.h>
#include <elfutils/libdw.h>

#include <linux/probecache.h>

#include "dwarf_int.h"
#include "pc.h"

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

static int emit_arg(struct argbuf *b, const char *name, const struct fetch *f, struct why *w)
{
	char fu[256], fr[256], rname[PROBECACHE_ARG_NAME_MAX + 2];
	int n;

	b->idx++;
	if (fmt_fetch(f, false, fu, sizeof(fu)))
		return dw_whyf(w, -E2BIG, "fetch expression too long");
	if (!record_type_ok(f->type))
		return dw_whyf(w, -ENOTSUP, "type %s cannot be fetched by probecache records",
			       f->type);
	if (fmt_fetch(f, true, fr, sizeof(fr)))
		return dw_whyf(w, -E2BIG, "needs more than %d dereferences", PROBECACHE_MAX_DEREF);
	if (name)
		n = snprintf(rname, sizeof(rname), "%s", name);
	else
		n = snprintf(rname, sizeof(rname), "arg%u", b->idx);
	if (n > PROBECACHE_ARG_NAME_MAX)
		return dw_whyf(w, -ENAMETOOLONG, "name longer than %d", PROBECACHE_ARG_NAME_MAX);
	if (name)
		n = snprintf(b->up + b->nup, sizeof(b->up) - b->nup, " %s=%s", name, fu);
	else
		n = snprintf(b->up + b->nup, sizeof(b->up) - b->nup, " %s", fu);
	if ((size_t)n >= sizeof(b->up) - b->nup)
		return dw_whyf(w, -E2BIG, "argument list too long");
	b->nup += n;
	n = snprintf(b->rec + b->nrec, sizeof(b->rec) - b->nrec, "%s%s=%s",
		     b->nrec ? " " : "", rname, fr);
	if ((size_t)n >= sizeof(b->rec) - b->nrec)
		return dw_whyf(w, -E2BIG, "argument list too long");
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
				return dw_whyf(w, -ENOENT, "optimized out at 0x%" PRIx64 " (this %s "
					       "instance of %s has no location for it)", addr,
					       dwarf_tag(sc) == DW_TAG_inlined_subroutine ?
					       "inlined" : "out-of-line", dwarf_diename(sc));
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	return dw_whyf(w, -ENOENT, "no variable '%s' in %s (its parameters here: %s)", name,
		       dwarf_diename(sc) ?: "this scope", param_names(sc, names, sizeof(names)));
}

static int resolve_var(struct dw_ctx *c, const struct pc_pp_arg *a, Dwarf_Die *sc,
		       Dwarf_Die *sp, Dwarf_Addr addr, struct fetch *f, struct why *w)
{
	struct var_search vs = { a->var, addr };
	Dwarf_Die var, tdie;
	int ret;

	if (!dw_find_child(sc, var_cb, &vs, &var)) {
		vs.addr = 0;
		if (!dw_find_child(&c->cu, var_cb, &vs, &var))
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
			return dw_whyf(w, -EINVAL, "unknown register %s", a->var);
		break;
	default:
		ret = resolve_var(c, a, sc, sp, addr, &f, w);
		if (ret)
			return ret;
		if (pc_pp_arg_tvname(a, name, sizeof(name)))
			return dw_whyf(w, -ENAMETOOLONG, "argument name too long");
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

int build_args(struct dw_ctx *c, Dwarf_Die *sc, Dwarf_Die *sp, Dwarf_Addr addr,
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
		dw_find_child(sc, expand_cb, &e, &mem);
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
