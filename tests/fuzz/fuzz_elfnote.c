// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the ELF parser. The input is a whole file, parsed
 * the way the module does it (header, program headers, build-id in each
 * PT_NOTE by its p_align), and also, as raw note bytes, handed straight to
 * the note walker. Besides ASan/UBSan it checks the promises the module
 * relies on: accepted PT_LOAD/PT_NOTE ranges lie inside the file, a found
 * build-id is 1..max bytes and lies inside the buffer, the range
 * helpers agree with the segment table, and section headers the module
 * accepts (for SDT records) lie inside the file, their names too.
 */
#include <stdio.h>
#include <stdlib.h>

#include "elfnote.h"
#include "fuzz_check.h"

static struct pc_elf_info info;

static void check_build_id(const uint8_t *buf, size_t len, bool be, u64 align)
{
	u8 id[PROBECACHE_BUILD_ID_MAX];
	const char *why = NULL;
	size_t id_len = 99;
	int ret;

	ret = pc_elf_find_build_id_align(buf, len, be, align, id, sizeof(id), &id_len, &why);
	if (ret) {
		CHECK((ret == -ENOENT || ret == -ENOEXEC) && why && !id_len);
		return;
	}
	CHECK(id_len >= 1 && id_len <= sizeof(id) && len >= 16 + id_len);
	CHECK(memmem(buf, len, id, id_len));
}

/* Whatever pc_elf_in_load accepts must be inside some flagged PT_LOAD's file bytes. */
static void check_ranges(u64 off, u64 len)
{
	const struct pc_elf_seg *s;
	bool in = false;
	unsigned int i;
	u64 va;

	for (i = 0; i < info.nsegs; i++) {
		s = &info.segs[i];
		if (s->type == PC_PT_LOAD && (s->flags & PC_PF_X) && off >= s->offset &&
		    off - s->offset < s->filesz && (len ? len : 1) <= s->filesz - (off - s->offset))
			in = true;
	}
	CHECK(pc_elf_in_load(&info, off, len, PC_PF_X) == in);
	if (!pc_elf_off_to_vaddr(&info, off, &va)) {
		for (i = 0, in = false; i < info.nsegs; i++) {
			s = &info.segs[i];
			if (s->type == PC_PT_LOAD && off >= s->offset &&
			    off - s->offset < s->memsz && va == s->vaddr + (off - s->offset))
				in = true;
		}
		CHECK(in);
	}
}

/* The SDT-record path: section headers, their names, the SDT note walk. */
static void check_sections(const uint8_t *data, size_t size)
{
	struct pc_elf_sect sect, strs;
	const char *why = NULL, *name;
	size_t len;
	unsigned int i;
	u64 sem = 0, off;

	if (pc_elf_shdr_table(&info, &why)) {
		CHECK(why);
		return;
	}
	len = (size_t)info.shnum * info.shentsize;
	CHECK(info.shoff <= size && len <= size - info.shoff);
	if (pc_elf_parse_shdr(data + info.shoff, len, &info, info.shstrndx, &strs, &why))
		return;
	for (i = 0; i < info.shnum; i++) {
		if (pc_elf_parse_shdr(data + info.shoff, len, &info, i, &sect, &why))
			continue;
		CHECK(sect.type == 8 || (sect.offset <= size && sect.size <= size - sect.offset));
		if (strs.type == 8)
			continue;
		name = pc_elf_sect_name((const char *)data + strs.offset, strs.size, &sect);
		CHECK(!name || (name >= (const char *)data + strs.offset &&
				name + strlen(name) < (const char *)data + strs.offset + strs.size));
		if (sect.type == 8 || pc_sdt_find_site(data + sect.offset, sect.size, &info,
						       i & 1, sect.addr, sect.addr, &sem, &why))
			continue;
		/* A semaphore the module would increment lies in the file's bytes. */
		if (sem && !pc_elf_vaddr_to_off(&info, sem, &off))
			CHECK(off < size);
	}
}

static void parse_file(const uint8_t *data, size_t size)
{
	const struct pc_elf_seg *s;
	const char *why = NULL;
	unsigned int i;

	info.file_size = size;
	if (pc_elf_parse_ehdr(data, size < 64 ? size : 64, &info, &why)) {
		CHECK(why);
		return;
	}
	CHECK(info.phnum && info.phnum <= PC_ELF_MAX_PHDRS && info.phoff <= size &&
	      (u64)info.phnum * info.phentsize <= size - info.phoff);
	if (pc_elf_parse_phdrs(data + info.phoff, (size_t)info.phnum * info.phentsize,
			       &info, &why)) {
		CHECK(why && !info.nsegs);
		return;
	}
	for (i = 0; i < info.nsegs; i++) {
		s = &info.segs[i];
		if (s->type != PC_PT_LOAD && s->type != PC_PT_NOTE)
			continue;
		CHECK(s->offset <= size && s->filesz <= size - s->offset);
		if (s->type == PC_PT_NOTE)
			check_build_id(data + s->offset, s->filesz < PC_ELF_MAX_NOTE_BYTES ?
				       s->filesz : PC_ELF_MAX_NOTE_BYTES, info.big_endian,
				       s->align);
		else
			check_ranges(s->offset + s->filesz / 2, s->filesz / 4);
	}
	check_ranges(size / 2, 1);
	check_sections(data, size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	parse_file(data, size);
	/* The same bytes as a note segment, byte order and layout from byte 0. */
	if (size)
		check_build_id(data + 1, size - 1, data[0] & 1, data[0] & 2 ? 8 : 4);
	return 0;
}
