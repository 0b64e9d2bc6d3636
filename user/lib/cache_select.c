// SPDX-License-Identifier: GPL-2.0
/* Snapshots of what some patterns can select, through the name index (cache_select.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/probecache.h>

#include "cache_index.h"
#include "cache_select.h"
#include "idset.h"
#include "pc.h"

struct sel {
	const struct pc_pattern *pats;
	int npats;
	struct pc_ids loaded;	/* sorted */
	struct pc_binary **b;
	size_t n, cap;
};

/* A pattern the index answers by one lookup: GROUP:EVENT, no wildcard. */
static bool literal(const struct pc_pattern *p)
{
	return p->has_group && !strpbrk(p->glob, "*?[\\");
}

/* Index lines a pattern can select: its name glob, and its build-id prefix if any. */
static bool line_matches(const char *group, const char *name, const char *bid, void *ctx)
{
	const struct pc_pattern *p = ctx;

	if (p->bid_prefix && strncmp(bid, p->bid_prefix, strlen(p->bid_prefix)))
		return false;
	return pc_pattern_match_name(p, group, name);
}

static int push(struct sel *s, struct pc_binary *b)
{
	struct pc_binary **v = pc_grow(s->b, &s->cap, s->n, sizeof(*v), 16);

	if (!v)
		return -ENOMEM;
	s->b = v;
	s->b[s->n++] = b;
	return 0;
}

/* Loads every build-id of @ids not loaded yet; unreadable ones are said and left out. */
static int load_ids(struct sel *s, struct pc_ids *ids)
{
	struct pc_binary *b;
	size_t n = 0;
	int ret = 0;

	pc_ids_sort(ids);
	for (size_t i = 0; i < ids->n; i++)	/* keep only the new ones */
		if (!pc_ids_has(&s->loaded, ids->v[i]))
			memmove(ids->v[n++], ids->v[i], sizeof(ids->v[0]));
	ids->n = n;
	for (size_t i = 0; !ret && i < n; i++) {
		ret = pc_ids_add(&s->loaded, ids->v[i]);
		if (!ret)
			ret = pc_cache_load(ids->v[i], &b);
		if (!ret && push(s, b)) {
			pc_binary_free(b);
			ret = -ENOMEM;
		}
		if (ret != -ENOMEM)	/* gone meanwhile, or corrupt (said): not a candidate */
			ret = 0;
	}
	pc_ids_sort(&s->loaded);
	return ret;
}

/* Round 1: binaries with an entry some pattern names. */
static int candidates(struct sel *s, const struct pc_index *x, struct pc_ids *ids)
{
	int ret = 0;

	for (int k = 0; !ret && k < s->npats; k++) {
		const struct pc_pattern *p = &s->pats[k];

		ret = literal(p) ? pc_index_lookup(x, p->glob, ids)
				 : pc_index_scan(x, line_matches, (void *)p, ids);
	}
	return ret;
}

/* Round 2: binaries sharing a GROUP:EVENT with a selected entry (kernel name clashes). */
static int clashing(struct sel *s, const struct pc_index *x, struct pc_ids *ids)
{
	char key[2 * PROBECACHE_NAME_MAX + 2];
	size_t n = s->n;
	int ret = 0;

	for (size_t i = 0; !ret && i < n; i++) {
		const struct pc_binary *b = s->b[i];

		for (size_t j = 0; !ret && j < b->nentries; j++) {
			const struct pc_entry *e = &b->entries[j];

			if (!pc_patterns_match(s->pats, s->npats, b, e))
				continue;
			snprintf(key, sizeof(key), "%s:%s", e->group, e->event);
			ret = pc_index_lookup(x, key, ids);
		}
	}
	return ret;
}

static int select_from(struct sel *s, const struct pc_index *x)
{
	struct pc_ids ids = { 0 };
	int ret = candidates(s, x, &ids);

	if (!ret)
		ret = load_ids(s, &ids);
	ids.n = 0;
	if (!ret)
		ret = clashing(s, x, &ids);
	if (!ret)
		ret = load_ids(s, &ids);
	pc_ids_free(&ids);
	return ret;
}

int pc_snapshot_load_matching(struct pc_snapshot *snap, const struct pc_pattern *pats, int n)
{
	struct sel s = { .pats = pats, .npats = n };
	struct pc_index *x;
	int ret;

	if (n < 1 || pc_index_open(&x))
		return pc_snapshot_load(snap);
	ret = select_from(&s, x);
	pc_index_close(x);
	pc_ids_free(&s.loaded);
	if (ret) {
		for (size_t i = 0; i < s.n; i++)
			pc_binary_free(s.b[i]);
		free(s.b);
		return ret;
	}
	return pc_snapshot_of(snap, s.b, s.n);
}
