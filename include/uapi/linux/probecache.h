/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * probecache: verified user-space probes.
 *
 * Shared between probecache.ko and probecache-resolve. Included as
 * <linux/probecache.h> by both sides (-Iinclude/uapi).
 *
 * sysfs layout (see Documentation/ABI/testing/sysfs-kernel-probecache):
 *
 *   /sys/kernel/probecache/control      0200  command file, one command per line
 *   /sys/kernel/probecache/last_error   0400  why the reader's last rejected line was
 *                                             rejected (else the latest rejection)
 *   /sys/kernel/probecache/version      0444  PROBECACHE_VERSION
 *   /sys/kernel/probecache/nr_probes    0444  number of defined probes
 *   /sys/kernel/probecache/nr_armed     0444  number of armed probes
 *   /proc/probecache_probes (PROBECACHE_LISTING)
 *                                 0400  every probe, one line each (0444 with the
 *                                       module parameter public_probes=1):
 *
 *   GROUP:EVENT state=STATE hits=N counting=0|1 type=p|r pid=PID
 *     unlinked=0|1 build_id=HEX offset=0xHEX ref_ctr_offset=0xHEX path=PATH args=ARGS
 *
 *   on one line, fields in exactly this order; STATE is one of PROBECACHE_STATE_*;
 *   args= is last and ARGS is the rest of the line (empty, or the fetch args in
 *   record syntax: spaces and '=' included). PATH has no white space. (Modules
 *   that had trace events of their own print consumers=N after
 *   state=; readers skip it when present.)
 *
 * /proc/probecache_sites (PROBECACHE_SITES_PATH, same mode): every inode each
 * probe is armed on or will be, one line each, the probe's own file first (site=0):
 *
 *   GROUP:EVENT site=N state=STATE hits=N error=ERRNO unlinked=0|1 mapped=0|1
 *     uid=UID dev=MAJ:MIN ino=N path=PATH
 *
 *   STATE of site 0 is the probe's; of another site: armed while the probe is
 *   counted and the site could be (else ERRNO, negative, says why it is not).
 *   hits= counts while the
 *   probe is counted; the probe's hits= is the sum of its sites'. PATH is as the
 *   `site` line named it (a /proc/PID/map_files/ or /proc/PID/root/ path for a
 *   copy no path of the writer's names). mapped=1 while some process maps the
 *   site's inode; uid= is the inode's owner (what max_sites_per_owner counts).
 *   Older modules print neither: a reader treats a line without them as mapped=1
 *   (never released) with its owner unknown.
 *
 * Commands written to control:
 *
 *   add RECORD            define: verify the file, deny writes to it; nothing armed
 *   del GROUP:EVENT       delete the definition: writes allowed again
 *   count GROUP:EVENT     register the module's hit counter on every site (arms)
 *   nocount GROUP:EVENT   unregister it
 *   clear                 del of every probe
 *   site GROUP:EVENT PATH another inode with the probe's build-id: verified as add
 *                         verifies, writes denied, counted with the probe
 *                         (Documentation/design.md, "Following a build-id")
 *   unsite GROUP:EVENT MAJ:MIN INO
 *                         drop the probe's site on that inode (dev:ino as the sites
 *                         listing prints them) if no process maps it: writes to it
 *                         are allowed again. Never site 0 (EINVAL). The kernel's
 *                         event of the copy (GROUP/EVENT_copyN) is not the
 *                         module's: the writer removes it first, or it stays
 *                         armed on a file writable again.
 *
 * The module has no trace events. A probe's event is the kernel's own uprobe
 * event: probecache-resolve defines p|r:GROUP/EVENT on the verified file in
 * tracefs uprobe_events after add (a copy's: GROUP/EVENT_copyN after site),
 * and removes it before del, which the kernel refuses while a tracer uses
 * it. del here does not remove the kernel's event: a writer of control
 * directly must remove it first, or the file becomes writable under it.
 * A defined probe keeps the module loaded (rmmod EBUSY until clear).
 * See Documentation/ABI/testing/sysfs-kernel-probecache.
 *
 * RECORD, deliberately close to ftrace's uprobe_events:
 *
 *   p|r:GROUP/EVENT BUILD-ID /abs/path:0xOFFSET[(0xREFCTR)] [pid=PID] [NAME=FETCHARG[:TYPE]]...
 *
 *   BUILD-ID  lower- or upper-case hex, 2..PROBECACHE_BUILD_ID_MAX*2 digits, even count
 *   OFFSET    file offset of the probed instruction, inside a PF_X PT_LOAD file range
 *   REFCTR    file offset of the SDT semaphore (a 16-bit counter), inside a writable PT_LOAD;
 *             a record with REFCTR, or of a group named sdt_*, must be an SDT probe
 *             of the file's own .note.stapsdt, and REFCTR that probe's semaphore
 *   PID       only tasks of this thread group hit (breakpoints go in no other mm)
 *
 *   FETCHARG:
 *     %REG                 register, ftrace's names on the module's machine:
 *                          x86-64 %ax %bx %cx %dx %si %di %bp %sp %r8..%r15 %ip,
 *                          arm64 %x0..%x30 %sp %pc
 *     \IMM                 immediate, decimal or 0x hex, optionally negative
 *     +|-OFF(FETCHARG)     memory at FETCHARG+OFF; nests up to PROBECACHE_MAX_DEREF
 *     +|-OFF(%B,%I,S)      memory at B + I*S + OFF (x86 SIB, arm64 [B, I, lsl #k]),
 *                          S in 1,2,4,8
 *     +|-OFF(,%I,S)        memory at I*S + OFF (SIB without base: non-PIE globals)
 *     @+FILEOFF            memory at the address that file offset FILEOFF is mapped to
 *                          (for .bss, offsets past p_filesz within p_memsz of a PT_LOAD)
 *     $retval              return value (r: probes only)
 *   TYPE: u8 u16 u32 u64 s8 s16 s32 s64 x8 x16 x32 x64 string; default u64.
 *
 * A write may carry many lines; each line is applied or rejected whole and
 * processing stops at the first rejected line, whose error is returned by
 * write() and described in last_error as "line L col C: FIELD: WHY" (one
 * line). last_error is per process: read by the process (thread group)
 * that wrote the line, it says why its own line was rejected, even if
 * other writers were refused since; read by a process that was never
 * refused, it shows the latest rejection of all. The latest rejections
 * of the 16 most recently refused processes are kept.
 *
 * Exactly (control is a size-0 binary attribute, so a write() of any length
 * is accepted and handed to the module in chunks of at most PAGE_SIZE):
 *  - Lines end at '\n'. Text after the last '\n' of a write() is held as the
 *    start of the next line and completed by the next write() on the same
 *    open file, so however a writer's buffers split the text, the same lines
 *    arrive; a last line without '\n' is never applied. Empty lines are
 *    skipped. A line is at most max_line bytes (module parameter, default
 *    PROBECACHE_LINE_MAX - 1) without its newline, else E2BIG.
 *  - If line L is rejected after earlier lines of the same write() were
 *    applied, those stay applied and write() returns their byte count (a
 *    short count); the writer's loop resends from line L, which is rejected
 *    again and makes that write() return -1 with errno set. So write() fails
 *    only when nothing of its buffer was applied, and the bytes reported
 *    written are exactly the lines applied (plus any held partial line).
 *  - L counts lines from offset 0 of the open file (across those resumed
 *    writes); C is the 1-based byte column in that line.
 *  - Each open file of control is one writer: its partial line and line
 *    count are its own, so concurrent writers never mix their lines.
 *  - Writing needs CAP_PERFMON or CAP_SYS_ADMIN (initial user namespace),
 *    both in the writing task and in the credentials control was opened
 *    with; otherwise write() fails with EPERM and nothing is applied.
 *  - A defined probe denies writes to its file (ETXTBSY for writers, as for a
 *    running executable) from its verification until it is deleted, and so
 *    does a site until it goes: arming reads nothing, the content is the one
 *    verified. A file under fanotify pre-content watches (an HSM fills it by
 *    writing) cannot be defined: ETXTBSY.
 *  - errno: EPERM not privileged, EBUSY too many writers have control open,
 *    ENOMEM out of memory, EINVAL bad syntax or a bad field (a path that is
 *    a device, FIFO or socket included), E2BIG line too long or too many
 *    args, ENAMETOOLONG over-long name or path, ENOENT/EACCES/... the path
 *    cannot be opened, EISDIR directory, ENOEXEC not a usable ELF file (one
 *    shorter than its headers say included), no build-id note or an ELF
 *    file of another machine, EACCES the file is on a noexec mount or a
 *    pseudo filesystem (sysfs, procfs, tracefs, debugfs), ETXTBSY the file
 *    is open for writing or mapped shared and writable (or under fanotify
 *    pre-content watches), ESTALE build-id
 *    mismatch or an SDT record (group sdt_*, or any REFCTR) whose OFFSET is
 *    no probe of the file's .note.stapsdt or whose REFCTR is not that
 *    probe's semaphore, ERANGE OFFSET, REFCTR or @+FILEOFF outside the
 *    required PT_LOAD, ESRCH no such pid, EEXIST GROUP:EVENT is defined
 *    already (the module's table; trace events are not its to check), ENOSPC
 *    max_probes reached, EAGAIN file changed (or was copied up by
 *    overlayfs) while being verified, whatever its reads found meanwhile;
 *    a read error of the file: that error; del/count/nocount of an unknown
 *    probe (or one another writer deleted meanwhile): ENOENT; count of a
 *    probe whose add is still being published: ENOENT; del of a probe
 *    anything holds: EBUSY; any operation while a trigger or eprobe holds
 *    probecache:probecache_ctl: EBUSY; add while the module is being
 *    unloaded: ENODEV; site: EEXIST the inode is
 *    already a site of the probe, ENOSPC 64 sites, EDQUOT the file's owner
 *    (a uid other than 0) owns max_sites_per_owner (module parameter,
 *    default 16) of the probe's other sites already, or files of uids
 *    other than 0 hold 48 of them (16 stay root's), EREMOTE the file is on
 *    FUSE or a network filesystem (whose server could stall the
 *    verification) and the module parameter follow_remote is 0 (the
 *    default), and add's errnos for the file; unsite: ENOENT no such probe
 *    or no site on that inode, EINVAL site 0 (the probe's own file) or a
 *    malformed line, EBUSY a process maps the inode (again).
 */
#ifndef _UAPI_LINUX_PROBECACHE_H
#define _UAPI_LINUX_PROBECACHE_H

#define PROBECACHE_VERSION		"0.1"
#define PROBECACHE_SYSFS_DIR		"/sys/kernel/probecache"
#define PROBECACHE_LISTING		"probecache_probes"	/* in /proc */
#define PROBECACHE_LISTING_PATH		"/proc/" PROBECACHE_LISTING
#define PROBECACHE_SITES		"probecache_sites"	/* in /proc */
#define PROBECACHE_SITES_PATH		"/proc/" PROBECACHE_SITES

#define PROBECACHE_NAME_MAX		63	/* GROUP and EVENT, each */
#define PROBECACHE_BUILD_ID_MAX		20	/* bytes; SHA-1 GNU build-id */
#define PROBECACHE_MAX_ARGS		16	/* hard ceiling; module param max_args <= this */
#define PROBECACHE_MAX_DEREF		4	/* nesting of +OFF(...) */
#define PROBECACHE_ARG_NAME_MAX		31
#define PROBECACHE_STRING_MAX		256	/* bytes fetched for :string */
#define PROBECACHE_LINE_MAX		4096	/* default max_line */

/* Values of state= in PROBECACHE_LISTING_PATH */
#define PROBECACHE_STATE_DEFINED	"defined"
#define PROBECACHE_STATE_ARMED		"armed"
/* Modules before 0.1's whole-life write denial; the CLI still reads it. */
#define PROBECACHE_STATE_STALE		"stale"

#endif /* _UAPI_LINUX_PROBECACHE_H */
