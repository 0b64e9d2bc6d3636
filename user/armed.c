// SPDX-License-Identifier: GPL-2.0
/* Reading the armed probes back from sysfs (status, disarm, list --available). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "armed.h"
#include "pc.h"

char *pc_chomp(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = '\0';
	return s;
}

int pc_sysfs_read(const char *rel, char *buf, size_t size)
{
	char path[PATH_MAX];
	ssize_t n;
	size_t len = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", pc_sysfs_dir(), rel);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (len + 1 < size && (n = read(fd, buf + len, size - 1 - len)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			n = -errno;
			close(fd);
			return n;
		}
		len += n;
	}
	close(fd);
	buf[len] = '\0';
	pc_chomp(buf);
	return 0;
}

static uint64_t read_u64(const char *dir, const char *file)
{
	char rel[PATH_MAX], buf[64];

	snprintf(rel, sizeof(rel), "probes/%s/%s", dir, file);
	if (pc_sysfs_read(rel, buf, sizeof(buf)))
		return 0;
	return strtoull(buf, NULL, 0);
}

/* -1 also when the file is missing (a module older than consumers/). */
long pc_kprobe_long(const char *probe, const char *file)
{
	char rel[PATH_MAX], buf[64];

	snprintf(rel, sizeof(rel), "probes/%s/%s", probe, file);
	if (pc_sysfs_read(rel, buf, sizeof(buf)))
		return -1;
	return strtol(buf, NULL, 0);
}

static char *read_str(const char *dir, const char *file)
{
	char rel[PATH_MAX], buf[PROBECACHE_LINE_MAX + 1];

	snprintf(rel, sizeof(rel), "probes/%s/%s", dir, file);
	if (pc_sysfs_read(rel, buf, sizeof(buf)))
		buf[0] = '\0';
	return strdup(buf);
}

static int read_one(const char *name, struct pc_kprobe *p)
{
	char rel[PATH_MAX];
	const char *colon = strchr(name, ':');

	memset(p, 0, sizeof(*p));
	if (!colon || strlen(name) >= sizeof(p->name))
		return -EINVAL;
	snprintf(p->name, sizeof(p->name), "%s", name);
	snprintf(p->group, sizeof(p->group), "%.*s", (int)(colon - name), name);
	snprintf(p->event, sizeof(p->event), "%s", colon + 1);
	snprintf(rel, sizeof(rel), "probes/%s/state", name);
	if (pc_sysfs_read(rel, p->state, sizeof(p->state)))
		snprintf(p->state, sizeof(p->state), "gone");	/* deleted while we read */
	snprintf(rel, sizeof(rel), "probes/%s/build_id", name);
	if (pc_sysfs_read(rel, p->build_id, sizeof(p->build_id)))
		p->build_id[0] = '\0';
	for (char *c = p->build_id; *c; c++)
		*c = *c >= 'A' && *c <= 'F' ? *c - 'A' + 'a' : *c;
	p->hits = read_u64(name, "hits");
	p->consumers = pc_kprobe_long(name, "consumers");
	p->counting = read_u64(name, "counting") == 1;
	p->offset = read_u64(name, "offset");
	p->ref_ctr = read_u64(name, "ref_ctr_offset");
	p->pid = (long)read_u64(name, "pid");
	p->unlinked = read_u64(name, "unlinked") == 1;
	p->path = read_str(name, "path");
	p->args = read_str(name, "args");
	return p->path && p->args ? 0 : -ENOMEM;
}

static int cmp_kprobe(const void *a, const void *b)
{
	return strcmp(((const struct pc_kprobe *)a)->name, ((const struct pc_kprobe *)b)->name);
}

int pc_kprobes_read(struct pc_kprobes *out)
{
	char dir[PATH_MAX];
	struct dirent *d;
	struct pc_kprobe *arr;
	DIR *dp;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	snprintf(dir, sizeof(dir), "%s/probes", pc_sysfs_dir());
	dp = opendir(dir);
	if (!dp) {
		ret = -errno;
		if (ret == -ENOENT)
			pc_err("%s: probecache.ko is not loaded", pc_sysfs_dir());
		else
			pc_err("%s: %s", dir, strerror(errno));
		return ret;
	}
	while (!ret && (d = readdir(dp))) {
		if (d->d_name[0] == '.' || !strchr(d->d_name, ':'))
			continue;
		arr = realloc(out->p, (out->n + 1) * sizeof(*arr));
		if (!arr) {
			ret = -ENOMEM;
			break;
		}
		out->p = arr;
		ret = read_one(d->d_name, &out->p[out->n]);
		out->n++;
	}
	closedir(dp);
	if (ret)
		pc_kprobes_free(out);
	else if (out->n)
		qsort(out->p, out->n, sizeof(*out->p), cmp_kprobe);
	return ret;
}

void pc_kprobes_free(struct pc_kprobes *k)
{
	for (size_t i = 0; i < k->n; i++) {
		free(k->p[i].path);
		free(k->p[i].args);
	}
	free(k->p);
	memset(k, 0, sizeof(*k));
}

const struct pc_kprobe *pc_kprobes_find(const struct pc_kprobes *k, const char *build_id,
					uint64_t offset)
{
	for (size_t i = 0; i < k->n; i++)
		if (k->p[i].offset == offset && !strcmp(k->p[i].build_id, build_id))
			return &k->p[i];
	return NULL;
}
