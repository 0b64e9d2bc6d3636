// SPDX-License-Identifier: GPL-2.0
/*
 * Verification at definition: everything happens through one open file, and
 * the inode that gets registered is that file's real inode, so no path
 * lookup can slip another file in between check and register. Writes to it
 * are denied before the first read and stay denied while it is probed.
 */
#include <linux/dcache.h>
#include <linux/elf.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "pc.h"
#include "testhook.h"

/* ctime and nlink: the part a link change moves. */
static void pc_ident_link_base(struct inode *inode, struct pc_ident *id)
{
	struct timespec64 t = pc_inode_ctime(inode);

	atomic_set(&id->nlink, READ_ONCE(inode->i_nlink));
	atomic64_set(&id->ctime_ns, timespec64_to_ns(&t));
}

/*
 * Snapshot what identifies the file content. Not i_version: xfs moves it on
 * atime updates, so our own read (or any later one) would look like a
 * write; ctime moves on every write and on utimes() as well.
 */
static int pc_ident_take(struct inode *inode, struct pc_ident *id)
{
	id->mtime = pc_inode_mtime(inode);
	id->size = i_size_read(inode);
	pc_ident_link_base(inode, id);
	return 0;
}

/*
 * Returns what changed since pc_ident_take() or NULL. Writes are denied, but
 * a remote filesystem's server is no writer of ours. A write always moves mtime (and
 * size, usually); ctime also catches a write whose mtime was put back, but
 * it moves on link and unlink too: renaming a new file over the probed one
 * (a package upgrade) must leave the old inode armed. So a link count change
 * takes the current ctime as the new baseline, and changes after it count.
 */
static const char *pc_ident_changed(struct pc_ident *id, struct inode *inode)
{
	unsigned int nlink = READ_ONCE(inode->i_nlink);
	struct timespec64 t;

	if (i_size_read(inode) != id->size)
		return "size";
	t = pc_inode_mtime(inode);
	if (!timespec64_equal(&t, &id->mtime))
		return "mtime";
	if (nlink != atomic_read(&id->nlink)) {
		pc_ident_link_base(inode, id);
		return NULL;
	}
	t = pc_inode_ctime(inode);
	if (timespec64_to_ns(&t) != atomic64_read(&id->ctime_ns))
		return "ctime";
	return NULL;
}

static int pc_read_at(struct file *f, void *buf, size_t len, u64 pos,
		      const char *what, struct pc_err *err)
{
	loff_t p = pos;
	ssize_t n;

	n = kernel_read(f, buf, len, &p);
	if (n < 0)
		return pc_err_set(err, n, "path", "reading %s: error %zd",
				  what, n);
	if ((size_t)n != len)
		return pc_err_set(err, -ENOEXEC, "path",
				  "truncated ELF: %s wants %zu bytes at 0x%llx, got %zd",
				  what, len, pos, n);
	return 0;
}

/*
 * Filesystems whose reads wait for a server, which may never answer: FUSE
 * (a user's own mount included) and network filesystems.
 */
static bool pc_fs_remote(const struct super_block *sb)
{
	switch (sb->s_magic) {
	case 0x65735546:	/* FUSE_SUPER_MAGIC */
	case NFS_SUPER_MAGIC:
	case 0xff534d42:	/* CIFS_SUPER_MAGIC */
	case 0xfe534d42:	/* SMB2_SUPER_MAGIC */
	case 0x00c36400:	/* CEPH_SUPER_MAGIC */
	case V9FS_MAGIC:
	case AFS_FS_MAGIC:
	case AFS_SUPER_MAGIC:
	case CODA_SUPER_MAGIC:
		return true;
	}
	return false;
}

/*
 * A copy anyone may run (a site) is read only where no server can stall
 * the read, unless follow_remote says otherwise: the writer (the
 * follower) waits for it. Checked on the O_PATH handle, before any read.
 */
static int pc_check_remote(const struct path *path, const char *pathname,
			   struct pc_err *err)
{
	const struct super_block *sb = path->mnt->mnt_sb;
	const struct super_block *real = d_real_inode(path->dentry)->i_sb;

