// SPDX-License-Identifier: GPL-2.0
/* PATTERN matching, cache snapshots, file checks and kernel event names. */
#include <ctype.h>
#include <stdint.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/probecache.h>

#include "canon.h"
#include "pattern.h"
#include "pc.h"

static int parse_qualifier(struct pc_pattern *p, const char *q)
{
	size_t i;

	if (q[0] == '/') {
		p->path = strdup(q);
		/* the cache holds canonical paths */
		p->real = malloc(PATH_MAX);
		if (p->real && pc_canonical_path(q, p->real)) {
			free(p->real);
			p->real = NULL;
		}
		return p->path ? 0 : -ENOMEM;
	}
	for (i = 0; q[i]; i++)
		if (!isxdigit((unsigned char)q[i]))
			break;
	if (!i || q[i] || i > 2 * PROBECACHE_BUILD_ID_MAX) {
		pc_err("pattern '%s': '@%s' is neither an absolute path nor a build-id prefix",
		       p->text, q);
		return -EINVAL;
	}
	p->bid_prefix = strdup(q);
	if (!p->bid_prefix)
		return -ENOMEM;
	for (i = 0; p->bid_prefix[i]; i++)
		p->bid_prefix[i] = tolower((unsigned char)p->bid_prefix[i]);
	return 0;
}

/* A path where a tracer types a probe: "/abs", "./rel", "../rel", "~/..." is the shell's. */
static bool is_path(const char *s)
{
	return s[0] == '/' || !strncmp(s, "./", 2) || !strncmp(s, "../", 3);
}

/*
 * The forms tracers type, rewritten to [GLOB][@QUALIFIER] (pattern.h):
 * PATH -> @PATH; usdt:PATH:PROVIDER:NAME (bpftrace) -> PROVIDER:NAME@PATH;
 * GROUP/EVENT (ftrace) -> GROUP:EVENT. A relative path is made absolute.
 */
static char *normalize(const char *s)
{
	char cwd[PATH_MAX], *out = NULL, *slash;
	const char *rest;

	if (!strncmp(s, "usdt:", 5)) {
		rest = s + 5;
		if (is_path(rest) && strchr(rest, ':')) {
			const char *c = strchr(rest, ':');

			if (asprintf(&out, "%s@%.*s", c + 1, (int)(c - rest), rest) < 0)
				return NULL;
			s = out;
		} else {
			return strdup(rest);
		}
	}
	if (is_path(s) && !strchr(s, '@')) {
		char *r;

		if (s[0] == '/')
			r = asprintf(&r, "@%s", s) < 0 ? NULL : r;
		else
			r = getcwd(cwd, sizeof(cwd)) && asprintf(&r, "@%s/%s", cwd, s) >= 0 ? r : NULL;
		free(out);
		return r;
	}
	if (!out)
		out = strdup(s);
	/* GROUP/EVENT: a '/' in the glob part (before any '@'), no ':' there */
	slash = out ? strchr(out, '/') : NULL;
	if (slash && (!strchr(out, '@') || slash < strchr(out, '@')) &&
	    (!strchr(out, ':') || (strchr(out, '@') && strchr(out, ':') > strchr(out, '@'))))
		*slash = ':';
	return out;
}

int pc_pattern_parse(const char *s, struct pc_pattern *p)
{
	const char *at;
	char *norm = normalize(s);
	int ret = 0;

	memset(p, 0, sizeof(*p));
	if (!norm)
		return -ENOMEM;
	at = strchr(norm, '@');
	p->text = strdup(s);
	p->glob = at ? strndup(norm, at - norm) : strdup(norm);
	if (!p->text || !p->glob) {
		free(norm);
		pc_pattern_free(p);
		return -ENOMEM;
	}
	if (!p->glob[0]) {
		free(p->glob);
		p->glob = strdup("*");
		if (!p->glob)
			ret = -ENOMEM;
	}
	if (!ret && strchr(p->glob, ':') != strrchr(p->glob, ':')) {
		pc_err("pattern '%s': more than one ':' (expected GROUP:EVENT)", s);
		ret = -EINVAL;
	}
	p->has_group = !ret && strchr(p->glob, ':');
	if (!ret && at)
		ret = parse_qualifier(p, at + 1);
	free(norm);
	if (ret)
		pc_pattern_free(p);
	return ret;
}

