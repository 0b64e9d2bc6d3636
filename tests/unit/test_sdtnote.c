// SPDX-License-Identifier: GPL-2.0
/*
 * SDT notes: the pure note walker and payload parser on hand-built bytes
 * (valid, 32-bit, big-endian, truncated, lying sizes, missing NULs), then
 * pc_sdt_read() on small ELF files written here with libelf: 64-bit LE
 * x86-64, 32-bit i386 and 64-bit big-endian aarch64, with prelinked notes,
 * .bss symbols and notes that must be skipped.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sdt.h"
#include "sdtnote.h"
#include "tap.h"

/* ---- byte builders ---- */
struct bytes {
	uint8_t b[4096];
	size_t n;
	bool be;
};

static void put(struct bytes *o, uint64_t v, int size)
{
	for (int i = 0; i < size; i++)
		o->b[o->n + i] = (uint8_t)(v >> (8 * (o->be ? size - 1 - i : i)));
	o->n += size;
}

static void put_str(struct bytes *o, const char *s, size_t len)
{
	memcpy(o->b + o->n, s, len);
	o->n += len;
}

static void pad4(struct bytes *o)
{
	while (o->n % 4)
		o->b[o->n++] = 0;
}

/* One note: header, name, padding, desc, padding. */
static void note(struct bytes *o, const char *name, uint32_t type, const void *desc, size_t dlen)
{
	put(o, strlen(name) + 1, 4);
	put(o, dlen, 4);
	put(o, type, 4);
	put_str(o, name, strlen(name) + 1);
	pad4(o);
	put_str(o, desc, dlen);
	pad4(o);
}

/* A stapsdt payload; @tail is provider\0name\0args\0 given with its length. */
static size_t payload(uint8_t *out, bool is64, bool be, uint64_t pc, uint64_t base, uint64_t sem,
		      const char *tail, size_t tlen)
{
	struct bytes o = { .be = be };

	put(&o, pc, is64 ? 8 : 4);
	put(&o, base, is64 ? 8 : 4);
	put(&o, sem, is64 ? 8 : 4);
	put_str(&o, tail, tlen);
	memcpy(out, o.b, o.n);
	return o.n;
}

#define TAIL(s) s, sizeof(s) - 1	/* keeps embedded NULs, drops the literal's own */

static void payloads(void)
{
	struct pc_sdtnote r;
	const char *why;
	uint8_t p[512];
	size_t n;
	int ret;

	n = payload(p, true, false, 0x401010, 0x403000, 0x402004, TAIL("prov\0name\0-4@%edi\0"));
	ret = pc_sdtnote_parse(p, n, true, false, &r, &why);
	TAP_OK(!ret && r.pc == 0x401010 && r.base == 0x403000 && r.sem == 0x402004 &&
	       !strcmp(r.provider, "prov") && !strcmp(r.name, "name") && !strcmp(r.args, "-4@%edi"),
	       "64-bit LE payload decoded");
	n = payload(p, false, false, 0x8049000, 0x804a000, 0, TAIL("p32\0n32\0-4@%eax\0"));
	ret = pc_sdtnote_parse(p, n, false, false, &r, &why);
	TAP_OK(!ret && r.pc == 0x8049000 && r.base == 0x804a000 && !r.sem &&
	       !strcmp(r.args, "-4@%eax"), "32-bit LE payload decoded");
	n = payload(p, true, true, 0x1122334455667788ULL, 2, 3, TAIL("pbe\0nbe\0\0"));
	ret = pc_sdtnote_parse(p, n, true, true, &r, &why);
	TAP_OK(!ret && r.pc == 0x1122334455667788ULL && r.base == 2 && r.sem == 3 && !*r.args,
	       "64-bit BE payload decoded, empty args");
	n = payload(p, false, true, 0xa0b0c0d0, 0, 0, TAIL("a\0b\0"));
	ret = pc_sdtnote_parse(p, n, false, true, &r, &why);
	TAP_OK(!ret && r.pc == 0xa0b0c0d0 && !*r.args, "32-bit BE payload without args string");
	n = payload(p, true, false, 1, 2, 3, TAIL("prov\0name\0-4@%edi"));
	ret = pc_sdtnote_parse(p, n, true, false, &r, &why);
	TAP_OK(ret == -EINVAL && strstr(why, "args"), "args without NUL refused: %s", why);
	n = payload(p, true, false, 1, 2, 3, TAIL("prov\0name"));
	ret = pc_sdtnote_parse(p, n, true, false, &r, &why);
	TAP_OK(ret == -EINVAL && strstr(why, "name not NUL"), "name without NUL refused: %s", why);
	n = payload(p, true, false, 1, 2, 3, TAIL("prov"));
	ret = pc_sdtnote_parse(p, n, true, false, &r, &why);
	TAP_OK(ret == -EINVAL && strstr(why, "provider"), "provider without NUL refused: %s", why);
	ret = pc_sdtnote_parse(p, 23, true, false, &r, &why);
	TAP_OK(ret == -EINVAL, "64-bit payload of 23 bytes refused: %s", why);
	ret = pc_sdtnote_parse(p, 13, false, false, &r, &why);
	TAP_OK(ret == -EINVAL, "32-bit payload of 13 bytes refused: %s", why);
	ret = pc_sdtnote_parse(p, 0, true, false, &r, &why);
	TAP_OK(ret == -EINVAL, "empty payload refused");
}

