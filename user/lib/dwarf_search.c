// SPDX-License-Identifier: GPL-2.0
/*
 * Searching one CU for the probe-definition (search_cu): function, inline
 * instance, line and lazy-pattern probes, after perf probe's rules. Called
 * by dwarf.c (every CU, or the symbol's) and by the function index
 * (dwarf_index.c, the CUs it names).
 */
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <elfutils/libdw.h>

#include "dwarf_int.h"
#include "pc.h"

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

int func_matched(struct dw_ctx *c, Dwarf_Die *sp)
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
		ret = walk_lines(c, &c->cu, dw_line_cb);
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

		dw_find_child(&c->cu, inst_cb, &iw, &mem);
		ret = iw.ret;
	}
	return ret;
}

static int func_cb(Dwarf_Die *sp, void *data)
{
	struct dw_ctx *c = data;
	int ret;

	if (!is_func_def(sp) || !dw_match_name(sp, c->pd->function))
		return DWARF_CB_OK;
	if (c->pd->file && dw_tailcmp(c->pd->file, dwarf_decl_file(sp)))
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

		if (s && !dw_tailcmp(s, file))
			return s;
	}
	return NULL;
}

int search_cu(struct dw_ctx *c)
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
	return walk_lines(c, &c->cu, dw_line_cb);
}
