/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whose copies define, arm and the follower hand the module: PROBECACHE_ETC's
 * follow.conf (default /etc/probecache/follow.conf), lines of
 *
 *   owners all                      every owner's copies (the default)
 *   owners USER|UID...              only copies whose file these own
 *
 * '#' starts a comment; several owners lines add up; "all" stands alone. No
 * file: everyone's copies. A bad line is an error naming FILE:LINE, what and
 * why, and nothing is followed (follow does not start).
 */
#ifndef _PC_FOLLOWPOLICY_H
#define _PC_FOLLOWPOLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct pc_follow_policy {
	bool all;		/* every owner */
	uid_t *uids;		/* else these, sorted */
	size_t n;
};

/* The default file: $PROBECACHE_ETC/follow.conf. */
void pc_follow_policy_path(char *buf, size_t size);

/*
 * Read @file into @p: 0 (a missing file: all), -EINVAL for a bad line
 * (reported), -errno if it cannot be read.
 */
int pc_follow_policy_read(struct pc_follow_policy *p, const char *file);
void pc_follow_policy_free(struct pc_follow_policy *p);
bool pc_follow_policy_allows(const struct pc_follow_policy *p, uid_t uid);

struct pc_site;
/* Does @p follow @st, by its file's owner? An owner that cannot be read: no. */
bool pc_follow_policy_site(const struct pc_follow_policy *p, const struct pc_site *st);

#endif /* _PC_FOLLOWPOLICY_H */
