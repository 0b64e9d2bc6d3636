/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The follower: what `probecache-resolve follow` runs (issue 27, later
 * mappings). It keeps every defined probe on every copy of its binary that
 * a process maps *after* the define: a process started, a library
 * dlopen'ed, a container's own copy. The mmap watch (mmapwatch.h) tells of
 * each executable mapping; an inode not seen before, or one carrying a
 * defined probe's build-id and not handled since the module's sites last
 * shrank, queues its process; a sweep of the queued processes (mapsweep.h)
 * reads their inodes' build-ids and hands the copies to the module
 * (sitepush.h), which verifies each before arming it.
 *
 * Build-ids are cached per inode (st_dev, st_ino, i_generation), so a
 * process whose binaries were all seen before costs one lookup per
 * mapping and no read. The module's probes and sites are re-read once a
 * second: new probes, or records lost from the watch, mean a sweep of
 * every process.
 */
#ifndef _PC_FOLLOWER_H
#define _PC_FOLLOWER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "followpolicy.h"
#include "mmapwatch.h"

struct pc_follower_stats {
	uint64_t mappings;	/* executable mappings told of */
	uint64_t queued;	/* ... that queued their process */
	uint64_t sweeps;	/* of some processes */
	uint64_t full;		/* of every process */
	uint64_t added;		/* sites the module took */
	uint64_t refused;	/* sites it refused (reported) */
	double last_ms;		/* the last sweep's time, push included */
	/* not in the counters file (yet): */
	uint64_t released;	/* sites dropped once no process mapped them */
	uint64_t retries;	/* copies handed again after a transient refusal */
};

struct pc_follower;

/*
 * A follower printing each site it adds unless @quiet, handing only the
 * copies @policy follows (NULL: everyone's; kept, not copied); NULL without
 * memory.
 */
struct pc_follower *pc_follower_new(bool quiet, const struct pc_follow_policy *policy);
void pc_follower_free(struct pc_follower *f);

/*
 * Re-read the module's probes and sites, and release the sites no process
 * maps (siterelease.h). 1 if the set of probes changed since the last call,
 * or a site went while a copy waited for room (sweep every process:
 * pc_follower_run(f, true)), else 0; -errno for an unreadable listing. No
 * module loaded: no probes.
 */
int pc_follower_refresh(struct pc_follower *f);

/* pc_mmap_fn: the mapping @r was made; queue its process if it may be a copy. */
void pc_follower_mapped(const struct pc_mmap_rec *r, void *f);

/*
 * Sweep the queued processes (those of copies whose retry is due too), or
 * every process when @all, and hand the module each copy of a defined
 * probe's binary it does not have yet, whose owner the policy follows. A
 * refusal for the moment (sitepush.h) is tried again after 1 s, 2 s, 4 s
 * ... at most 60 s apart while a process maps the copy; a proof is final
 * until the probes change; a copy refused for room waits for a site to go.
 * 0 or -errno (no memory, the control file not writable).
 */
int pc_follower_run(struct pc_follower *f, bool all);

const struct pc_follower_stats *pc_follower_stats(const struct pc_follower *f);
/* The distinct build-ids of the probes to follow (0: nothing to watch for). */
size_t pc_follower_probes(const struct pc_follower *f);

#endif /* _PC_FOLLOWER_H */
