// SPDX-License-Identifier: GPL-2.0
/*
 * Read the GNU build-id and the SDT notes of an ELF file with libelf and
 * translate every note into file offsets and fetch args (user/lib/sdt.h).
 * libelf only finds the bytes; their meaning is decoded by the pure,
 * fuzzed parsers in sdtnote.c and argspec.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/probecache.h>

#include "argspec.h"
#include "pc.h"
#include "sdt.h"
#include "sdtnote.h"

#define SDT_NOTE_SCN	".note.stapsdt"
#define SDT_BASE_SCN	".stapsdt.base"
#define SDT_MAX_NOTES	65536u	/* 100x libjvm's 531; bounds memory on hostile files */
#define SDT_MAX_ELF	(4ull << 30)	/* larger than any binary or debug file we read */

struct sdt_elf {
	const char *path;
	Elf *elf;
	GElf_Ehdr eh;
	bool is64, be;
	size_t nloads;
	GElf_Phdr *loads;	/* PT_LOAD headers only */
	bool have_base;
	uint64_t base_addr;	/* .stapsdt.base sh_addr */
	const char *build_id;	/* hex, "" if none */
	struct stat st;		/* as opened: a change while reading is detected */
	bool debug_tried;	/* the build-id debug file, opened on first need */
	int debug_fd;
	Elf *debug;
};

static uint64_t swap_n(uint64_t v, unsigned int bytes)
{
	return bytes == 2 ? __builtin_bswap16(v) : bytes == 4 ? __builtin_bswap32(v) :
	       __builtin_bswap64(v);
}

/* Do the header tables end within @size bytes, read in this byte order or swapped? */
static bool tables_fit(const GElf_Ehdr *h, bool is64, bool swap, uint64_t size)
{
	unsigned int w = is64 ? 8 : 4;
	uint64_t phoff = h->e_phoff, shoff = h->e_shoff, phn = h->e_phnum, shn = h->e_shnum;
	uint64_t phe = h->e_phentsize, she = h->e_shentsize;

	if (swap) {
		phoff = swap_n(phoff, w);
		shoff = swap_n(shoff, w);
		phn = swap_n(phn, 2);
		shn = swap_n(shn, 2);
		phe = swap_n(phe, 2);
		she = swap_n(she, 2);
	}
	return (!phn || (phoff <= size && phoff + phn * phe <= size)) &&
	       (!shoff || (shoff <= size && shoff + (shn ? shn : 1) * she <= size));
}

static void byte_order_err(const struct sdt_elf *e)
{
	pc_err("%s: wrong byte order in e_ident[EI_DATA] (%s-endian): the ELF header "
	       "reads right only the other way", e->path, e->be ? "big" : "little");
}

/*
 * e_ident says how to read the rest: a flipped EI_CLASS or EI_DATA byte
 * shows in the header's own sizes, read with the wrong layout or order.
 */
static int check_ident(struct sdt_elf *e)
{
	const GElf_Ehdr *h = &e->eh;
	unsigned int eh = e->is64 ? 64 : 52, ph = e->is64 ? 56 : 32, sh = e->is64 ? 64 : 40;
	const char *cls = e->is64 ? "ELFCLASS64" : "ELFCLASS32";

	if (h->e_ehsize != eh && swap_n(h->e_ehsize, 2) == eh) {
		byte_order_err(e);
		return -ENOEXEC;
	}
	if (h->e_ehsize != eh)
		pc_err("%s: e_ehsize is %u, %s wants %u: e_ident[EI_CLASS] or the ELF header "
		       "damaged", e->path, h->e_ehsize, cls, eh);
	else if (h->e_phnum && h->e_phentsize != ph)
		pc_err("%s: e_phentsize is %u, %s wants %u: ELF header damaged", e->path,
		       h->e_phentsize, cls, ph);
	else if (h->e_shnum && h->e_shentsize != sh)
		pc_err("%s: e_shentsize is %u, %s wants %u: ELF header damaged", e->path,
		       h->e_shentsize, cls, sh);
	else
		return 0;
	return -ENOEXEC;
}

/* Header tables past the end of the file: libelf would just see none of them. */
static int check_tables(struct sdt_elf *e)
{
	uint64_t size = (uint64_t)e->st.st_size;

	if (tables_fit(&e->eh, e->is64, false, size))
		return 0;
	if (tables_fit(&e->eh, e->is64, true, size))
		byte_order_err(e);
	else
		pc_err("%s: truncated ELF file: header tables end past its %" PRIu64 " bytes",
		       e->path, size);
	return -ENOEXEC;
}

