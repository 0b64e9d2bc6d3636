/* SPDX-License-Identifier: GPL-2.0 */
/*
 * probecache.ko internals shared between its objects.
 */
#ifndef _PC_MODULE_H
#define _PC_MODULE_H

#include <linux/elf.h>
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/path.h>
#include <linux/spinlock.h>	/* rwlock_t (rwlock.h may not be included directly) */

#include "record.h"
#include "elfnote.h"

/* Module parameters (main.c). */
extern unsigned int pc_max_probes;
extern unsigned int pc_max_args;
extern unsigned int pc_max_line;
extern bool pc_public_probes;
extern unsigned int pc_max_sites_per_owner;
extern bool pc_follow_remote;

/*
 * Guards the probe table (hash, list, count). Never held across file I/O
 * or uprobe registration: verifying a record reads a file that may block,
 * or be one of our own files. The listing (listing.c) reads the table under
 * it, so nothing taken inside it may wait for a reader of that file.
 */
extern struct mutex pc_lock;
extern struct list_head pc_probe_list;	/* definition order, under pc_lock */

/* The only ELF machine accepted: the kernel's own. */
#if defined(CONFIG_X86_64)
#define PC_ELF_MACHINE	EM_X86_64
#elif defined(CONFIG_ARM64)
#define PC_ELF_MACHINE	EM_AARCH64
#else
#error "probecache: x86-64 and arm64 only"
#endif

/* Why a line was rejected (struct pc_err, pc_err_set(), pc_report()). */
#include "err.h"

/*
 * A probe's life: defined (verified, its file held with writes denied),
 * armed while it counts (the module's uprobe consumer registered), until
 * deleted. Writes stay denied from verification to deletion, as exec
 * denies them for a running program's file: the content cannot change, so
 * the kernel's uprobe event on it and our counter read nothing again.
 */
enum pc_state {
	PC_STATE_DEFINING,	/* being verified; not yet listed */
	PC_STATE_DEFINED,		/* listed; "armed" while it counts */
	PC_STATE_DELETED,	/* deleted, waiting for the last reference */
};

/*
 * What identified the content while verification read it: a writer that
 * the denial could not stop (a remote filesystem's server) moves one of
 * them. ctime and the link count form a baseline that a link or unlink
 * moves forward (pc_ident_changed()).
 */
struct pc_ident {
	struct timespec64 mtime;
	loff_t size;
	atomic_t nlink;
	atomic64_t ctime_ns;
};

/*
 * What a file's content says, read through one open file (verify.c): the
 * record is checked against these.
 */
struct pc_sdt_facts;
struct pc_facts {
	struct pc_elf_info elf;		/* program headers, for translations */
	u8 build_id[PROBECACHE_BUILD_ID_MAX];
	size_t build_id_len;
	struct pc_sdt_facts *sdt;	/* read at the first SDT record's check */
};

/* What a record says of its file, which verification checks (verify.c). */
struct pc_claim {
	const u8 *build_id;
	u8 build_id_len;
	bool sdt;			/* an SDT probe: in the file's notes */
	u64 offset;
	u64 ref_ctr_offset;
	const struct pc_arg *args;	/* their @+FILEOFF must be mapped */
	u8 nargs;
};

/*
 * Result of verifying a record's file: the open file's path and its real
 * inode, referenced, writes to which are denied.
 */
struct pc_verified {
	struct path path;
	struct inode *inode;		/* d_real_inode() */
	struct pc_ident ident;
	struct pc_facts *facts;
};

struct pc_probe;

/*
 * One inode a probe is armed on. The probe's own (p->site, the record's
 * path) and any number of others carrying the same build-id (issue 27:
 * another path, a deleted copy, one in another mount namespace), each
 * verified on its own inode (site.c). The CLI appends each to the probe's
 * kernel uprobe event; the module counts hits on all.
 */
struct pc_site {
	struct list_head node;		/* p->sites: under p->lock + p->sites_lock */
	struct pc_probe *p;		/* not referenced: the probe owns its sites */
	struct uprobe_consumer uc;
	struct pc_uprobe up;
	struct path path;
	/* Verified (real) inode, referenced, writes denied while set. */
	struct inode *inode;
	u64 __percpu *hits;
	char *pathname;			/* as the writer named it */
	int error;			/* why another site is not armed, or 0 */
	bool registered;
};

struct pc_probe {
	struct kref ref;		/* the table's, and each user's */
	atomic_t state;			/* enum pc_state, of the probe's own site */
	struct hlist_node hnode;	/* pc_probe_hash, under pc_lock */
	struct list_head node;		/* pc_probe_list, under pc_lock */
	struct pc_site site;		/* the record's path, first in sites */
	struct list_head sites;
	spinlock_t sites_lock;		/* the list, for its readers */
	unsigned int nr_sites;		/* written under p->lock */
	atomic64_t pruned_hits;		/* of sites gone before the probe */
	struct mutex lock;		/* counting and sites */
	pid_t pid;
	struct mm_struct *mm;		/* pid filter: grabbed, NULL = all */
	u64 offset;
	u64 ref_ctr_offset;
	char *args_text;
	char *name;			/* "GROUP:EVENT\0GROUP\0": pc_probe_event(), */
	u8 build_id[PROBECACHE_BUILD_ID_MAX];
	u8 build_id_len;
	u8 group_len;			/* pc_probe_group() */
	bool counting;			/* its own site's consumer is registered */
	bool retprobe;
};

