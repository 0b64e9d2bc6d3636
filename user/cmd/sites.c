// SPDX-License-Identifier: GPL-2.0
/*
 * sites: every inode some process maps executable, with its build-id and how
 * it was reached (lib/mapsweep.h), or only those carrying given build-ids.
 * The places define/arm hand the module as sites of a probe of that
 * build-id (lib/sitepush.c); here a read-only look, to test and time the sweep.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "builtin.h"
#include "cache_file.h"
#include "mapsweep.h"
#include "pc.h"
#include "sdt.h"

#define TEXT_PIDS	16	/* pids shown per site in text; JSON has them all */

struct sites_opts {
	bool json, stats;
	pid_t *pids;
	size_t npids;
};

static const char *err_name(int err)
{
	const char *n = strerrorname_np(-err);

	return n ? n : "?";
}

static void site_text(const struct pc_site *st)
{
	printf("%s dev=%x:%x ino=%llu found=%s", st->build_id[0] ? st->build_id : "-",
	       major(st->dev), minor(st->dev), (unsigned long long)st->ino,
	       pc_site_how_str(st->how));
	if (st->how == PC_SITE_MAP_FILES)
		printf(":%d", (int)st->via_pid);
	if (st->err)
		printf(" err=%s", err_name(st->err));
	printf(" mntns=%llu deleted=%s pids=", (unsigned long long)st->mntns,
	       st->deleted ? "yes" : "no");
	for (size_t i = 0; i < st->npids && i < TEXT_PIDS; i++)
		printf("%s%d", i ? "," : "", (int)st->pids[i].pid);
	if (st->npids > TEXT_PIDS)
		printf(",...(%zu)", st->npids);
	printf(" %s\n", st->path);
}

static void site_json(const struct pc_site *st, bool comma)
{
	printf("%s{\"build_id\":", comma ? "," : "");
	pc_json_str(stdout, st->build_id);
	printf(",\"dev\":\"%x:%x\",\"ino\":%llu,\"path\":", major(st->dev), minor(st->dev),
	       (unsigned long long)st->ino);
	pc_json_str(stdout, st->path);
	printf(",\"deleted\":%s,\"found\":\"%s\",\"via_pid\":%d,\"mntns\":%llu,\"error\":",
	       st->deleted ? "true" : "false", pc_site_how_str(st->how), (int)st->via_pid,
	       (unsigned long long)st->mntns);
	pc_json_str(stdout, st->err ? err_name(st->err) : "");
	printf(",\"pids\":[");
	for (size_t i = 0; i < st->npids; i++)
		printf("%s{\"pid\":%d,\"mntns\":%llu}", i ? "," : "", (int)st->pids[i].pid,
		       (unsigned long long)st->pids[i].mntns);
	printf("]}");
}

static void site_out(const struct pc_site *st, bool json, size_t *n)
{
	if (json)
		site_json(st, *n);
	else
		site_text(st);
	(*n)++;
}

/* Each unreadable process or file, by name: map_files wants CAP_SYS_ADMIN, maps ptrace. */
static void denied_out(const struct pc_sweep *s, bool json)
{
	for (size_t i = 0; i < s->ndenied; i++) {
		const struct pc_sweep_denied *d = &s->denied[i];

		if (json) {
			printf("%s{\"pid\":%d,\"file\":", i ? "," : "", (int)d->pid);
			pc_json_str(stdout, d->file);
			printf(",\"error\":\"%s\"}", err_name(d->err));
			continue;
		}
		pc_warn("sites: pid %d: %s: %s%s", (int)d->pid, d->file, strerror(-d->err),
			strstr(d->file, "/map_files/") ? " (needs CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE)" :
			" (needs ptrace read access)");
	}
}

static void stats_out(const struct pc_sweep *s, bool json)
{
	const struct pc_sweep_stats *t = &s->stats;

	if (json) {
		printf("\"stats\":{\"processes\":%zu,\"gone\":%zu,\"denied\":%zu,\"mappings\":%zu,"
		       "\"inodes\":%zu,\"reads\":%zu,\"ms\":%.3f}", t->procs, t->gone, s->ndenied,
		       t->mappings, s->nsites, t->reads, t->ms);
		return;
	}
	fprintf(stderr, "sites: swept %zu processes (%zu exited meanwhile, %zu denied): %zu "
		"executable file mappings, %zu inodes, %zu build-id reads in %.1f ms\n", t->procs,
		t->gone, s->ndenied, t->mappings, s->nsites, t->reads, t->ms);
}

