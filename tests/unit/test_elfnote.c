// SPDX-License-Identifier: GPL-2.0
/*
 * ELF parser (common/elfnote.c): synthetic images in all four class/byte
 * order combinations, note layouts (4- and 8-byte aligned), hostile
 * headers, program headers and notes, and real binaries from disk whose
 * build-id is cross-checked with libelf and readelf.
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfnote.h"
#include "tap.h"

#define IMG_SIZE	0x1100
#define NOTE_OFF	0x200
#define BSS_VADDR	0x401000

static const u8 bid[20] = {
	0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
};

static u8 img[IMG_SIZE];
static struct pc_elf_info info;
static const char *why;

static void wr16(u8 *p, bool be, u16 v)
{
	p[be ? 0 : 1] = v >> 8;
	p[be ? 1 : 0] = v & 0xff;
}

static void wr32(u8 *p, bool be, u32 v)
{
	wr16(p + (be ? 0 : 2), be, v >> 16);
	wr16(p + (be ? 2 : 0), be, v & 0xffff);
}

static void wr64(u8 *p, bool be, u64 v)
{
	wr32(p + (be ? 0 : 4), be, v >> 32);
	wr32(p + (be ? 4 : 0), be, v & 0xffffffff);
}

static void wraddr(u8 *p, bool is64, bool be, u64 v)
{
	if (is64)
		wr64(p, be, v);
	else
		wr32(p, be, (u32)v);
}

/* Appends a note at @off with @align layout; returns the offset after it. */
static size_t put_note(u8 *p, size_t off, bool be, size_t align, u32 type,
		       const char *name, u32 namesz, const u8 *desc, u32 descsz)
{
	wr32(p + off, be, namesz);
	wr32(p + off + 4, be, descsz);
	wr32(p + off + 8, be, type);
	memcpy(p + off + 12, name, namesz);
	off = (off + 12 + namesz + align - 1) & ~(align - 1);
	memcpy(p + off, desc, descsz);
	return (off + descsz + align - 1) & ~(align - 1);
}

static void put_phdr(u8 *p, bool is64, bool be, u32 type, u32 flags, u64 off, u64 vaddr,
		     u64 filesz, u64 memsz, u64 align)
{
	wr32(p, be, type);
	if (is64) {
		wr32(p + 4, be, flags);
		wr64(p + 8, be, off);
		wr64(p + 16, be, vaddr);
		wr64(p + 24, be, vaddr);
		wr64(p + 32, be, filesz);
		wr64(p + 40, be, memsz);
		wr64(p + 48, be, align);
	} else {
		wr32(p + 4, be, (u32)off);
		wr32(p + 8, be, (u32)vaddr);
		wr32(p + 12, be, (u32)vaddr);
		wr32(p + 16, be, (u32)filesz);
		wr32(p + 20, be, (u32)memsz);
		wr32(p + 24, be, flags);
		wr32(p + 28, be, (u32)align);
	}
}

/*
 * ET_DYN image: R+X PT_LOAD [0, 0x1000), RW PT_LOAD [0x1000, 0x1100) at
 * BSS_VADDR with 0x100 bytes of .bss, PT_NOTE at NOTE_OFF holding an
 * "Linux" note (6-byte name, so padding matters) and then the build-id.
 * Returns the PT_NOTE size.
 */
