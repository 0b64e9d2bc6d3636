// SPDX-License-Identifier: GPL-2.0
/*
 * A record in uprobe_events' grammar. The two grammars share registers,
 * dereferences, immediates, $retval and types (record.c formats args the
 * way trace_probe.c parses them); they differ in two operands:
 *
 * - @+OFF. In a record, OFF is the file offset of what is fetched (an SDT
 *   note's %rip-relative operand). trace_uprobe adds OFF to the probe's
 *   runtime address minus the probe's file offset (translate_user_vaddr()),
 *   which names the same byte only when both lie in segments with the same
 *   vaddr - offset. So OFF becomes vaddr(OFF) - (vaddr(probe) - probe):
 *   the file offset the kernel's arithmetic needs. It differs on a non-PIE
 *   python3.11, whose data segment's vaddr - offset is not its text's.
 * - +D(%base,%index,S), an SDT operand with an index register: no form in
 *   uprobe_events. The arg is dropped and named, as perf drops it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "uprobedef.h"

/* @a's @+ offset for trace_uprobe, or -ERANGE. */
static int fileoff_for_kernel(const struct pc_elf_info *elf, u64 probe, u64 *off)
{
	u64 vprobe, vdata;

	if (pc_elf_off_to_vaddr(elf, probe, &vprobe) ||
	    pc_elf_off_to_vaddr(elf, *off, &vdata))
		return -ERANGE;
	/* vdata - vprobe + probe, which a data segment before the text can make negative */
	if (vdata < vprobe && vprobe - vdata > probe)
		return -ERANGE;
	*off = vdata - vprobe + probe;
	return 0;
}

static void drop_arg(struct pc_uprobe_dropped *drop, const struct pc_arg *a, const char *why)
{
	snprintf(drop->names[drop->n], sizeof(drop->names[0]), "%s", a->name);
	drop->why[drop->n++] = why;
}

/* @rec's args as the kernel will fetch them, into @out. */
static int kernel_args(const struct pc_record *rec, const struct pc_elf_info *elf,
		       unsigned int flags, struct pc_record *out,
		       struct pc_uprobe_dropped *drop)
{
	unsigned int i;

	*out = *rec;
	out->nargs = 0;
	for (i = 0; i < rec->nargs; i++) {
		struct pc_arg a = rec->args[i];

		if (a.kind == PC_BASE_SIB) {
			drop_arg(drop, &a, "an index register has no uprobe_events form");
			continue;
		}
		if (a.kind == PC_BASE_FILEOFF && (flags & PC_UPROBE_NO_FILEOFF)) {
			drop_arg(drop, &a, "this kernel's uprobe events read @+ at the wrong address (before 6.1)");
			continue;
		}
		if (a.kind == PC_BASE_FILEOFF && fileoff_for_kernel(elf, rec->offset, &a.fileoff)) {
			drop->n = 0;
			drop_arg(drop, &a, "@+ offset or probe offset in no PT_LOAD");
			return -ERANGE;
		}
		out->args[out->nargs++] = a;
	}
	return 0;
}

int pc_uprobe_def(const struct pc_record *rec, const struct pc_elf_info *elf,
		  unsigned int flags, const char *path, char *buf, size_t size,
		  struct pc_uprobe_dropped *drop)
{
	struct pc_record k;
	char ref[32] = "";
	int n, ret;

	memset(drop, 0, sizeof(*drop));
	ret = kernel_args(rec, elf, flags, &k, drop);
	if (ret)
		return ret;
	if (rec->ref_ctr_offset)
		snprintf(ref, sizeof(ref), "(0x%" PRIx64 ")", (uint64_t)rec->ref_ctr_offset);
	n = snprintf(buf, size, "%c:%s/%s %s:0x%" PRIx64 "%s%s", rec->retprobe ? 'r' : 'p',
		     rec->group, rec->event, path, (uint64_t)rec->offset, ref,
		     k.nargs ? " " : "");
	if (n < 0 || (size_t)n >= size)
		return -ENOSPC;
	ret = pc_format_args(&k, buf + n, size - n);
	return ret < 0 ? ret : n + ret;
}

int pc_uprobe_undef(const char *group, const char *event, char *buf, size_t size)
{
	int n = snprintf(buf, size, "-:%s/%s", group, event);

	return n < 0 || (size_t)n >= size ? -ENOSPC : n;
}