/*
 * libelf reads with pread (ELF_C_READ), never through a mapping: a file cut
 * short while we read it gives short reads and errors, not SIGBUS.
 */
/* libelf over @fd, an open regular file (@e->st filled) named @e->path in messages. */
static int elf_attach(struct sdt_elf *e, int fd)
{
	const char *path = e->path;

	if ((uint64_t)e->st.st_size > SDT_MAX_ELF) {
		pc_err("%s: larger than %llu GiB, not read", path, SDT_MAX_ELF >> 30);
		return -EFBIG;
	}
	e->elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!e->elf || elf_kind(e->elf) != ELF_K_ELF || !gelf_getehdr(e->elf, &e->eh)) {
		pc_err("%s: not an ELF file%s%s", path, e->elf ? "" : ": ",
		       e->elf ? "" : elf_errmsg(-1));
		return -ENOEXEC;
	}
	e->is64 = gelf_getclass(e->elf) == ELFCLASS64;
	e->be = e->eh.e_ident[EI_DATA] == ELFDATA2MSB;
	return check_ident(e) ?: check_tables(e);
}

static int elf_open(const char *path, struct sdt_elf *e, int *fd)
{
	memset(e, 0, sizeof(*e));
	e->path = path;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EIO;
	*fd = pc_open_regular(path, 0, &e->st);
	if (*fd < 0) {
		pc_err("%s: %s", path, pc_file_strerror(*fd));
		return *fd;
	}
	return elf_attach(e, *fd);
}

/* Whatever was read from a file that changed meanwhile cannot be trusted. */
static int check_unchanged(const struct sdt_elf *e, int fd)
{
	struct stat now;

	if (fd < 0 || fstat(fd, &now) || pc_same_content(&e->st, &now))
		return 0;
	pc_err("%s: changed while being read (%lld bytes, now %lld): nothing recorded, "
	       "try again once it is complete", e->path, (long long)e->st.st_size,
	       (long long)now.st_size);
	return -EAGAIN;
}

static void elf_close(struct sdt_elf *e, int fd)
{
	if (e->debug)
		elf_end(e->debug);
	if (e->debug_fd > 0)
		close(e->debug_fd);
	free(e->loads);
	if (e->elf)
		elf_end(e->elf);
	if (fd >= 0)
		close(fd);
}

static int load_phdrs(struct sdt_elf *e)
{
	size_t n;
	GElf_Phdr ph;

	if (elf_getphdrnum(e->elf, &n)) {
		pc_err("%s: cannot read program headers: %s", e->path, elf_errmsg(-1));
		return -ENOEXEC;
	}
	e->loads = calloc(n ? n : 1, sizeof(*e->loads));
	if (!e->loads)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (!gelf_getphdr(e->elf, (int)i, &ph)) {
			pc_err("%s: program header %zu unreadable: %s", e->path, i, elf_errmsg(-1));
			return -ENOEXEC;
		}
		if (ph.p_type == PT_LOAD)
			e->loads[e->nloads++] = ph;
	}
	return 0;
}

/* Link-time address -> file offset through PT_LOAD; @mem lets .bss (p_memsz) count. */
static int vaddr_off(const struct sdt_elf *e, uint64_t v, bool mem, uint64_t *off)
{
	for (size_t i = 0; i < e->nloads; i++) {
		const GElf_Phdr *p = &e->loads[i];
		uint64_t size = mem ? p->p_memsz : p->p_filesz;

		if (v >= p->p_vaddr && v - p->p_vaddr < size) {
			*off = p->p_offset + (v - p->p_vaddr);
			return 0;
		}
	}
	return -ERANGE;
}

