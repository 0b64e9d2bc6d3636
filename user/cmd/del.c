// SPDX-License-Identifier: GPL-2.0
/*
 * del PATTERN..., clear: remove cached probes. A probe defined in
 * probecache.ko from a removed entry is deleted there first (as perf probe -d
 * does); if the module refuses (in use, not root), the cache is left as it was.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>

#include "arm.h"
#include "builtin.h"
#include "opts.h"
#include "pattern.h"
#include "pc.h"

static int help_only(int argc, char **argv, const char *usage, const char *text)
{
	static const struct option lopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	int opt;

	while ((opt = pc_getopt(argc, argv, "h", lopts)) != -1) {
		if (opt != 'h')
			return pc_usage(argv[0]);
		printf("usage: %s %s\n\n%s\n  -h, --help  this help\n", pc_prog, usage, text);
		return 1;
	}
	return 0;
}

/* Drops @b's entries matching @pats; stores or removes its file. */
static int del_in_binary(struct pc_binary *b, const struct pc_pattern *pats, int npats,
			 unsigned int *ndel, unsigned int *nfiles)
{
	size_t before = b->nentries;

	for (size_t i = b->nentries; i-- > 0;) {
		if (!pc_patterns_match(pats, npats, b, &b->entries[i]))
			continue;
		if (!pc_quiet)
			printf("deleted %s:%s (%s)\n", b->entries[i].group, b->entries[i].event,
			       b->paths[0]);
		pc_binary_del_entry(b, i);
	}
	if (b->nentries == before)
		return 0;
	*ndel += before - b->nentries;
	if (b->nentries)
		return pc_cache_store(b);
	(*nfiles)++;
	return pc_cache_remove(b->build_id);
}

struct del_sel {
	const struct pc_pattern *pats;
	int npats;
};

static bool del_selects(const struct pc_kprobe *kp, const struct pc_binary *b,
			const struct pc_entry *e, void *ctx)
{
	const struct del_sel *d = ctx;

	(void)kp;
	return !d || pc_patterns_match(d->pats, d->npats, b, e);
}

int cmd_del(int argc, char **argv)
{
	struct pc_snapshot snap;
	struct pc_pattern *pats;
	unsigned int ndel = 0, nfiles = 0;
	int npats, ret = help_only(argc, argv, "del PATTERN...",
				   "Delete cached probes matching PATTERN (GROUP:EVENT glob, optionally\n"
				   "@/path or @BUILDID-PREFIX). A probe defined in probecache.ko from a\n"
				   "deleted entry is deleted there too (as perf probe -d); if the module\n"
				   "refuses (perf, ftrace or BPF use it; not root), nothing is deleted.\n");

	if (ret)
		return ret > 0 ? 0 : ret;
	if (optind >= argc)
		return pc_usage("del");
	npats = argc - optind;
	ret = pc_patterns_parse(argv + optind, npats, &pats);
	if (ret)
		return ret;
	ret = pc_cache_lock();
	if (!ret) {
		struct del_sel d = { pats, npats };

		ret = pc_snapshot_load(&snap);
		if (!ret)
			ret = pc_disarm_cached("del", &snap, del_selects, &d, false);
		for (size_t i = 0; !ret && i < snap.n; i++)
			ret = del_in_binary(snap.b[i], pats, npats, &ndel, &nfiles);
		pc_snapshot_free(&snap);
		pc_cache_unlock();
	}
	if (!ret && !ndel) {
		char dym[512];

		pc_patterns_suggest(pats, npats, dym, sizeof(dym));
		pc_err("del: no cached probe matches in %s%s", pc_cache_dir(), dym);
		ret = -ENOENT;
	}
	pc_patterns_free(pats, npats);
	if (!ret && !pc_quiet)
		printf("%u probes deleted, %u cache files removed\n", ndel, nfiles);
	return ret;
}

int cmd_clear(int argc, char **argv)
{
	unsigned int removed;
	int ret = help_only(argc, argv, "clear",
			    "Delete the whole cache (every build-id file, corrupt ones too).\n"
			    "Probes defined in probecache.ko from cached entries are deleted there\n"
			    "too; if the module refuses, nothing is deleted.\n");

	if (ret)
		return ret > 0 ? 0 : ret;
	if (optind < argc)
		return pc_usage("clear");
	ret = pc_cache_lock();
	if (ret)
		return ret;
	{
		struct pc_snapshot snap;

		/* an unreadable cache is still cleared: its probes are unknown */
		if (!pc_snapshot_load(&snap)) {
			ret = pc_disarm_cached("clear", &snap, del_selects, NULL, false);
			pc_snapshot_free(&snap);
		}
	}
	pc_cache_unlock();
	if (ret)
		return ret;
	ret = pc_cache_clear(&removed);
	if (ret)
		return ret;
	if (!pc_quiet)
		printf("%u cache files removed from %s\n", removed, pc_cache_dir());
	return 0;
}
