/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ELF header / program header / note parsing over untrusted bytes.
 * Plain C: built into probecache.ko and, unchanged, into host tests.
 * The module reads the bytes with kernel_read() from the very file it
 * registers; this code only interprets them, bounds-checking every field.
 */
#ifndef _PC_ELFNOTE_H
#define _PC_ELFNOTE_H

#include "pc_types.h"

#define PC_ELF_MAX_PHDRS	64	/* more than any real binary; caps kernel_read size */
#define PC_ELF_MAX_NOTE_BYTES	(16 << 20)	/* PT_NOTE bytes read per segment at most */
#define PC_ELF_MAX_SHDRS	4096	/* section headers read at most */

/* Same values as <elf.h> / <linux/elf.h>, for code that includes neither. */
#define PC_PT_LOAD		1
#define PC_PT_NOTE		4
#define PC_PF_X			0x1
#define PC_PF_W			0x2
#define PC_PF_R			0x4

struct pc_elf_seg {
	u32 type;	/* PT_LOAD, PT_NOTE, ... */
	u32 flags;	/* PF_X | PF_W | PF_R */
	u64 offset, vaddr, filesz, memsz;
	u64 align;	/* p_align: pass to pc_elf_find_build_id_align() for PT_NOTE */
};

struct pc_elf_info {
	bool is64, big_endian;
	u16 machine;
	u64 phoff, shoff;
	u16 phentsize, phnum;
	u16 shentsize, shnum, shstrndx;
	u64 file_size;		/* size of the file, for range checks */
	unsigned int nsegs;
	struct pc_elf_seg segs[PC_ELF_MAX_PHDRS];
};

/*
 * Parse the ELF header in @buf (@len bytes from file offset 0). Fills the
 * header fields of @info; @file_size must be set by the caller.
 * Returns 0, -ENOEXEC (not ELF / unsupported), with @why set.
 */
int pc_elf_parse_ehdr(const void *buf, size_t len, struct pc_elf_info *info,
		      const char **why);

/* Parse @info->phnum program headers from @buf (@len bytes read at phoff). */
int pc_elf_parse_phdrs(const void *buf, size_t len, struct pc_elf_info *info,
		       const char **why);

/*
 * Find NT_GNU_BUILD_ID (name "GNU") in the note bytes @buf of @len.
 * Copies up to @max bytes into @id, sets @id_len. Returns 0, -ENOENT if no
 * build-id note, -ENOEXEC on malformed notes (with @why).
 */
int pc_elf_find_build_id(const void *buf, size_t len, bool big_endian,
			 u8 *id, size_t max, size_t *id_len, const char **why);

/*
 * The same for a PT_NOTE whose p_align is @align: 8 selects the 8-byte
 * note layout (ELF64 .note.gnu.property segments: descriptor and next
 * note 8-aligned), anything else the usual 4-byte layout, which is what
 * pc_elf_find_build_id() always uses (as the kernel's build_id_parse does).
 */
int pc_elf_find_build_id_align(const void *buf, size_t len, bool big_endian,
			       u64 align, u8 *id, size_t max, size_t *id_len,
			       const char **why);

/* Is [off, off+len) inside the file range of a PT_LOAD with all of @flags? */
bool pc_elf_in_load(const struct pc_elf_info *info, u64 off, u64 len, u32 flags);

/*
 * Translate a file offset into the ELF virtual address it loads at,
 * accepting offsets up to p_offset + p_memsz (for .bss). Returns 0 or -ERANGE.
 */
int pc_elf_off_to_vaddr(const struct pc_elf_info *info, u64 off, u64 *vaddr);

/*
 * Translate an ELF virtual address into its file offset, within the file
 * range of a PT_LOAD (not its .bss tail). Returns 0 or -ERANGE.
 */
int pc_elf_vaddr_to_off(const struct pc_elf_info *info, u64 vaddr, u64 *off);

struct pc_elf_sect {
	u32 name;	/* offset into the section name string table */
	u32 type;
	u64 addr, offset, size;
};

/*
 * Is the section header table of @info (e_shoff, e_shnum, e_shentsize,
 * e_shstrndx from pc_elf_parse_ehdr()) sane and inside the file? 0 or
 * -ENOEXEC with @why. Extended numbering (e_shnum 0) counts as none.
 */
int pc_elf_shdr_table(const struct pc_elf_info *info, const char **why);

/* Section header @idx of the table @buf (@len bytes read at e_shoff). */
int pc_elf_parse_shdr(const void *buf, size_t len, const struct pc_elf_info *info,
		      unsigned int idx, struct pc_elf_sect *sect, const char **why);

/* @sect's name in the string table @strtab of @len bytes; NULL if outside. */
const char *pc_elf_sect_name(const char *strtab, size_t len,
			     const struct pc_elf_sect *sect);

/*
 * Find the SDT probe (a "stapsdt" note of .note.stapsdt, @len bytes in
 * @notes) whose address is @pc, after the prelink adjustment when the file
 * has .stapsdt.base (@have_base, at @base_addr). Sets *@sem to that probe's
 * semaphore address, adjusted the same way (0: none). Returns 0, -ENOENT
 * if no note has @pc, -ENOEXEC (with @why) if a note header is malformed.
 */
int pc_sdt_find_site(const void *notes, size_t len, const struct pc_elf_info *info,
		     bool have_base, u64 base_addr, u64 pc, u64 *sem,
		     const char **why);

/*
 * The x86-64 USDT site whose uprobe the kernel (7.x) can turn into a call
 * to its uprobe trampoline: the note's 1-byte nop, then the 10-byte
 * "nopw %cs:0x0(%rax,%rax,1)" (66 2e 0f 1f 84 00 00 00 00 00). The uprobe
 * then belongs at the note's pc + 1. True iff the first PC_SDT_FAST_LEN of
 * @len bytes are exactly that; see Documentation/design.md "USDT fast path".
 */
#define PC_SDT_FAST_LEN		11
bool pc_sdt_fast_site(const u8 *bytes, size_t len);

#endif /* _PC_ELFNOTE_H */
