// SPDX-License-Identifier: GPL-2.0
/*
 * USDT fast path (Documentation/design.md "USDT fast path"): on x86-64
 * kernels with the uprobe syscall, a uprobe on the 10-byte nop that
 * follows an SDT note's 1-byte nop is turned, after its first hit, into
 * "lea -0x80(%rsp),%rsp; call <uprobe trampoline>": no int3, no single
 * step. The CLI arms such a site at the note's pc + 1; the module accepts
 * exactly that shift, and only over those 11 bytes.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "cache_file.h"
#include "elfnote.h"
#include "fastpath.h"

#define PC_NR_UPROBE_X86_64	336	/* arch/x86/entry/syscalls/syscall_64.tbl: uprobe */

bool pc_uprobe_syscall(void)
{
#if defined(__x86_64__)
	static int have = -1;

	/* Outside the kernel's trampoline it only says it exists: EPROTO. */
	if (have < 0)
		have = syscall(PC_NR_UPROBE_X86_64) == -1 && errno == EPROTO;
	return have;
#else
	return false;
#endif
}

bool pc_sdt_fast_at(const char *path, uint64_t off)
{
	unsigned char ehdr[EI_NIDENT + 4], site[PC_SDT_FAST_LEN];
	bool ok = false;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return false;
	/* ELFCLASS64, little-endian, e_machine EM_X86_64 (the uprobe core's x86_64 only) */
	if (pread(fd, ehdr, sizeof(ehdr), 0) == (ssize_t)sizeof(ehdr) &&
	    !memcmp(ehdr, ELFMAG, SELFMAG) && ehdr[EI_CLASS] == ELFCLASS64 &&
	    ehdr[EI_DATA] == ELFDATA2LSB && ehdr[EI_NIDENT + 2] == (EM_X86_64 & 0xff) &&
	    ehdr[EI_NIDENT + 3] == (EM_X86_64 >> 8) &&
	    pread(fd, site, sizeof(site), (off_t)off) == (ssize_t)sizeof(site))
		ok = pc_sdt_fast_site(site, sizeof(site));
	close(fd);
	return ok;
}

uint64_t pc_sdt_arm_offset(const char *path, uint64_t off)
{
	return pc_uprobe_syscall() && pc_sdt_fast_at(path, off) ? off + 1 : off;
}

bool pc_entry_armed_at(const struct pc_entry *e, uint64_t off)
{
	return off == e->offset ||
	       (e->kind == PC_ENTRY_SDT && !e->retprobe && off == e->offset + 1);
}
