/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's own uprobe events of probecache's probes: defined through
 * tracefs uprobe_events once probecache.ko has verified the file, removed
 * before the module's definition is deleted (Documentation/design.md,
 * "Events").
 */
#ifndef PC_KEVENT_H
#define PC_KEVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct pc_kevent_file {
	int fd;			/* the file as the CLI opened it, or -1 */
	dev_t dev;		/* the module's verified inode */
	ino_t ino;
};

/*
 * Define the event of @record (an "add RECORD" line the module accepted) on
 * the module's verified inode @f: at the record's path
 * when, before and after the write, that path names the verified inode,
 * else at /proc/self/fd/N of @f->fd (a copy deleted or renamed over since).
 * 0, or -errno with @why saying what the kernel refused (tracefs error_log)
 * or which arg has no uprobe_events form.
 */
int pc_kevent_define(const char *record, const struct pc_kevent_file *f,
		     char *why, size_t whylen);

/*
 * The real inode behind @fd, the one probecache.ko verifies and lists: what
 * fstat() says, except on overlayfs, whose file stands for a lower or upper
 * one (d_real_inode()): a mapping of it, as /proc/self/maps names it.
 */
int pc_kevent_real_inode(int fd, dev_t *dev, ino_t *ino);

/*
 * Is @fd the file probecache.ko verified as @dev:@ino for @build_id? Its real
 * inode, where a process can see it; on overlayfs from 6.8 on no process can
 * (maps shows the overlay's inode too), and the content's build-id decides.
 */
bool pc_kevent_same_file(int fd, const char *name, dev_t dev, ino_t ino,
			 const char *build_id);

/* The overlayfs part of that: @fd on overlayfs, its build-id @build_id. */
bool pc_kevent_overlay_same(int fd, const char *name, const char *build_id);

/*
 * probecache's writers of events and definitions take this lock, flock() on
 * tracefs uprobe_events, around what they read of the module's listings and
 * write: then an event is defined only for a definition that exists and
 * only when its name is free (two copies never pick one EVENT_copyN), and
 * no event outlives its definition. Returns the fd to pass to
 * pc_kevent_unlock(), or -errno. Not nested: the callers of the functions
 * below take it.
 */
int pc_kevent_lock(void);
void pc_kevent_unlock(int fd);

/* Does tracefs list the event GROUP/EVENT? */
bool pc_kevent_exists(const char *group, const char *event);

/* Remove GROUP/EVENT: 0 (also when there is none), -EBUSY while in use. */
int pc_kevent_remove(const char *group, const char *event, char *why, size_t whylen);

/*
 * A copy's event: EVENT_copyN in GROUP, N the smallest free (a multi-probe
 * event cannot safely gain or lose a file while in use: design.md). @kp is
 * the probe as the module lists it, @name the name the module verified the
 * copy by, @f its inode. 0 or -errno, @why filled.
 */
struct pc_kprobe;
int pc_kevent_define_copy(const struct pc_kprobe *kp, const char *name,
			  const struct pc_kevent_file *f, char *why, size_t whylen);

/*
 * Remove the copy events (EVENT_copyN) whose copy is no site of the probe
 * any more (the module prunes a deleted copy once nothing maps it); one in
 * use stays until a later call. Takes the lock. Returns how many went.
 */
unsigned int pc_kevent_prune_copies(void);

/*
 * Has the probe @name (GROUP:EVENT) a copy's event on its site listed as
 * @path, inode @dev:@ino? (An EVENT_copyN whose uprobe_events line names
 * that path or that inode.) The caller holds the lock.
 */
bool pc_kevent_site_has_event(const char *name, const char *path, dev_t dev, ino_t ino);

/*
 * Remove the copy events of @name on that site, before the module's unsite
 * (an event holds its file open, and would stay armed on a file writable
 * again): 0 (also when there is none), -EBUSY while a tracer uses one (the
 * first refusal stops). The caller holds the lock.
 */
int pc_kevent_remove_site(const char *name, const char *path, dev_t dev, ino_t ino,
			  char *why, size_t whylen);

/* Remove GROUP/EVENT's copies' events, then GROUP/EVENT: the first error stops. */
int pc_kevent_remove_all(const char *group, const char *event, char *why, size_t whylen);

#endif