	if (READ_ONCE(pc_follow_remote) || (!pc_fs_remote(sb) && !pc_fs_remote(real)))
		return 0;
	return pc_err_set(err, -EREMOTE, "path",
			  "%s is on %s, whose server can stall reads: not a site unless follow_remote=1",
			  pathname, pc_fs_remote(sb) ? sb->s_type->name : real->s_type->name);
}

/*
 * What exec and uprobe_register() need of a file, checked on the O_PATH
 * handle before anything is read: pseudo files (sysfs, procfs: SB_I_NOEXEC)
 * and noexec mounts never hold code, and files without page-cache reads
 * (tracefs, debugfs) can neither be probed nor be read without blocking.
 * path_noexec() itself is not exported to modules.
 */
static int pc_check_fs(const struct path *path, const char *pathname,
		       struct pc_err *err)
{
	/* Reads reach the real inode: an overlay file's own has no a_ops. */
	struct inode *inode = d_real_inode(path->dentry);
	struct super_block *sb = path->mnt->mnt_sb;

	if ((path->mnt->mnt_flags & MNT_NOEXEC) || (sb->s_iflags & SB_I_NOEXEC))
		return pc_err_set(err, -EACCES, "path",
				  "%s is on a noexec or pseudo filesystem (%s)",
				  pathname, sb->s_type->name);
	if (!pc_mapping_readable(inode->i_mapping) &&
	    inode->i_sb->s_magic != TMPFS_MAGIC)
		return pc_err_set(err, -EACCES, "path",
				  "%s: %s files cannot be read through the page cache",
				  pathname, inode->i_sb->s_type->name);
	return 0;
}

/* Open @pathname once, without ever opening a device or FIFO. */
static int pc_open(const char *pathname, unsigned int flags,
		   struct pc_verified *v, struct file **filp, struct pc_err *err)
{
	struct file *opath, *f;
	umode_t mode;
	int ret;

	opath = filp_open(pathname, O_PATH, 0);
	if (IS_ERR(opath)) {
		ret = PTR_ERR(opath);
		return pc_err_set(err, ret, "path", "cannot open %s: error %d",
				  pathname, ret);
	}
	mode = file_inode(opath)->i_mode;
	if (!S_ISREG(mode)) {
		ret = pc_err_set(err, S_ISDIR(mode) ? -EISDIR : -EINVAL, "path",
				 "%s is %s, not a regular file", pathname,
				 S_ISDIR(mode) ? "a directory" : "special");
		goto err_opath;
	}
	ret = pc_check_fs(&opath->f_path, pathname, err);
	if (!ret && (flags & PC_VERIFY_SITE))
		ret = pc_check_remote(&opath->f_path, pathname, err);
	if (ret)
		goto err_opath;
	f = dentry_open(&opath->f_path, O_RDONLY | O_LARGEFILE, current_cred());
	if (IS_ERR(f)) {
		ret = pc_err_set(err, PTR_ERR(f), "path",
				 "cannot read %s: error %ld", pathname, PTR_ERR(f));
		goto err_opath;
	}
	v->path = f->f_path;
	path_get(&v->path);
	v->inode = d_real_inode(f->f_path.dentry);
	ihold(v->inode);
	fput(opath);
	*filp = f;
	return 0;

err_opath:
	fput(opath);
	return ret;
}

static int pc_read_elf(struct file *f, struct pc_elf_info *elf,
		       struct pc_err *err)
{
	u8 ehdr[sizeof(Elf64_Ehdr)];
	const char *why = "malformed";
	size_t len;
	void *buf;
	int ret;

	len = min_t(u64, sizeof(ehdr), elf->file_size);
	ret = pc_read_at(f, ehdr, len, 0, "ELF header", err);
	if (ret)
		return ret;
	ret = pc_elf_parse_ehdr(ehdr, len, elf, &why);
	if (ret)
		return pc_err_set(err, ret, "path", "ELF header: %s", why);
	if (elf->machine != PC_ELF_MACHINE)
		return pc_err_set(err, -ENOEXEC, "path",
				  "ELF header: e_machine %u is not this machine's (%u)",
				  elf->machine, PC_ELF_MACHINE);

