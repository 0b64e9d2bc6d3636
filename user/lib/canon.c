// SPDX-License-Identifier: GPL-2.0
/* Canonical paths for the cache, /proc/PID/root/... included: see canon.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "canon.h"

#define PC_MAX_LINKS	40	/* as the kernel's MAXSYMLINKS */

/* Length of a "/proc/PID/root" prefix of @in followed by '/' or the end, or 0. */
static size_t proc_root_prefix(const char *in)
{
	size_t i = strlen("/proc/");

	if (strncmp(in, "/proc/", i) || in[i] < '1' || in[i] > '9')
		return 0;
	while (in[i] >= '0' && in[i] <= '9')
		i++;
	if (strncmp(in + i, "/root", 5) || (in[i + 5] && in[i + 5] != '/'))
		return 0;
	return i + 5;
}

/*
 * Resolve @rest (relative to the root @rootfd) into @res, an absolute path
 * inside that root without ".", ".." or symlinks. @rest is consumed from a
 * copy as symlinks splice their targets in.
 */
static int resolve_in_root(int rootfd, const char *rest, char *res)
{
	char todo[PATH_MAX], link[PATH_MAX], tmp[PATH_MAX];
	char *comp, *next;
	struct stat st;
	int links = 0;
	size_t len = 0;
	ssize_t n;

	if (snprintf(todo, sizeof(todo), "%s", rest) >= (int)sizeof(todo))
		return -ENAMETOOLONG;
	res[0] = '\0';
	for (comp = todo; comp && *comp; comp = next) {
		next = strchr(comp, '/');
		if (next)
			*next++ = '\0';
		if (!*comp || !strcmp(comp, "."))
			continue;
		if (!strcmp(comp, "..")) {	/* clamped at the root, as chroot */
			while (len && res[--len] != '/')
				;
			res[len] = '\0';
			continue;
		}
		n = snprintf(res + len, PATH_MAX - len, "/%s", comp);
		if (n >= (ssize_t)(PATH_MAX - len))
			return -ENAMETOOLONG;
		len += n;
		if (fstatat(rootfd, res + 1, &st, AT_SYMLINK_NOFOLLOW))
			return -errno;
		if (!S_ISLNK(st.st_mode))
			continue;
		if (++links > PC_MAX_LINKS)
			return -ELOOP;
		n = readlinkat(rootfd, res + 1, link, sizeof(link) - 1);
		if (n < 0)
			return -errno;
		link[n] = '\0';
		/* The link replaces its component; an absolute one restarts at the root. */
		while (len && res[--len] != '/')
			;
		if (link[0] == '/')
			len = 0;
		res[len] = '\0';
		if (snprintf(tmp, sizeof(tmp), "%s/%s", link, next ? next : "") >=
		    (int)sizeof(tmp))
			return -ENAMETOOLONG;
		strcpy(todo, tmp);
		next = todo;
	}
	if (!len)
		strcpy(res, "/");
	return 0;
}

int pc_canonical_path(const char *in, char *out)
{
	size_t pre = proc_root_prefix(in);
	char root[64], res[PATH_MAX];
	int fd, ret;

	if (!pre)
		return realpath(in, out) ? 0 : -errno;
	snprintf(root, sizeof(root), "%.*s", (int)pre, in);
	fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = resolve_in_root(fd, in + pre, res);
	close(fd);
	if (ret)
		return ret;
	if (snprintf(out, PATH_MAX, "%s%s", root, strcmp(res, "/") ? res : "") >=
	    PATH_MAX)
		return -ENAMETOOLONG;
	return 0;
}
