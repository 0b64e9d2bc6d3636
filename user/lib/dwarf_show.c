// SPDX-License-Identifier: GPL-2.0
/*
 * Discovery (show -F, -L; dwarf.h): the functions a probe can name and the
 * lines of one function a probe can go on, from the same DWARF and the same
 * rules as the resolver (is_func_def, dw_sym_func, dw_match_name,
 * walk_lines), so that
 * what is shown is what `add` accepts. -V needs no code here: it resolves
 * "POINT $vars" like add does.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>

#include "dwarf_int.h"
#include "pc.h"

struct fn_walk {
	const char *glob;
	struct pc_dw_func *v;
	size_t n, cap;
	int err;
};

static int fn_push(struct fn_walk *w, Dwarf_Die *sp)
{
	struct pc_dw_func *f;
	int line = 0;

	f = pc_grow(w->v, &w->cap, w->n, sizeof(*f), 256);
	if (!f)
		return -ENOMEM;
	w->v = f;
	f = &w->v[w->n++];
	dwarf_decl_line(sp, &line);
	/* both strings live in libdw's sections, as long as the pc_dw_file */
	f->name = dwarf_diename(sp);
	f->file = dwarf_decl_file(sp);
	f->line = line;
	return 0;
}

static int fn_cb(Dwarf_Die *sp, void *data)
{
	struct fn_walk *w = data;

	if (!is_func_def(sp) || !dwarf_diename(sp) || !pc_glob_match(dwarf_diename(sp), w->glob))
		return DWARF_CB_OK;
	w->err = fn_push(w, sp);
	return w->err ? DWARF_CB_ABORT : DWARF_CB_OK;
}

static int fn_cmp(const void *a, const void *b)
{
	const struct pc_dw_func *x = a, *y = b;

	return strcmp(x->name, y->name) ?: strcmp(x->file ?: "", y->file ?: "") ?: x->line - y->line;
}

/* Sorted, one entry per name and declaration (a static inline is in many CUs). */
static size_t fn_uniq(struct pc_dw_func *v, size_t n)
{
	size_t k = 0;

	qsort(v, n, sizeof(*v), fn_cmp);
	for (size_t i = 0; i < n; i++)
		if (!k || fn_cmp(&v[k - 1], &v[i]))
			v[k++] = v[i];
	return k;
}

static int name_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct pc_dw_func *)elem)->name);
}

/*
 * ELF aliases add resolves too (malloc is __libc_malloc's): a function
 * symbol of another name where a DWARF function starts. Versioned names
 * (malloc@@GLIBC_2.2.5) are left out: the plain one is in .symtab, and the
 * version is no part of a probe definition.
 */
static int add_aliases(struct pc_dw_file *f, struct fn_walk *w)
{
	struct dw_ctx c = f->base;
	size_t ndw = w->n;
	int nsym = dwfl_module_getsymtab(c.mod);

	for (int i = 1; i < nsym && !w->err; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		Dwarf_Die sp;
		const char *name = dwfl_module_getsym_info(c.mod, i, &sym, &addr, NULL, NULL, NULL);

		if (!name || strchr(name, '@') || !sym.st_value ||
		    GELF_ST_TYPE(sym.st_info) != STT_FUNC || !pc_glob_match(name, w->glob) ||
		    bsearch(name, w->v, ndw, sizeof(*w->v), name_cmp) ||
		    !dw_sym_func(&c, addr, &sp))
			continue;
		w->err = fn_push(w, &sp);
		if (!w->err)
			w->v[w->n - 1].name = name;	/* in the symbol table, as long as the file */
	}
	return w->err;
}

int pc_dw_functions(struct pc_dw_file *f, const char *glob, struct pc_dw_func **out,
		    size_t *n)
{
	struct fn_walk w = { .glob = glob ?: "*" };
	Dwarf_Off off = 0, next;
	Dwarf_Die cu;
	size_t hl;

	while (!w.err && dwarf_nextcu(f->base.dw, off, &next, &hl, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(f->base.dw, off + hl, &cu))
			dwarf_getfuncs(&cu, fn_cb, &w, 0);
		off = next;
	}
	w.n = w.v ? fn_uniq(w.v, w.n) : 0;	/* sorted: add_aliases looks names up */
	if (!w.err)
		add_aliases(f, &w);
	if (w.err) {
		free(w.v);
		return w.err;
	}
	*out = w.v;
	*n = w.v ? fn_uniq(w.v, w.n) : 0;
	return 0;
}