	len = (size_t)elf->phnum * elf->phentsize;
	buf = kmalloc(len ? len : 1, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	ret = pc_read_at(f, buf, len, elf->phoff, "program headers", err);
	if (!ret) {
		ret = pc_elf_parse_phdrs(buf, len, elf, &why);
		if (ret)
			pc_err_set(err, ret, "path", "program headers: %s", why);
	}
	kfree(buf);
	return ret;
}

/* Read @len bytes at @pos into a new kvmalloc()ed buffer. */
static void *pc_read_new(struct file *f, size_t len, u64 pos, const char *what,
			 struct pc_err *err)
{
	void *buf = kvmalloc(len ? len : 1, GFP_KERNEL);
	int ret;

	if (!buf) {
		pc_err_set(err, -ENOMEM, "path", "out of memory reading %s", what);
		return ERR_PTR(-ENOMEM);
	}
	ret = pc_read_at(f, buf, len, pos, what, err);
	if (ret) {
		kvfree(buf);
		return ERR_PTR(ret);
	}
	return buf;
}

static int pc_note_build_id(struct file *f, const struct pc_elf_seg *s,
			    bool big_endian, u8 *id, size_t *id_len,
			    struct pc_err *err)
{
	const char *why = "malformed";
	size_t len = min_t(u64, s->filesz, PC_ELF_MAX_NOTE_BYTES);
	void *buf;
	int ret;

	buf = pc_read_new(f, len, s->offset, "PT_NOTE", err);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	/* p_align 8 notes (GNU property) use the 8-byte layout */
	ret = pc_elf_find_build_id_align(buf, len, big_endian, s->align, id,
					 PROBECACHE_BUILD_ID_MAX, id_len, &why);
	if (ret && ret != -ENOENT)
		pc_err_set(err, ret, "path", "PT_NOTE at 0x%llx: %s", s->offset,
			   why);
	kvfree(buf);
	return ret;
}

/*
 * The build-id may sit in any PT_NOTE: a malformed segment (a damaged or
 * hand-made note before it) does not end the search, it is reported only
 * if no segment has the build-id.
 */
static int pc_read_build_id(struct file *f, struct pc_facts *facts,
			    struct pc_err *err)
{
	const struct pc_elf_info *elf = &facts->elf;
	int ret = -ENOENT, bad = 0;
	struct pc_err first = {};
	unsigned int i;

