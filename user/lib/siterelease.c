// SPDX-License-Identifier: GPL-2.0
/* Releasing the sites no process maps: see siterelease.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "armed.h"
#include "kevent.h"
#include "pc.h"
#include "siterelease.h"

static bool idle(const struct pc_ksite *s)
{
	return s->site && !s->mapped;
}

bool pc_sites_idle(const struct pc_ksites *k)
{
	for (size_t i = 0; i < k->n; i++)
		if (idle(&k->s[i]))
			return true;
	return false;
}

/* "unsite GROUP:EVENT MAJ:MIN INO" in its own write(): 0 or -errno, @why the module's reason. */
static int send_unsite(int fd, const struct pc_ksite *s, char *why, size_t whylen)
{
	char line[2 * PROBECACHE_NAME_MAX + 64];
	int n = snprintf(line, sizeof(line), "unsite %s %u:%u %llu\n", s->name, s->dev_major,
			 s->dev_minor, (unsigned long long)s->ino);

	if (write(fd, line, n) == n)
		return 0;
	n = errno ? -errno : -EIO;
	pc_last_error(why, whylen, -n);
	return n;
}

/*
 * The site was mapped again between the listing and the unsite (or shares
 * its name with the site released): its copy event, removed just before, is
 * defined again on the inode the module keeps, opened by the site's name.
 * 0, or -errno (warned).
 */
static int event_again(const struct pc_ksite *s, const struct pc_kprobes *k)
{
	struct pc_kevent_file f = { .dev = makedev(s->dev_major, s->dev_minor), .ino = s->ino };
	const struct pc_kprobe *kp = pc_kprobes_get(k, s->name);
	char why[512] = "";
	int ret = kp ? 0 : -ENOENT;

	f.fd = ret ? -1 : open(s->path, O_RDONLY | O_CLOEXEC);
	if (!ret && (f.fd < 0 || !pc_kevent_same_file(f.fd, s->path, f.dev, f.ino, kp->build_id)))
		ret = -ESTALE;	/* its name went or names another file: a sweep gives it back */
	if (!ret)
		ret = pc_kevent_define_copy(kp, s->path, &f, why, sizeof(why));
	if (ret)
		pc_warn("%s: copy %s, mapped again, has no event until the follower finds it: %s",
			s->name, s->path, why[0] ? why : strerror(-ret));
	if (f.fd >= 0)
		close(f.fd);
	return ret;
}

/*
 * The other sites of @s's probe listed under the same name: an inode renamed
 * over keeps the name its site was given, so after an upgrade the old copy
 * and the new one share it, and uprobe_events cannot tell their events
 * apart. Removing @s's took theirs too: each gets its event back.
 */
static void namesakes_back(const struct pc_ksites *ks, const struct pc_ksite *s,
			   const struct pc_kprobes *k, struct pc_release_result *res)
{
	const struct pc_ksite *o;

	for (size_t i = 0; i < ks->n; i++) {
		o = &ks->s[i];
		if (o == s || !o->site || strcmp(o->name, s->name) || strcmp(o->path, s->path) ||
		    pc_kevent_site_has_event(o->name, o->path, makedev(o->dev_major, o->dev_minor),
					     o->ino))
			continue;
		res->lost += event_again(o, k) != 0;
	}
}

/* One idle site: its events, then the module's; the lock held. */
static void release_one(int fd, const struct pc_ksites *ks, const struct pc_ksite *s,
			const struct pc_kprobes *k, bool quiet, struct pc_release_result *res)
{
	dev_t dev = makedev(s->dev_major, s->dev_minor);
	char why[512] = "";
	int ret = pc_kevent_remove_site(s->name, s->path, dev, s->ino, why, sizeof(why));

	if (ret) {
		if (ret == -EBUSY)	/* a tracer uses its event: the site stays, tried next time */
			res->kept++;
		else
			pc_warn("%s: copy %s not released: its event: %s", s->name, s->path, why);
		namesakes_back(ks, s, k, res);
		return;
	}
	ret = send_unsite(fd, s, why, sizeof(why));
	if (!ret) {
		res->released++;
		if (!quiet)
			printf("released %s from %s (no process maps it)\n", s->name, s->path);
	} else if (ret == -EBUSY) {
		res->kept++;
		res->lost += event_again(s, k) != 0;
	} else if (ret != -ENOENT) {
		pc_warn("%s: unsite %s: %s", s->name, s->path, why);
		res->lost += event_again(s, k) != 0;
	}
	namesakes_back(ks, s, k, res);
}

static int open_control(void)
{
	char path[PATH_MAX];
	int fd, ret;

	snprintf(path, sizeof(path), "%s/control", pc_sysfs_dir());
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	ret = -errno;
	pc_err("%s: %s", path, strerror(-ret));
	return ret;
}

int pc_sites_release(bool quiet, struct pc_release_result *res)
{
	struct pc_ksites ks = { 0 };
	struct pc_kprobes k = { 0 };
	int fd = -1, ret, lock = pc_kevent_lock();

	/* Read again under the lock: another definer may have released or added meanwhile. */
	ret = lock < 0 ? lock : pc_ksites_read(&ks);
	if (!ret && pc_sites_idle(&ks)) {
		ret = pc_kprobes_read(&k);
		fd = ret ? -1 : open_control();
		ret = fd < 0 && !ret ? fd : ret;
	}
	for (size_t i = 0; !ret && fd >= 0 && i < ks.n; i++)
		if (idle(&ks.s[i]))
			release_one(fd, &ks, &ks.s[i], &k, quiet, res);
	if (fd >= 0)
		close(fd);
	pc_kevent_unlock(lock);
	pc_kprobes_free(&k);
	pc_ksites_free(&ks);
	return ret;
}