static void hostile_names(void)
{
	static const struct { const char *tail; size_t len; const char *why; } t[] = {
		{ TAIL("\0name\0\0"), "empty provider" },
		{ TAIL("prov\0\0\0"), "empty name" },
		{ TAIL("pr ov\0name\0\0"), "provider has characters" },
		{ TAIL("prov\0na/me\0\0"), "name has characters" },
		{ TAIL("prov\0na:me\0\0"), "name has characters" },
		{ TAIL("prov\0name\0-4@%edi\n8@%rsi\0"), "non-printable" },
		{ TAIL("prov\0name\0-4@\x80\0"), "non-printable" },
		{ TAIL("provider_that_is_much_too_long_for_an_event_group_name_xxxx\0n\0\0"),
		  "provider too long" },
	};
	struct pc_sdtnote r;
	const char *why;
	uint8_t p[512];
	size_t n;
	int ret;

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		n = payload(p, true, false, 1, 2, 3, t[i].tail, t[i].len);
		why = "";
		ret = pc_sdtnote_parse(p, n, true, false, &r, &why);
		TAP_OK(ret == -EINVAL && strstr(why, t[i].why), "hostile payload %zu refused: %s",
		       i, why);
	}
	n = payload(p, true, false, 1, 2, 3,
		    TAIL("p23456789012345678901234567890123456789012345678901234567\0n\0\0"));
	ret = pc_sdtnote_parse(p, n, true, false, &r, &why);
	TAP_OK(ret == 0, "58-byte provider accepted");
}

static void walk(void)
{
	struct bytes o = { .be = false };
	struct pc_note n;
	const char *why = "";
	uint8_t d[64];
	size_t pos = 0, dl;
	int ret, count = 0;

	dl = payload(d, true, false, 1, 2, 3, TAIL("p\0n\0\0"));
	note(&o, "stapsdt", 3, d, dl);
	note(&o, "GNU", 3, "\x01\x02\x03\x04", 4);
	note(&o, "stapsdt", 3, d, dl);
	while ((ret = pc_note_next(o.b, o.n, &pos, 4, false, &n, &why)) == 1)
		count += pc_note_is(&n, "stapsdt");
	TAP_OK(ret == 0 && count == 2 && pos == o.n, "walk: 3 notes, 2 stapsdt, clean end");

	/* The last note's padding missing: still read, never past the end. */
	o.n = 0;
	note(&o, "GNU", 3, "\x01\x02\x03", 3);
	pos = 0;
	ret = pc_note_next(o.b, o.n - 1, &pos, 4, false, &n, &why);
	TAP_OK(ret == 1 && n.descsz == 3 && pos == o.n - 1, "walk: last note without padding");

	pos = 0;
	ret = pc_note_next(o.b, 11, &pos, 4, false, &n, &why);
	TAP_OK(ret == -EINVAL, "walk: 11-byte header refused: %s", why);
	o.n = 0;
	put(&o, 0xfffffff0, 4);	/* namesz lies */
	put(&o, 4, 4);
	put(&o, 3, 4);
	put_str(&o, "GNU\0abcd", 8);
	pos = 0;
	ret = pc_note_next(o.b, o.n, &pos, 4, false, &n, &why);
	TAP_OK(ret == -EINVAL, "walk: huge namesz refused: %s", why);
	o.n = 0;
	put(&o, 4, 4);
	put(&o, 0xffffffff, 4);	/* descsz lies */
	put(&o, 3, 4);
	put_str(&o, "GNU\0abcd", 8);
	pos = 0;
	ret = pc_note_next(o.b, o.n, &pos, 4, false, &n, &why);
	TAP_OK(ret == -EINVAL, "walk: huge descsz refused: %s", why);
	o.n = 0;
	put(&o, 3, 4);		/* name ends 1 byte before the padded end */
	put(&o, 0, 4);
	put(&o, 3, 4);
	put_str(&o, "GN\0", 3);
	pos = 0;
	ret = pc_note_next(o.b, o.n, &pos, 4, false, &n, &why);
	TAP_OK(ret == -EINVAL, "walk: name padding past the end refused");
	o.n = 0;
	o.be = true;
	note(&o, "GNU", 3, "\xaa\xbb", 2);
	pos = 0;
	ret = pc_note_next(o.b, o.n, &pos, 8, true, &n, &why);
	TAP_OK(ret == 1 && n.namesz == 4 && n.descsz == 2 && pc_note_is(&n, "GNU") &&
	       !pc_note_is(&n, "GN"), "walk: big-endian header, 8-byte alignment clamps");
}