	for (i = 0; i < elf->nsegs && ret; i++) {
		if (elf->segs[i].type != PT_NOTE)
			continue;
		ret = pc_note_build_id(f, &elf->segs[i], elf->big_endian,
				       facts->build_id, &facts->build_id_len,
				       err);
		if (ret == -ENOEXEC && !bad) {
			bad = ret;
			first = *err;
		} else if (ret && ret != -ENOEXEC && ret != -ENOENT) {
			return ret;
		}
	}
	if (ret && bad) {
		*err = first;
		return bad;
	}
	if (ret)
		return pc_err_set(err, -ENOEXEC, "path",
				  "no NT_GNU_BUILD_ID note");
	return 0;
}

/*
 * An SDT record (group sdt_*, or any record with a semaphore) is checked
 * against the file's SDT notes too (pc_check_sdt()).
 */
void pc_claim_init(struct pc_claim *claim, const u8 *build_id, u8 build_id_len,
		   u64 offset, u64 ref_ctr_offset, const char *group)
{
	claim->build_id = build_id;
	claim->build_id_len = build_id_len;
	claim->offset = offset;
	claim->ref_ctr_offset = ref_ctr_offset;
	claim->sdt = ref_ctr_offset || str_has_prefix(group, "sdt_");
	claim->args = NULL;
	claim->nargs = 0;
}

static int pc_check_build_id(const struct pc_claim *claim,
			     const struct pc_facts *facts, struct pc_err *err)
{
	if (facts->build_id_len == claim->build_id_len &&
	    !memcmp(facts->build_id, claim->build_id, claim->build_id_len))
		return 0;
	return pc_err_set(err, -ESTALE, "build-id",
			  "build-id mismatch: file has %*phN, record wants %*phN",
			  (int)facts->build_id_len, facts->build_id,
			  claim->build_id_len, claim->build_id);
}

static const char *pc_arg_field(unsigned int i)
{
	static const char *const names[] = {
		"arg1", "arg2", "arg3", "arg4", "arg5", "arg6", "arg7", "arg8",
		"arg9", "arg10", "arg11", "arg12", "arg13", "arg14", "arg15",
		"arg16",
	};

	BUILD_BUG_ON(ARRAY_SIZE(names) != PROBECACHE_MAX_ARGS);
	return i < ARRAY_SIZE(names) ? names[i] : "arg";
}

/*
 * The uprobe event reads @+FILEOFF at the address the file offset is mapped
 * to: one outside every PT_LOAD has none, and would read whatever lies there.
 */
static int pc_check_fileoffs(const struct pc_claim *claim,
			     const struct pc_elf_info *elf, struct pc_err *err)
{
	unsigned int i;
	u64 vaddr;

	for (i = 0; i < claim->nargs; i++) {
		const struct pc_arg *a = &claim->args[i];

		if (a->kind == PC_BASE_FILEOFF &&
		    pc_elf_off_to_vaddr(elf, a->fileoff, &vaddr))
			return pc_err_set(err, -ERANGE, pc_arg_field(i),
					  "@+0x%llx is not inside any PT_LOAD",
					  a->fileoff);
	}
	return 0;
}

/* Offsets are file offsets into the very bytes we just checked. */
static int pc_check_offsets(const struct pc_claim *claim,
			    const struct pc_elf_info *elf, struct pc_err *err)
{
	if (claim->offset >= elf->file_size)
		return pc_err_set(err, -ERANGE, "offset",
				  "0x%llx is past end of file (size 0x%llx)",
				  claim->offset, elf->file_size);
	if (!pc_elf_in_load(elf, claim->offset, 1, PF_X))
		return pc_err_set(err, -ERANGE, "offset",
				  "0x%llx is not inside an executable PT_LOAD",
				  claim->offset);
	if (claim->ref_ctr_offset &&
	    !pc_elf_in_load(elf, claim->ref_ctr_offset, sizeof(short), PF_W))
		return pc_err_set(err, -ERANGE, "ref_ctr",
				  "0x%llx is not inside a writable PT_LOAD",
				  claim->ref_ctr_offset);
	return pc_check_fileoffs(claim, elf, err);
}

/* What an SDT check needs of the section headers. */
struct pc_sdt_sects {
	struct pc_elf_sect notes;	/* .note.stapsdt */
	bool have_notes, have_base;
	u64 base_addr;			/* .stapsdt.base's sh_addr */
};

#define PC_MAX_SHSTRTAB		(1 << 20)
#define PC_MAX_SDT_NOTES	(16 << 20)

static int pc_find_sdt_sects(const void *shdrs, size_t len, const char *strtab,
			     size_t strtab_len, const struct pc_elf_info *elf,
			     struct pc_sdt_sects *ss, struct pc_err *err)
{
	const char *why = "malformed", *name;
	struct pc_elf_sect sect;
	unsigned int i;

	for (i = 0; i < elf->shnum; i++) {
		if (pc_elf_parse_shdr(shdrs, len, elf, i, &sect, &why))
			return pc_err_set(err, -ENOEXEC, "path",
					  "section header %u: %s", i, why);
		name = pc_elf_sect_name(strtab, strtab_len, &sect);
		if (name && !strcmp(name, ".note.stapsdt")) {
			ss->notes = sect;
			ss->have_notes = true;
		} else if (name && !strcmp(name, ".stapsdt.base")) {
			ss->base_addr = sect.addr;
			ss->have_base = true;
		}
	}
	return 0;
}

/* Locate .note.stapsdt and .stapsdt.base through the section headers. */
static int pc_read_sdt_sects(struct file *f, const struct pc_elf_info *elf,
			     struct pc_sdt_sects *ss, struct pc_err *err)
{
	size_t len = (size_t)elf->shnum * elf->shentsize;
	const char *why = "malformed";
	struct pc_elf_sect strsect;
	void *shdrs, *strtab;
	int ret;

