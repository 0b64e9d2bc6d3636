// SPDX-License-Identifier: GPL-2.0
/*
 * ELF header, program header, section header and note parsing (build-id,
 * SDT probe sites) over untrusted bytes.
 *
 * Fields are read byte by byte in the file's own byte order, so the code
 * needs neither <elf.h> nor aligned buffers, and parses ELF32/ELF64 of
 * either endianness the same way on every host. Every offset and size is
 * checked against the buffer and the file size before use, with all sums
 * done in u64 from 32-bit or bounded operands so that they cannot wrap.
 */
#include "elfnote.h"

#define EI_NIDENT_SZ	16
#define EI_CLASS_OFF	4
#define EI_DATA_OFF	5
#define EI_VERSION_OFF	6

#define ELFCLASS32_V	1
#define ELFCLASS64_V	2
#define ELFDATA2LSB_V	1
#define ELFDATA2MSB_V	2
#define EV_CURRENT_V	1
#define ET_EXEC_V	2
#define ET_DYN_V	3

#define EHDR32_SIZE	52
#define EHDR64_SIZE	64
#define PHDR32_SIZE	32
#define PHDR64_SIZE	56
#define NHDR_SIZE	12
#define SHDR32_SIZE	40
#define SHDR64_SIZE	64
#define SHT_NOBITS_V	8
#define NT_STAPSDT_V	3

#define NT_GNU_BUILD_ID_V	3

#define PC_U64_MAX	(~(u64)0)

static u16 rd16(const u8 *p, bool be)
{
	return be ? (u16)(p[0] << 8 | p[1]) : (u16)(p[1] << 8 | p[0]);
}

static u32 rd32(const u8 *p, bool be)
{
	if (be)
		return (u32)p[0] << 24 | (u32)p[1] << 16 | (u32)p[2] << 8 | p[3];
	return (u32)p[3] << 24 | (u32)p[2] << 16 | (u32)p[1] << 8 | p[0];
}

static u64 rd64(const u8 *p, bool be)
{
	if (be)
		return (u64)rd32(p, true) << 32 | rd32(p + 4, true);
	return (u64)rd32(p + 4, false) << 32 | rd32(p, false);
}

static int bad(const char **why, const char *reason)
{
	*why = reason;
	return -ENOEXEC;
}

/* Is [off, off + size) inside [0, limit)? Without overflow. */
static bool range_ok(u64 off, u64 size, u64 limit)
{
	return off <= limit && size <= limit - off;
}

/* e_ident: magic, class, data encoding, version. */
static int check_ident(const u8 *p, size_t len, struct pc_elf_info *info, const char **why)
{
	if (len < EI_NIDENT_SZ)
		return bad(why, "file too short for an ELF header");
	if (p[0] != 0x7f || p[1] != 'E' || p[2] != 'L' || p[3] != 'F')
		return bad(why, "not an ELF file (bad magic)");
	if (p[EI_CLASS_OFF] != ELFCLASS32_V && p[EI_CLASS_OFF] != ELFCLASS64_V)
		return bad(why, "unsupported ELF class");
	if (p[EI_DATA_OFF] != ELFDATA2LSB_V && p[EI_DATA_OFF] != ELFDATA2MSB_V)
		return bad(why, "unsupported ELF data encoding");
	if (p[EI_VERSION_OFF] != EV_CURRENT_V)
		return bad(why, "unsupported ELF version");
	info->is64 = p[EI_CLASS_OFF] == ELFCLASS64_V;
	info->big_endian = p[EI_DATA_OFF] == ELFDATA2MSB_V;
	return 0;
}

/* e_type .. e_phnum; the field offsets differ between the classes from e_entry on. */
static int read_ehdr(const u8 *p, size_t len, struct pc_elf_info *info, const char **why)
{
	bool be = info->big_endian;
	u16 type;

	if (len < (info->is64 ? EHDR64_SIZE : EHDR32_SIZE))
		return bad(why, "truncated ELF header");
	type = rd16(p + 16, be);
	if (type != ET_EXEC_V && type != ET_DYN_V)
		return bad(why, "not an executable or shared object");
	if (rd32(p + 20, be) != EV_CURRENT_V)
		return bad(why, "unsupported ELF version");
	info->machine = rd16(p + 18, be);
	if (info->is64) {
		info->phoff = rd64(p + 32, be);
		info->phentsize = rd16(p + 54, be);
		info->phnum = rd16(p + 56, be);
		info->shoff = rd64(p + 40, be);
		info->shentsize = rd16(p + 58, be);
		info->shnum = rd16(p + 60, be);
		info->shstrndx = rd16(p + 62, be);
	} else {
		info->phoff = rd32(p + 28, be);
		info->phentsize = rd16(p + 42, be);
		info->phnum = rd16(p + 44, be);
		info->shoff = rd32(p + 32, be);
		info->shentsize = rd16(p + 46, be);
		info->shnum = rd16(p + 48, be);
		info->shstrndx = rd16(p + 50, be);
	}
	return 0;
}

