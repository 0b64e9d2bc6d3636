/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The map sweep: every inode that some process maps executable, found
 * through /proc/PID/maps, grouped by (st_dev, st_ino), each distinct inode's
 * GNU build-id read once (issue 27: a probe follows its build-id to every
 * copy of the binary: other paths, deleted files, other mount namespaces).
 *
 * An inode is read through the path its maps line names when that path, in
 * our mount namespace, opens the same dev/ino; else through
 * /proc/PID/map_files/START-END, which reaches deleted files and files of
 * other mount namespaces but needs CAP_SYS_ADMIN (CAP_CHECKPOINT_RESTORE
 * since 5.9) besides ptrace read access to PID. A process that exits during
 * the sweep is skipped silently; one we may not read is recorded in
 * pc_sweep.denied with its errno.
 */
#ifndef _PC_MAPSWEEP_H
#define _PC_MAPSWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum pc_site_how {
	PC_SITE_UNREAD,		/* no read succeeded (err says why) */
	PC_SITE_PATH,		/* through its path, same dev/ino */
	PC_SITE_MAP_FILES,	/* through /proc/via_pid/map_files/ */
};

/* A process mapping a site, and its mount namespace (0: unknown). */
struct pc_site_pid {
	pid_t pid;
	uint64_t mntns;
};

/* One mapped inode: a place a probe of its build-id can be armed. */
struct pc_site {
	dev_t dev;		/* as the maps line gives it (the inode's superblock) */
	ino_t ino;
	char *path;		/* as the first maps line names it, " (deleted)" cut */
	bool deleted;		/* no link left (st_nlink 0), or maps said so */
	char build_id[41];	/* hex; "" if none or unread */
	int err;		/* 0, or the last read's -errno (-ENOENT: no build-id note) */
	enum pc_site_how how;
	pid_t via_pid;		/* the process whose map_files entry was read */
	char via[64];		/* that entry, "/proc/PID/map_files/START-END" */
	uint64_t mntns;		/* via_pid's mount namespace; through its path: the first mapper's */
	bool path_tried;	/* its path named another inode or none: not tried again */
	struct pc_site_pid *pids;
	size_t npids, cap;
};

/* A process (or one of its files) we were not allowed to read. */
struct pc_sweep_denied {
	pid_t pid;
	int err;		/* -EACCES, -EPERM */
	char file[64];		/* "/proc/PID/maps", "/proc/PID/map_files/START-END" */
};

struct pc_sweep_stats {
	size_t procs;		/* processes whose maps were read */
	size_t gone;		/* processes that exited during the sweep */
	size_t mappings;	/* executable file mappings seen */
	size_t reads;		/* build-id reads attempted */
	double ms;		/* wall time of the sweep */
};

struct pc_sweep {
	struct pc_site *sites;
	size_t nsites, cap;
	size_t *hash;		/* open addressing over sites by (dev, ino); 0 free, else index + 1 */
	size_t hcap;
	struct pc_sweep_denied *denied;
	size_t ndenied, dcap;
	struct pc_sweep_stats stats;
	char *buf;		/* one maps file at a time, reused */
	size_t bufcap;
};

/* One line of /proc/PID/maps; @path points into the line. */
struct pc_maps_line {
	unsigned long start, end;
	dev_t dev;
	ino_t ino;
	const char *path;
	bool deleted;		/* it ended in " (deleted)", now cut off */
};

/*
 * "start-end perms offset major:minor inode   path" (@line without its
 * newline): true for an executable mapping of a file (inode not 0), filled
 * into @ml, the " (deleted)" suffix cut off in place.
 */
bool pc_maps_line_parse(char *line, struct pc_maps_line *ml);

/*
 * Sweep the @npids processes @pids, or every process when @npids is 0.
 * 0 or -errno (-ENOMEM, /proc unreadable); one process's trouble is no
 * failure of the sweep. Free with pc_sweep_free() either way.
 */
int pc_sweep_run(struct pc_sweep *s, const pid_t *pids, size_t npids);
void pc_sweep_free(struct pc_sweep *s);

/*
 * The query: the next site carrying @build_id (hex) from *@pos (start with 0),
 * NULL after the last. Sites come in the order the sweep found them.
 */
const struct pc_site *pc_sweep_next(const struct pc_sweep *s, const char *build_id, size_t *pos);

/*
 * The inode of @pid's mount namespace ("mnt:[4026531841]"): 0, or -errno
 * with *@mntns 0 (-ENOENT: exited; -EACCES: no ptrace right to it).
 */
int pc_mntns_of(pid_t pid, uint64_t *mntns);

/* "path", "map_files" or "unread". */
const char *pc_site_how_str(enum pc_site_how how);

#endif /* _PC_MAPSWEEP_H */
