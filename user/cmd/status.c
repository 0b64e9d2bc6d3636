// SPDX-License-Identifier: GPL-2.0
/*
 * status: the module's version and every defined probe with its state
 * (defined, armed, stale), consumers, whether the module counts its hits and
 * the hits counted, read from sysfs, and the other copies of its binary it follows
 * (the module's sites). status --stale: cache entries whose binary is gone or changed
 * (what gc would remove). status --format=openmetrics: the same as metrics (metrics.c).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "armed.h"
#include "builtin.h"
#include "kload.h"
#include "ksites.h"
#include "mapsweep.h"
#include "metrics.h"
#include "opts.h"
#include "pattern.h"
#include "pc.h"

static void json_kv(const char *key, const char *v, bool comma)
{
	printf("%s\"%s\":", comma ? "," : "", key);
	pc_json_str(stdout, v);
}

static const char *err_name(int err)
{
	const char *n = err ? strerrorname_np(-err) : NULL;

	return n ? n : "";
}

/*
 * A site named through /proc/PID/ (map_files, root): PID, and the inode of
 * its mount namespace while it runs (0 once gone, UINT64_MAX if we may not
 * read it). 0 for a plain path: the module resolved that in the namespace
 * of whoever handed it.
 */
static pid_t site_via(const struct pc_ksite *s, uint64_t *mntns)
{
	long pid;
	char *end;
	int ret;

	*mntns = 0;
	if (strncmp(s->path, "/proc/", 6))
		return 0;
	errno = 0;
	pid = strtol(s->path + 6, &end, 10);
	if (errno || end == s->path + 6 || *end != '/' || pid <= 0 || pid > INT32_MAX)
		return 0;
	ret = pc_mntns_of(pid, mntns);
	if (ret && ret != -ENOENT)
		*mntns = UINT64_MAX;	/* not ours to read */
	return pid;
}

/* Every site of @p, its own file first. */
static void sites_json(const struct pc_kprobe *p, const struct pc_ksites *ks)
{
	bool comma = false;
	uint64_t mntns;
	pid_t pid;

	printf(",\"sites\":[");
	for (size_t i = 0; i < ks->n; i++) {
		const struct pc_ksite *s = &ks->s[i];

		if (strcmp(s->name, p->name))
			continue;
		printf("%s{\"site\":%u", comma ? "," : "", s->site);
		json_kv("path", s->path, true);
		json_kv("state", s->state, true);
		printf(",\"hits\":%" PRIu64 ",\"error\":%d", s->hits, s->error);
		json_kv("error_name", err_name(s->error), true);
		printf(",\"unlinked\":%s,\"dev\":\"%u:%u\",\"ino\":%" PRIu64,
		       s->unlinked ? "true" : "false", s->dev_major, s->dev_minor, s->ino);
		pid = site_via(s, &mntns);
		printf(",\"via_pid\":%d,\"mntns\":%" PRIu64 "}", (int)pid,
		       mntns == UINT64_MAX ? 0 : mntns);
		comma = true;
	}
	putchar(']');
}

/* The copies @p follows besides its own file, one line each. */
static void sites_text(const struct pc_kprobe *p, const struct pc_ksites *ks)
{
	uint64_t mntns;
	pid_t pid;

	for (size_t i = 0; i < ks->n; i++) {
		const struct pc_ksite *s = &ks->s[i];

		if (!s->site || strcmp(s->name, p->name))
			continue;
		printf("  + copy %s %s, %" PRIu64 " hits%s, inode %u:%u/%" PRIu64, s->path,
		       s->state, s->hits, s->unlinked ? ", deleted" : "", s->dev_major,
		       s->dev_minor, s->ino);
		pid = site_via(s, &mntns);
		if (pid && mntns == UINT64_MAX)
			printf(", pid %d, mount ns not readable", (int)pid);
		else if (pid && mntns)
			printf(", mount ns %" PRIu64 " of pid %d", mntns, (int)pid);
		else if (pid)
			printf(", pid %d gone", (int)pid);
		if (s->error)
			printf(", not armed: %s", err_name(s->error));
		putchar('\n');
	}
}