static void build_ids(void)
{
	struct pc_note n = { .type = 3, .name = "GNU", .namesz = 4 };
	static const struct { uint32_t len; int ret; const char *hex; } t[] = {
		{ 20, 0, "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff00010203" },
		{ 8, 0, "f0f1f2f3f4f5f6f7" },
		{ 21, -EINVAL, NULL },
		{ 1, -EINVAL, NULL },
	};
	uint8_t id[21];
	char hex[41];
	const char *why;
	int ret;

	for (int i = 0; i < 21; i++)
		id[i] = (uint8_t)(0xf0 + i);
	n.desc = id;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		n.descsz = t[i].len;
		ret = pc_build_id_hex(&n, hex, &why);
		TAP_OK(ret == t[i].ret && (ret || !strcmp(hex, t[i].hex)),
		       "%u-byte build-id: %s", t[i].len, ret ? why : hex);
	}
}

/* ---- small ELF files written with libelf ---- */
struct elfspec {
	int cls;		/* ELFCLASS32 / ELFCLASS64 */
	bool be;
	uint16_t machine;
	const char *args;	/* of the "good" note */
	const char *want_rec;	/* its rec_args; %llx: file offsets of bss_sym, twin.0+4 */
	unsigned int nwarn;	/* args of it that must be warned about and left out */
};

#define TEXT	0x401000
#define DATA	0x402000
#define BASE	0x403000
#define PRELINK	0x10000

static size_t sdt_note_bytes(struct bytes *o, const struct elfspec *s)
{
	bool is64 = s->cls == ELFCLASS64;
	uint8_t d[512];
	char tail[256];
	size_t n, tl;

	tl = (size_t)snprintf(tail, sizeof(tail), "prov%cgood%c%s", 0, 0, s->args) + 1;
	n = payload(d, is64, s->be, TEXT + 0x10, BASE, DATA + 4, tail, tl);
	note(o, "stapsdt", 3, d, n);
	/* prelinked after linking: pc, base and semaphore all moved by PRELINK */
	n = payload(d, is64, s->be, TEXT + 0x20 + PRELINK, BASE + PRELINK, DATA + 6 + PRELINK,
		    TAIL("prov\0prelinked\0\0"));
	note(o, "stapsdt", 3, d, n);
	n = payload(d, is64, s->be, TEXT + 0x30, BASE, 0, TAIL("prov\0nosem\0\0"));
	note(o, "stapsdt", 3, d, n);
	note(o, "GNU", 1, "\0\0\0\0", 4);	/* not stapsdt: ignored */
	n = payload(d, is64, s->be, TEXT + 0x8000, BASE, 0, TAIL("prov\0outside\0\0"));
	note(o, "stapsdt", 3, d, n);
	n = payload(d, is64, s->be, TEXT + 0x40, BASE, DATA + 0x800, TAIL("prov\0sembss\0\0"));
	note(o, "stapsdt", 3, d, n);
	n = payload(d, is64, s->be, TEXT + 0x50, BASE, 0, TAIL("prov\0bad name\0\0"));
	note(o, "stapsdt", 3, d, n);
	n = payload(d, is64, s->be, TEXT + 0x60, BASE, 0, TAIL("prov\0v1\0\0"));
	note(o, "stapsdt", 1, d, n);
	return o->n;
}

