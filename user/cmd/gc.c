// SPDX-License-Identifier: GPL-2.0
/*
 * gc: remove cache entries whose binary is gone or changed (the staleness
 * rule is in pattern.h). Only with an explicit 'gc'; --dry-run shows it.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arm.h"
#include "armed.h"
#include "builtin.h"
#include "debuginfo.h"
#include "opts.h"
#include "pattern.h"
#include "pc.h"

static void say(const struct pc_stale *st, bool dry)
{
	char why[80];

	if (st->st == PC_FILE_OTHER)
		snprintf(why, sizeof(why), "now holds build-id %s", st->now);
	else
		snprintf(why, sizeof(why), "is gone");
	if (pc_quiet && !dry)
		return;
	if (st->whole)
		printf("%s %s (%zu probes): %s %s\n", dry ? "would remove" : "removed",
		       st->b->build_id, st->b->nentries, st->path, why);
	else
		printf("%s path %s of %s: it %s\n", dry ? "would drop" : "dropped", st->path,
		       st->b->build_id, why);
}

/* Drops stale paths of one binary, or its file when none is left. */
static int gc_binary(struct pc_binary *b, const struct pc_stale *st, size_t n)
{
	size_t removed = 0;

	if (st[0].whole)
		return pc_cache_remove(b->build_id);
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < b->npaths; j++) {
			if (b->paths[j] != st[i].path)
				continue;
			free(b->paths[j]);
			memmove(&b->paths[j], &b->paths[j + 1], (b->npaths - j - 1) * sizeof(char *));
			b->npaths--;
			removed++;
			break;
		}
	}
	return removed ? pc_cache_store(b) : 0;
}

struct gc_keep {
	const struct pc_snapshot *snap;
	const struct pc_stale *st;
	size_t n;
};

static bool wholly_stale(const struct gc_keep *k, const struct pc_binary *b)
{
	for (size_t i = 0; i < k->n; i++)
		if (k->st[i].b == b && k->st[i].whole)
			return true;
	return false;
}

/* A debuginfo copy stays while a binary that keeps its entries has that build-id or used it. */
static bool keep_copy(const char *bid, void *ctx)
{
	const struct gc_keep *k = ctx;

	for (size_t i = 0; i < k->snap->n; i++) {
		const struct pc_binary *b = k->snap->b[i];
		bool used = !strcmp(b->build_id, bid);

		for (size_t j = 0; !used && j < b->nentries; j++)
			used = b->entries[j].debuginfo && !strcmp(b->entries[j].debuginfo, bid);
		if (used && !wholly_stale(k, b))
			return true;
	}
	return false;
}

struct gc_sel {
	const struct pc_stale *st;
	size_t n;
};

/* A module probe of a removed binary, or defined at one of its dropped paths. */
static bool gc_selects(const struct pc_kprobe *kp, const struct pc_binary *b,
		       const struct pc_entry *e, void *ctx)
{
	const struct gc_sel *g = ctx;

	(void)e;
	for (size_t i = 0; i < g->n; i++)
		if (g->st[i].b == b && (g->st[i].whole || !strcmp(g->st[i].path, kp->path)))
			return true;
	return false;
}

static int gc_help(void)
{
	printf("usage: %s gc [--dry-run]\n\n"
	       "Remove cache entries whose binary is gone or now holds another build-id;\n"
	       "a binary still present at one of its paths only loses its stale paths;\n"
	       "uncompressed debuginfo copies (DIR/debug) no remaining probe uses go too.\n"
	       "A probe defined in probecache.ko from a removed entry or path is deleted\n"
	       "there first; if the module refuses, nothing is removed.\n\n"
	       "  -n, --dry-run  only show what would be removed\n"
	       "  -h, --help     this help\n", pc_prog);
	return 0;
}

int cmd_gc(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "dry-run", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct pc_snapshot snap;
	struct pc_stale *st = NULL;
	size_t n = 0, i, j;
	bool dry = false;
	int opt, ret;

	while ((opt = pc_getopt(argc, argv, "nh", lopts)) != -1) {
		if (opt == 'n')
			dry = true;
		else if (opt == 'h')
			return gc_help();
		else
			return pc_usage("gc");
	}
	if (optind < argc)
		return pc_usage("gc");
	ret = pc_cache_lock();
	if (ret)
		return ret;
	ret = pc_snapshot_load(&snap);
	if (!ret)
		ret = pc_stale_find(&snap, &st, &n);
	if (!ret && !dry && n) {
		struct gc_sel g = { st, n };

		ret = pc_disarm_cached("gc", &snap, gc_selects, &g, false);
	}
	for (i = 0; !ret && i < n; i = j) {
		for (j = i; j < n && st[j].b == st[i].b; j++)
			say(&st[j], dry);
		if (!dry)
			ret = gc_binary(st[i].b, &st[i], j - i);
	}
	if (!ret) {
		struct gc_keep k = { &snap, st, n };
		unsigned int copies;

		ret = pc_debugcache_gc(keep_copy, &k, dry, &copies);
		n += copies;
	}
	if (!ret && !n && !pc_quiet)
		printf("nothing stale in %s\n", pc_cache_dir());
	free(st);
	pc_snapshot_free(&snap);
	pc_cache_unlock();
	return ret;
}