	if (pc_elf_shdr_table(elf, &why))
		return pc_err_set(err, -ENOEXEC, "path",
				  "cannot find SDT notes: %s", why);
	shdrs = pc_read_new(f, len, elf->shoff, "section headers", err);
	if (IS_ERR(shdrs))
		return PTR_ERR(shdrs);
	ret = pc_elf_parse_shdr(shdrs, len, elf, elf->shstrndx, &strsect, &why);
	if (!ret && strsect.size > PC_MAX_SHSTRTAB) {
		why = "section name table larger than 1 MiB";
		ret = -ENOEXEC;
	}
	if (ret) {
		kvfree(shdrs);
		return pc_err_set(err, ret, "path", "section names: %s", why);
	}
	strtab = pc_read_new(f, strsect.size, strsect.offset, "section names", err);
	if (IS_ERR(strtab)) {
		kvfree(shdrs);
		return PTR_ERR(strtab);
	}
	ret = pc_find_sdt_sects(shdrs, len, strtab, strsect.size, elf, ss, err);
	kvfree(strtab);
	kvfree(shdrs);
	return ret;
}

/*
 * x86-64 only: claim->offset may be one past an SDT probe's address when the
 * probe's nop is followed by the 10-byte nop the uprobe core optimizes (see
 * Documentation/design.md "USDT fast path"). Exactly that shift, only with
 * exactly those 11 bytes in the file, and only where the uprobe core
 * optimizes them: 0 and the probe's semaphore, else -ENOENT, or another
 * error with @err set (unreadable; a kernel that cannot use the site).
 */
static int pc_sdt_fast_shift(struct file *f, const struct pc_claim *claim,
			     const struct pc_elf_info *elf,
			     const struct pc_sdt_sects *ss, const void *notes,
			     u64 *sem, struct pc_err *err)
{
	const char *why = "malformed";
	u8 site[PC_SDT_FAST_LEN];
	u64 pc;
	int ret;

	if (elf->machine != EM_X86_64 || !claim->offset ||
	    pc_elf_off_to_vaddr(elf, claim->offset - 1, &pc))
		return -ENOENT;
	ret = pc_sdt_find_site(notes, ss->notes.size, elf, ss->have_base,
			       ss->base_addr, pc, sem, &why);
	if (ret)
		return -ENOENT;
	if (!pc_elf_in_load(elf, claim->offset - 1, sizeof(site), PF_X))
		return -ENOENT;
	ret = pc_read_at(f, site, sizeof(site), claim->offset - 1, "SDT site", err);
	if (ret)
		return ret;
	if (!pc_sdt_fast_site(site, sizeof(site)))
		return -ENOENT;
	/*
	 * Without the optimizing core the 10-byte nop is refused at install
	 * (is_prefix_bad(): its 0x2e prefix) and the probe would never hit.
	 */
	if (!PC_UPROBE_OPTIMIZES)
		return pc_err_set(err, -EOPNOTSUPP, "offset",
				  "0x%llx is the fast site of the SDT probe at 0x%llx, but this kernel's uprobes do not optimize it (no arch_uprobe_optimize): define at 0x%llx",
				  claim->offset, claim->offset - 1, claim->offset - 1);
	return 0;
}

/* What an SDT check needs of a file: its sections and notes, read once. */
struct pc_sdt_facts {
	struct pc_sdt_sects ss;
	void *notes;		/* ss.notes.size bytes; NULL: none usable */
};

static void pc_sdt_facts_free(struct pc_sdt_facts *sdt)
{
	if (!sdt)
		return;
	kvfree(sdt->notes);
	kfree(sdt);
}

static struct pc_sdt_facts *pc_read_sdt(struct file *f,
					const struct pc_elf_info *elf,
					struct pc_err *err)
{
	struct pc_sdt_facts *sdt = kzalloc(sizeof(*sdt), GFP_KERNEL);
	const struct pc_sdt_sects *ss;
	void *notes;
	int ret;

	if (!sdt)
		return ERR_PTR(pc_err_set(err, -ENOMEM, "path", "out of memory"));
	ss = &sdt->ss;
	ret = pc_read_sdt_sects(f, elf, &sdt->ss, err);
	if (ret)
		goto err_free;
	if (ss->have_notes && ss->notes.size <= PC_MAX_SDT_NOTES) {
		notes = pc_read_new(f, ss->notes.size, ss->notes.offset,
				    ".note.stapsdt", err);
		ret = PTR_ERR_OR_ZERO(notes);
		if (ret)
			goto err_free;
		sdt->notes = notes;
	}
	return sdt;

err_free:
	kfree(sdt);
	return ERR_PTR(ret);
}

/* The SDT part of @facts, read through @f at the first SDT record's check. */
static const struct pc_sdt_facts *pc_facts_sdt(struct file *f,
					       struct pc_facts *facts,
					       struct pc_err *err)
{
	struct pc_sdt_facts *sdt = facts->sdt;

