/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A verified record as the kernel's own uprobe event: its uprobe_events
 * line (Documentation/design.md, "Events").
 */
#ifndef PC_UPROBEDEF_H
#define PC_UPROBEDEF_H

#include <stddef.h>

#include "record.h"
#include "elfnote.h"

/* What pc_uprobe_def() could not carry over: args with no uprobe_events form. */
struct pc_uprobe_dropped {
	unsigned int n;
	char names[PROBECACHE_MAX_ARGS][PROBECACHE_ARG_NAME_MAX + 1];
	const char *why[PROBECACHE_MAX_ARGS];
};

/*
 * What the kernel's uprobe events cannot fetch right: @+FILEOFF on kernels
 * before 6.1 (Debian's 5.10 reads elsewhere: tests/vm t/11-kmod-hits).
 */
#define PC_UPROBE_NO_FILEOFF	(1u << 0)

/*
 * The uprobe_events line defining @rec's probe at @path (the name the
 * kernel resolves: the verified file's, see the caller), in @buf of @size.
 * @elf: the file's program headers, for @+FILEOFF args; @flags: what the
 * kernel cannot fetch (PC_UPROBE_*), dropped and named in @drop. Returns
 * the length, -ENOSPC if @buf is too small, -ERANGE if an offset is in no
 * PT_LOAD (@drop->why[0] says which), -EINVAL for an inconsistent record.
 */
int pc_uprobe_def(const struct pc_record *rec, const struct pc_elf_info *elf,
		  unsigned int flags, const char *path, char *buf, size_t size,
		  struct pc_uprobe_dropped *drop);

/* "-:GROUP/EVENT": removes the event (the kernel refuses one in use). */
int pc_uprobe_undef(const char *group, const char *event, char *buf, size_t size);

#endif
