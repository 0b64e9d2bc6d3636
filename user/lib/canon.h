/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _PC_CANON_H
#define _PC_CANON_H

/*
 * The canonical form of @in in @out (PATH_MAX bytes): realpath(3), except
 * under /proc/PID/root/, whose rest is resolved inside that process's root
 * and keeps the prefix: a container's overlay may be mounted in its own
 * mount namespace only, where realpath's host path shows an empty
 * mountpoint. The kernel follows /proc/PID/root itself when it opens the
 * path. Returns 0 or -errno.
 */
int pc_canonical_path(const char *in, char *out);

#endif