static Elf_Scn *section_named(struct sdt_elf *e, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	const char *n;

	if (elf_getshdrstrndx(e->elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(e->elf, scn))) {
		if (!gelf_getshdr(scn, sh))
			continue;
		n = elf_strptr(e->elf, shstrndx, sh->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/* Build-id from the first GNU build-id note in @buf; 0, -ENOENT. */
static int build_id_in(const struct sdt_elf *e, const void *buf, size_t len,
		       uint64_t align, char hex[41])
{
	struct pc_note n;
	size_t pos = 0;
	const char *why = "";

	while (pc_note_next(buf, len, &pos, align == 8 ? 8 : 4, e->be, &n, &why) == 1) {
		if (n.type != PC_NT_GNU_BUILD_ID || !pc_note_is(&n, "GNU"))
			continue;
		if (pc_build_id_hex(&n, hex, &why) == 0)
			return 0;
		pc_warn("%s: ignoring malformed build-id note: %s", e->path, why);
	}
	return -ENOENT;
}

/* PT_NOTE segments first (what the kernel module reads), then SHT_NOTE sections. */
static int read_build_id(struct sdt_elf *e, char hex[41])
{
	size_t n = 0;
	GElf_Phdr ph;
	GElf_Shdr sh;
	Elf_Scn *scn = NULL;
	Elf_Data *d;

	hex[0] = '\0';
	elf_getphdrnum(e->elf, &n);
	for (size_t i = 0; i < n; i++) {
		if (!gelf_getphdr(e->elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		d = elf_getdata_rawchunk(e->elf, ph.p_offset, ph.p_filesz, ELF_T_BYTE);
		if (d && !build_id_in(e, d->d_buf, d->d_size, ph.p_align, hex))
			return 0;
	}
	while ((scn = elf_nextscn(e->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_rawdata(scn, NULL);
		if (d && d->d_buf && !build_id_in(e, d->d_buf, d->d_size, sh.sh_addralign, hex))
			return 0;
	}
	return -ENOENT;
}

int pc_read_build_id(const char *path, char hex[41])
{
	struct sdt_elf e;
	int fd = -1, ret;

	ret = elf_open(path, &e, &fd);
	if (!ret)
		ret = read_build_id(&e, hex);
	if (ret != -ENOMEM && check_unchanged(&e, fd))
		ret = -EAGAIN;
	elf_close(&e, fd);
	return ret;
}

int pc_read_build_id_fd(int fd, const char *name, char hex[41])
{
	struct sdt_elf e;
	int ret;

	memset(&e, 0, sizeof(e));
	e.path = name;
	hex[0] = '\0';
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EIO;
	if (fstat(fd, &e.st))
		return -errno;
	ret = elf_attach(&e, fd);
	if (!ret)
		ret = read_build_id(&e, hex);
	if (ret != -ENOMEM && check_unchanged(&e, fd))
		ret = -EAGAIN;
	elf_close(&e, -1);	/* the caller's descriptor stays open */
	return ret;
}

/* Symbol lookup over .symtab and .dynsym for rip-relative and absolute operands. */
static int sym_scan(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, const char *name,
		    uint64_t *val, int *nlocal, bool *global)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	GElf_Sym s;
	const char *sn;

	for (size_t i = 1; d && i < n; i++) {
		if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF ||
		    GELF_ST_TYPE(s.st_info) == STT_SECTION || GELF_ST_TYPE(s.st_info) == STT_FILE)
			continue;
		sn = elf_strptr(elf, sh->sh_link, s.st_name);
		if (!sn || strcmp(sn, name))
			continue;
		if (GELF_ST_BIND(s.st_info) != STB_LOCAL) {
			*val = s.st_value;
			*global = true;
			return 0;
		}
		/* Two static objects of one name: which one the probe meant is unknown. */
		if (*nlocal && *val != s.st_value)
			return -EEXIST;
		*val = s.st_value;
		(*nlocal)++;
	}
	return 0;
}

static int sym_in(Elf *elf, const char *name, uint64_t *value)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int nlocal = 0, ret;
	bool global = false;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		ret = sym_scan(elf, scn, &sh, name, value, &nlocal, &global);
		if (ret || global)
			return ret;
	}
	return nlocal ? 0 : -ENOENT;
}

/*
 * Stripped binaries keep .symtab in a separate debug file, found by build-id
 * under $PROBECACHE_DEBUG_ROOT (default /usr/lib/debug), as Debian's -dbgsym
 * packages install it. Its symbols have the binary's link-time addresses.
 */
static Elf *debug_elf(struct sdt_elf *e)
{
	const char *root = getenv("PROBECACHE_DEBUG_ROOT");
	char path[4096];
	struct stat st;

	if (e->debug_tried || strlen(e->build_id) < 4)
		return e->debug;
	e->debug_tried = true;
	snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s.debug", root && *root ? root :
		 "/usr/lib/debug", e->build_id, e->build_id + 2);
	e->debug_fd = pc_open_regular(path, 0, &st);
	if (e->debug_fd < 0)
		return NULL;
	e->debug = elf_begin(e->debug_fd, ELF_C_READ, NULL);
	if (e->debug && elf_kind(e->debug) != ELF_K_ELF) {
		elf_end(e->debug);
		e->debug = NULL;
	}
	pc_info("%s: symbols also from %s", e->path, path);
	return e->debug;
}

static int sym_value(void *priv, const char *name, uint64_t *value)
{
	struct sdt_elf *e = priv;
	int ret = sym_in(e->elf, name, value);

	if (ret == -ENOENT && debug_elf(e))
		ret = sym_in(e->debug, name, value);
	return ret;
}

static int arg_vaddr_off(void *priv, uint64_t vaddr, uint64_t *off)
{
	return vaddr_off(priv, vaddr, true, off);
}

/* Growable string for the per-note arg lists. */
struct sbuf {
	char *s;
	size_t len, cap;
};

static int sbuf_add(struct sbuf *b, const char *a, const char *c)
{
	size_t la = strlen(a), lc = strlen(c), need = b->len + la + lc + 2;

	if (need > b->cap) {
		char *n = realloc(b->s, need * 2);

		if (!n)
			return -ENOMEM;
		b->s = n;
		b->cap = need * 2;
	}
	if (b->len)
		b->s[b->len++] = ' ';
	memcpy(b->s + b->len, a, la);
	memcpy(b->s + b->len + la, c, lc);
	b->len += la + lc;
	b->s[b->len] = '\0';
	return 0;
}

struct arg_walk {
	struct sdt_elf *e;
	struct pc_sdt_note *note;
	const struct pc_argctx *ctx;
	struct sbuf rec;
};

/* Does perf's form ("arg1=... arg3=...") carry arg@n? */
static bool perf_has_arg(const char *uprobe, unsigned int n)
{
	char key[16];
	const char *p;

	snprintf(key, sizeof(key), "arg%u=", n);
	for (p = uprobe; p && (p = strstr(p, key)); p++)
		if (p == uprobe || p[-1] == ' ')
			return true;
	return false;
}

static int one_arg(const char *spec, unsigned int idx, void *priv)
{
	struct arg_walk *w = priv;
	struct pc_argspec a;
	const char *why;
	char name[16], out[PC_ARGSPEC_SYM_MAX + 64];
	int ret;

	w->note->nargs = idx + 1;
	if (idx >= PROBECACHE_MAX_ARGS) {
		if (idx == PROBECACHE_MAX_ARGS) {
			pc_warn("%s: %s:%s: more than %u args, which a record cannot carry: "
				"arg%u and later left out", w->e->path, w->note->provider,
				w->note->name, PROBECACHE_MAX_ARGS, idx + 1);
			w->note->nwarn++;
		}
		return 0;
	}
	ret = pc_argspec_parse(spec, w->e->eh.e_machine, &a, &why);
	if (!ret)
		ret = pc_argspec_record(&a, w->ctx, out, sizeof(out), &why);
	if (ret) {
		pc_warn("%s: %s:%s: arg%u '%s': %s: left out of the record%s", w->e->path,
			w->note->provider, w->note->name, idx + 1, spec, why,
			perf_has_arg(w->note->uprobe_args, idx + 1) ?
			", kept in the uprobe form as perf -D writes it" : "");
		w->note->nwarn++;
		return 0;
	}
	snprintf(name, sizeof(name), "arg%u=", idx + 1);
	return sbuf_add(&w->rec, name, out);
}

/* Both cache lines stop at arg16, as the record does: cut perf's form after it. */
static void drop_past_max(char *uprobe)
{
	char key[16], *p;

	snprintf(key, sizeof(key), "arg%u=", PROBECACHE_MAX_ARGS + 1);
	for (p = uprobe; (p = strstr(p, key)); p++) {
		if (p == uprobe || p[-1] == ' ') {
			p[p == uprobe ? 0 : -1] = '\0';
			return;
		}
	}
}

/* perf's uprobe_events form of the note's args, as perf -D writes it. */
static int perf_form(struct sdt_elf *e, struct pc_sdt_note *n)
{
	size_t plen = strlen(n->argstr) * 12 + 64;
	int ret;

	n->uprobe_args = malloc(plen);
	if (!n->uprobe_args)
		return -ENOMEM;
	ret = pc_argspec_perf(n->argstr, e->eh.e_machine, n->uprobe_args, plen);
	if (ret == -EINVAL || ret == -E2BIG)
		pc_warn("%s: %s:%s: perf would refuse this note's args; uprobe form left empty",
			e->path, n->provider, n->name);
	if (ret)
		n->uprobe_args[0] = '\0';
	/* perf writes " arg1=..."; stored without the leading blank, like rec_args. */
	memmove(n->uprobe_args, n->uprobe_args + (n->uprobe_args[0] == ' '),
		strlen(n->uprobe_args) + 1);
	drop_past_max(n->uprobe_args);
	return ret == -ENOMEM ? ret : 0;
}

static int translate_args(struct sdt_elf *e, struct pc_sdt_note *n)
{
	const struct pc_argctx ctx = {
		.sym_value = sym_value, .vaddr_to_off = arg_vaddr_off, .priv = e,
		.fixed = e->eh.e_type == ET_EXEC, .wordsize = e->is64 ? 8 : 4,
	};
	struct arg_walk w = { e, n, &ctx, { NULL, 0, 0 } };
	int ret = perf_form(e, n);	/* first: a rejected arg's warning says if perf keeps it */

	if (ret)
		return ret;
	ret = pc_argspec_split(n->argstr, one_arg, &w);
	if (ret == -E2BIG) {
		pc_warn("%s: %s:%s: an arg spec is longer than 256 bytes: args left out",
			e->path, n->provider, n->name);
		n->nwarn++;
		ret = 0;
	}
	n->rec_args = w.rec.s ? w.rec.s : strdup("");
	return ret ? ret : n->rec_args ? 0 : -ENOMEM;
}

/* Prelink adjustment, then PT_LOAD translation of the pc and the semaphore. */
static int note_offsets(struct sdt_elf *e, const struct pc_sdtnote *r, struct pc_sdt_note *n)
{
	uint64_t pc = r->pc, sem = r->sem, mask = e->is64 ? UINT64_MAX : UINT32_MAX;

	if (e->have_base && r->base) {
		pc = (pc + e->base_addr - r->base) & mask;
		if (sem)
			sem = (sem + e->base_addr - r->base) & mask;
	}
	if (vaddr_off(e, pc, false, &n->pc_off)) {
		pc_warn("%s: %s:%s: probe address 0x%" PRIx64
			" is in no PT_LOAD file range: note skipped",
			e->path, r->provider, r->name, pc);
		return -ERANGE;
	}
	n->sem_off = 0;
	if (sem && vaddr_off(e, sem, false, &n->sem_off)) {
		pc_warn("%s: %s:%s: semaphore address 0x%" PRIx64
			" is in no PT_LOAD file range: note skipped",
			e->path, r->provider, r->name, sem);
		return -ERANGE;
	}
	return 0;
}

static void note_free(struct pc_sdt_note *n)
{
	free(n->provider);
	free(n->name);
	free(n->argstr);
	free(n->rec_args);
	free(n->uprobe_args);
}

/* One stapsdt note: appended to @out, or warned about and skipped. */
static int add_note(struct sdt_elf *e, const struct pc_note *raw, unsigned int idx,
		    struct pc_sdt_file *out)
{
	struct pc_sdtnote r;
	struct pc_sdt_note n = { 0 }, *grown;
	const char *why;
	int ret;

	if (raw->type != PC_NT_STAPSDT) {
		pc_warn("%s: " SDT_NOTE_SCN " note %u has type %u, not v3 (3): skipped",
			e->path, idx, raw->type);
		out->nskipped++;
		return 0;
	}
	if (pc_sdtnote_parse(raw->desc, raw->descsz, e->is64, e->be, &r, &why)) {
		pc_warn("%s: " SDT_NOTE_SCN " note %u: %s: skipped", e->path, idx, why);
		out->nskipped++;
		return 0;
	}
	if (note_offsets(e, &r, &n)) {
		out->nskipped++;
		return 0;
	}
	n.provider = strdup(r.provider);
	n.name = strdup(r.name);
	n.argstr = strdup(r.args);
	ret = n.provider && n.name && n.argstr ? translate_args(e, &n) : -ENOMEM;
	/* Capacity doubles at each power of two: no separate capacity field needed. */
	grown = out->notes;
	if (!ret && !(out->nnotes & (out->nnotes - 1)))
		grown = realloc(out->notes, (out->nnotes ? 2 * out->nnotes : 1) * sizeof(*grown));
	if (ret || !grown) {
		note_free(&n);
		return ret ? ret : -ENOMEM;
	}
	out->notes = grown;
	out->notes[out->nnotes++] = n;
	return 0;
}

/* Section names come from e_shstrndx: a bogus index would hide every section. */
static int check_shstrtab(struct sdt_elf *e, size_t shstrndx)
{
	GElf_Shdr sh;
	Elf_Scn *scn;
	size_t n;

	if (elf_getshdrnum(e->elf, &n) || !n)
		return 0;	/* no sections: no notes, nothing to name */
	scn = shstrndx < n ? elf_getscn(e->elf, shstrndx) : NULL;
	if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type != SHT_STRTAB) {
		pc_err("%s: e_shstrndx %zu is not a string table section (%zu sections): "
		       "section names unreadable", e->path, shstrndx, n);
		return -ENOEXEC;
	}
	return 0;
}

/* .stapsdt.base address, and the raw .note.stapsdt bytes (*d NULL: none). */
static int notes_data(struct sdt_elf *e, Elf_Data **d, GElf_Shdr *sh)
{
	Elf_Scn *scn;
	size_t shstrndx;

	*d = NULL;
	/* A file cut short loses its section headers: say so rather than "no notes". */
	if (elf_getshdrstrndx(e->elf, &shstrndx)) {
		pc_err("%s: section headers unreadable: %s", e->path, elf_errmsg(-1));
		return -ENOEXEC;
	}
	if (check_shstrtab(e, shstrndx))
		return -ENOEXEC;
	if (section_named(e, SDT_BASE_SCN, sh)) {
		e->have_base = true;
		e->base_addr = sh->sh_addr;
	}
	scn = section_named(e, SDT_NOTE_SCN, sh);
	if (!scn || sh->sh_type != SHT_NOTE)
		return 0;
	*d = elf_rawdata(scn, NULL);
	if (!*d) {
		pc_err("%s: cannot read " SDT_NOTE_SCN ": %s", e->path, elf_errmsg(-1));
		return -ENOEXEC;
	}
	if (!(*d)->d_size || !(*d)->d_buf) {
		pc_warn("%s: " SDT_NOTE_SCN " is empty", e->path);
		*d = NULL;
	}
	return 0;
}

static int read_notes(struct sdt_elf *e, struct pc_sdt_file *out)
{
	GElf_Shdr sh;
	Elf_Data *d;
	struct pc_note n;
	size_t pos = 0;
	unsigned int idx = 0;
	const char *why = "";
	int ret;

	ret = notes_data(e, &d, &sh);
	if (ret || !d)
		return ret;
	while ((ret = pc_note_next(d->d_buf, d->d_size, &pos, sh.sh_addralign == 8 ? 8 : 4,
				   e->be, &n, &why)) == 1) {
		if (!pc_note_is(&n, "stapsdt"))
			continue;
		if (out->nnotes == SDT_MAX_NOTES) {
			pc_warn("%s: more than %u SDT notes: the rest ignored", e->path,
				SDT_MAX_NOTES);
			out->nskipped++;
			return 0;
		}
		ret = add_note(e, &n, idx++, out);
		if (ret)
			return ret;
	}
	if (ret < 0) {
		pc_warn("%s: " SDT_NOTE_SCN " note %u: %s: it and the rest ignored", e->path, idx,
			why);
		out->nskipped++;
	}
	return 0;
}

int pc_sdt_read(const char *path, struct pc_sdt_file *out)
{
	struct sdt_elf e;
	int fd = -1, ret;

	memset(out, 0, sizeof(*out));
	ret = elf_open(path, &e, &fd);
	if (ret)
		goto out;
	out->machine = e.eh.e_machine;
	out->is64 = e.is64;
	ret = load_phdrs(&e);
	if (ret)
		goto out;
	if (read_build_id(&e, out->build_id))
		pc_info("%s: no GNU build-id note", path);
	e.build_id = out->build_id;
	ret = read_notes(&e, out);
	if (ret == -ENOMEM)
		pc_err("%s: out of memory reading SDT notes", path);
out:
	if (ret != -ENOMEM && check_unchanged(&e, fd))
		ret = -EAGAIN;
	elf_close(&e, fd);
	if (ret)
		pc_sdt_free(out);
	return ret;
}

void pc_sdt_free(struct pc_sdt_file *f)
{
	for (size_t i = 0; i < f->nnotes; i++)
		note_free(&f->notes[i]);
	free(f->notes);
	f->notes = NULL;
	f->nnotes = 0;
}