static size_t build_image(bool is64, bool be)
{
	u16 ehsize = is64 ? 64 : 52, phentsize = is64 ? 56 : 32;
	u8 *ph = img + ehsize;
	static const u8 ver[4] = { 1, 2, 3, 4 };
	size_t nlen;

	memset(img, 0, sizeof(img));
	memcpy(img, "\x7f" "ELF", 4);
	img[4] = is64 ? 2 : 1;
	img[5] = be ? 2 : 1;
	img[6] = 1;
	wr16(img + 16, be, 3);
	wr16(img + 18, be, is64 ? 62 : 3);
	wr32(img + 20, be, 1);
	wraddr(img + (is64 ? 32 : 28), is64, be, ehsize);
	wr16(img + (is64 ? 52 : 40), be, ehsize);
	wr16(img + (is64 ? 54 : 42), be, phentsize);
	wr16(img + (is64 ? 56 : 44), be, 3);
	nlen = put_note(img, NOTE_OFF, be, 4, 1, "Linux", 6, ver, 4);
	nlen = put_note(img, nlen, be, 4, 3, "GNU", 4, bid, 20) - NOTE_OFF;
	put_phdr(ph, is64, be, PC_PT_LOAD, PC_PF_R | PC_PF_X, 0, 0, 0x1000, 0x1000, 0x1000);
	put_phdr(ph + phentsize, is64, be, PC_PT_LOAD, PC_PF_R | PC_PF_W, 0x1000, BSS_VADDR,
		 0x100, 0x200, 0x1000);
	put_phdr(ph + 2 * phentsize, is64, be, PC_PT_NOTE, PC_PF_R, NOTE_OFF, NOTE_OFF, nlen,
		 nlen, 4);
	return nlen;
}

static int parse_all(size_t len)
{
	int ret;

	info.file_size = len;
	ret = pc_elf_parse_ehdr(img, len, &info, &why);
	if (ret)
		return ret;
	return pc_elf_parse_phdrs(img + info.phoff, len - info.phoff, &info, &why);
}

static void test_synthetic(bool is64, bool be)
{
	const char *tag = is64 ? (be ? "ELF64 BE" : "ELF64 LE") : (be ? "ELF32 BE" : "ELF32 LE");
	size_t nlen = build_image(is64, be), id_len = 0;
	u8 id[PROBECACHE_BUILD_ID_MAX];
	u64 va = 0;
	int ret;

	ret = parse_all(IMG_SIZE);
	TAP_OK(!ret && info.is64 == is64 && info.big_endian == be && info.nsegs == 3 &&
	       info.machine == (is64 ? 62 : 3) && info.phnum == 3 &&
	       info.phoff == (is64 ? 64u : 52u), "%s: headers parse", tag);
	TAP_OK(info.segs[1].type == PC_PT_LOAD && info.segs[1].flags == (PC_PF_R | PC_PF_W) &&
	       info.segs[1].offset == 0x1000 && info.segs[1].vaddr == BSS_VADDR &&
	       info.segs[1].filesz == 0x100 && info.segs[1].memsz == 0x200 &&
	       info.segs[1].align == 0x1000 && info.segs[2].type == PC_PT_NOTE,
	       "%s: segment fields", tag);
	ret = pc_elf_find_build_id(img + NOTE_OFF, nlen, be, id, sizeof(id), &id_len, &why);
	TAP_OK(!ret && id_len == 20 && !memcmp(id, bid, 20),
	       "%s: build-id found after a padded note", tag);
	TAP_OK(pc_elf_in_load(&info, 0x500, 4, PC_PF_X) &&
	       pc_elf_in_load(&info, 0xfff, 1, PC_PF_X | PC_PF_R) &&
	       !pc_elf_in_load(&info, 0xfff, 2, PC_PF_X) &&
	       !pc_elf_in_load(&info, 0x1000, 1, PC_PF_X) &&
	       pc_elf_in_load(&info, 0x10fe, 2, PC_PF_W) &&
	       !pc_elf_in_load(&info, 0x10ff, 2, PC_PF_W) &&
	       !pc_elf_in_load(&info, 0x500, 1, PC_PF_W) &&
	       pc_elf_in_load(&info, 0x10ff, 0, PC_PF_W) &&
	       !pc_elf_in_load(&info, 0x1100, 0, PC_PF_W) &&
	       !pc_elf_in_load(&info, ~0ULL, ~0ULL, 0),
	       "%s: pc_elf_in_load bounds and flags", tag);
	TAP_OK(!pc_elf_off_to_vaddr(&info, 0x123, &va) && va == 0x123 &&
	       !pc_elf_off_to_vaddr(&info, 0x1010, &va) && va == BSS_VADDR + 0x10 &&
	       !pc_elf_off_to_vaddr(&info, 0x11ff, &va) && va == BSS_VADDR + 0x1ff &&
	       pc_elf_off_to_vaddr(&info, 0x1200, &va) == -ERANGE,
	       "%s: pc_elf_off_to_vaddr file range, .bss, past p_memsz", tag);
}

