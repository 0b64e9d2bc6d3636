// SPDX-License-Identifier: GPL-2.0
/* Handing a probe's other copies to probecache.ko: see sitepush.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "armed.h"
#include "kevent.h"
#include "sitepush.h"
#include "pc.h"

/* The name the module can open the site by: its path, or the map_files entry read. */
static const char *site_name(const struct pc_site *st)
{
	return st->how == PC_SITE_MAP_FILES ? st->via : st->path;
}

/* One "site" line in its own write(): 0 or -errno, @why the module's reason. */
static int send_site(int fd, const char *name, const char *path, char *why, size_t whylen)
{
	char line[4096 + 256];
	int n = snprintf(line, sizeof(line), "site %s %s\n", name, path);

	if (n < 0 || (size_t)n >= sizeof(line))
		return -ENAMETOOLONG;
	if (write(fd, line, n) == n)
		return 0;
	n = errno ? -errno : -EIO;
	pc_last_error(why, whylen, -n);
	return n;
}

/*
 * The copy's own event, once the module has made it a site: on the inode
 * the module verified, which @fd (opened on @sname before the site line)
 * must be. If it cannot be defined, the site is counted but not traced,
 * and the warning says why.
 */
static void copy_event(const char *name, const char *sname, int fd)
{
	struct pc_kevent_file f = { .fd = fd };
	struct pc_ksites ks = { 0 };
	struct pc_kprobes k = { 0 };
	const struct pc_kprobe *kp;
	char why[512] = "";
	int ret, lock = -1;

	ret = fd < 0 ? -EBADF : pc_kevent_real_inode(fd, &f.dev, &f.ino);
	if (!ret)
		ret = lock = pc_kevent_lock();
	if (ret >= 0)
		ret = pc_ksites_read(&ks) ?: pc_kprobes_read(&k);
	kp = ret ? NULL : pc_kprobes_get(&k, name);
	if (!ret && !kp)
		ret = -ENOENT;
	if (!ret && !pc_ksites_has(&ks, name, f.dev, f.ino) &&
	    !pc_kevent_overlay_same(fd, sname, kp->build_id))
		ret = -ESTALE;
	if (!ret)
		ret = pc_kevent_define_copy(kp, sname, &f, why, sizeof(why));
	if (ret)
		pc_warn("%s: copy %s is counted but has no event: %s", name, sname,
			why[0] ? why : strerror(-ret));
	pc_kevent_unlock(lock);
	pc_kprobes_free(&k);
	pc_ksites_free(&ks);
}

int pc_follow_push(int fd, const char *name, const char *build_id, const char *path,
		   const struct pc_sweep *sw, const struct pc_ksites *have, bool quiet,
		   struct pc_follow_result *res)
{
	const struct pc_site *st;
	struct stat own;
	char why[512];
	size_t pos = 0;
	int cfd, ret;

	if (stat(path, &own))
		own.st_ino = 0;
	while ((st = pc_sweep_next(sw, build_id, &pos))) {
		if (st->err || (own.st_ino && st->dev == own.st_dev && st->ino == own.st_ino) ||
		    pc_ksites_has(have, name, st->dev, st->ino)) {
			res->already += !st->err;
			continue;
		}
		cfd = open(site_name(st), O_RDONLY | O_CLOEXEC);
		ret = send_site(fd, name, site_name(st), why, sizeof(why));
		if (!ret)
			copy_event(name, site_name(st), cfd);
		if (cfd >= 0)
			close(cfd);
		if (!ret) {
			res->added++;
			if (!quiet)
				printf("followed %s to %s%s (pid %d)\n", name, site_name(st),
				       st->deleted ? ", deleted" : "", (int)st->pids[0].pid);
		} else if (ret == -EEXIST)
			res->already++;
		else if (ret == -EBADF || ret == -EPERM)
			return ret;
		else {
			pc_warn("%s: site %s%s (pid %d): %s", name, site_name(st),
				st->deleted ? " (deleted)" : "", (int)st->pids[0].pid, why);
			res->failed++;
		}
	}
	return 0;
}
