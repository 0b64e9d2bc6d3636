/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A snapshot of the cached binaries that can matter to some PATTERNs,
 * found through the GROUP:EVENT index (cache_index.h) instead of reading
 * every cache file.
 */
#ifndef _PC_CACHE_SELECT_H
#define _PC_CACHE_SELECT_H

#include "pattern.h"

/*
 * Like pc_snapshot_load() but holding only: every binary with an entry that
 * one of @pats (n >= 1) matches, and every binary with an entry of the same
 * GROUP:EVENT as such an entry (pc_kernel_event()'s clash and the version
 * choice of arm look only at those). Selecting with @pats from it, naming
 * and pc_snapshot_find() of a version holding a selected GROUP:EVENT give
 * what they give on the whole cache. Without a usable index it is
 * pc_snapshot_load().
 */
int pc_snapshot_load_matching(struct pc_snapshot *s, const struct pc_pattern *pats, int n);

#endif /* _PC_CACHE_SELECT_H */
