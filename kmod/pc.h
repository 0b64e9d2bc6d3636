/* SPDX-License-Identifier: GPL-2.0 */
/*
 * probecache.ko internals shared between its objects.
 */
#ifndef _PC_MODULE_H
#define _PC_MODULE_H

#include <linux/elf.h>
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/kobject.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/path.h>
#include <linux/workqueue.h>

#include "record.h"
#include "elfnote.h"

/* Module parameters (main.c). */
extern unsigned int pc_max_probes;
extern unsigned int pc_max_args;
extern unsigned int pc_max_line;
extern bool pc_public_probes;
extern unsigned int pc_test_arm_delay_ms;

/*
 * Guards the probe table (hash, list, count, sysfs directories). Never held
 * across file I/O or uprobe registration: verifying a record reads a file
 * that may block, or be one of our own sysfs files.
 */
extern struct mutex pc_lock;

/* PC_ELF_MACHINE: the only ELF machine accepted, the one whose pt_regs we read. */
#include "regs.h"

#define PC_WHY_MAX	256

/* Why a line was rejected; col 0 means "find the column from @field". */
struct pc_err {
	unsigned int col;
	const char *field;
	char why[PC_WHY_MAX];
};

/* Fill @err and return @ret, so error paths read "return pc_err_set(...)". */
__printf(4, 5)
int pc_err_set(struct pc_err *err, int ret, const char *field,
	       const char *fmt, ...);

enum pc_state {
	PC_STATE_ARMING,	/* being registered; not yet listed */
	PC_STATE_ARMED,
	PC_STATE_STALE,		/* file changed since verification: disarmed */
	PC_STATE_DISARMED,	/* deleted, waiting for the last reference */
};

/*
 * What identified the verified content (rechecked on every mmap). ctime,
 * i_version and the link count form a baseline that a link or unlink moves
 * forward (pc_ident_changed()), so they are atomics: the filter runs
 * concurrently for many mms.
 */
struct pc_ident {
	struct timespec64 mtime;
	loff_t size;
	atomic_t nlink;
	atomic64_t ctime_ns;
	atomic64_t iversion;
	bool has_iversion;
};

/* Result of verifying a record's file: the open file and its real inode. */
struct pc_verified {
	struct path path;		/* referenced */
	struct inode *inode;		/* d_real_inode(), referenced */
	struct pc_ident ident;
	struct pc_elf_info *elf;	/* program headers, for translations */
};

struct pc_fetch_arg {
	struct pc_arg arg;
	s64 delta;	/* @+FILEOFF: elf_vaddr(FILEOFF) - elf_vaddr(OFFSET) */
};

struct pc_probe {
	struct kobject kobj;
	struct hlist_node hnode;	/* pc_probe_hash, under pc_lock */
	struct list_head node;		/* pc_probe_list, under pc_lock */
	struct uprobe_consumer uc;
	struct pc_uprobe up;
	struct work_struct stale_work;
	unsigned long flags;		/* PC_F_* */
	atomic_t state;			/* enum pc_state */
	u64 __percpu *hits;
	struct path path;
	struct inode *inode;		/* registered (real) inode */
	struct pc_ident ident;
	struct mm_struct *mm;		/* pid filter: grabbed, NULL = all */
	pid_t pid;
	bool retprobe;
	u8 build_id_len;
	u8 build_id[PROBECACHE_BUILD_ID_MAX];
	u64 offset;
	u64 ref_ctr_offset;
	char *pathname;
	char *args_text;
	char name[2 * PROBECACHE_NAME_MAX + 2];	/* GROUP:EVENT */
	unsigned int nargs;
	struct pc_fetch_arg args[];
};

#define PC_F_STALE_QUEUED	0
#define PC_F_WRITE_DENIED	1	/* holds a deny on inode->i_writecount */

/*
 * Like exec: while a probe is armed its file cannot be opened for writing
 * (ETXTBSY), and a file open for writing cannot be armed. The counter is the
 * real inode's, which is what writes through any mount or overlay reach.
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
int pc_verify(const struct pc_record *rec, const char *pathname,
	      struct pc_verified *v, struct pc_err *err);
void pc_verified_release(struct pc_verified *v);
int pc_ident_take(struct inode *inode, struct pc_ident *id);
const char *pc_ident_changed(struct pc_ident *id, struct inode *inode);

/* probe.c: add, del and clear take pc_lock themselves */
extern unsigned int pc_nr_probes;
int pc_probe_add(const struct pc_record *rec, struct pc_err *err);
int pc_probe_del(const char *group, const char *event, struct pc_err *err);
void pc_probe_clear(void);
void pc_probe_release(struct kobject *kobj);
int pc_probe_init(void);
void pc_probe_exit(void);
u64 pc_probe_hits(const struct pc_probe *p);

/* fetch.c */
int pc_fetch_init(void);
void pc_fetch_exit(void);
void pc_fetch_emit(const struct pc_probe *p, struct pt_regs *regs,
		   unsigned long bp_vaddr);

/* sysfs.c */
extern struct kobject *pc_probes_kobj;
extern pc_ktype_const struct kobj_type pc_probe_ktype;
int pc_sysfs_init(void);
void pc_sysfs_remove_control(void);
void pc_sysfs_exit(void);

/* control.c */
ssize_t pc_control_write(struct file *file, const char *buf, loff_t off,
			 size_t count);
ssize_t pc_last_error_show(char *buf);
void pc_control_exit(void);

#endif /* _PC_MODULE_H */