static void probe_json(const struct pc_kprobe *p, const struct pc_ksites *ks, bool comma)
{
	printf("%s{", comma ? "," : "");
	json_kv("name", p->name, false);
	json_kv("group", p->group, true);
	json_kv("event", p->event, true);
	json_kv("state", p->state, true);
	printf(",\"consumers\":%ld,\"counting\":%s,\"hits\":%" PRIu64, p->consumers,
	       p->counting ? "true" : "false", p->hits);
	json_kv("path", p->path, true);
	json_kv("build_id", p->build_id, true);
	/* offset, ref_ctr and args mean what they mean in list --json */
	printf(",\"offset\":%" PRIu64 ",\"ref_ctr\":%" PRIu64 ",\"pid\":%ld", p->offset,
	       p->ref_ctr, p->pid);
	printf(",\"args\":");
	pc_json_args(stdout, p->args);
	printf(",\"unlinked\":%s", p->unlinked ? "true" : "false");
	sites_json(p, ks);
	putchar('}');
}

static void probe_text(const struct pc_kprobe *p)
{
	char cons[24] = "?";

	if (p->consumers >= 0)
		snprintf(cons, sizeof(cons), "%ld", p->consumers);
	printf("%-40s %-8s %9s %8s %10" PRIu64 "  %s:0x%" PRIx64, p->name, p->state, cons,
	       p->counting ? "yes" : "no", p->hits, p->path, p->offset);
	if (p->ref_ctr)
		printf("(0x%" PRIx64 ")", p->ref_ctr);
	printf(" (%s)", p->build_id);
	if (p->pid)
		printf(" pid=%ld", p->pid);
	if (p->unlinked)
		printf(" [file replaced or removed: the old inode stays in memory until disarm]");
	if (!strcmp(p->state, "stale"))
		printf(" [the file changed since define: cannot be armed; disarm and scan again]");
	putchar('\n');
}

static int show_probes(bool json)
{
	char version[64] = "", nr[32] = "", armed[32] = "";
	struct pc_ksites ks;
	struct pc_kprobes k;
	int ret = pc_kprobes_read(&k);

	if (!ret) {
		ret = pc_ksites_read(&ks);
		if (ret)
			pc_kprobes_free(&k);
	}
	if (ret) {
		if (json)	/* loaded but no listing: still no probes to show */
			printf("{\"loaded\":%s,\"probes\":[]}\n",
			       pc_module_loaded() ? "true" : "false");
		return ret;
	}
	pc_sysfs_read("version", version, sizeof(version));
	pc_sysfs_read("nr_probes", nr, sizeof(nr));
	if (pc_sysfs_read("nr_armed", armed, sizeof(armed)))
		snprintf(armed, sizeof(armed), "-1");	/* a module without lazy arming */
	if (json) {
		printf("{\"loaded\":true");
		json_kv("version", version, true);
		printf(",\"nr_probes\":%zu,\"nr_armed\":%ld,\"probes\":[", k.n,
		       strtol(armed, NULL, 10));
		for (size_t i = 0; i < k.n; i++)
			probe_json(&k.p[i], &ks, i);
		printf("]}\n");
	} else {
		printf("probecache %s (%s): %zu probes defined, %s armed\n", version,
		       pc_sysfs_dir(), k.n, strcmp(armed, "-1") ? armed : "?");
		if (k.n)
			printf("%-40s %-8s %9s %8s %10s  %s\n", "PROBE", "STATE", "CONSUMERS",
			       "COUNTING", "HITS", "PATH:OFFSET(SEMAPHORE) (BUILD-ID)");
		for (size_t i = 0; i < k.n; i++) {
			probe_text(&k.p[i]);
			sites_text(&k.p[i], &ks);
		}
	}
	pc_ksites_free(&ks);
	pc_kprobes_free(&k);
	return 0;
}

static void stale_out(const struct pc_stale *s, bool json, bool comma)
{
	const char *why = s->st == PC_FILE_MISSING ? "missing" : "changed";

	if (!json) {
		printf("%s (%s): %s", s->path, s->b->build_id, why);
		if (s->st == PC_FILE_OTHER)
			printf(", now %s", s->now);
		printf("; %zu probes%s\n", s->b->nentries,
		       s->whole ? "" : " (still valid at another path)");
		return;
	}
	printf("%s{", comma ? "," : "");
	json_kv("path", s->path, false);
	json_kv("build_id", s->b->build_id, true);
	json_kv("state", why, true);
	json_kv("now_build_id", s->now, true);
	printf(",\"probes\":%zu,\"whole\":%s}", s->b->nentries, s->whole ? "true" : "false");
}