/* A note layout where the 4- and 8-byte walks disagree. */
static void test_note_align(void)
{
	static const u8 prop[12] = { 1 };
	u8 buf[128] = { 0 };
	u8 id[PROBECACHE_BUILD_ID_MAX];
	size_t len, id_len = 0;
	int ret;

	len = put_note(buf, 0, false, 8, 5, "GNU", 4, prop, 12);
	len = put_note(buf, len, false, 8, 3, "GNU", 4, bid, 20);
	ret = pc_elf_find_build_id_align(buf, len, false, 8, id, sizeof(id), &id_len, &why);
	TAP_OK(!ret && id_len == 20 && !memcmp(id, bid, 20), "p_align 8: 8-byte note walk");
	ret = pc_elf_find_build_id(buf, len, false, id, sizeof(id), &id_len, &why);
	TAP_OK(ret == -ENOEXEC || (ret == 0 && memcmp(id, bid, 20)),
	       "the same notes walked 4-aligned do not yield the build-id (%d)", ret);

	len = put_note(buf, 0, true, 4, 5, "GNU", 4, prop, 12);
	len = put_note(buf, len, true, 4, 3, "GNU", 4, bid, 20);
	ret = pc_elf_find_build_id_align(buf, len, true, 1, id, sizeof(id), &id_len, &why);
	TAP_OK(!ret && id_len == 20 && !memcmp(id, bid, 20), "p_align 1 walks 4-aligned");
}

struct note_case {
	const char *what;
	u32 namesz, descsz, type;
	char name[4];
	size_t len;		/* bytes handed to the parser */
	int ret;
	const char *why;
};

static void test_hostile_notes(void)
{
	static const struct note_case cases[] = {
		{ "no notes at all", 0, 0, 0, "", 0, -ENOENT, "no NT_GNU_BUILD_ID note" },
		{ "truncated header", 4, 20, 3, "GNU", 11, -ENOEXEC, "truncated note header" },
		{ "namesz past end", 0xfffffff0, 20, 3, "GNU", 36, -ENOEXEC,
		  "note name past end of segment" },
		{ "descsz past end", 4, 21, 3, "GNU", 36, -ENOEXEC,
		  "note descriptor past end of segment" },
		{ "descsz 2^32-1", 4, 0xffffffff, 3, "GNU", 36, -ENOEXEC,
		  "note descriptor past end of segment" },
		{ "empty build-id", 4, 0, 3, "GNU", 16, -ENOEXEC, "empty build-id" },
		{ "32-byte build-id", 4, 32, 3, "GNU", 48, -ENOEXEC, "build-id too long" },
		{ "name without NUL", 3, 20, 3, "GNU", 36, -ENOENT, "no NT_GNU_BUILD_ID note" },
		{ "Go build-id note", 4, 20, 3, "Go\0\0", 36, -ENOENT, "no NT_GNU_BUILD_ID note" },
		{ "GNU but type 4", 4, 20, 4, "GNU", 36, -ENOENT, "no NT_GNU_BUILD_ID note" },
		{ "trailing 8 bytes", 4, 16, 1, "GNU", 40, -ENOEXEC, "truncated note header" },
	};
	u8 buf[64], id[PROBECACHE_BUILD_ID_MAX];
	size_t id_len, i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct note_case *c = &cases[i];

		memset(buf, 0xa5, sizeof(buf));
		wr32(buf, false, c->namesz);
		wr32(buf + 4, false, c->descsz);
		wr32(buf + 8, false, c->type);
		memcpy(buf + 12, c->name, 4);
		id_len = 99;
		why = NULL;
		ret = pc_elf_find_build_id(buf, c->len, false, id, sizeof(id), &id_len, &why);
		TAP_OK(ret == c->ret && why && !strcmp(why, c->why) && id_len == 0,
		       "note: %s -> %d (%s)", c->what, ret, why ? why : "(null)");
	}
	ret = pc_elf_find_build_id(bid, 0, false, id, 4, &id_len, &why);
	TAP_OK(ret == -ENOENT, "empty segment: -ENOENT");
	build_image(true, false);
	ret = pc_elf_find_build_id(img + NOTE_OFF + 16, 0x100, false, id, 4, &id_len, &why);
	TAP_OK(ret == -ENOEXEC || ret == -ENOENT, "misaligned start: error, no crash (%d)", ret);
	ret = pc_elf_find_build_id(img + NOTE_OFF, 0x100, false, id, 19, &id_len, &why);
	TAP_OK(ret == -ENOEXEC && !strcmp(why, "build-id too long"),
	       "caller buffer smaller than the build-id: refused");
}