void pc_pattern_free(struct pc_pattern *p)
{
	free(p->text);
	free(p->glob);
	free(p->path);
	free(p->real);
	free(p->bid_prefix);
	memset(p, 0, sizeof(*p));
}

bool pc_pattern_match_name(const struct pc_pattern *p, const char *group, const char *event)
{
	char full[2 * PROBECACHE_NAME_MAX + 2];

	/* a glob without ':' is an EVENT in any group, or a whole GROUP */
	if (!p->has_group)
		return !fnmatch(p->glob, event, 0) || !fnmatch(p->glob, group, 0);
	snprintf(full, sizeof(full), "%s:%s", group, event);
	return !fnmatch(p->glob, full, 0);
}

bool pc_pattern_match_binary(const struct pc_pattern *p, const char *build_id,
			     char *const *paths, size_t npaths)
{
	if (p->bid_prefix)
		return !strncmp(build_id, p->bid_prefix, strlen(p->bid_prefix));
	if (!p->path)
		return true;
	for (size_t i = 0; i < npaths; i++)
		if (!strcmp(paths[i], p->path) || (p->real && !strcmp(paths[i], p->real)))
			return true;
	return false;
}

bool pc_pattern_match(const struct pc_pattern *p, const struct pc_binary *b,
		      const struct pc_entry *e)
{
	char nbuf[2 * PROBECACHE_NAME_MAX + 2], sbuf[2 * PROBECACHE_NAME_MAX + 2];
	const char *name = pc_entry_sdt_name(e, nbuf, sizeof(nbuf));
	const char *spec = pc_entry_sdt_spec(e, sbuf, sizeof(sbuf));

	if (!pc_pattern_match_binary(p, b->build_id, b->paths, b->npaths))
		return false;
	if (pc_pattern_match_name(p, e->group, e->event) ||
	    (name && pc_pattern_match_name(p, e->group, name)))
		return true;
	/* the clash name EVENT_XXXXXXXX that list shows (pc_kernel_event()) */
	if (p->has_group) {
		char ev[PROBECACHE_NAME_MAX + 1], full[2 * PROBECACHE_NAME_MAX + 12];

		pc_clash_event(b, e, ev, sizeof(ev));
		snprintf(full, sizeof(full), "%s:%s", e->group, ev);
		if (!fnmatch(p->glob, full, 0))
			return true;
	}
	/* bpftrace's PROVIDER:NAME: the SDT note's own provider and name */
	return p->has_group && spec && !fnmatch(p->glob, spec, 0);
}

int pc_patterns_parse(char *const *argv, int n, struct pc_pattern **out)
{
	struct pc_pattern *p = calloc(n ? n : 1, sizeof(*p));
	int i, ret = 0;

	if (!p)
		return -ENOMEM;
	for (i = 0; i < n && !ret; i++)
		ret = pc_pattern_parse(argv[i], &p[i]);
	if (ret) {
		pc_patterns_free(p, i - 1);
		return ret;
	}
	*out = p;
	return 0;
}

void pc_patterns_free(struct pc_pattern *p, int n)
{
	for (int i = 0; i < n; i++)
		pc_pattern_free(&p[i]);
	free(p);
}

bool pc_patterns_match(const struct pc_pattern *p, int n, const struct pc_binary *b,
		       const struct pc_entry *e)
{
	if (!n)
		return true;
	for (int i = 0; i < n; i++)
		if (pc_pattern_match(&p[i], b, e))
			return true;
	return false;
}

/* ---- did you mean ---- */

/* The glob of @s without wildcards and qualifier: what was meant to be typed. */
static void bare_name(const char *s, char *out, size_t size)
{
	size_t k = 0;

	for (; *s && *s != '@' && k + 1 < size; s++)
		if (*s != '*' && *s != '?' && *s != '[' && *s != ']')
			out[k++] = *s == '/' ? ':' : *s;
	out[k] = '\0';
}

