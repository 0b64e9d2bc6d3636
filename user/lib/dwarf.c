// SPDX-License-Identifier: GPL-2.0
/*
 * Probe points from DWARF. The search rules follow perf probe (6.1) so that
 * the same probe-definition gives the same places and fetch args; where
 * perf makes up a value (a variable optimized out at one of several
 * locations becomes \deade12d) or refuses (ELF aliases such as malloc of
 * __libc_malloc), we report or resolve instead.
 *
 * This unit: finding the probed functions by symbol, opening the binary and
 * its debuginfo, and the API of dwarf.h; the rest is in dwarf_*.c
 * (dwarf_int.h): dwarf_search.c searches a CU, dwarf_loc.c records a
 * location.
 */
#include <dirent.h>
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>

#include "canon.h"
#include "debuginfo.h"
#include "dwarf_int.h"
#include "pc.h"
#include "sdt.h"

static void hex_id(const void *p, int len, char out[41])
{
	const unsigned char *b = p;

	out[0] = '\0';
	if (len <= 0 || len > 20)
		return;
	for (int i = 0; i < len; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
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

bool dw_sym_func(struct dw_ctx *c, GElf_Addr addr, Dwarf_Die *sp)
{
	struct defn_search ds = { .mem = sp };
	GElf_Addr cubias;
	Dwarf_Die *cu = dwfl_module_addrdie(c->mod, addr, &cubias);

	if (!cu)
		return false;
	c->cu = *cu;
	ds.addr = addr - cubias;
	return dwarf_getfuncs(&c->cu, defn_cb, &ds, 0) > 0;
}

/*
 * No DWARF function of that name: it may be an ELF alias (malloc ->
 * __libc_malloc). Find the symbol and the DWARF function starting there.
 */
static int find_by_symbol(struct dw_ctx *c)
{
	int nsym = dwfl_module_getsymtab(c->mod);

	for (int i = 1; i < nsym; i++) {
		Dwarf_Die sp;
		GElf_Sym sym;
		GElf_Addr addr;
		const char *name = dwfl_module_getsym_info(c->mod, i, &sym, &addr, NULL, NULL,
							   NULL);

		if (!name || !sym_name_is(name, c->pd->function) || !sym.st_value)
			continue;
		if (GELF_ST_TYPE(sym.st_info) == STT_GNU_IFUNC) {
			pc_err("%s: %s is a GNU indirect function (its symbol is the resolver); "
			       "probe the implementation it selects", c->bin, name);
			return -EINVAL;
		}
		if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || !dw_sym_func(c, addr, &sp))
			continue;
		pc_info("%s: %s is an ELF alias of %s", c->bin, name, dwarf_diename(&sp));
		c->found = true;
		c->fname = dwarf_decl_file(&sp);
		return func_matched(c, &sp);
	}
	return 0;
}

/* ---- debuginfod, open ---- */

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
	if (separate && !c->readonly)	/* the next resolve maps it uncompressed */
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

/* ---- public API (dwarf.h) ---- */

static int search_all(struct dw_ctx *c, struct pc_dw_file *f)
{
	Dwarf_Off off = 0, next;
	size_t hl;
	int ret = 0;

	if (index_fits(c->pd) && !f->idx)
		ret = dw_get_index(f);
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

static int open_file(const char *binary, bool readonly, struct pc_dw_file **out)
{
	struct pc_dw_file *f = calloc(1, sizeof(*f));
	int ret;

	*out = NULL;
	if (!f)
		return -ENOMEM;
	f->base.readonly = readonly;
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

int pc_dw_open(const char *binary, struct pc_dw_file **f)
{
	return open_file(binary, false, f);
}

int pc_dw_open_readonly(const char *binary, struct pc_dw_file **f)
{
	return open_file(binary, true, f);
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