struct hdr_case {
	const char *what;
	size_t at;		/* byte offset into the 64-bit LE image */
	int width;		/* 1, 2, 4, 8 */
	u64 val;
	size_t len;		/* 0: IMG_SIZE */
	const char *why;
	bool phdrs;		/* failure comes from pc_elf_parse_phdrs */
};

static void poke(size_t at, int width, u64 v)
{
	if (width == 1)
		img[at] = (u8)v;
	else if (width == 2)
		wr16(img + at, false, (u16)v);
	else if (width == 4)
		wr32(img + at, false, (u32)v);
	else
		wr64(img + at, false, v);
}

#define PH(i, f)	(64 + 56 * (i) + (f))	/* field @f of ELF64 phdr @i */

static void test_hostile_headers(void)
{
	static const struct hdr_case cases[] = {
		{ "15 bytes", 0, 1, 0x7f, 15, "file too short for an ELF header", false },
		{ "bad magic", 1, 1, 'e', 0, "not an ELF file (bad magic)", false },
		{ "class 3", 4, 1, 3, 0, "unsupported ELF class", false },
		{ "class 0", 4, 1, 0, 0, "unsupported ELF class", false },
		{ "data 0", 5, 1, 0, 0, "unsupported ELF data encoding", false },
		{ "EI_VERSION 0", 6, 1, 0, 0, "unsupported ELF version", false },
		{ "truncated ELF64 header", 0, 1, 0x7f, 63, "truncated ELF header", false },
		{ "ET_REL", 16, 2, 1, 0, "not an executable or shared object", false },
		{ "ET_CORE", 16, 2, 4, 0, "not an executable or shared object", false },
		{ "e_version 2", 20, 4, 2, 0, "unsupported ELF version", false },
		{ "e_phentsize 32 in ELF64", 54, 2, 32, 0, "e_phentsize does not match the ELF class", false },
		{ "e_phnum 0", 56, 2, 0, 0, "no program headers", false },
		{ "e_phnum 65", 56, 2, 65, 0, "too many program headers", false },
		{ "e_phnum PN_XNUM", 56, 2, 0xffff, 0, "too many program headers", false },
		{ "e_phoff 0", 32, 8, 0, 0, "program headers overlap the ELF header", false },
		{ "e_phoff past EOF", 32, 8, IMG_SIZE, 0, "program headers past end of file", false },
		{ "e_phoff table straddles EOF", 32, 8, IMG_SIZE - 100, 0,
		  "program headers past end of file", false },
		{ "e_phoff + size wraps", 32, 8, ~0ULL - 63, 0, "program headers past end of file", false },
		{ "PT_LOAD offset + filesz wraps", PH(0, 32), 8, ~0ULL, 0, "PT_LOAD past end of file",
		  true },
		{ "PT_LOAD past EOF", PH(1, 32), 8, 0x101, 0, "PT_LOAD past end of file", true },
		{ "PT_LOAD offset past EOF", PH(1, 8), 8, 0x2000, 0, "PT_LOAD past end of file", true },
		{ "PT_LOAD filesz > memsz", PH(1, 40), 8, 0xff, 0,
		  "PT_LOAD p_filesz larger than p_memsz", true },
		{ "PT_LOAD vaddr + memsz wraps", PH(1, 16), 8, ~0ULL - 0x10, 0,
		  "PT_LOAD address range wraps", true },
		{ "PT_NOTE past EOF", PH(2, 8), 8, IMG_SIZE - 4, 0, "PT_NOTE past end of file", true },
		{ "PT_NOTE filesz wraps", PH(2, 32), 8, ~0ULL, 0, "PT_NOTE past end of file", true },
	};
	size_t i, len;
	int ret;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct hdr_case *c = &cases[i];

		build_image(true, false);
		poke(c->at, c->width, c->val);
		len = c->len ? c->len : IMG_SIZE;
		why = NULL;
		info.file_size = len;
		ret = pc_elf_parse_ehdr(img, len, &info, &why);
		if (!ret && c->phdrs)
			ret = pc_elf_parse_phdrs(img + info.phoff, len - info.phoff, &info, &why);
		TAP_OK(ret == -ENOEXEC && why && !strcmp(why, c->why) && !info.nsegs,
		       "hostile: %s -> %s", c->what, why ? why : "(null)");
	}
	build_image(true, false);
	info.file_size = IMG_SIZE;
	ret = pc_elf_parse_ehdr(img, IMG_SIZE, &info, &why);
	TAP_OK(!ret && info.file_size == IMG_SIZE, "pc_elf_parse_ehdr keeps file_size");
	ret = pc_elf_parse_phdrs(img + 64, 3 * 56 - 1, &info, &why);
	TAP_OK(ret == -ENOEXEC && !strcmp(why, "truncated program headers") && !info.nsegs,
	       "phdr buffer one byte short");
	memset(&info, 0, sizeof(info));
	ret = pc_elf_parse_phdrs(img + 64, 3 * 56, &info, &why);
	TAP_OK(ret == -ENOEXEC && !strcmp(why, "ELF header not parsed"),
	       "pc_elf_parse_phdrs without a parsed header");
	info.phnum = 200;
	info.phentsize = 56;
	info.is64 = true;
	ret = pc_elf_parse_phdrs(img + 64, IMG_SIZE - 64, &info, &why);
	TAP_OK(ret == -ENOEXEC, "pc_elf_parse_phdrs with a forged phnum 200");
	build_image(false, true);
	wr16(img + 42, true, 56);
	info.file_size = IMG_SIZE;
	ret = pc_elf_parse_ehdr(img, IMG_SIZE, &info, &why);
	TAP_OK(ret == -ENOEXEC && !strcmp(why, "e_phentsize does not match the ELF class"),
	       "ELF32 with 56-byte phentsize");
}

