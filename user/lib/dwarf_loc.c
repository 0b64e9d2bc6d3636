// SPDX-License-Identifier: GPL-2.0
/*
 * One probe location (add_location): its event name, the instruction
 * boundary check and its fetch args (dwarf_args.c), recorded in the result.
 * Called by the line walk (dwarf_lines.c) and the CU search (dwarf_search.c).
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

/* ---- locations ---- */

bool is_glob(const char *s)
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

int add_location(struct dw_ctx *c, Dwarf_Die *sc, Dwarf_Addr addr)
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
	snprintf(l->func, sizeof(l->func), "%s", dwarf_diename(&sp) ?: "");
	l->func_off = die_entrypc(&sp, &entry) ? 0 : addr - entry;
	l->ndropped = dropped;
	l->uprobe_args = strdup(b.up);
	l->rec_args = strdup(b.rec);
	r->nlocs++;
	return l->uprobe_args && l->rec_args ? 0 : -ENOMEM;
}