/* The program header table must be sane and lie inside the file. */
static int check_phdr_table(const struct pc_elf_info *info, const char **why)
{
	u64 ehsize = info->is64 ? EHDR64_SIZE : EHDR32_SIZE;

	if (info->phentsize != (info->is64 ? PHDR64_SIZE : PHDR32_SIZE))
		return bad(why, "e_phentsize does not match the ELF class");
	if (!info->phnum)
		return bad(why, "no program headers");
	if (info->phnum > PC_ELF_MAX_PHDRS)
		return bad(why, "too many program headers");
	if (info->phoff < ehsize)
		return bad(why, "program headers overlap the ELF header");
	if (!range_ok(info->phoff, (u64)info->phnum * info->phentsize, info->file_size))
		return bad(why, "program headers past end of file");
	return 0;
}

int pc_elf_parse_ehdr(const void *buf, size_t len, struct pc_elf_info *info,
		      const char **why)
{
	u64 file_size = info->file_size;
	int ret;

	memset(info, 0, sizeof(*info));
	info->file_size = file_size;
	ret = check_ident(buf, len, info, why);
	if (ret)
		return ret;
	ret = read_ehdr(buf, len, info, why);
	if (ret)
		return ret;
	return check_phdr_table(info, why);
}

static void read_phdr(const u8 *p, const struct pc_elf_info *info, struct pc_elf_seg *s)
{
	bool be = info->big_endian;

	s->type = rd32(p, be);
	if (info->is64) {
		s->flags = rd32(p + 4, be);
		s->offset = rd64(p + 8, be);
		s->vaddr = rd64(p + 16, be);
		s->filesz = rd64(p + 32, be);
		s->memsz = rd64(p + 40, be);
		s->align = rd64(p + 48, be);
	} else {
		s->offset = rd32(p + 4, be);
		s->vaddr = rd32(p + 8, be);
		s->filesz = rd32(p + 16, be);
		s->memsz = rd32(p + 20, be);
		s->flags = rd32(p + 24, be);
		s->align = rd32(p + 28, be);
	}
}

/* Only PT_LOAD and PT_NOTE are ever used, so only they must make sense. */
static int check_seg(const struct pc_elf_seg *s, const struct pc_elf_info *info,
		     const char **why)
{
	if (s->type == PC_PT_NOTE && !range_ok(s->offset, s->filesz, info->file_size))
		return bad(why, "PT_NOTE past end of file");
	if (s->type != PC_PT_LOAD)
		return 0;
	if (!range_ok(s->offset, s->filesz, info->file_size))
		return bad(why, "PT_LOAD past end of file");
	if (s->filesz > s->memsz)
		return bad(why, "PT_LOAD p_filesz larger than p_memsz");
	if (!range_ok(s->vaddr, s->memsz, PC_U64_MAX))
		return bad(why, "PT_LOAD address range wraps");
	return 0;
}

int pc_elf_parse_phdrs(const void *buf, size_t len, struct pc_elf_info *info,
		       const char **why)
{
	const u8 *p = buf;
	unsigned int i;
	int ret;

	info->nsegs = 0;
	/* Guards against an @info that did not come from pc_elf_parse_ehdr(). */
	if (info->phentsize != (info->is64 ? PHDR64_SIZE : PHDR32_SIZE) ||
	    !info->phnum || info->phnum > PC_ELF_MAX_PHDRS)
		return bad(why, "ELF header not parsed");
	if (len < (size_t)info->phnum * info->phentsize)
		return bad(why, "truncated program headers");
	for (i = 0; i < info->phnum; i++) {
		read_phdr(p + (size_t)i * info->phentsize, info, &info->segs[i]);
		ret = check_seg(&info->segs[i], info, why);
		if (ret)
			return ret;
	}
	info->nsegs = info->phnum;
	return 0;
}

struct pc_note {
	u32 namesz, descsz, type;
	u64 name_off, desc_off, next;
};

static u64 align_up(u64 v, u64 a)
{
	return (v + a - 1) & ~(a - 1);
}

