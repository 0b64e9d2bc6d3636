// SPDX-License-Identifier: GPL-2.0
/*
 * Reading the module's probes back (status, disarm, list --available, arm):
 * /proc/probecache_probes, parsed by listing.c; sysfs attributes.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "armed.h"
#include "kload.h"
#include "pattern.h"
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

/* @key of @p as pc_kprobe_long() gives it. */
static long kprobe_field(const struct pc_kprobe *p, const char *key)
{
	uint64_t v;

	if (!strcmp(key, "consumers"))
		return p->consumers;
	if (!strcmp(key, "counting"))
		return p->counting;
	if (!strcmp(key, "pid"))
		return p->pid;
	if (!strcmp(key, "unlinked"))
		return p->unlinked;
	if (!strcmp(key, "hits"))
		v = p->hits;
	else if (!strcmp(key, "offset"))
		v = p->offset;
	else if (!strcmp(key, "ref_ctr_offset"))
		v = p->ref_ctr;
	else
		return -1;
	return v > LONG_MAX ? -1 : (long)v;
}

long pc_kprobe_long(const char *probe, const char *key)
{
	struct pc_kprobes k;
	const struct pc_kprobe *p;
	long v = -1;

	if (pc_kprobes_read(&k))
		return -1;
	p = pc_kprobes_get(&k, probe);
	if (p)
		v = kprobe_field(p, key);
	pc_kprobes_free(&k);
	return v;
}

/* /proc/probecache_probes whole into @buf, its name into @path; errors reported. */
static int listing_read(char *path, size_t plen, char **buf, size_t *len)
{
	int ret;

	snprintf(path, plen, "%s/%s", pc_proc_dir(), PROBECACHE_LISTING);
	if (!pc_module_loaded()) {
		pc_err("%s: probecache.ko is not loaded", pc_sysfs_dir());
		return -ENOENT;
	}
	ret = pc_read_file(path, 0, PC_LISTING_MAX, buf, len);
	if (ret == -ENOENT)
		pc_err("%s: %s: the loaded probecache.ko predates its probe listing; "
		       "load this version's module", path, strerror(ENOENT));
	else if (ret)
		pc_err("%s: %s", path, pc_file_strerror(ret));
	return ret;
}

/* Line @lineno of the listing @path into @p; a malformed line is reported. */
static int listing_line(char *line, bool newline, struct pc_kprobe *p, const char *path,
			size_t lineno)
{
	char why[256];
	int ret;

	if (newline) {
		ret = pc_kprobe_parse(line, p, why, sizeof(why));
	} else {
		memset(p, 0, sizeof(*p));
		snprintf(why, sizeof(why), "no newline at its end: cut short");
		ret = -EINVAL;
	}
	if (ret != -EINVAL)
		return ret;
	pc_err("%s:%zu: %s", path, lineno, why);
	return -EBADMSG;	/* not the command line's fault: -EINVAL is a usage error */
}

static int cmp_kprobe(const void *a, const void *b)
{
	return strcmp(((const struct pc_kprobe *)a)->name, ((const struct pc_kprobe *)b)->name);
}

int pc_kprobes_read(struct pc_kprobes *out)
{
	char path[PATH_MAX], *buf, *pos, *line;
	size_t len, max;
	bool newline;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = listing_read(path, sizeof(path), &buf, &len);
	if (ret)
		return ret;
	/* one more than the newlines: a last line without one */
	max = pc_count_lines(buf, len) + 1;
	out->p = calloc(max, sizeof(*out->p));
	ret = out->p ? 0 : -ENOMEM;
	pos = buf;
	while (!ret && out->n < max && (line = pc_next_line(&pos, buf + len, &newline))) {
		ret = listing_line(line, newline, &out->p[out->n], path, out->n + 1);
		out->n++;	/* freed with the rest even when cut short */
	}
	free(buf);
	if (ret)
		pc_kprobes_free(out);
	else if (out->n)
		qsort(out->p, out->n, sizeof(*out->p), cmp_kprobe);
	return ret;
}

const struct pc_kprobe *pc_kprobes_get(const struct pc_kprobes *k, const char *name)
{
	struct pc_kprobe key;

	if (!k->n || strlen(name) >= sizeof(key.name))
		return NULL;
	snprintf(key.name, sizeof(key.name), "%s", name);
	return bsearch(&key, k->p, k->n, sizeof(*k->p), cmp_kprobe);
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

/* Is @event the name of @e of @b in the kernel: EVENT, or its clash name? */
static bool entry_named(const char *event, const struct pc_binary *b, const struct pc_entry *e)
{
	char clash[PROBECACHE_NAME_MAX + 1];

	pc_clash_event(b, e, clash, sizeof(clash));
	return !strcmp(event, e->event) || !strcmp(event, clash);
}

bool pc_kprobe_is_entry(const struct pc_kprobe *p, const struct pc_binary *b,
			const struct pc_entry *e)
{
	bool fast = e->kind == PC_ENTRY_SDT && !e->retprobe;

	return (p->offset == e->offset || (fast && p->offset == e->offset + 1)) &&
	       p->retprobe == e->retprobe && !strcmp(p->build_id, b->build_id) &&
	       !strcmp(p->group, e->group) && entry_named(p->event, b, e);
}

const struct pc_kprobe *pc_kprobes_find_entry(const struct pc_kprobes *k,
					      const struct pc_binary *b,
					      const struct pc_entry *e)
{
	for (size_t i = 0; i < k->n; i++)
		if (pc_kprobe_is_entry(&k->p[i], b, e))
			return &k->p[i];
	return NULL;
}

void pc_last_error(char *why, size_t whylen, int err)
{
	if (!why || !whylen)
		return;
	if (pc_sysfs_read("last_error", why, whylen) || !why[0])
		snprintf(why, whylen, "%s", strerror(err));
}
