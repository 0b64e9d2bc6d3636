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

enum pc_site_class pc_site_class(int err)
{
	switch (-err) {
	/*
	 * Proofs about the inode (another build-id, no usable ELF, an offset
	 * outside its segments) and what its kind fixes (a directory, a device,
	 * a filesystem whose server could stall the verification).
	 */
	case ESTALE: case ENOEXEC: case ERANGE: case EINVAL: case EISDIR: case EREMOTE:
	case ENAMETOOLONG: case E2BIG:
		return PC_SITE_FINAL;
	case ENOSPC: case EDQUOT:
		return PC_SITE_CAPACITY;
	case ENOENT: case ESRCH: case ENODEV:
		return PC_SITE_GONE;
	default:
		/*
		 * EINTR, EIO, EAGAIN, ENOMEM, EBUSY, ETXTBSY, and EACCES: the
		 * module's noexec refusal reads nothing, while an LSM's on the
		 * reopen may be lifted; a wrong "final" would lose the copy for
		 * good, a wrong retry costs one open a minute at most.
		 */
		return PC_SITE_TRANSIENT;
	}
}

/*
 * The copy's own event, once the module has made it a site: on the inode
 * the module verified, which @fd (opened on @sname before the site line)
 * must be. If it cannot be defined, the site is counted but not traced,
 * and the warning says why. With @missing, only if the site the module
 * lists has no event (removed, or its definition failed): 1 if it had one,
 * or is no site any more (released meanwhile).
 */
static int copy_event(const char *name, const char *sname, int fd, bool missing)
{
	struct pc_kevent_file f = { .fd = fd };
	struct pc_ksites ks = { 0 };
	struct pc_kprobes k = { 0 };
	const struct pc_ksite *site;
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
	site = ret ? NULL : pc_ksites_get(&ks, name, f.dev, f.ino);
	if (!ret && missing && (site ? pc_kevent_site_has_event(name, site->path, f.dev, f.ino) :
				!pc_kevent_overlay_same(fd, sname, kp->build_id)))
		ret = 1;
	if (!ret && !site && !pc_kevent_overlay_same(fd, sname, kp->build_id))
		ret = -ESTALE;
	if (!ret)
		ret = pc_kevent_define_copy(kp, sname, &f, why, sizeof(why));
	if (ret < 0)
		pc_warn("%s: copy %s is counted but has no event: %s", name, sname,
			why[0] ? why : strerror(-ret));
	pc_kevent_unlock(lock);
	pc_kprobes_free(&k);
	pc_ksites_free(&ks);
	return ret;
}

/* A site @have lists: its copy event given back if it has none. */
static void event_back(const char *name, const struct pc_site *st, const struct pc_ksites *have,
		       bool quiet, struct pc_follow_result *res)
{
	const struct pc_ksite *ks = pc_ksites_get(have, name, st->dev, st->ino);
	int cfd;

	if (ks && pc_kevent_site_has_event(name, ks->path, st->dev, st->ino))
		return;		/* the usual case: no lock, no open */
	cfd = open(site_name(st), O_RDONLY | O_CLOEXEC);
	if (!copy_event(name, site_name(st), cfd, true)) {
		res->evented++;
		if (!quiet)
			printf("%s: copy %s had no event: defined again\n", name, site_name(st));
	}
	if (cfd >= 0)
		close(cfd);
}

/* One site line for @st; its event once it is a site. 0, or -errno that ends the push. */
static int push_one(int fd, const char *name, const struct pc_site *st, bool quiet,
		    struct pc_follow_result *res)
{
	char why[512];
	int cfd = open(site_name(st), O_RDONLY | O_CLOEXEC);
	int ret = send_site(fd, name, site_name(st), why, sizeof(why));

	/* A new site gets its event; one the module had, its event if it lost it. */
	if (!ret)
		copy_event(name, site_name(st), cfd, false);
	else if (ret == -EEXIST && !copy_event(name, site_name(st), cfd, true))
		res->evented++;
	if (cfd >= 0)
		close(cfd);
	if (res->outcome && ret != -EBADF && ret != -EPERM)
		res->outcome(res->arg, st, ret);
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
	return 0;
}

int pc_follow_push(int fd, const char *name, const char *build_id, const char *path,
		   const struct pc_sweep *sw, const struct pc_ksites *have, bool quiet,
		   struct pc_follow_result *res)
{
	const struct pc_site *st;
	struct stat own;
	size_t pos = 0;
	int ret = 0;

	if (stat(path, &own))
		own.st_ino = 0;
	while (!ret && (st = pc_sweep_next(sw, build_id, &pos))) {
		if (st->err || (own.st_ino && st->dev == own.st_dev && st->ino == own.st_ino)) {
			res->already += !st->err;
		} else if (pc_ksites_has(have, name, st->dev, st->ino)) {
			res->already++;
			event_back(name, st, have, quiet, res);
		} else {
			ret = push_one(fd, name, st, quiet, res);
		}
	}
	return ret;
}
