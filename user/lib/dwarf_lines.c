// SPDX-License-Identifier: GPL-2.0
/*
 * Line walking (perf's die_walk_lines) and the probes it finds: the scope
 * a line is in, FILE:LINE and FUNC:RLN, and lazy patterns matched on the source.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <elfutils/libdw.h>

#include "dwarf_int.h"
#include "pc.h"

/* ---- line walking (perf's die_walk_lines) ---- */

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
	dw_find_child(sp, funclines_cb, &fl, &mem);
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

int walk_lines(struct dw_ctx *c, Dwarf_Die *rt, line_fn fn)
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
		if (dw_match_name(fn, s->function)) {
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
	     d = dw_find_child(&cur, inline_at_cb, &addr, &tmp) ? (cur = tmp, &cur) : NULL)
		stop = best_scope_step(d, &s);
	if (!stop && !s.found) {
		for (d = find_realfunc(&c->cu, addr, &cur); d;
		     d = dw_find_child(&cur, inline_at_cb, &addr, &tmp) ? (cur = tmp, &cur) : NULL) {
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

/* The line @addr really belongs to, in *@rf:*@rl (NULL/0 if none known). */
static void line_owner(struct dw_ctx *c, Dwarf_Addr addr, const char **rf, int *rl)
{
	Dwarf_Die fn;
	Dwarf_Addr fa;

	*rf = NULL;
	*rl = 0;
	if (find_realfunc(&c->cu, addr, &fn) && !die_entrypc(&fn, &fa) && fa == addr) {
		*rf = dwarf_decl_file(&fn);
		dwarf_decl_line(&fn, rl);
	} else {
		Dwarf_Line *l = stmt_line_at(&c->cu, addr);

		if (l && !dwarf_lineno(l, rl))
			*rf = dwarf_linesrc(l, NULL, NULL);
	}
}

bool dw_line_own(struct dw_ctx *c, const char *fname, int lineno, Dwarf_Addr addr)
{
	const char *rf;
	int rl;

	line_owner(c, addr, &rf, &rl);
	return !rf || !rl || strcmp(fname, rf) || lineno == rl;
}

/* perf refuses a line whose address really belongs to another line. */
static int check_line(struct dw_ctx *c, const char *fname, int lineno, Dwarf_Addr addr)
{
	Dwarf_Die fn;
	const char *rf;
	int rl, decl;

	if (dw_line_own(c, fname, lineno, addr))
		return 0;
	line_owner(c, addr, &rf, &rl);
	if (c->pd->function && best_scope(c, addr, &fn) && dw_match_name(&fn, c->pd->function) &&
	    !dwarf_decl_line(&fn, &decl))
		pc_err("%s: line %d shares its address with line %d; probe %s:%d instead",
		       c->bin, lineno, rl, dwarf_diename(&fn), rl - decl);
	else
		pc_err("%s: line %d shares its address with line %d; probe %s:%d instead",
		       c->bin, lineno, rl, rf, rl);
	return -ENOENT;
}

int dw_line_cb(struct dw_ctx *c, const char *fname, int lineno, Dwarf_Addr addr)
{
	Dwarf_Die sc;
	int ret;

	if (lineno != c->lno || dw_tailcmp(fname, c->fname))
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
	if (!hit || dw_tailcmp(fname, c->fname))
		return 0;
	c->lno = lineno;
	if (!best_scope(c, addr, &sc)) {
		pc_err("%s: no function contains line %d at 0x%" PRIx64, c->bin, lineno, addr);
		return -ENOENT;
	}
	return add_location(c, &sc, addr);
}

int find_lazy(struct dw_ctx *c, Dwarf_Die *rt)
{
	int ret;

	if (!c->lazy_done && (ret = load_lazy(c)))
		return ret;
	return walk_lines(c, rt, lazy_cb);
}
