/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The follower's counters for other processes (issue 44): `follow` runs as
 * a daemon, `status --format=openmetrics` in a process of its own, so the
 * follower publishes its counters (follower.h) in a small file,
 * pc_run_dir()/follower.stats, one "KEY VALUE" a line:
 *
 *   pid 1234                the follower's (as its PID namespace sees it)
 *   start_time 1718000000   when it started, Unix time in seconds
 *   mappings N, queued N, sweeps N, full N, added N, refused N
 *                           struct pc_follower_stats, since it started
 *   lost N                  records the kernel dropped from its watch
 *   last_ms 12.345          the last sweep's time, in milliseconds
 *
 * Written atomically (a temporary file beside it, renamed over it), so a
 * reader sees one whole version. A reader skips blank lines, '#' comments
 * and keys it does not know (a newer follower's); each key above must be
 * there exactly once.
 */
#ifndef _PC_FOLLOWSTATS_H
#define _PC_FOLLOWSTATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "follower.h"

#define PC_FOLLOWSTATS_FILE	"follower.stats"
#define PC_FOLLOWSTATS_MAX	4096	/* bytes: what the writer writes is under 400 */

struct pc_followstats {
	pid_t pid;
	int64_t start;			/* Unix time, seconds */
	struct pc_follower_stats st;
	uint64_t lost;			/* records the kernel dropped from the watch */
};

/* pc_run_dir()/follower.stats into @buf; -ENAMETOOLONG if it does not fit. */
int pc_followstats_path(char *buf, size_t len);

/*
 * Write @s to @path atomically, mode 0644; the directory is made (0755) if
 * it is missing, its parent not. 0 or -errno.
 */
int pc_followstats_write(const char *path, const struct pc_followstats *s);

/*
 * Parse @len bytes of @buf (NUL-terminated; cut into lines in place) into
 * @out. 0, or -EBADMSG with the reason in @why and the line in *@lineno
 * (0 when it is the file as a whole: a key missing).
 */
int pc_followstats_parse(char *buf, size_t len, struct pc_followstats *out, size_t *lineno,
			 char *why, size_t whylen);

/*
 * Read and parse @path. 0; -ENOENT (no follower published any); -EBADMSG
 * (*@lineno and @why as above) or another -errno (@why says it, *@lineno
 * 0). Reports nothing: the caller says what it leaves out.
 */
int pc_followstats_read(const char *path, struct pc_followstats *out, size_t *lineno,
			char *why, size_t whylen);

/*
 * Is @pid a follower that runs: alive (not a zombie) and "follow" one of
 * its arguments (/proc/PID/cmdline)? A file whose follower died, or whose
 * pid another program now has, is stale.
 */
bool pc_followstats_running(pid_t pid);

#endif /* _PC_FOLLOWSTATS_H */