static Elf_Scn *add_scn(Elf *e, struct bytes *shstr, const char *name, uint32_t type,
			uint64_t flags, uint64_t addr, void *buf, size_t size, Elf_Type t)
{
	Elf_Scn *scn = elf_newscn(e);
	Elf_Data *d = elf_newdata(scn);
	GElf_Shdr sh;

	d->d_buf = buf;
	d->d_size = size;
	d->d_type = t;
	d->d_align = 4;
	gelf_getshdr(scn, &sh);
	sh.sh_name = shstr->n;
	sh.sh_type = type;
	sh.sh_flags = flags;
	sh.sh_addr = addr;
	sh.sh_addralign = 4;
	gelf_update_shdr(scn, &sh);
	put_str(shstr, name, strlen(name) + 1);
	return scn;
}

struct built {
	uint64_t text_off, data_off;
};

static void add_symtab(Elf *e, struct bytes *shstr, int cls, Elf_Scn *strscn)
{
	static Elf64_Sym s64[5];
	static Elf32_Sym s32[5];
	Elf_Scn *scn;
	GElf_Shdr sh;

	/* [1] bss_sym: global object past p_filesz; [2] twin.0, a local */
	s64[1] = (Elf64_Sym){ .st_name = 1, .st_info = GELF_ST_INFO(STB_GLOBAL, STT_OBJECT),
			      .st_shndx = 2, .st_value = DATA + 0x10, .st_size = 8 };
	s64[2] = (Elf64_Sym){ .st_name = 9, .st_info = GELF_ST_INFO(STB_LOCAL, STT_OBJECT),
			      .st_shndx = 2, .st_value = DATA + 8, .st_size = 4 };
	s32[1] = (Elf32_Sym){ .st_name = 1, .st_info = ELF32_ST_INFO(STB_GLOBAL, STT_OBJECT),
			      .st_shndx = 2, .st_value = DATA + 0x10, .st_size = 8 };
	s32[2] = (Elf32_Sym){ .st_name = 9, .st_info = ELF32_ST_INFO(STB_LOCAL, STT_OBJECT),
			      .st_shndx = 2, .st_value = DATA + 8, .st_size = 4 };
	/* [3] [4] two static objects named "dup": ambiguous, must not be guessed */
	for (int i = 3; i < 5; i++) {
		uint32_t v = DATA + 0x20 + 8 * i;

		s64[i] = (Elf64_Sym){ .st_name = 16, .st_shndx = 2, .st_value = v, .st_size = 8,
				      .st_info = GELF_ST_INFO(STB_LOCAL, STT_OBJECT) };
		s32[i] = (Elf32_Sym){ .st_name = 16, .st_shndx = 2, .st_value = v, .st_size = 8,
				      .st_info = ELF32_ST_INFO(STB_LOCAL, STT_OBJECT) };
	}
	if (cls == ELFCLASS64)
		scn = add_scn(e, shstr, ".symtab", SHT_SYMTAB, 0, 0, s64, sizeof(s64), ELF_T_SYM);
	else
		scn = add_scn(e, shstr, ".symtab", SHT_SYMTAB, 0, 0, s32, sizeof(s32), ELF_T_SYM);
	gelf_getshdr(scn, &sh);
	sh.sh_link = elf_ndxscn(strscn);
	sh.sh_entsize = gelf_fsize(e, ELF_T_SYM, 1, EV_CURRENT);
	sh.sh_info = 5;
	gelf_update_shdr(scn, &sh);
}