	if (sdt)
		return sdt;
	sdt = pc_read_sdt(f, &facts->elf, err);
	if (!IS_ERR(sdt))
		facts->sdt = sdt;
	return sdt;
}

void pc_facts_free(struct pc_facts *facts)
{
	if (!facts)
		return;
	pc_sdt_facts_free(facts->sdt);
	kfree(facts);
}

/* The semaphore of the SDT probe at file offset claim->offset, as one too. */
static int pc_sdt_site_sem(struct file *f, const struct pc_claim *claim,
			   const struct pc_elf_info *elf,
			   const struct pc_sdt_facts *sdt, u64 *sem_off,
			   struct pc_err *err)
{
	const struct pc_sdt_sects *ss = &sdt->ss;
	const char *why = "malformed";
	u64 pc, sem = 0;
	int ret;

	if (!sdt->notes)
		return pc_err_set(err, -ENOEXEC, "offset",
				  "the file has no usable .note.stapsdt to prove an SDT probe at 0x%llx",
				  claim->offset);
	if (pc_elf_off_to_vaddr(elf, claim->offset, &pc))
		return pc_err_set(err, -ERANGE, "offset",
				  "0x%llx is not inside any PT_LOAD", claim->offset);
	ret = pc_sdt_find_site(sdt->notes, ss->notes.size, elf, ss->have_base,
			       ss->base_addr, pc, &sem, &why);
	if (ret == -ENOENT)
		ret = pc_sdt_fast_shift(f, claim, elf, ss, sdt->notes, &sem, err);
	else if (ret)
		pc_err_set(err, ret, "path", ".note.stapsdt: %s", why);
	if (ret == -ENOENT)
		return pc_err_set(err, -ESTALE, "offset",
				  "0x%llx is not an SDT probe of this file (no .note.stapsdt entry has it)",
				  claim->offset);
	if (ret)
		return ret;	/* err says why */
	*sem_off = 0;
	if (sem && pc_elf_vaddr_to_off(elf, sem, sem_off))
		return pc_err_set(err, -ERANGE, "ref_ctr",
				  "the SDT semaphore at 0x%llx is in no PT_LOAD file range",
				  sem);
	return 0;
}

/*
 * An SDT record (group sdt_*, or any record with a semaphore) proves itself
 * against the file's own .note.stapsdt, read through the same open file:
 * its offset must be a probe's address and its REFCTR that probe's
 * semaphore. So a stale or forged record can neither put int3 between the
 * instructions an SDT probe marks nor bump an arbitrary 16-bit word of a
 * writable segment. Other records (DWARF probes) have no such note; the CLI
 * proves their instruction boundary.
 */
static int pc_check_sdt(struct file *f, const struct pc_claim *claim,
			struct pc_facts *facts, struct pc_err *err)
{
	const struct pc_sdt_facts *sdt;
	u64 sem_off;
	int ret;

	if (!claim->sdt)
		return 0;
	sdt = pc_facts_sdt(f, facts, err);
	if (IS_ERR(sdt))
		return PTR_ERR(sdt);
	ret = pc_sdt_site_sem(f, claim, &facts->elf, sdt, &sem_off, err);
	if (ret)
		return ret;
	if (claim->ref_ctr_offset && claim->ref_ctr_offset != sem_off)
		return pc_err_set(err, -ESTALE, "ref_ctr",
				  sem_off ? "0x%llx is not the semaphore of the SDT probe at 0x%llx (0x%llx is)" :
					    "0x%llx: the SDT probe at 0x%llx has no semaphore",
				  claim->ref_ctr_offset, claim->offset, sem_off);
	return 0;
}

/* @claim against what @f's content says (@facts). */
static int pc_check_facts(struct file *f, const struct pc_claim *claim,
			  struct pc_facts *facts, struct pc_err *err)
{
	int ret;