/* Every prefix of a valid image parses or fails cleanly (ASan watches). */
static void test_truncations(void)
{
	unsigned int bad = 0;
	size_t len;

	build_image(true, true);
	for (len = 0; len < 64 + 3 * 56; len++) {
		info.file_size = IMG_SIZE;
		if (!pc_elf_parse_ehdr(img, len, &info, &why) && len < 64)
			bad++;
		if (len >= 64 && pc_elf_parse_phdrs(img + 64, len - 64, &info, &why) != -ENOEXEC)
			bad++;
	}
	TAP_OK(!bad, "every truncation of header + phdrs is refused (%u accepted)", bad);
}

static u8 *read_file(const char *path, size_t *len)
{
	struct stat st;
	u8 *buf;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return NULL;
	buf = fstat(fd, &st) ? NULL : malloc(st.st_size + 1);
	if (buf && read(fd, buf, st.st_size) != st.st_size) {
		free(buf);
		buf = NULL;
	}
	close(fd);
	if (!buf)
		return NULL;
	*len = st.st_size;
	return buf;
}

/* The build-id as libelf sees it: the NT_GNU_BUILD_ID note in a SHT_NOTE section. */
static size_t libelf_build_id(const char *path, u8 *id)
{
	size_t n = 0, off, name_off, desc_off;
	Elf_Scn *scn = NULL;
	GElf_Nhdr nh;
	Elf_Data *d;
	Elf *e;
	int fd;

	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY);
	e = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	while (e && !n && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		for (off = 0; !n && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off));) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((char *)d->d_buf + name_off, "GNU", 4) && nh.n_descsz <= 20) {
				memcpy(id, (char *)d->d_buf + desc_off, nh.n_descsz);
				n = nh.n_descsz;
			}
		}
	}
	if (e)
		elf_end(e);
	if (fd >= 0)
		close(fd);
	return n;
}