static void set_phdrs(Elf *e, Elf_Scn *text, Elf_Scn *data, Elf_Scn *bid, struct built *b)
{
	GElf_Shdr st, sd, sb;
	GElf_Phdr ph;

	gelf_getshdr(text, &st);
	gelf_getshdr(data, &sd);
	gelf_getshdr(bid, &sb);
	b->text_off = st.sh_offset;
	b->data_off = sd.sh_offset;
	ph = (GElf_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = st.sh_offset,
			  .p_vaddr = TEXT, .p_paddr = TEXT, .p_filesz = 0x100, .p_memsz = 0x100,
			  .p_align = 0x1000 };
	gelf_update_phdr(e, 0, &ph);
	ph = (GElf_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_W, .p_offset = sd.sh_offset,
			  .p_vaddr = DATA, .p_paddr = DATA, .p_filesz = 0x10, .p_memsz = 0x1000,
			  .p_align = 0x1000 };
	gelf_update_phdr(e, 1, &ph);
	ph = (GElf_Phdr){ .p_type = PT_NOTE, .p_flags = PF_R, .p_offset = sb.sh_offset,
			  .p_filesz = sb.sh_size, .p_align = 4 };
	gelf_update_phdr(e, 2, &ph);
}

/* Write @path per @s. Sections: .text .probes .stapsdt.base .note.stapsdt
 * .note.gnu.build-id .strtab .symtab .shstrtab; PT_LOADs for text and data. */
static int write_elf(const char *path, const struct elfspec *s, struct built *b)
{
	static uint8_t text[0x100], probes[0x10], base[1];
	static char strtab[] = "\0bss_sym\0twin.0\0dup";
	static struct bytes notes, bid, shstr;
	Elf_Scn *st, *sd, *sb, *sstr;
	GElf_Ehdr eh;
	Elf *e;
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || elf_version(EV_CURRENT) == EV_NONE || !(e = elf_begin(fd, ELF_C_WRITE, NULL)))
		return -1;
	memset(&notes, 0, sizeof(notes));
	memset(&bid, 0, sizeof(bid));
	memset(&shstr, 0, sizeof(shstr));
	notes.be = bid.be = s->be;
	shstr.n = 1;
	gelf_newehdr(e, s->cls);
	gelf_getehdr(e, &eh);
	eh.e_ident[EI_DATA] = s->be ? ELFDATA2MSB : ELFDATA2LSB;
	eh.e_machine = s->machine;
	eh.e_type = ET_DYN;
	eh.e_version = EV_CURRENT;
	gelf_update_ehdr(e, &eh);
	gelf_newphdr(e, 3);
	st = add_scn(e, &shstr, ".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, TEXT, text,
		     sizeof(text), ELF_T_BYTE);
	sd = add_scn(e, &shstr, ".probes", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, DATA, probes,
		     sizeof(probes), ELF_T_BYTE);
	add_scn(e, &shstr, ".stapsdt.base", SHT_PROGBITS, SHF_ALLOC, BASE, base, 1, ELF_T_BYTE);
	add_scn(e, &shstr, ".note.stapsdt", SHT_NOTE, 0, 0, notes.b, sdt_note_bytes(&notes, s),
		ELF_T_BYTE);
	note(&bid, "GNU", 3, "\xde\xad\xbe\xef\x01\x02\x03\x04", 8);
	sb = add_scn(e, &shstr, ".note.gnu.build-id", SHT_NOTE, SHF_ALLOC, 0, bid.b, bid.n,
		     ELF_T_BYTE);
	sstr = add_scn(e, &shstr, ".strtab", SHT_STRTAB, 0, 0, strtab, sizeof(strtab), ELF_T_BYTE);
	add_symtab(e, &shstr, s->cls, sstr);
	/* the size counts the name add_scn() is about to append */
	sstr = add_scn(e, &shstr, ".shstrtab", SHT_STRTAB, 0, 0, shstr.b,
		       shstr.n + sizeof(".shstrtab"), ELF_T_BYTE);
	gelf_getehdr(e, &eh);	/* gelf_newphdr() changed it */
	eh.e_shstrndx = elf_ndxscn(sstr);
	gelf_update_ehdr(e, &eh);
	if (elf_update(e, ELF_C_NULL) < 0)
		return -1;
	set_phdrs(e, st, sd, sb, b);
	if (elf_update(e, ELF_C_WRITE) < 0)
		return -1;
	elf_end(e);
	return close(fd);
}