/*
 * The note header at @off and where its name, descriptor and successor
 * are. All operands are at most len (a size_t) plus 32-bit sizes plus 7,
 * so the u64 sums cannot wrap.
 */
static int read_note(const u8 *p, size_t len, u64 off, u64 a, bool be, struct pc_note *n,
		     const char **why)
{
	if (len - off < NHDR_SIZE)
		return bad(why, "truncated note header");
	n->namesz = rd32(p + off, be);
	n->descsz = rd32(p + off + 4, be);
	n->type = rd32(p + off + 8, be);
	n->name_off = off + NHDR_SIZE;
	if (n->namesz > len - n->name_off)
		return bad(why, "note name past end of segment");
	n->desc_off = align_up(n->name_off + n->namesz, a);
	if (n->desc_off > len || n->descsz > len - n->desc_off)
		return bad(why, "note descriptor past end of segment");
	n->next = align_up(n->desc_off + n->descsz, a);
	return 0;
}

static bool is_gnu_build_id(const u8 *p, const struct pc_note *n)
{
	return n->type == NT_GNU_BUILD_ID_V && n->namesz == 4 &&
	       !memcmp(p + n->name_off, "GNU", 4);
}

int pc_elf_find_build_id_align(const void *buf, size_t len, bool big_endian,
			       u64 align, u8 *id, size_t max, size_t *id_len,
			       const char **why)
{
	u64 a = align == 8 ? 8 : 4;
	const u8 *p = buf;
	struct pc_note n;
	u64 off = 0;
	int ret;

	*id_len = 0;
	while (off < len) {
		ret = read_note(p, len, off, a, big_endian, &n, why);
		if (ret)
			return ret;
		if (is_gnu_build_id(p, &n)) {
			if (!n.descsz)
				return bad(why, "empty build-id");
			if (n.descsz > max)
				return bad(why, "build-id too long");
			memcpy(id, p + n.desc_off, n.descsz);
			*id_len = n.descsz;
			return 0;
		}
		off = n.next;
	}
	*why = "no NT_GNU_BUILD_ID note";
	return -ENOENT;
}

int pc_elf_find_build_id(const void *buf, size_t len, bool big_endian,
			 u8 *id, size_t max, size_t *id_len, const char **why)
{
	return pc_elf_find_build_id_align(buf, len, big_endian, 4, id, max, id_len, why);
}

/* @len 0 is taken as 1: the byte at @off must be inside. */
bool pc_elf_in_load(const struct pc_elf_info *info, u64 off, u64 len, u32 flags)
{
	const struct pc_elf_seg *s;
	unsigned int i;

	if (!len)
		len = 1;
	for (i = 0; i < info->nsegs && i < PC_ELF_MAX_PHDRS; i++) {
		s = &info->segs[i];
		if (s->type != PC_PT_LOAD || (s->flags & flags) != flags)
			continue;
		if (off >= s->offset && len <= s->filesz && off - s->offset <= s->filesz - len)
			return true;
	}
	return false;
}

/* The PT_LOAD whose [p_offset, p_offset + @size(seg)) holds @off. */
static const struct pc_elf_seg *find_load(const struct pc_elf_info *info, u64 off,
					  bool use_memsz)
{
	const struct pc_elf_seg *s;
	unsigned int i;

	for (i = 0; i < info->nsegs && i < PC_ELF_MAX_PHDRS; i++) {
		s = &info->segs[i];
		if (s->type == PC_PT_LOAD && off >= s->offset &&
		    off - s->offset < (use_memsz ? s->memsz : s->filesz))
			return s;
	}
	return NULL;
}

/*
 * File bytes win over another segment's .bss tail: only when no PT_LOAD
 * holds @off in its file range is the p_memsz extension considered.
 */
int pc_elf_off_to_vaddr(const struct pc_elf_info *info, u64 off, u64 *vaddr)
{
	const struct pc_elf_seg *s = find_load(info, off, false);

	if (!s)
		s = find_load(info, off, true);
	if (!s)
		return -ERANGE;
	*vaddr = s->vaddr + (off - s->offset);
	return 0;
}

int pc_elf_vaddr_to_off(const struct pc_elf_info *info, u64 vaddr, u64 *off)
{
	const struct pc_elf_seg *s;
	unsigned int i;

	for (i = 0; i < info->nsegs && i < PC_ELF_MAX_PHDRS; i++) {
		s = &info->segs[i];
		if (s->type == PC_PT_LOAD && vaddr >= s->vaddr &&
		    vaddr - s->vaddr < s->filesz) {
			*off = s->offset + (vaddr - s->vaddr);
			return 0;
		}
	}
	return -ERANGE;
}

