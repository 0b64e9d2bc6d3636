/* SPDX-License-Identifier: GPL-2.0 */
/* USDT fast path: where an SDT probe is armed (Documentation/design.md "USDT fast path"). */
#ifndef _PC_FASTPATH_H
#define _PC_FASTPATH_H

#include <stdbool.h>
#include <stdint.h>

/* Does the running kernel have the x86-64 uprobe syscall (336 answers EPROTO)? Cached. */
bool pc_uprobe_syscall(void);

/* Is the SDT note pc at file offset @off of @path (x86-64 ELF) the 11-byte fast site? */
bool pc_sdt_fast_at(const char *path, uint64_t off);

/* Where to arm the SDT probe at @off of @path: @off + 1 on a fast site the kernel optimizes. */
uint64_t pc_sdt_arm_offset(const char *path, uint64_t off);

/* Is a probe the kernel lists at @off the one of cache entry @e (at its offset or its fast site's)? */
struct pc_entry;
bool pc_entry_armed_at(const struct pc_entry *e, uint64_t off);

#endif /* _PC_FASTPATH_H */