/* "    Build ID: c891..." from readelf -n, as bytes. */
static size_t readelf_build_id(const char *path, u8 *id)
{
	char cmd[512], line[512], *p;
	unsigned int byte;
	size_t n = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "readelf -n '%s' 2>/dev/null", path);
	f = popen(cmd, "r");
	while (f && fgets(line, sizeof(line), f)) {
		p = strstr(line, "Build ID: ");
		if (!p || n)
			continue;
		for (p += 10; n < 20 && sscanf(p, "%2x", &byte) == 1; p += 2)
			id[n++] = (u8)byte;
	}
	if (f)
		pclose(f);
	return n;
}

/* What the module does: header, phdrs, then each PT_NOTE by its p_align. */
static int module_build_id(const u8 *file, size_t len, u8 *id, size_t *id_len)
{
	const struct pc_elf_seg *s;
	unsigned int i;
	int ret;

	info.file_size = len;
	ret = pc_elf_parse_ehdr(file, len < 64 ? len : 64, &info, &why);
	if (ret)
		return ret;
	ret = pc_elf_parse_phdrs(file + info.phoff, (size_t)info.phnum * info.phentsize,
				 &info, &why);
	for (i = 0, ret = ret ? ret : -ENOENT; i < info.nsegs && ret == -ENOENT; i++) {
		s = &info.segs[i];
		if (s->type != PC_PT_NOTE)
			continue;
		ret = pc_elf_find_build_id_align(file + s->offset,
						 s->filesz < PC_ELF_MAX_NOTE_BYTES ?
						 s->filesz : PC_ELF_MAX_NOTE_BYTES,
						 info.big_endian, s->align, id,
						 PROBECACHE_BUILD_ID_MAX, id_len, &why);
	}
	return ret;
}

static void test_real(const char *path)
{
	u8 id[PROBECACHE_BUILD_ID_MAX], lid[20], rid[20];
	size_t len = 0, id_len = 0, ln, rn;
	u8 *file = read_file(path, &len);
	int ret;

	if (!file) {
		TAP_OK(0, "%s: readable", path);
		return;
	}
	ret = module_build_id(file, len, id, &id_len);
	ln = libelf_build_id(path, lid);
	rn = readelf_build_id(path, rid);
	TAP_OK(!ret && id_len && id_len == ln && !memcmp(id, lid, ln),
	       "%s: build-id from PT_NOTE matches libelf's .note.gnu.build-id (%zu bytes)",
	       path, ln);
	TAP_OK(!ret && id_len == rn && !memcmp(id, rid, rn), "%s: build-id matches readelf -n",
	       path);
	TAP_OK(!ret && info.nsegs == info.phnum && pc_elf_in_load(&info, 0, 1, PC_PF_R),
	       "%s: %u program headers, offset 0 in a readable PT_LOAD", path, info.nsegs);
	free(file);
}

/* "Location: 0x..., Base: 0x..., Semaphore: 0x..." of each SDT note (readelf -n). */
static size_t readelf_sdt(const char *path, u64 (*site)[2], size_t max)
{
	unsigned long long loc, base, sem;
	char cmd[512], line[512];
	size_t n = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "readelf -n '%s' 2>/dev/null", path);
	f = popen(cmd, "r");
	while (f && n < max && fgets(line, sizeof(line), f))
		if (sscanf(line, " Location: %llx, Base: %llx, Semaphore: %llx",
			   &loc, &base, &sem) == 3) {
			site[n][0] = loc;
			site[n++][1] = sem;
		}
	if (f)
		pclose(f);
	return n;
}