/* ---- -L ---- */

struct line_find {
	const char *name;
	Dwarf_Die *sp;
	bool found;
};

static int line_find_cb(Dwarf_Die *sp, void *data)
{
	struct line_find *lf = data;

	if (!is_func_def(sp) || !dw_match_name(sp, lf->name))
		return DWARF_CB_OK;
	*lf->sp = *sp;
	lf->found = true;
	return DWARF_CB_ABORT;
}

/* The function an ELF alias @name names (qsort_r: __qsort_r), as add finds it. */
static bool find_alias(struct dw_ctx *c, const char *name, Dwarf_Die *sp)
{
	int nsym = dwfl_module_getsymtab(c->mod);

	for (int i = 1; i < nsym; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *s = dwfl_module_getsym_info(c->mod, i, &sym, &addr, NULL, NULL, NULL);

		if (s && !strcmp(s, name) && sym.st_value && GELF_ST_TYPE(sym.st_info) == STT_FUNC &&
		    dw_sym_func(c, addr, sp))
			return true;
	}
	return false;
}

/* The first CU defining @name (the one a plain FUNC:RLN probes first, as perf). */
static bool find_func(struct dw_ctx *c, const char *name, Dwarf_Die *sp)
{
	struct line_find lf = { name, sp, false };
	Dwarf_Off off = 0, next;
	size_t hl;

	while (!lf.found && dwarf_nextcu(c->dw, off, &next, &hl, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(c->dw, off + hl, &c->cu))
			dwarf_getfuncs(&c->cu, line_find_cb, &lf, 0);
		off = next;
	}
	return lf.found || find_alias(c, name, sp);
}

/* A line walk's context and where its lines go (line_keep gets the context). */
struct line_walk {
	struct dw_ctx c;
	struct pc_dw_lines *out;
	struct pc_dw_lines bad;	/* lines with a statement that is another line's */
};

static bool has_line(const struct pc_dw_lines *l, int lineno)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->line[i] == lineno)
			return true;
	return false;
}

static int push_line(struct pc_dw_lines *l, int lineno)
{
	int *v;

	if (has_line(l, lineno))
		return 0;
	v = realloc(l->line, (l->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	l->line = v;
	l->line[l->n++] = lineno;
	return 0;
}

/*
 * walk_lines() callback: the lines of the function's own file. A line one of
 * whose statements is another line's is refused by FUNC:RLN (check_line), so
 * it is left out however many good statements it has.
 */
static int line_keep(struct dw_ctx *c, const char *fname, int lineno, Dwarf_Addr addr)
{
	struct line_walk *w = (struct line_walk *)c;	/* c is its first member */

	if (!fname || dw_tailcmp(fname, w->out->file) || lineno < w->out->decl_line)
		return 0;
	if (!dw_line_own(c, fname, lineno, addr))
		return push_line(&w->bad, lineno);
	return push_line(w->out, lineno);
}

/* Drop the bad lines from @l. */
static void drop_bad(struct pc_dw_lines *l, const struct pc_dw_lines *bad)
{
	size_t k = 0;

	for (size_t i = 0; i < l->n; i++)
		if (!has_line(bad, l->line[i]))
			l->line[k++] = l->line[i];
	l->n = k;
}

static int int_cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

int pc_dw_func_lines(struct pc_dw_file *f, const char *func, struct pc_dw_lines *out)
{
	struct line_walk w = { .c = f->base, .out = out };
	Dwarf_Die sp;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!find_func(&w.c, func, &sp)) {
		pc_err("%s: no function %s in %s", f->meta.path, func, f->meta.debuginfo_path);
		return -ENOENT;
	}
	snprintf(out->func, sizeof(out->func), "%s", dwarf_diename(&sp));
	snprintf(out->file, sizeof(out->file), "%s", dwarf_decl_file(&sp) ?: "");
	dwarf_decl_line(&sp, &out->decl_line);
	ret = walk_lines(&w.c, &sp, line_keep);
	drop_bad(out, &w.bad);
	pc_dw_lines_free(&w.bad);
	if (ret) {
		pc_dw_lines_free(out);
		return ret;
	}
	qsort(out->line, out->n, sizeof(*out->line), int_cmp);
	return 0;
}

void pc_dw_lines_free(struct pc_dw_lines *l)
{
	free(l->line);
	l->line = NULL;
	l->n = 0;
}

const struct pc_dw_result *pc_dw_file_meta(const struct pc_dw_file *f)
{
	return &f->meta;
}
