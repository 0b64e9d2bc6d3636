/* SPDX-License-Identifier: GPL-2.0 */
/* Selecting cached entries by PATTERN and pushing them into probecache.ko. */
#ifndef _PC_ARM_H
#define _PC_ARM_H

#include <stdbool.h>
#include <sys/types.h>
#include "cache.h"

/*
 * PATTERN: glob over "GROUP:EVENT" (a bare glob without ':' matches EVENT in
 * any group), optionally followed by "@/abs/path" (one binary) or
 * "@BUILDID-PREFIX" (one version).
 */
struct pc_arm_opts {
	pid_t pid;		/* 0: all processes */
	bool quiet;
	/* Called for every probe this call armed (trace disarms only these). */
	void (*armed)(const char *group, const char *event, void *ctx);
	void *ctx;
};

struct pc_arm_result {
	unsigned int armed;	/* newly armed */
	unsigned int already;	/* were armed before */
	unsigned int skipped;	/* stale or missing binary: reported, not armed */
	unsigned int failed;	/* kernel refused: reported with its reason */
	unsigned int matched;	/* cache entries the patterns selected */
};

/* Arm the selection; prints per-probe outcomes. 0 if nothing failed, else -errno. */
int pc_arm(char *const *patterns, int npatterns, const struct pc_arm_opts *opts,
	   struct pc_arm_result *res);
/* Disarm armed probes matching @patterns (GROUP:EVENT globs). -EBUSY tolerated per probe. */
int pc_disarm(char *const *patterns, int npatterns, struct pc_arm_result *res);

/* Write one command line to control; on failure read last_error into @why. */
int pc_control_write(const char *line, char *why, size_t whylen);

#endif /* _PC_ARM_H */