static void read_elf(const char *label, const struct elfspec *s)
{
	char path[] = "/tmp/pc-test-sdtnote.XXXXXX", want[256], bid[41];
	struct pc_sdt_file f;
	struct built b;
	const struct pc_sdt_note *n;
	int fd = mkstemp(path), ret;

	close(fd);
	ret = write_elf(path, s, &b);
	TAP_OK(!ret, "%s: test ELF written (%s)", label, ret ? elf_errmsg(-1) : "ok");
	ret = pc_sdt_read(path, &f);
	TAP_OK(!ret && f.nnotes == 3 && f.nskipped == 4 && f.machine == s->machine &&
	       f.is64 == (s->cls == ELFCLASS64), "%s: 3 notes, 4 skipped (got %d %zu %u)", label,
	       ret, f.nnotes, f.nskipped);
	if (ret || f.nnotes != 3) {
		unlink(path);
		return;
	}
	TAP_OK(!strcmp(f.build_id, "deadbeef01020304"), "%s: build-id %s", label, f.build_id);
	n = &f.notes[0];
	TAP_OK(!strcmp(n->name, "good") && n->pc_off == b.text_off + 0x10 &&
	       n->sem_off == b.data_off + 4, "%s: pc and semaphore through PT_LOAD", label);
	snprintf(want, sizeof(want), s->want_rec, (unsigned long long)(b.data_off + 0x10),
		 (unsigned long long)(b.data_off + 0xc));
	TAP_OK(!strcmp(n->rec_args, want) && n->nwarn == s->nwarn,
	       "%s: record args '%s', %u warned (got '%s', %u)", label, want, s->nwarn,
	       n->rec_args, n->nwarn);
	n = &f.notes[1];
	TAP_OK(!strcmp(n->name, "prelinked") && n->pc_off == b.text_off + 0x20 &&
	       n->sem_off == b.data_off + 6, "%s: .stapsdt.base adjusts pc and semaphore", label);
	n = &f.notes[2];
	TAP_OK(n->pc_off == b.text_off + 0x30 && n->sem_off == 0 && !*n->rec_args &&
	       !*n->uprobe_args, "%s: no semaphore, no args", label);
	ret = pc_read_build_id(path, bid);
	TAP_OK(!ret && !strcmp(bid, "deadbeef01020304"), "%s: pc_read_build_id", label);
	pc_sdt_free(&f);

	/* Cut the file short: refused by name, nothing returned. */
	ret = truncate(path, 200);
	ret = ret ? -1 : pc_sdt_read(path, &f);
	TAP_OK(ret == -ENOEXEC && f.nnotes == 0, "%s: truncated copy refused (%d)", label, ret);
	unlink(path);
}

static void files(void)
{
	static const struct elfspec x64 = { ELFCLASS64, false, EM_X86_64,
		"-4@%edi 8@bss_sym(%rip) -4@twin.0+4(%rip) 8@nosuch(%rip) 8@dup(%rip)",
		"arg1=%%di:s32 arg2=@+0x%llx:u64 arg3=@+0x%llx:s32", 2 };
	static const struct elfspec x32 = { ELFCLASS32, false, EM_386,
		"-4@%eax 4@bss_sym 2@-2(%ebp)",
		"arg1=%%ax:s32 arg2=@+0x%llx:u32 arg3=-2(%%bp):u16", 0 };
	static const struct elfspec a64be = { ELFCLASS64, true, EM_AARCH64,
		"-4@x0 8@[x1, 8] -4@[sp, 12]",
		"arg1=%%x0:s32 arg2=+8(%%x1):u64 arg3=+12(%%sp):s32", 0 };
	struct pc_sdt_file f;
	int ret;

	read_elf("x86-64", &x64);
	read_elf("i386", &x32);
	read_elf("aarch64 BE", &a64be);
	ret = pc_sdt_read("/nonexistent/pc-sdt", &f);
	TAP_OK(ret == -ENOENT, "missing file -> -ENOENT");
	ret = pc_sdt_read("/proc/self/status", &f);
	TAP_OK(ret == -ENOEXEC, "non-ELF -> -ENOEXEC");
}

int main(void)
{
	payloads();
	hostile_names();
	walk();
	build_ids();
	files();
	return tap_done();
}
