/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every kernel-version difference probecache.ko cares about, in one place.
 * Force-included into each object (Kbuild: -include compat.h). The
 * PC_HAVE_* macros are decided in Kbuild by grepping the target kernel's
 * headers, so core files never test LINUX_VERSION_CODE.
 */
#ifndef _PC_COMPAT_H
#define _PC_COMPAT_H

#include <linux/fs.h>
#include <linux/uprobes.h>

/*
 * Our handlers, in one stable shape; the adapters below give the uprobe
 * core whichever prototypes the running kernel expects.
 */
int pc_uprobe_hit(struct uprobe_consumer *uc, struct pt_regs *regs);
int pc_uprobe_ret_hit(struct uprobe_consumer *uc, unsigned long func,
		      struct pt_regs *regs);
bool pc_uprobe_want(struct uprobe_consumer *uc, struct mm_struct *mm);

#ifdef PC_HAVE_UPROBE_HANDLER_DATA
/* 6.13+: handlers carry a per-consumer session cookie we do not use. */
static inline int pc_compat_handler(struct uprobe_consumer *uc,
				    struct pt_regs *regs, __u64 *data)
{
	return pc_uprobe_hit(uc, regs);
}

static inline int pc_compat_ret_handler(struct uprobe_consumer *uc,
					unsigned long func,
					struct pt_regs *regs, __u64 *data)
{
	return pc_uprobe_ret_hit(uc, func, regs);
}
#else
static inline int pc_compat_handler(struct uprobe_consumer *uc,
				    struct pt_regs *regs)
{
	return pc_uprobe_hit(uc, regs);
}

static inline int pc_compat_ret_handler(struct uprobe_consumer *uc,
					unsigned long func,
					struct pt_regs *regs)
{
	return pc_uprobe_ret_hit(uc, func, regs);
}
#endif

#ifdef PC_HAVE_UPROBE_FILTER_CTX
/* Up to 6.11 the filter is also told why it is asked; the answer is the same. */
static inline bool pc_compat_filter(struct uprobe_consumer *uc,
				    enum uprobe_filter_ctx ctx,
				    struct mm_struct *mm)
{
	return pc_uprobe_want(uc, mm);
}
#else
static inline bool pc_compat_filter(struct uprobe_consumer *uc,
				    struct mm_struct *mm)
{
	return pc_uprobe_want(uc, mm);
}
#endif

static inline void pc_uprobe_consumer_init(struct uprobe_consumer *uc, bool ret)
{
	memset(uc, 0, sizeof(*uc));
	/* ->handler even for r: probes: only it can drop an unwanted mm. */
	uc->handler = pc_compat_handler;
	if (ret)
		uc->ret_handler = pc_compat_ret_handler;
	uc->filter = pc_compat_filter;
}

/*
 * The uprobe handle (6.12+); before, unregistering names the inode and
 * offset again, which the caller keeps anyway.
 */
struct pc_uprobe {
#ifdef PC_HAVE_UPROBE_REGISTER_PTR
	struct uprobe *uprobe;
#endif
};

static inline int pc_uprobe_register(struct pc_uprobe *h, struct inode *inode,
				     loff_t offset, loff_t ref_ctr_offset,
				     struct uprobe_consumer *uc)
{
#ifdef PC_HAVE_UPROBE_REGISTER_PTR
	h->uprobe = uprobe_register(inode, offset, ref_ctr_offset, uc);
	return PTR_ERR_OR_ZERO(h->uprobe);
#else
	return uprobe_register_refctr(inode, offset, ref_ctr_offset, uc);
#endif
}

/*
 * Detach @uc, registered at @inode and @offset; on 6.12+ handlers may still
 * be running until pc_uprobe_unregister_sync(), so batch the sync after
 * many of these.
 */
static inline void pc_uprobe_unregister_nosync(struct pc_uprobe *h,
					       struct inode *inode,
					       loff_t offset,
					       struct uprobe_consumer *uc)
{
#if defined(PC_HAVE_UPROBE_UNREGISTER_NOSYNC)
	uprobe_unregister_nosync(h->uprobe, uc);
#elif defined(PC_HAVE_UPROBE_REGISTER_PTR)
	uprobe_unregister(h->uprobe, uc);
#else
	uprobe_unregister(inode, offset, uc);
#endif
}

static inline void pc_uprobe_unregister_sync(void)
{
#ifdef PC_HAVE_UPROBE_UNREGISTER_NOSYNC
	uprobe_unregister_sync();
#endif
}

/*
 * inode timestamps became accessor-only in 6.6/6.7; inode_get_ctime() alone was
 * backported to 5.10.y (Debian 5.10.0-32 has it, not inode_get_mtime()).
 */
static inline struct timespec64 pc_inode_ctime(const struct inode *inode)
{
#ifdef PC_HAVE_INODE_GET_CTIME
	return inode_get_ctime(inode);
#else
	return inode->i_ctime;
#endif
}

static inline struct timespec64 pc_inode_mtime(const struct inode *inode)
{
#ifdef PC_HAVE_INODE_GET_MTIME
	return inode_get_mtime(inode);
#else
	return inode->i_mtime;
#endif
}

/* ->readpage became ->read_folio in 5.19. */
static inline bool pc_mapping_readable(const struct address_space *mapping)
{
#ifdef PC_HAVE_READ_FOLIO
	return mapping->a_ops->read_folio;
#else
	return mapping->a_ops->readpage;
#endif
}

/*
 * @f was opened while fanotify pre-content watches were on its file (6.14+):
 * a hierarchical storage manager fills the content on access by writing it,
 * so exec does not deny writes to such a file (exe_file_deny_write_access()).
 */
static inline bool pc_file_hsm(const struct file *f)
{
#ifdef PC_HAVE_FMODE_FSNOTIFY_HSM
	return FMODE_FSNOTIFY_HSM(f->f_mode);
#else
	return false;
#endif
}

/* bin_attribute callbacks take a const attribute since 6.17. */
#ifdef PC_HAVE_BIN_ATTR_CONST
#define pc_bin_attr_const	const
#else
#define pc_bin_attr_const
#endif

/*
 * The uprobe core turns a probed nop into a call into its trampoline
 * (6.18+, x86-64): the USDT fast site at an SDT note's pc + 1 is usable.
 */
#ifdef PC_HAVE_UPROBE_OPTIMIZE
#define PC_UPROBE_OPTIMIZES	1
#else
#define PC_UPROBE_OPTIMIZES	0
#endif

#endif /* _PC_COMPAT_H */
