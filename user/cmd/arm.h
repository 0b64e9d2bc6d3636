/* SPDX-License-Identifier: GPL-2.0 */
/* Selecting cached entries by PATTERN and pushing them into probecache.ko. */
#ifndef _PC_ARM_H
#define _PC_ARM_H

#include <stdbool.h>
#include <sys/types.h>
#include "cache.h"
#include "pattern.h"

/*
 * PATTERN: glob over "GROUP:EVENT" (a bare glob without ':' matches EVENT in
 * any group), optionally followed by "@/abs/path" (one binary) or
 * "@BUILDID-PREFIX" (one version).
 */
/* What a call did to one probe (pc_arm_opts.done's @what). */
#define PC_DID_DEFINE	0x1	/* this call created the definition (add) */
#define PC_DID_COUNT	0x2	/* this call started the module's hit counting (count) */

struct pc_arm_opts {
	pid_t pid;		/* 0: all processes */
	/*
	 * NULL: every copy of the binary a process maps becomes a site of the
	 * probe too (lib/sitepush.h). Else the probe is defined on this file
	 * only, in place of the cached path.
	 */
	const char *only_path;
	bool quiet;
	/*
	 * false (define): push "add RECORD" only: the probe becomes a trace
	 * event, no uprobe is registered until a consumer enables it.
	 * true (arm): define if needed, then "count GROUP:EVENT", which arms it.
	 */
	bool count;
	/* Called for every probe this call defined or started counting (PC_DID_*). */
	void (*done)(const char *group, const char *event, unsigned int what, void *ctx);
	void *ctx;
};

struct pc_arm_result {
	unsigned int armed;	/* newly defined (define) or newly counting (arm) */
	unsigned int already;	/* were defined (define) or counting (arm) before */
	unsigned int skipped;	/* stale or missing binary: reported, not sent */
	unsigned int failed;	/* kernel refused: reported with its reason */
	unsigned int matched;	/* cache entries the patterns selected */
	unsigned int sites;	/* other copies followed to */
	unsigned int sites_failed;	/* copies the module refused: reported */
};

/* Define (and with opts->count, count) the selection; prints per-probe outcomes. */
int pc_arm(char *const *patterns, int npatterns, const struct pc_arm_opts *opts,
	   struct pc_arm_result *res);

/*
 * scan and add: define (@count: arm) the probes @patterns select right after
 * caching them, if probecache.ko is loaded; nothing if it is not. @cmd
 * names the command in messages. 0, PC_EXIT_PARTIAL (some not defined) or
 * -errno.
 */
int pc_define_cached(const char *cmd, char *const *patterns, int npatterns, bool count,
		     bool quiet);

struct pc_kprobe;
struct pc_snapshot;
/* Does one of @pats select the module's probe @kp, by its name or its cache entry? */
bool pc_kprobe_selected(const struct pc_pattern *pats, int npats, const struct pc_kprobe *kp,
			const struct pc_snapshot *snap);

struct pc_disarm_result {
	unsigned int done;	/* deleted (or stopped counting with keep) */
	unsigned int busy;	/* EBUSY: ftrace, perf or BPF still use it; unchanged */
	unsigned int gone;	/* deleted meanwhile, or not counting (keep) */
	unsigned int failed;
	unsigned int matched;
};

/*
 * Delete the module's probes whose name (or cache entry) matches @patterns:
 * "del GROUP:EVENT", which also stops counting. With @keep, only stop the
 * hit counting ("nocount"): the trace event stays defined. A probe ftrace,
 * perf or BPF still uses is refused by the module (EBUSY), reported with its
 * consumer count and left as it was; the result is then -EBUSY. Reports go
 * to stdout unless @quiet.
 */
int pc_disarm(char *const *patterns, int npatterns, bool keep, bool quiet,
	      struct pc_disarm_result *res);

/*
 * Selects, for pc_disarm_cached(), the module's probe @kp defined from the
 * cache entry (@b, @e) (same build-id, offset and group).
 */
typedef bool (*pc_cached_sel)(const struct pc_kprobe *kp, const struct pc_binary *b,
			      const struct pc_entry *e, void *ctx);

/*
 * del, clear and gc, before they remove cache entries: delete the module's
 * probes defined from the entries @sel selects, as perf probe -d deletes the
 * event with its definition, so the cache and the kernel never split. 0 when
 * the module is not loaded, none is defined, or all were deleted; else the
 * error (EBUSY, EACCES...), reported with what to run ('disarm'); the caller
 * then changes nothing in the cache. @cmd names the command in messages.
 */
int pc_disarm_cached(const char *cmd, const struct pc_snapshot *snap, pc_cached_sel sel,
		     void *ctx, bool quiet);

/* Write one command line to control; on failure read last_error into @why. */
int pc_control_write(const char *line, char *why, size_t whylen);

/*
 * Delete the probe GROUP:EVENT: its kernel events first (its copies', then
 * its own), which the kernel refuses (EBUSY) while a tracer uses them, then
 * the module's definition. The module's del alone would lift the write
 * denial under an event that stays.
 */
int pc_probe_delete(const char *name, char *why, size_t whylen);

/* The same for every probe, then control "clear". */
int pc_probes_clear(char *why, size_t whylen);

#endif /* _PC_ARM_H */
