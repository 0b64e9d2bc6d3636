/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Releasing the sites no process maps (issue 42): a copy's site lives while
 * some process maps its inode, however it was named, so that nobody's copies
 * hold a probe's 64 sites (or an owner's share of them) once their
 * processes exit. The module lists mapped=0|1 per site; for each other
 * site (never site 0, the probe's own file) with mapped=0, under the
 * events lock (kevent.h): its copy event goes first (the event holds the
 * file open and would stay armed on a file writable again), then
 * "unsite GROUP:EVENT MAJ:MIN INO". A copy event a tracer uses (EBUSY)
 * keeps its site until a later call; a site mapped again meanwhile (the
 * module's EBUSY) gets its event back, so nothing traced is lost.
 */
#ifndef _PC_SITERELEASE_H
#define _PC_SITERELEASE_H

#include <stdbool.h>

#include "ksites.h"

struct pc_release_result {
	unsigned int released;	/* sites the module dropped */
	unsigned int kept;	/* their copy event in use, or mapped again */
	unsigned int lost;	/* mapped again, and the event could not be given back */
};

/* Does @k list a site that could be released (mapped=0, not site 0)? */
bool pc_sites_idle(const struct pc_ksites *k);

/*
 * Release every idle site, read again under the lock. Each site released
 * is printed unless @quiet; each problem is warned of. 0, or -errno when
 * the lock, the listings or the control file cannot be had.
 */
int pc_sites_release(bool quiet, struct pc_release_result *res);

#endif /* _PC_SITERELEASE_H */