int pc_elf_shdr_table(const struct pc_elf_info *info, const char **why)
{
	if (!info->shnum || !info->shoff)
		return bad(why, "no section headers");
	if (info->shentsize != (info->is64 ? SHDR64_SIZE : SHDR32_SIZE))
		return bad(why, "e_shentsize does not match the ELF class");
	if (info->shnum > PC_ELF_MAX_SHDRS)
		return bad(why, "too many section headers");
	if (info->shstrndx >= info->shnum)
		return bad(why, "e_shstrndx is not a section");
	if (!range_ok(info->shoff, (u64)info->shnum * info->shentsize, info->file_size))
		return bad(why, "section headers past end of file");
	return 0;
}

int pc_elf_parse_shdr(const void *buf, size_t len, const struct pc_elf_info *info,
		      unsigned int idx, struct pc_elf_sect *sect, const char **why)
{
	const u8 *p = (const u8 *)buf + (size_t)idx * info->shentsize;
	bool be = info->big_endian;

	if (idx >= info->shnum || len < ((size_t)idx + 1) * info->shentsize)
		return bad(why, "truncated section headers");
	sect->name = rd32(p, be);
	sect->type = rd32(p + 4, be);
	if (info->is64) {
		sect->addr = rd64(p + 16, be);
		sect->offset = rd64(p + 24, be);
		sect->size = rd64(p + 32, be);
	} else {
		sect->addr = rd32(p + 12, be);
		sect->offset = rd32(p + 16, be);
		sect->size = rd32(p + 20, be);
	}
	if (sect->type != SHT_NOBITS_V &&
	    !range_ok(sect->offset, sect->size, info->file_size))
		return bad(why, "section past end of file");
	return 0;
}

const char *pc_elf_sect_name(const char *strtab, size_t len,
			     const struct pc_elf_sect *sect)
{
	if (sect->name >= len || !memchr(strtab + sect->name, '\0', len - sect->name))
		return NULL;
	return strtab + sect->name;
}

/* pc, base, semaphore: the first three words of an SDT note's descriptor. */
static bool sdt_note_addrs(const u8 *p, const struct pc_note *n,
			   const struct pc_elf_info *info, u64 addr[3])
{
	size_t asz = info->is64 ? 8 : 4;
	unsigned int i;

	if (n->type != NT_STAPSDT_V || n->namesz != 8 ||
	    memcmp(p + n->name_off, "stapsdt", 8) || n->descsz < 3 * asz)
		return false;
	for (i = 0; i < 3; i++)
		addr[i] = info->is64 ? rd64(p + n->desc_off + 8 * i, info->big_endian) :
				       rd32(p + n->desc_off + 4 * i, info->big_endian);
	return true;
}

/*
 * Prelink moved the probes and semaphores by as much as it moved
 * .stapsdt.base; the note still holds the link-time base (as perf and
 * libbpf compute it).
 */
static u64 sdt_adjust(u64 addr, u64 note_base, bool have_base, u64 base_addr,
		      bool is64)
{
	u64 v = addr;

	if (have_base && note_base && addr)
		v = addr + base_addr - note_base;
	return is64 ? v : v & 0xffffffffULL;
}

int pc_sdt_find_site(const void *notes, size_t len, const struct pc_elf_info *info,
		     bool have_base, u64 base_addr, u64 pc, u64 *sem,
		     const char **why)
{
	const u8 *p = notes;
	struct pc_note n;
	u64 off = 0, a[3];
	int ret;

	while (off < len) {
		ret = read_note(p, len, off, 4, info->big_endian, &n, why);
		if (ret)
			return ret;
		off = n.next;
		/* Notes of other kinds, or too short, are skipped, not fatal. */
		if (!sdt_note_addrs(p, &n, info, a))
			continue;
		if (sdt_adjust(a[0], a[1], have_base, base_addr, info->is64) != pc)
			continue;
		*sem = sdt_adjust(a[2], a[1], have_base, base_addr, info->is64);
		return 0;
	}
	*why = "no SDT note has this address";
	return -ENOENT;
}

bool pc_sdt_fast_site(const u8 *bytes, size_t len)
{
	static const u8 site[PC_SDT_FAST_LEN] = {
		0x90, 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00,
	};

	return len >= sizeof(site) && !memcmp(bytes, site, sizeof(site));
}