static int show_stale(bool json)
{
	struct pc_snapshot snap;
	struct pc_stale *st = NULL;
	size_t n = 0;
	int ret = pc_snapshot_load(&snap);

	if (!ret)
		ret = pc_stale_find(&snap, &st, &n);
	if (!ret) {
		if (json) {
			printf("{\"cache_dir\":");
			pc_json_str(stdout, pc_cache_dir());
			printf(",\"stale\":[");
		}
		for (size_t i = 0; i < n; i++)
			stale_out(&st[i], json, i);
		if (json)
			printf("]}\n");
		else if (!n)
			printf("nothing stale in %s\n", pc_cache_dir());
	}
	free(st);
	pc_snapshot_free(&snap);
	return ret;
}

enum status_format { FMT_TEXT, FMT_JSON, FMT_OPENMETRICS };

static int status_help(void)
{
	printf("usage: %s status [--stale] [--format=text|json|openmetrics] [-o FILE] [--json]\n\n"
	       "Show probecache.ko's version and every probe it defines: state (defined:\n"
	       "a trace event, no uprobe; armed: at least one consumer; stale: the file\n"
	       "changed since define), consumers (ftrace, perf, BPF and the module's own\n"
	       "counting), whether it counts hits ('arm'), the hits counted, path,\n"
	       "offsets and build-id (from %s).\n\n"
	       "  -s, --stale        instead, list cache entries whose binary is gone or changed\n"
	       "      --format=FMT   text (the default), json (= --json), or openmetrics: the\n"
	       "                     Prometheus text format node_exporter's textfile collector\n"
	       "                     reads (hits per probe and per file, probes and sites by\n"
	       "                     state, the kernel's uprobe_profile counts), ended by # EOF;\n"
	       "                     without the module it says so and exits 0\n"
	       "  -o, --output FILE  with --format=openmetrics: write FILE atomically (a\n"
	       "                     temporary file beside it, renamed over it), mode 0644\n"
	       "  -j, --json         JSON output\n"
	       "  -h, --help         this help\n\n"
	       "Exit: 0 ok, 1 module not loaded (text, json), 2 usage.\n",
	       pc_prog, pc_sysfs_dir());
	return 0;
}

static int parse_format(const char *s, enum status_format *fmt)
{
	static const char *const names[] = { "text", "json", "openmetrics" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(s, names[i])) {
			*fmt = i;
			return 0;
		}
	}
	pc_err("status: unknown format '%s' (text, json, openmetrics)", s);
	return -EINVAL;
}

/* What the options ask for, or -EINVAL (said). */
static int status_run(bool stale, enum status_format fmt, const char *output)
{
	if (output && fmt != FMT_OPENMETRICS) {
		pc_err("status: --output is for --format=openmetrics");
		return pc_usage("status");
	}
	if (stale && fmt == FMT_OPENMETRICS) {
		pc_err("status: --stale has no openmetrics form");
		return pc_usage("status");
	}
	if (fmt == FMT_OPENMETRICS)
		return pc_status_openmetrics(output);
	return stale ? show_stale(fmt == FMT_JSON) : show_probes(fmt == FMT_JSON);
}

int cmd_status(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "stale", no_argument, NULL, 's' },
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	enum status_format fmt = FMT_TEXT;
	const char *output = NULL;
	bool stale = false;
	int opt;

	while ((opt = pc_getopt(argc, argv, "sjho:", lopts)) != -1) {
		switch (opt) {
		case 's':
			stale = true;
			break;
		case 'f':
			if (parse_format(optarg, &fmt))
				return pc_usage("status");
			break;
		case 'o':
			output = optarg;
			break;
		case 'j':
			fmt = FMT_JSON;
			break;
		case 'h':
			return status_help();
		default:
			return pc_usage("status");
		}
	}
	if (optind < argc)
		return pc_usage("status");
	return status_run(stale, fmt, output);
}
