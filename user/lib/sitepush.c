// SPDX-License-Identifier: GPL-2.0
/* Handing a probe's other copies to probecache.ko: see sitepush.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "armed.h"
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

int pc_follow_push(int fd, const char *name, const char *build_id, const char *path,
		   const struct pc_sweep *sw, const struct pc_ksites *have, bool quiet,
		   struct pc_follow_result *res)
{
	const struct pc_site *st;
	struct stat own;
	char why[512];
	size_t pos = 0;
	int ret;

	if (stat(path, &own))
		own.st_ino = 0;
	while ((st = pc_sweep_next(sw, build_id, &pos))) {
		if (st->err || (own.st_ino && st->dev == own.st_dev && st->ino == own.st_ino) ||
		    pc_ksites_has(have, name, st->dev, st->ino)) {
			res->already += !st->err;
			continue;
		}
		ret = send_site(fd, name, site_name(st), why, sizeof(why));
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
