// SPDX-License-Identifier: GPL-2.0
/*
 * DIE helpers for the dwarf*.c units, with the same meaning as perf's
 * dwarf-aux, and the one ELF helper they share (addr_to_off).
 */
#include <errno.h>
#include <gelf.h>
#include <string.h>

#include <dwarf.h>
#include <elfutils/libdw.h>

#include "dwarf_int.h"

Dwarf_Die *dw_find_child(Dwarf_Die *rt, int (*cb)(Dwarf_Die *, void *), void *data,
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
		if ((r & CB_CHILD) && dw_find_child(mem, cb, data, &child)) {
			*mem = child;
			return mem;
		}
	} while ((r & CB_SIBLING) && dwarf_siblingof(mem, mem) == 0);
	return NULL;
}

int die_entrypc(Dwarf_Die *d, Dwarf_Addr *addr)
{
	Dwarf_Attribute a;
	Dwarf_Addr base, end;

	if (dwarf_entrypc(d, addr) == 0)
		return 0;
	if (!dwarf_attr(d, DW_AT_ranges, &a))
		return -ENOENT;
	return dwarf_ranges(d, 0, &base, addr, &end) < 0 ? -ENOENT : 0;
}

bool is_func_def(Dwarf_Die *d)
{
	Dwarf_Attribute a;
	Dwarf_Addr addr;

	if (dwarf_tag(d) != DW_TAG_subprogram || dwarf_attr(d, DW_AT_declaration, &a))
		return false;
	return dwarf_attr(d, DW_AT_inline, &a) || die_entrypc(d, &addr) == 0;
}

bool is_func_instance(Dwarf_Die *d)
{
	Dwarf_Attribute a;
	Dwarf_Addr tmp;
	int tag = dwarf_tag(d);

	if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
		return false;
	return dwarf_entrypc(d, &tmp) == 0 || dwarf_attr(d, DW_AT_ranges, &a);
}

bool dw_match_name(Dwarf_Die *d, const char *glob)
{
	Dwarf_Attribute a;
	const char *n = dwarf_diename(d);

	if (n && pc_glob_match(n, glob))
		return true;
	n = dwarf_attr_integrate(d, DW_AT_linkage_name, &a) ? dwarf_formstring(&a) : NULL;
	return n && pc_glob_match(n, glob);
}

/* 0 if the shorter string is a tail of the longer (perf's strtailcmp). */
int dw_tailcmp(const char *a, const char *b)
{
	size_t i = a ? strlen(a) : 0, j = b ? strlen(b) : 0;

	if (!a || !b)
		return -1;
	while (i && j)
		if (a[--i] != b[--j])
			return 1;
	return 0;
}

int udata_attr(Dwarf_Die *d, unsigned int name, Dwarf_Word *v)
{
	Dwarf_Attribute a;

	if (!dwarf_attr_integrate(d, name, &a) || dwarf_formudata(&a, v))
		return -ENOENT;
	return 0;
}

const char *call_file(Dwarf_Die *in)
{
	Dwarf_Die cu;
	Dwarf_Files *files;
	Dwarf_Word idx;

	if (udata_attr(in, DW_AT_call_file, &idx) || !dwarf_diecu(in, &cu, NULL, NULL) ||
	    dwarf_getsrcfiles(&cu, &files, NULL))
		return NULL;
	return dwarf_filesrc(files, idx, NULL, NULL);
}

int call_line(Dwarf_Die *in)
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
Dwarf_Die *find_realfunc(Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Die *mem)
{
	struct addr_search as = { addr, mem };

	return dwarf_getfuncs(cu, realfunc_cb, &as, 0) ? mem : NULL;
}

int inline_at_cb(Dwarf_Die *d, void *data)
{
	Dwarf_Addr *addr = data;

	if (dwarf_tag(d) == DW_TAG_inlined_subroutine && dwarf_haspc(d, *addr) > 0)
		return CB_END;
	return CB_CONTINUE;
}

/* Innermost inlined instance in @sp containing @addr. */
Dwarf_Die *find_inline_at(Dwarf_Die *sp, Dwarf_Addr addr, Dwarf_Die *mem)
{
	Dwarf_Die tmp, *d = dw_find_child(sp, inline_at_cb, &addr, &tmp);

	if (!d)
		return NULL;
	while (d) {
		*mem = *d;
		d = dw_find_child(mem, inline_at_cb, &addr, &tmp);
	}
	return mem;
}

Dwarf_Die *real_type(Dwarf_Die *d, Dwarf_Die *mem, bool skip_typedef)
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

/* ---- ELF helpers ---- */

/* File offset of link-time address @addr, in an executable PT_LOAD if @exec. */
int addr_to_off(Elf *elf, uint64_t addr, bool exec, uint64_t *off)
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