void pc_patterns_suggest(const struct pc_pattern *p, int n, char *buf, size_t size)
{
	struct pc_snapshot snap;
	char want[2 * PROBECACHE_NAME_MAX + 2], full[2 * PROBECACHE_NAME_MAX + 2];
	char best_names[3][2 * PROBECACHE_NAME_MAX + 2];
	size_t best = SIZE_MAX, nbest = 0, len = 0;

	buf[0] = '\0';
	if (pc_snapshot_load(&snap))
		return;
	for (int k = 0; k < n; k++) {
		bare_name(p[k].text, want, sizeof(want));
		if (!want[0])
			continue;
		for (size_t i = 0; i < snap.n; i++) {
			for (size_t j = 0; j < snap.b[i]->nentries; j++) {
				const struct pc_entry *e = &snap.b[i]->entries[j];
				size_t d, de;
				bool dup = false;

				snprintf(full, sizeof(full), "%s:%s", e->group, e->event);
				d = pc_edit_distance(want, full);
				de = pc_edit_distance(want, strchr(want, ':') ? full : e->event);
				d = de < d ? de : d;
				if (d > best || d > 2 + strlen(want) / 3)
					continue;
				if (d < best)
					best = d, nbest = 0;
				for (size_t m = 0; m < nbest; m++)
					dup |= !strcmp(best_names[m], full);
				if (!dup && nbest < 3)
					snprintf(best_names[nbest++], sizeof(best_names[0]), "%s", full);
			}
		}
	}
	pc_snapshot_free(&snap);
	for (size_t m = 0; m < nbest && len < size; m++)
		len += snprintf(buf + len, size - len, "%s%s", m ? ", " : "; did you mean ",
				best_names[m]);
	if (nbest && len < size)
		snprintf(buf + len, size - len, "?");
}

/* ---- snapshot ---- */

static int snap_add(struct pc_binary *b, void *ctx)
{
	struct pc_snapshot *s = ctx;
	struct pc_binary **arr, *copy;

	/* foreach frees @b after we return: steal its contents instead */
	copy = malloc(sizeof(*copy));
	arr = realloc(s->b, (s->n + 1) * sizeof(*arr));
	if (!copy || !arr) {
		free(copy);
		if (arr)
			s->b = arr;
		return -ENOMEM;
	}
	*copy = *b;
	memset(b, 0, sizeof(*b));
	s->b = arr;
	s->b[s->n++] = copy;
	return 0;
}

static int cmp_binary(const void *x, const void *y)
{
	const struct pc_binary *a = *(struct pc_binary *const *)x;
	const struct pc_binary *b = *(struct pc_binary *const *)y;
	int c = strcmp(a->paths[0], b->paths[0]);

	return c ? c : strcmp(a->build_id, b->build_id);
}

/* One entry's GROUP:EVENT, for the clash lookups of pc_kernel_event(). */
struct pc_name_ref {
	const char *group, *event;
	const struct pc_binary *b;
};

/*
 * Sorted on the 32nd lookup: fewer (arm of one probe) are cheaper as scans
 * than an O(N log N) sort of the whole cache; a list of all is O(N log N).
 */
#define NAME_INDEX_AFTER	32

struct pc_name_index {
	unsigned int lookups;
	size_t n;
	struct pc_name_ref *v;	/* NULL until built */
};

static int cmp_name(const void *x, const void *y)
{
	const struct pc_name_ref *a = x, *b = y;
	int c = strcmp(a->group, b->group);

	return c ? c : strcmp(a->event, b->event);
}

static int cmp_id(const void *x, const void *y)
{
	const struct pc_binary *a = *(struct pc_binary *const *)x;
	const struct pc_binary *b = *(struct pc_binary *const *)y;

	return strcmp(a->build_id, b->build_id);
}

/* Without it (no memory) lookups scan, as they did: slower, same answer. */
static void build_names(const struct pc_snapshot *s, struct pc_name_index *x)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n; i++)
		n += s->b[i]->nentries;
	x->v = malloc((n ? n : 1) * sizeof(*x->v));
	if (!x->v)
		return;
	for (size_t i = 0; i < s->n; i++)
		for (size_t j = 0; j < s->b[i]->nentries; j++)
			x->v[x->n++] = (struct pc_name_ref){
				s->b[i]->entries[j].group, s->b[i]->entries[j].event, s->b[i] };
	qsort(x->v, x->n, sizeof(*x->v), cmp_name);
}