/* What the module does for an SDT record: section headers, then the notes. */
static int module_sdt_notes(const u8 *file, struct pc_elf_sect *notes,
			    bool *have_base, u64 *base)
{
	const u8 *shdrs = file + info.shoff;
	size_t len = (size_t)info.shnum * info.shentsize;
	struct pc_elf_sect sect, strs;
	const char *name;
	unsigned int i;
	int found = 0;

	if (pc_elf_shdr_table(&info, &why) ||
	    pc_elf_parse_shdr(shdrs, len, &info, info.shstrndx, &strs, &why))
		return -1;
	*have_base = false;
	for (i = 0; i < info.shnum; i++) {
		if (pc_elf_parse_shdr(shdrs, len, &info, i, &sect, &why))
			return -1;
		name = pc_elf_sect_name((const char *)file + strs.offset, strs.size, &sect);
		if (name && !strcmp(name, ".note.stapsdt")) {
			*notes = sect;
			found = 1;
		} else if (name && !strcmp(name, ".stapsdt.base")) {
			*have_base = true;
			*base = sect.addr;
		}
	}
	return found ? 0 : -1;
}

/* Every SDT site readelf lists is found, with readelf's semaphore; others are not. */
static void test_sdt_real(const char *path)
{
	static u64 site[4096][2];
	struct pc_elf_sect notes;
	size_t len = 0, n, i, good = 0;
	u8 *file = read_file(path, &len), id[20];
	bool have_base;
	u64 base = 0, sem;
	int ret;

	if (!file) {
		TAP_OK(1, "# SKIP %s not installed", path);
		return;
	}
	n = readelf_sdt(path, site, 4096);
	ret = module_build_id(file, len, id, &len) == 0 ? 0 : -1;
	if (!ret)
		ret = module_sdt_notes(file, &notes, &have_base, &base);
	TAP_OK(!ret && n > 0, "%s: .note.stapsdt found, readelf lists %zu SDT notes", path, n);
	for (i = 0; !ret && i < n; i++)
		good += !pc_sdt_find_site(file + notes.offset, notes.size, &info, have_base,
					  base, site[i][0], &sem, &why) && sem == site[i][1];
	TAP_OK(!ret && good == n, "%s: %zu of %zu sites found with readelf's semaphore",
	       path, good, n);
	TAP_OK(!ret && n && pc_sdt_find_site(file + notes.offset, notes.size, &info,
					     have_base, base, site[0][0] + 1, &sem,
					     &why) == -ENOENT,
	       "%s: the byte after a site is no site", path);
	TAP_OK(!ret && n && pc_sdt_find_site(file + notes.offset, notes.size - 8, &info,
					     have_base, base, site[n - 1][0], &sem,
					     &why) == -ENOEXEC,
	       "%s: notes cut inside the last descriptor are malformed (%s)", path, why);
	free(file);
}