/*
 * The probes one operation works on (a del, a clear, a prune): an array of its own, never a list through the probes, since two
 * writers' operations may hold the same probe at the same time.
 */
struct pc_batch_ent {
	struct pc_probe *p;		/* referenced */
	int ret;			/* what the operation did to it */
};

struct pc_batch {
	unsigned int n, max;
	struct pc_batch_ent *ent;
};

int pc_batch_add(struct pc_batch *b, struct pc_probe *p);
void pc_batch_put(struct pc_batch *b, unsigned int from);

/*
 * Like exec: while a probe is defined its file cannot be opened for writing
 * (ETXTBSY), and a file open for writing cannot be defined. The counter is
 * the real inode's, which is what writes through any mount or overlay reach.
 * Exec makes an exception for a file under pre-content watches, whose HSM
 * fills it by writing (pc_file_hsm()); a probe's file cannot be one.
 */
static inline int pc_inode_deny_write(struct inode *inode)
{
	return atomic_dec_unless_positive(&inode->i_writecount) ? 0 : -ETXTBSY;
}

static inline void pc_inode_allow_write(struct inode *inode)
{
	atomic_inc(&inode->i_writecount);
}

/* verify.c */
#define PC_VERIFY_SITE	(1u << 0)	/* another site of a probe: a copy */
int pc_verify(const struct pc_record *rec, const char *pathname,
	      unsigned int flags, struct pc_verified *v, struct pc_err *err);
void pc_claim_init(struct pc_claim *claim, const u8 *build_id, u8 build_id_len,
		   u64 offset, u64 ref_ctr_offset, const char *group);
void pc_facts_free(struct pc_facts *facts);

/* probe.c: the table; add, del, clear and count take pc_lock themselves */
extern unsigned int pc_nr_probes;
struct pc_probe *pc_probe_prepare(const struct pc_record *rec,
				  struct pc_err *err);
int pc_probe_publish(struct pc_probe *p, struct pc_err *err);
int pc_probe_del(const char *group, const char *event, struct pc_err *err);
int pc_probe_clear(struct pc_err *err);
int pc_probe_count(const char *group, const char *event, bool on,
		   struct pc_err *err);
void pc_probe_put(struct pc_probe *p);
struct pc_probe *pc_probe_lookup(const char *group, const char *event,
				 struct pc_err *err);
const char *pc_probe_state(struct pc_probe *p);
int pc_probe_init(void);
void pc_probe_exit(void);
u64 pc_probe_hits(struct pc_probe *p);
u64 pc_site_hits(const struct pc_site *s);
void pc_site_put_refs(struct pc_site *s);
struct pc_record *pc_probe_record(const struct pc_probe *p);

/* arm.c: the counter, the uprobe callbacks */
extern atomic_t pc_nr_armed;
void pc_arm_init_probe(struct pc_probe *p);
int pc_count_set(struct pc_probe *p, bool on, struct pc_err *err);
void pc_disarm_nosync(struct pc_probe *p);
void pc_site_disarm_nosync(struct pc_site *s);
int pc_site_del(const char *group, const char *event, u32 major, u32 minor,
		u64 ino, struct pc_err *err);
int pc_site_arm(struct pc_site *s, struct pc_err *err);

/* EVENT: the end of p->name. */
static inline const char *pc_probe_event(const struct pc_probe *p)
{
	return p->name + p->group_len + 1;
}

/* GROUP: NUL-terminated after p->name. */
static inline const char *pc_probe_group(const struct pc_probe *p)
{
	return p->name + strlen(p->name) + 1;
}

static inline void pc_probe_get(struct pc_probe *p)
{
	kref_get(&p->ref);
}

/* site.c: a probe's other inodes */
#define PC_MAX_SITES	64	/* per probe, its own included */
#define PC_ROOT_SITES	16	/* of them, never taken by files of other owners */
int pc_site_add(const char *group, const char *event, const char *pathname,
		size_t len, struct pc_err *err);
void pc_site_free(struct pc_site *s);
void pc_site_exit(void);

/* listing.c: /proc/probecache_probes, /proc/probecache_sites */
int pc_listing_init(void);
void pc_listing_exit(void);

/* sysfs.c */
int pc_sysfs_init(void);
void pc_sysfs_remove_control(void);
void pc_sysfs_exit(void);

/* control.c */
ssize_t pc_control_write(struct file *file, const char *buf, loff_t off,
			 size_t count);
void pc_control_exit(void);

#endif /* _PC_MODULE_H */
