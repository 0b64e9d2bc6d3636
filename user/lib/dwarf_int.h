/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the dwarf*.c units share (dwarf.h is the public API): a query's
 * context, a fetch being built, and the functions one unit lends another.
 */
#ifndef _PC_DWARF_INT_H
#define _PC_DWARF_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include "dwarf.h"

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
	bool readonly;		/* write no copy or index into the cache directory (show) */
	int err;		/* carried out of libdw iteration callbacks */
};

/* Why an argument could not be fetched; filled by the converters. */
struct why {
	char msg[256];
};

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

/* Per-location output being built. */
struct argbuf {
	char up[2048];
	char rec[2048];
	size_t nup, nrec;
	unsigned int idx;	/* 1-based position, for unnamed args */
};

/* dwarf_die.c: DIE helpers (same meaning as perf's dwarf-aux) */

enum { CB_END, CB_CHILD = 1, CB_SIBLING = 2, CB_CONTINUE = 3 };

Dwarf_Die *dw_find_child(Dwarf_Die *rt, int (*cb)(Dwarf_Die *, void *), void *data,
			 Dwarf_Die *mem);
int die_entrypc(Dwarf_Die *d, Dwarf_Addr *addr);
bool is_func_def(Dwarf_Die *d);
bool is_func_instance(Dwarf_Die *d);
bool dw_match_name(Dwarf_Die *d, const char *glob);
int dw_tailcmp(const char *a, const char *b);
int udata_attr(Dwarf_Die *d, unsigned int name, Dwarf_Word *v);
const char *call_file(Dwarf_Die *in);
int call_line(Dwarf_Die *in);
Dwarf_Die *find_realfunc(Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Die *mem);
int inline_at_cb(Dwarf_Die *d, void *data);
Dwarf_Die *find_inline_at(Dwarf_Die *sp, Dwarf_Addr addr, Dwarf_Die *mem);
Dwarf_Die *real_type(Dwarf_Die *d, Dwarf_Die *mem, bool skip_typedef);
int addr_to_off(Elf *elf, uint64_t addr, bool exec, uint64_t *off);	/* ELF */

/* dwarf.c: the DWARF function defined at symbol address @addr (an ELF alias's), in c->cu */
bool dw_sym_func(struct dw_ctx *c, GElf_Addr addr, Dwarf_Die *sp);

/* dwarf_fetch.c: location expression -> fetch */
extern const char *const x86_regs[16];
int dw_whyf(struct why *w, int ret, const char *fmt, ...);
int var_location(struct dw_ctx *c, Dwarf_Die *var, Dwarf_Die *sp, Dwarf_Addr addr,
		 struct fetch *f, struct why *w);
int walk_fields(const struct pc_pp_arg *a, Dwarf_Die *var, struct fetch *f,
		Dwarf_Die *out, struct why *w);
int fetch_type(Dwarf_Die *tdie, const char *cast, const char *what, struct fetch *f,
	       struct why *w);

/* dwarf_args.c: the fetch args of one location */
int build_args(struct dw_ctx *c, Dwarf_Die *sc, Dwarf_Die *sp, Dwarf_Addr addr,
	       const char *ev, struct argbuf *b, unsigned int *dropped);

/* dwarf_lines.c: line walking, line and lazy probes */
typedef int (*line_fn)(struct dw_ctx *c, const char *fname, int lineno, Dwarf_Addr addr);
int walk_lines(struct dw_ctx *c, Dwarf_Die *rt, line_fn fn);
int dw_line_cb(struct dw_ctx *c, const char *fname, int lineno, Dwarf_Addr addr);
/* False if the statement at @addr is really another line's (perf refuses @lineno there). */
bool dw_line_own(struct dw_ctx *c, const char *fname, int lineno, Dwarf_Addr addr);
int find_lazy(struct dw_ctx *c, Dwarf_Die *rt);

/* dwarf_index.c: the function index */
int dw_get_index(struct pc_dw_file *f);
bool index_fits(const struct pc_probe_desc *pd);
int search_indexed(struct dw_ctx *c, const struct pc_dw_file *f);

/* dwarf_loc.c: one location */
bool is_glob(const char *s);
int add_location(struct dw_ctx *c, Dwarf_Die *sc, Dwarf_Addr addr);

/* dwarf_search.c: one CU */
int func_matched(struct dw_ctx *c, Dwarf_Die *sp);
int search_cu(struct dw_ctx *c);

#endif /* _PC_DWARF_INT_H */