static void test_shdr_hostile(void)
{
	struct pc_elf_info bad = { .is64 = true, .shoff = 0x1000, .shentsize = 64,
				   .shnum = 10, .shstrndx = 3, .file_size = 0x2000 };
	struct pc_elf_sect sect;
	u8 table[64 * 2] = { 0 };

	TAP_OK(!pc_elf_shdr_table(&bad, &why), "sane section header table accepted");
	bad.shstrndx = 10;
	TAP_OK(pc_elf_shdr_table(&bad, &why) == -ENOEXEC, "e_shstrndx past e_shnum: %s", why);
	bad.shstrndx = 3;
	bad.shentsize = 40;
	TAP_OK(pc_elf_shdr_table(&bad, &why) == -ENOEXEC, "ELF64 with 40-byte shdrs: %s", why);
	bad.shentsize = 64;
	bad.shoff = 0x1f00;
	TAP_OK(pc_elf_shdr_table(&bad, &why) == -ENOEXEC, "table past end of file: %s", why);
	bad.shnum = 0;
	TAP_OK(pc_elf_shdr_table(&bad, &why) == -ENOEXEC, "no section headers: %s", why);
	bad.shnum = 10;
	TAP_OK(pc_elf_parse_shdr(table, sizeof(table), &bad, 2, &sect, &why) == -ENOEXEC,
	       "section header past the buffer read: %s", why);
	wr64(table + 64 + 24, false, 0x1ff0);	/* sh_offset */
	wr64(table + 64 + 32, false, 0x100);	/* sh_size */
	TAP_OK(pc_elf_parse_shdr(table, sizeof(table), &bad, 1, &sect, &why) == -ENOEXEC,
	       "section past end of file: %s", why);
	wr32(table + 64 + 4, false, 8);		/* SHT_NOBITS has no file bytes */
	TAP_OK(!pc_elf_parse_shdr(table, sizeof(table), &bad, 1, &sect, &why),
	       "SHT_NOBITS past end of file is fine");
	sect.name = 5;
	TAP_OK(!pc_elf_sect_name("abc\0defg", 8, &sect), "unterminated name refused");
	sect.name = 4;
	TAP_OK(pc_elf_sect_name("abc\0def\0", 8, &sect) &&
	       !strcmp(pc_elf_sect_name("abc\0def\0", 8, &sect), "def"), "name found");
}

/* The USDT site the x86-64 uprobe core optimizes (issue 28): exactly 11 bytes. */
static void test_sdt_fast_site(void)
{
	static const u8 fast[] = {
		0x90, 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00,
	};
	static const u8 nop5[] = { 0x90, 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	u8 b[sizeof(fast) + 1];
	unsigned int i, bad = 0;

	TAP_OK(PC_SDT_FAST_LEN == sizeof(fast), "the fast site is 11 bytes");
	TAP_OK(pc_sdt_fast_site(fast, sizeof(fast)), "nop; nopw %%cs:0(%%rax,%%rax,1) is a fast site");
	memcpy(b, fast, sizeof(fast));
	b[sizeof(fast)] = 0xcc;
	TAP_OK(pc_sdt_fast_site(b, sizeof(b)), "bytes after the site do not matter");
	TAP_OK(!pc_sdt_fast_site(fast, sizeof(fast) - 1), "10 bytes are not enough");
	TAP_OK(!pc_sdt_fast_site(fast, 0), "nothing is not a fast site");
	for (i = 0; i < sizeof(fast); i++) {
		memcpy(b, fast, sizeof(fast));
		b[i] ^= 0x01;
		bad += pc_sdt_fast_site(b, sizeof(fast));
	}
	TAP_OK(!bad, "any one byte changed: not a fast site");
	TAP_OK(!pc_sdt_fast_site(nop5, sizeof(nop5)), "nop; nop5 (the 6.18 form) is not");
	memcpy(b, fast, sizeof(fast));
	b[0] = 0xcc;
	TAP_OK(!pc_sdt_fast_site(b, sizeof(fast)), "an int3 on the note's nop: not");
}

int main(void)
{
	test_synthetic(false, false);
	test_synthetic(false, true);
	test_synthetic(true, false);
	test_synthetic(true, true);
	test_note_align();
	test_hostile_notes();
	test_hostile_headers();
	test_truncations();
	test_real("/bin/true");
	test_real("/usr/lib/x86_64-linux-gnu/libc.so.6");
	if (!access("/usr/aarch64-linux-gnu/lib/libc.so.6", R_OK))
		test_real("/usr/aarch64-linux-gnu/lib/libc.so.6");
	test_shdr_hostile();
	test_sdt_fast_site();
	test_sdt_real("/usr/lib/x86_64-linux-gnu/libstdc++.so.6");
	test_sdt_real("/usr/bin/python3.11");
	return tap_done();
}
