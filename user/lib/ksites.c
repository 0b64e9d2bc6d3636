// SPDX-License-Identifier: GPL-2.0
/* Reading the module's sites listing: see ksites.h. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "armed.h"
#include "ksites.h"
#include "pc.h"

/*
 * An optional "KEY=N " at *@p (fields newer modules print): its value into
 * @v and *@p past it; else *@p left alone. -EINVAL for KEY= without a number.
 */
static int opt_field(char **p, const char *key, int64_t *v)
{
	size_t klen = strlen(key);
	char *end;

	if (strncmp(*p, key, klen))
		return 0;
	errno = 0;
	*v = strtoll(*p + klen, &end, 10);
	if (errno || end == *p + klen || *end != ' ')
		return -EINVAL;
	*p = end + 1;
	return 0;
}

/*
 * "GROUP:EVENT site=N state=S hits=N error=E unlinked=U [mapped=M uid=N] dev=MA:MI
 * ino=N path=PATH"; mapped= and uid= came with issue 42: without them a site counts
 * as mapped (never released) and its owner as unknown.
 */
static int ksite_parse(char *line, struct pc_ksite *s)
{
	int unlinked, at = -1, rest = -1;
	int64_t mapped = 1;
	char *p;

	memset(s, 0, sizeof(*s));
	s->uid = -1;
	if (sscanf(line, "%129s site=%u state=%15s hits=%" SCNu64 " error=%d unlinked=%d %n",
		   s->name, &s->site, s->state, &s->hits, &s->error, &unlinked, &rest) != 6 ||
	    rest < 0)
		return -EINVAL;
	p = line + rest;
	if (opt_field(&p, "mapped=", &mapped) || opt_field(&p, "uid=", &s->uid) ||
	    (mapped != 0 && mapped != 1) || s->uid < -1)
		return -EINVAL;
	if (sscanf(p, "dev=%u:%u ino=%" SCNu64 " path=%n", &s->dev_major, &s->dev_minor,
		   &s->ino, &at) != 3 || at < 0 || p[at] != '/')
		return -EINVAL;
	s->unlinked = unlinked;
	s->mapped = mapped;
	s->path = strdup(p + at);
	return s->path ? 0 : -ENOMEM;
}

int pc_ksites_read(struct pc_ksites *out)
{
	char path[PATH_MAX], *buf, *pos, *line;
	size_t len, max, lineno = 0;
	bool newline;
	int ret;

	memset(out, 0, sizeof(*out));
	snprintf(path, sizeof(path), "%s/%s", pc_proc_dir(), PROBECACHE_SITES);
	ret = pc_read_file(path, 0, PC_LISTING_MAX, &buf, &len);
	if (ret == -ENOENT)
		return 0;
	if (ret) {
		pc_err("%s: %s", path, pc_file_strerror(ret));
		return ret;
	}
	max = pc_count_lines(buf, len) + 1;
	out->s = calloc(max, sizeof(*out->s));
	ret = out->s ? 0 : -ENOMEM;
	pos = buf;
	while (!ret && (line = pc_next_line(&pos, buf + len, &newline))) {
		lineno++;
		ret = newline ? ksite_parse(line, &out->s[out->n]) : -EINVAL;
		if (!ret)
			out->n++;
	}
	free(buf);
	if (ret == -EINVAL) {
		pc_err("%s:%zu: not a site line", path, lineno);
		ret = -EBADMSG;
	}
	if (ret)
		pc_ksites_free(out);
	return ret;
}

void pc_ksites_free(struct pc_ksites *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->s[i].path);
	free(k->s);
	memset(k, 0, sizeof(*k));
}

const struct pc_ksite *pc_ksites_get(const struct pc_ksites *k, const char *name, dev_t dev,
				     ino_t ino)
{
	for (size_t i = 0; k && i < k->n; i++)
		if (k->s[i].ino == ino && k->s[i].dev_major == major(dev) &&
		    k->s[i].dev_minor == minor(dev) && !strcmp(k->s[i].name, name))
			return &k->s[i];
	return NULL;
}

bool pc_ksites_has(const struct pc_ksites *k, const char *name, dev_t dev, ino_t ino)
{
	return pc_ksites_get(k, name, dev, ino) != NULL;
}