/* Sorted copies instead of a scan of the cache per lookup: O(N log N), not O(N^2). */
static int snap_index(struct pc_snapshot *s)
{
	s->names = calloc(1, sizeof(*s->names));
	s->ids = malloc((s->n ? s->n : 1) * sizeof(*s->ids));
	if (!s->names || !s->ids)
		return -ENOMEM;
	memcpy(s->ids, s->b, s->n * sizeof(*s->ids));
	qsort(s->ids, s->n, sizeof(*s->ids), cmp_id);
	return 0;
}

/* Sorted and indexed, as every snapshot is once its binaries are in. */
static int snap_finish(struct pc_snapshot *s)
{
	int ret;

	if (s->n)
		qsort(s->b, s->n, sizeof(*s->b), cmp_binary);
	ret = snap_index(s);
	if (ret)
		pc_snapshot_free(s);
	return ret;
}

int pc_snapshot_load(struct pc_snapshot *s)
{
	int ret;

	memset(s, 0, sizeof(*s));
	ret = pc_cache_foreach(snap_add, s);
	if (ret) {
		pc_snapshot_free(s);
		return ret;
	}
	return snap_finish(s);
}

int pc_snapshot_of(struct pc_snapshot *s, struct pc_binary **b, size_t n)
{
	memset(s, 0, sizeof(*s));
	s->b = b;
	s->n = n;
	return snap_finish(s);
}

void pc_snapshot_free(struct pc_snapshot *s)
{
	for (size_t i = 0; i < s->n; i++)
		pc_binary_free(s->b[i]);
	free(s->b);
	if (s->names)
		free(s->names->v);
	free(s->names);
	free(s->ids);
	memset(s, 0, sizeof(*s));
}

struct pc_binary *pc_snapshot_find(const struct pc_snapshot *s, const char *build_id)
{
	struct pc_binary key, *k = &key, **hit;

	if (!s->ids) {	/* a snapshot not made by pc_snapshot_load() */
		for (size_t i = 0; i < s->n; i++)
			if (!strcmp(s->b[i]->build_id, build_id))
				return s->b[i];
		return NULL;
	}
	snprintf(key.build_id, sizeof(key.build_id), "%s", build_id);
	hit = bsearch(&k, s->ids, s->n, sizeof(*s->ids), cmp_id);
	return hit ? *hit : NULL;
}

/* ---- kernel names ---- */

static bool clashes_indexed(const struct pc_name_index *x, const struct pc_binary *b,
			    const struct pc_entry *e)
{
	struct pc_name_ref key = { e->group, e->event, NULL };
	size_t lo = 0, hi = x->n;

	while (lo < hi) {	/* first name >= key */
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_name(&x->v[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < x->n && !cmp_name(&x->v[lo], &key); lo++) {
		const struct pc_binary *o = x->v[lo].b;

		if (o != b && strcmp(o->paths[0], b->paths[0]))
			return true;
	}
	return false;
}

static bool clashes(const struct pc_snapshot *s, const struct pc_binary *b,
		    const struct pc_entry *e)
{
	struct pc_name_index *x = s->names;

	if (x && !x->v && ++x->lookups == NAME_INDEX_AFTER)
		build_names(s, x);
	if (x && x->v)
		return clashes_indexed(x, b, e);
	for (size_t i = 0; i < s->n; i++) {
		const struct pc_binary *o = s->b[i];

		if (o == b || !strcmp(o->paths[0], b->paths[0]))
			continue;
		for (size_t j = 0; j < o->nentries; j++)
			if (!strcmp(o->entries[j].group, e->group) &&
			    !strcmp(o->entries[j].event, e->event))
				return true;
	}
	return false;
}

void pc_kernel_event(const struct pc_snapshot *s, const struct pc_binary *b,
		     const struct pc_entry *e, char *buf, size_t size)
{
	if (!s || !clashes(s, b, e)) {
		snprintf(buf, size, "%s", e->event);
		return;
	}
	pc_clash_event(b, e, buf, size);
}

void pc_clash_event(const struct pc_binary *b, const struct pc_entry *e, char *buf,
		    size_t size)
{
	snprintf(buf, size, "%.*s_%.8s", PROBECACHE_NAME_MAX - 9, e->event, b->build_id);
}