	ret = pc_check_build_id(claim, facts, err);
	if (ret)
		return ret;
	ret = pc_check_offsets(claim, &facts->elf, err);
	if (ret)
		return ret;
	return pc_check_sdt(f, claim, facts, err);
}

/* ELF layout and build-id of @f, sized as v->ident says, into v->facts. */
static int pc_read_facts(struct file *f, struct pc_verified *v,
			 struct pc_err *err)
{
	struct pc_facts *facts = kzalloc(sizeof(*facts), GFP_KERNEL);
	int ret;

	if (!facts)
		return pc_err_set(err, -ENOMEM, "path", "out of memory");
	facts->elf.file_size = v->ident.size;
	ret = pc_read_elf(f, &facts->elf, err);
	if (!ret)
		ret = pc_read_build_id(f, facts, err);
	if (ret) {
		kfree(facts);
		return ret;
	}
	v->facts = facts;
	return 0;
}

/*
 * Read @f's facts into v->facts and check @claim against them. v->facts is
 * left set when they were read with no change seen meanwhile, whatever
 * @claim's check said: they are the content's.
 */
static int pc_check_file(struct file *f, const struct pc_claim *claim,
			 struct pc_verified *v, struct pc_err *err)
{
	const char *what;
	int ret;

	ret = pc_read_facts(f, v, err);
	if (!ret)
		ret = pc_check_facts(f, claim, v->facts, err);
	/*
	 * A writer racing with our reads would make them meaningless, what
	 * they found wrong included (a read cut short by a truncation): then
	 * the change is the error.
	 */
	what = pc_ident_changed(&v->ident, v->inode);
	if (what)
		ret = pc_err_set(err, -EAGAIN, "path",
				 "file changed (%s) while being verified", what);
	/*
	 * An overlayfs copy-up meanwhile sends reads through the overlay
	 * file to the upper inode, not the one we denied writes to.
	 */
	else if (d_real_inode(f->f_path.dentry) != v->inode)
		ret = pc_err_set(err, -EAGAIN, "path",
				 "copied up (overlayfs) while being verified");
	else
		return ret;
	pc_facts_free(v->facts);
	v->facts = NULL;
	return ret;
}

/*
 * Open @pathname, deny writes to it, check it is a regular ELF file of this
 * machine whose build-id is the record's and whose segments contain the
 * record's offsets. On success @v holds references to the path and the real
 * inode, whose writes stay denied (the caller allows them when it lets go),
 * and the file's facts.
 */
int pc_verify(const struct pc_record *rec, const char *pathname,
	      unsigned int flags, struct pc_verified *v, struct pc_err *err)
{
	struct pc_claim claim;
	struct file *f;
	int ret;

	pc_claim_init(&claim, rec->build_id, rec->build_id_len, rec->offset,
		      rec->ref_ctr_offset, rec->group);
	claim.args = rec->args;
	claim.nargs = rec->nargs;

	memset(v, 0, sizeof(*v));
	ret = pc_open(pathname, flags, v, &f, err);
	if (ret)
		return ret;
	/* Exec does not deny writes there: its HSM fills it by writing. */
	if (pc_file_hsm(f))
		ret = pc_err_set(err, -ETXTBSY, "path",
				 "%s is under fanotify pre-content watches: writes to it cannot be denied while it is probed",
				 pathname);
	/* Before the first read: what we check is what stays. */
	else if (pc_inode_deny_write(v->inode))
		ret = pc_err_set(err, -ETXTBSY, "path",
				 "%s is open for writing (or mapped shared and writable); it cannot be probed until the writer is gone",
				 pathname);
	if (ret) {
		fput(f);
		goto err_refs;
	}
	pc_ident_take(v->inode, &v->ident);
	pc_test_delay(PC_TEST_VERIFY);
	ret = pc_check_file(f, &claim, v, err);
	fput(f);
	if (ret)
		goto err_deny;
	return 0;

err_deny:
	pc_facts_free(v->facts);
	v->facts = NULL;
	pc_inode_allow_write(v->inode);
err_refs:
	iput(v->inode);
	path_put(&v->path);
	return ret;
}
