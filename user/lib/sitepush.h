/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Following a build-id (issue 27): every other inode a process maps that
 * carries a defined probe's build-id becomes a site of that probe in
 * probecache.ko ("site GROUP:EVENT PATH"), so the probe's one event covers
 * every copy: other paths, deleted files (through /proc/PID/map_files), other
 * mount namespaces. The sweep (mapsweep.h) finds them; the module verifies
 * each one before it is armed.
 */
#ifndef _PC_SITEPUSH_H
#define _PC_SITEPUSH_H

#include "ksites.h"
#include "mapsweep.h"

/*
 * What a refused "site" line means for the next try (issue 42): only a proof
 * about the inode is final; what the moment caused is tried again.
 */
enum pc_site_class {
	PC_SITE_FINAL,		/* proven or fixed for the inode: not again until the probes change */
	PC_SITE_TRANSIENT,	/* the moment's (a signal, I/O, memory, a writer): after a backoff */
	PC_SITE_CAPACITY,	/* the probe's or its owner's sites are full: once a site goes */
	PC_SITE_GONE,		/* the probe or the name went: when a process maps it again */
};

/* The class of the module's refusal -@err of a "site" line. */
enum pc_site_class pc_site_class(int err);

struct pc_follow_result {
	unsigned int added;	/* new sites */
	unsigned int already;	/* sites before (EEXIST), or the probe's own file */
	unsigned int failed;	/* refused by the module: reported */
	unsigned int evented;	/* sites that had no copy event and got one */
	/* if set: each site line's outcome, 0, -EEXIST or the refusal's -errno */
	void (*outcome)(void *arg, const struct pc_site *st, int err);
	void *arg;
};

/*
 * For the probe @name (GROUP:EVENT) whose record names @path and @build_id:
 * one "site" line on the control file @fd per site of @sw carrying
 * @build_id other than @path's own inode and those @have (the module's
 * sites listing, or NULL) lists as sites of @name already. A refusal is reported naming the
 * site and the module's reason, counted, and is no failure of the call.
 * A site the module has (listed, or EEXIST) without its copy event gets one
 * (it was removed, or its definition failed). Each new site is printed
 * unless @quiet. 0, or -errno when nothing more can be sent (@fd unusable,
 * not privileged).
 */
int pc_follow_push(int fd, const char *name, const char *build_id, const char *path,
		   const struct pc_sweep *sw, const struct pc_ksites *have, bool quiet,
		   struct pc_follow_result *res);

#endif /* _PC_SITEPUSH_H */