/* A query argument: a build-id as is, a PATH (with a '/') by the build-id it has now. */
static int query_id(const char *arg, char id[41])
{
	int ret;

	if (strchr(arg, '/')) {
		ret = pc_read_build_id(arg, id);	/* says why it cannot, but for a missing note */
		if (ret == -ENOENT)
			pc_err("sites: %s: no GNU build-id note", arg);
		return ret == -ENOENT ? -EINVAL : ret;
	}
	if (strlen(arg) < 41 && pc_build_id_valid(arg)) {
		strcpy(id, arg);
		return 0;
	}
	pc_err("sites: '%s': neither a build-id (lowercase hex) nor a path", arg);
	return -EINVAL;
}

/* The sites of every query (all of them without one); -ENOENT if a query has none. */
static int show(const struct pc_sweep *s, char **args, char (*ids)[41], int nargs, bool json)
{
	size_t n = 0, pos, before;
	const struct pc_site *st;
	int ret = 0;

	if (!nargs)
		for (size_t i = 0; i < s->nsites; i++)
			site_out(&s->sites[i], json, &n);
	for (int i = 0; i < nargs; i++) {
		before = n;
		for (pos = 0; (st = pc_sweep_next(s, ids[i], &pos));)
			site_out(st, json, &n);
		if (n == before) {
			pc_err("sites: %s: no process maps a file with build-id %s", args[i], ids[i]);
			ret = -ENOENT;
		}
	}
	return ret;
}

static int sweep_show(const struct sites_opts *o, char **args, char (*ids)[41], int nargs)
{
	struct pc_sweep s;
	int ret = pc_sweep_run(&s, o->pids, o->npids);

	if (!ret && o->json) {
		printf("{");
		stats_out(&s, true);
		printf(",\"denied\":[");
		denied_out(&s, true);
		printf("],\"sites\":[");
		ret = show(&s, args, ids, nargs, true);
		printf("]}\n");
	} else if (!ret) {
		ret = show(&s, args, ids, nargs, false);
		denied_out(&s, false);
		if (o->stats)
			stats_out(&s, false);
	}
	if ((!ret || ret == -ENOENT) && s.ndenied)
		ret = PC_EXIT_PARTIAL;	/* what was denied may hold the missing site */
	pc_sweep_free(&s);
	return ret == -ENOENT ? PC_EXIT_ERROR : ret;
}

/* The queries' build-ids first: a bad argument costs no sweep. */
static int run(const struct sites_opts *o, char **args, int nargs)
{
	char (*ids)[41] = calloc(nargs ? nargs : 1, sizeof(*ids));
	int ret = ids ? 0 : -ENOMEM;

	for (int i = 0; !ret && i < nargs; i++)
		ret = query_id(args[i], ids[i]);
	if (!ret)
		ret = sweep_show(o, args, ids, nargs);
	free(ids);
	return ret;
}

static int sites_help(void)
{
	printf("usage: %s sites [--json] [--stats] [-p PID]... [BUILD-ID|PATH...]\n\n"
	       "Sweep /proc/PID/maps of every process and list each inode mapped executable\n"
	       "once: its build-id, device and inode, how it was read (its path when that\n"
	       "names the same inode here, else /proc/PID/map_files/ of a process mapping\n"
	       "it: deleted files, other mount namespaces), the mount namespace of that\n"
	       "process, deleted or not, the processes mapping it, and the path they map.\n"
	       "With BUILD-IDs (or PATHs, by the build-id the file has now), only the\n"
	       "inodes carrying them: where a probe of that build-id can be armed.\n\n"
	       "  -p, --pid PID  sweep only PID (repeatable)\n"
	       "  -s, --stats    print the sweep's counts and time on stderr\n"
	       "  -j, --json     JSON output (stats, denied, sites)\n"
	       "  -h, --help     this help\n\n"
	       "Exit: 0 ok, 1 a BUILD-ID no process maps, 2 usage, 3 some processes or\n"
	       "files could not be read (each named on stderr; map_files needs\n"
	       "CAP_SYS_ADMIN).\n", pc_prog);
	return 0;
}

static int add_pid(struct sites_opts *o, const char *arg)
{
	char *end;
	long v = strtol(arg, &end, 10);
	pid_t *p;

	if (*end || end == arg || v <= 0 || v > INT_MAX) {
		pc_err("sites: -p %s: not a process id", arg);
		return -EINVAL;
	}
	p = realloc(o->pids, (o->npids + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	o->pids = p;
	o->pids[o->npids++] = (pid_t)v;
	return 0;
}

int cmd_sites(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "stats", no_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct sites_opts o = {};
	int opt, ret = 0;

	while (!ret && (opt = getopt_long(argc, argv, "p:sjh", lopts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			ret = add_pid(&o, optarg);
			break;
		case 's':
			o.stats = true;
			break;
		case 'j':
			o.json = true;
			break;
		case 'h':
			free(o.pids);
			return sites_help();
		default:
			ret = pc_usage("sites");
		}
	}
	if (!ret)
		ret = run(&o, argv + optind, argc - optind);
	free(o.pids);
	return ret;
}
