// SPDX-License-Identifier: GPL-2.0
/* The function index of a debuginfo: which CUs define a name, built or saved once. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>

#include "debuginfo.h"
#include "dwarf_int.h"
#include "pc.h"

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
	struct fn_ref *v;

	if (!name)
		return 0;
	v = pc_grow(f->idx, &w->cap, f->nidx, sizeof(*v), 4096);
	if (!v)
		return -ENOMEM;
	f->idx = v;
	f->idx[f->nidx++] = (struct fn_ref){ name, w->cu };
	return 0;
}

/* The names func_cb's dw_match_name() compares: DW_AT_name and the linkage name. */
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
int dw_get_index(struct pc_dw_file *f)
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
bool index_fits(const struct pc_probe_desc *pd)
{
	return pd->function && !pd->file && !strpbrk(pd->function, "*?[\\");
}

int search_indexed(struct dw_ctx *c, const struct pc_dw_file *f)
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
