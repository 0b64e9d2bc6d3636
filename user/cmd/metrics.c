// SPDX-License-Identifier: GPL-2.0
/*
 * status --format=openmetrics: the module's probes (/proc/probecache_probes),
 * the files each is armed in (/proc/probecache_sites) and the kernel's own
 * hit counts (tracefs uprobe_profile) as metrics in the Prometheus text
 * format (lib/openmetrics.h), for node_exporter's textfile collector
 * (probecache-metrics.timer writes them there) or any other reader of it;
 * and the counters `follow`, a daemon of its own, publishes in
 * RUNDIR/follower.stats (lib/followstats.h).
 *
 * Labels are what stays the same on every host that runs the same binaries:
 * event (GROUP:EVENT), build_id, path, and a site's kind, never a pid, an
 * inode or a site's number. Samples that these labels make alike (two
 * containers' copies of one library) are summed, so no sample repeats.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "armed.h"
#include "followstats.h"
#include "kevent.h"
#include "kload.h"
#include "ksites.h"
#include "metrics.h"
#include "openmetrics.h"
#include "pc.h"
#include "uprofile.h"

/* What one output is made of. */
struct om {
	FILE *f;
	bool loaded;
	char version[64];
	struct pc_kprobes k;
	struct pc_ksites ks;
	struct pc_uprofile up;
	int follower;		/* 0: @fs read; -ENOENT: no file; else not usable (warned) */
	struct pc_followstats fs;
};

/* ---- samples that may share their labels: summed ---- */

#define AGG_LABELS	4

struct agg_row {
	char *l[AGG_LABELS];	/* label values, in the order of the family's keys */
	uint64_t v;
};

struct agg {
	const char *keys[AGG_LABELS];
	size_t nk, n, cap;
	struct agg_row *r;
	int err;		/* -ENOMEM once a row could not be kept */
};

static void agg_row_free(struct agg_row *r)
{
	for (size_t i = 0; i < AGG_LABELS; i++)
		free(r->l[i]);
}

static void agg_free(struct agg *a)
{
	for (size_t i = 0; i < a->n; i++)
		agg_row_free(&a->r[i]);
	free(a->r);
}

/* One more sample of @a: @vals, one per key, and @v. */
static void agg_add(struct agg *a, const char *const *vals, uint64_t v)
{
	struct agg_row *r;

	if (a->err)
		return;
	r = pc_grow(a->r, &a->cap, a->n, sizeof(*a->r), 16);
	if (!r) {
		a->err = -ENOMEM;
		return;
	}
	a->r = r;
	r = memset(&a->r[a->n], 0, sizeof(*r));
	r->v = v;
	for (size_t i = 0; i < a->nk; i++) {
		r->l[i] = strdup(vals[i]);
		if (!r->l[i]) {
			agg_row_free(r);
			a->err = -ENOMEM;
			return;
		}
	}
	a->n++;
}

static int agg_cmp(const void *x, const void *y)
{
	const struct agg_row *a = x, *b = y;
	int c = 0;

	for (size_t i = 0; !c && i < AGG_LABELS; i++)
		c = strcmp(a->l[i] ? a->l[i] : "", b->l[i] ? b->l[i] : "");
	return c;
}

/* Each distinct label set of @a once, its values summed, in label order. */
static int agg_print(FILE *f, const char *name, struct agg *a)
{
	const char *labels[2 * AGG_LABELS];
	uint64_t sum;

	if (a->err)
		return a->err;
	qsort(a->r, a->n, sizeof(*a->r), agg_cmp);
	for (size_t i = 0; i < a->n; i++) {
		sum = a->r[i].v;
		while (i + 1 < a->n && !agg_cmp(&a->r[i], &a->r[i + 1]))
			sum += a->r[++i].v;
		for (size_t j = 0; j < a->nk; j++) {
			labels[2 * j] = a->keys[j];
			labels[2 * j + 1] = a->r[i].l[j];
		}
		pc_om_sample(f, name, labels, a->nk, sum);
	}
	return 0;
}

/* ---- labels ---- */

/* What follows /proc/PID of @path, or NULL if it does not start so. */
static const char *after_pid(const char *path)
{
	size_t n;

	if (strncmp(path, "/proc/", 6))
		return NULL;
	n = strspn(path + 6, "0123456789");
	return n ? path + 6 + n : NULL;
}

/*
 * @path as a label, the same on every host and across restarts: a file the
 * module was handed through a process loses the pid, /proc/PID/root/REST
 * becomes /REST (the path in that process's root), /proc/PID/map_files/...
 * nothing (no name is known).
 */
static const char *label_path(const char *path)
{
	const char *rest = after_pid(path);

	if (rest && !strncmp(rest, "/root/", 6))
		return rest + 5;
	if (rest && !strncmp(rest, "/map_files/", 11))
		return "";
	return path;
}

/* own (the probe's file), copy (another path), container (through a process), deleted */
static const char *site_kind(const struct pc_ksite *s)
{
	if (!s->site)
		return "own";
	if (s->unlinked)
		return "deleted";
	return after_pid(s->path) ? "container" : "copy";
}

static const char *errno_label(int err, char *buf, size_t len)
{
	const char *n = strerrorname_np(-err);

	if (n)
		return n;
	snprintf(buf, len, "%d", err);
	return buf;
}

/* ---- the module and its probes ---- */

static const char *const states[] = {
	PROBECACHE_STATE_DEFINED, PROBECACHE_STATE_ARMED, PROBECACHE_STATE_STALE
};

#define NR_STATES	(sizeof(states) / sizeof(states[0]))

static void module_metrics(const struct om *m)
{
	const char *ver[] = { "version", m->version };

	pc_om_family(m->f, "probecache_module_loaded", "gauge",
		     "Whether probecache.ko is loaded: 1, or not: 0.");
	pc_om_sample(m->f, "probecache_module_loaded", NULL, 0, m->loaded);
	pc_om_family(m->f, "probecache_module_info", "gauge",
		     "The loaded module's version, as a label; always 1.");
	if (m->loaded)
		pc_om_sample(m->f, "probecache_module_info", ver, 1, 1);
}

static void probe_counts(const struct om *m)
{
	const char *l[2] = { "state" };
	uint64_t n;

	pc_om_family(m->f, "probecache_probes", "gauge",
		     "Probes the module defines, by state: defined (a trace event, no "
		     "breakpoint), armed (perf, ftrace, BPF or the module's counter "
		     "consumes it), stale (its file changed since define).");
	for (size_t s = 0; s < NR_STATES; s++) {
		n = 0;
		for (size_t i = 0; i < m->k.n; i++)
			n += !strcmp(m->k.p[i].state, states[s]);
		l[1] = states[s];
		pc_om_sample(m->f, "probecache_probes", l, 1, n);
	}
}

/* event, build_id and path of @p into @l (room for 4 pairs: one more is the caller's) */
static void probe_labels(const struct pc_kprobe *p, const char **l)
{
	l[0] = "event";
	l[1] = p->name;
	l[2] = "build_id";
	l[3] = p->build_id;
	l[4] = "path";
	l[5] = label_path(p->path);
}

static void probe_states(const struct om *m)
{
	const char *l[8];

	pc_om_family(m->f, "probecache_probe_state", "gauge",
		     "Each probe's state: 1 for the state it is in, 0 for the others.");
	for (size_t i = 0; i < m->k.n; i++) {
		probe_labels(&m->k.p[i], l);
		l[6] = "state";
		for (size_t s = 0; s < NR_STATES; s++) {
			l[7] = states[s];
			pc_om_sample(m->f, "probecache_probe_state", l, 4,
				     !strcmp(m->k.p[i].state, states[s]));
		}
	}
}

/* One per-probe family: a sample for each probe that has a value. */
struct probe_family {
	const char *name, *type, *help;
	bool (*value)(const struct pc_kprobe *p, uint64_t *v);
};

static bool v_event(const struct pc_kprobe *p, uint64_t *v)
{
	*v = pc_kevent_exists(p->group, p->event);
	return true;
}

static bool v_counting(const struct pc_kprobe *p, uint64_t *v)
{
	*v = p->counting;
	return true;
}

static bool v_hits(const struct pc_kprobe *p, uint64_t *v)
{
	*v = p->hits;
	return true;
}

static const struct probe_family probe_families[] = {
	{ "probecache_probe_event", "gauge",
	  "Whether each probe's kernel uprobe event GROUP/EVENT exists (what perf, ftrace "
	  "and BPF use): 1, or not (root removed it): 0.", v_event },
	{ "probecache_probe_counting", "gauge",
	  "Whether the module counts each probe's hits (probecache-resolve arm): 1, or not: 0.",
	  v_counting },
	{ "probecache_probe_hits_total", "counter",
	  "Hits the module counted on each probe while counting, in every file it is "
	  "armed in (its sites).", v_hits },
};

static void probe_metrics(const struct om *m)
{
	const struct probe_family *pf;
	const char *l[6];
	uint64_t v;

	probe_states(m);
	for (size_t f = 0; f < sizeof(probe_families) / sizeof(probe_families[0]); f++) {
		pf = &probe_families[f];
		pc_om_family(m->f, pf->name, pf->type, pf->help);
		for (size_t i = 0; i < m->k.n; i++) {
			if (!pf->value(&m->k.p[i], &v))
				continue;
			probe_labels(&m->k.p[i], l);
			pc_om_sample(m->f, pf->name, l, 3, v);
		}
	}
}

/* ---- sites ---- */

struct site_aggs {
	struct agg count, hits, failed;
};

static void site_add(struct site_aggs *a, const struct pc_kprobe *p, const struct pc_ksite *s)
{
	const char *kind = site_kind(s);
	char ebuf[16];

	agg_add(&a->count, (const char *[]){ p->name, p->build_id, kind, s->state }, 1);
	agg_add(&a->hits, (const char *[]){ p->name, p->build_id, label_path(s->path), kind },
		s->hits);
	if (s->error)
		agg_add(&a->failed, (const char *[]){ p->name, p->build_id, kind,
			errno_label(s->error, ebuf, sizeof(ebuf)) }, 1);
}

static int site_print(FILE *f, struct site_aggs *a)
{
	int ret;

	pc_om_family(f, "probecache_sites", "gauge",
		     "Files each probe is armed in or will be, by kind (own: its file; copy: "
		     "another path; container: through a process, in another mount namespace; "
		     "deleted) and state.");
	ret = agg_print(f, "probecache_sites", &a->count);
	pc_om_family(f, "probecache_site_hits_total", "counter",
		     "Hits the module counted on each probe while counting, by file.");
	if (!ret)
		ret = agg_print(f, "probecache_site_hits_total", &a->hits);
	pc_om_family(f, "probecache_sites_failed", "gauge",
		     "Files of a probe the module could not arm it in, by the error of its last "
		     "attempt.");
	if (!ret)
		ret = agg_print(f, "probecache_sites_failed", &a->failed);
	return ret;
}

static int site_metrics(const struct om *m)
{
	struct site_aggs a = {
		.count = { .keys = { "event", "build_id", "site", "state" }, .nk = 4 },
		.hits = { .keys = { "event", "build_id", "path", "site" }, .nk = 4 },
		.failed = { .keys = { "event", "build_id", "site", "error" }, .nk = 4 },
	};
	const struct pc_kprobe *p;
	int ret;

	for (size_t i = 0; i < m->ks.n; i++) {
		p = pc_kprobes_get(&m->k, m->ks.s[i].name);
		if (p)	/* else deleted between the two reads */
			site_add(&a, p, &m->ks.s[i]);
	}
	ret = site_print(m->f, &a);
	agg_free(&a.count);
	agg_free(&a.hits);
	agg_free(&a.failed);
	return ret;
}

/* ---- the kernel's own counts: uprobe_profile ---- */

/* A file one of our probes is in, by the probe's EVENT: uprobe_profile's EVENT rows. */
struct upath {
	const char *event, *file;
	const struct pc_kprobe *p;
};

static int upath_cmp(const void *x, const void *y)
{
	const struct upath *a = x, *b = y;
	int c = strcmp(a->event, b->event);

	return c ? c : strcmp(a->file, b->file);
}

/* Every probe's own file and the files of its sites, sorted; NULL without memory. */
static struct upath *upaths_make(const struct om *m, size_t *n)
{
	struct upath *u = calloc(m->k.n + m->ks.n + 1, sizeof(*u));
	const struct pc_kprobe *p;

	*n = 0;
	if (!u)
		return NULL;
	for (size_t i = 0; i < m->k.n; i++)
		u[(*n)++] = (struct upath){ m->k.p[i].event, m->k.p[i].path, &m->k.p[i] };
	for (size_t i = 0; i < m->ks.n; i++) {
		p = pc_kprobes_get(&m->k, m->ks.s[i].name);
		if (p && m->ks.s[i].site)
			u[(*n)++] = (struct upath){ p->event, m->ks.s[i].path, p };
	}
	qsort(u, *n, sizeof(*u), upath_cmp);
	return u;
}

/*
 * The probe of ours uprobe_profile's row @r counts, or NULL: GROUP/EVENT
 * names it; EVENT alone (what Linux prints) only with one of its files.
 */
static const struct pc_kprobe *row_probe(const struct om *m, const struct upath *u, size_t n,
					 const struct pc_uprofile_row *r)
{
	const char *slash = strchr(r->event, '/');
	struct upath key = { r->event, r->file, NULL }, *hit;
	char name[2 * PROBECACHE_NAME_MAX + 2];

	if (slash) {
		if ((size_t)snprintf(name, sizeof(name), "%.*s:%s", (int)(slash - r->event),
				     r->event, slash + 1) >= sizeof(name))
			return NULL;
		return pc_kprobes_get(&m->k, name);
	}
	hit = bsearch(&key, u, n, sizeof(*u), upath_cmp);
	return hit ? hit->p : NULL;
}

static int uprobe_print(FILE *f, struct agg *per_probe, struct agg *per_file)
{
	int ret;

	pc_om_family(f, "probecache_uprobe_hits_total", "counter",
		     "Hits the kernel counted on each probe (tracefs uprobe_profile) while "
		     "its uprobe was registered, in all its files.");
	ret = agg_print(f, "probecache_uprobe_hits_total", per_probe);
	pc_om_family(f, "probecache_uprobe_file_hits_total", "counter",
		     "Hits the kernel counted on each probe (tracefs uprobe_profile), by file.");
	if (!ret)
		ret = agg_print(f, "probecache_uprobe_file_hits_total", per_file);
	return ret;
}

static int uprobe_metrics(const struct om *m)
{
	struct agg per_probe = { .keys = { "event", "build_id" }, .nk = 2 };
	struct agg per_file = { .keys = { "event", "build_id", "path" }, .nk = 3 };
	const struct pc_uprofile_row *r;
	const struct pc_kprobe *p;
	size_t n;
	struct upath *u = upaths_make(m, &n);
	int ret = u ? 0 : -ENOMEM;

	for (size_t i = 0; !ret && i < m->up.n; i++) {
		r = &m->up.r[i];
		p = row_probe(m, u, n, r);
		if (!p)
			continue;
		agg_add(&per_probe, (const char *[]){ p->name, p->build_id }, r->hits);
		agg_add(&per_file, (const char *[]){ p->name, p->build_id, label_path(r->file) },
			r->hits);
	}
	if (!ret)
		ret = uprobe_print(m->f, &per_probe, &per_file);
	agg_free(&per_probe);
	agg_free(&per_file);
	free(u);
	return ret;
}

/* ---- the follower's counters (follower.stats) ---- */

/* One counter of the follower's file. */
struct follower_counter {
	const char *name, *help;
	size_t off;	/* of a uint64_t in struct pc_followstats */
};

#define FS_OFF(field)	offsetof(struct pc_followstats, field)

static const struct follower_counter follower_counters[] = {
	{ "probecache_follower_mappings_total",
	  "Executable mappings the follower was told of (the kernel's PERF_RECORD_MMAP2), "
	  "since it started.", FS_OFF(st.mappings) },
	{ "probecache_follower_queued_total",
	  "Mappings that queued their process for a sweep: an inode not read before, or "
	  "one of a probe's build-id not yet handed to the module.", FS_OFF(st.queued) },
	{ "probecache_follower_sweeps_total",
	  "Sweeps of processes' maps the follower made, those of every process included.",
	  FS_OFF(st.sweeps) },
	{ "probecache_follower_full_sweeps_total",
	  "Sweeps of every process: at the start, on a new probe, after lost records.",
	  FS_OFF(st.full) },
	{ "probecache_follower_sites_added_total",
	  "Copies of a probe's binary the follower handed the module and it took (sites).",
	  FS_OFF(st.added) },
	{ "probecache_follower_sites_refused_total",
	  "Copies the module refused (each in the follower's log).", FS_OFF(st.refused) },
	{ "probecache_follower_records_lost_total",
	  "Mapping records the kernel dropped from the follower's watch (its rings full); "
	  "each made a sweep of every process.", FS_OFF(lost) },
};

static void follower_gauges(const struct om *m)
{
	bool ok = !m->follower;

	pc_om_family(m->f, "probecache_follower_up", "gauge",
		     "Whether probecache-resolve follow runs: 1 if the process that wrote "
		     "follower.stats lives and is a follower, 0 if not or no follower wrote it.");
	if (ok || m->follower == -ENOENT)
		pc_om_sample(m->f, "probecache_follower_up", NULL, 0,
			     ok && pc_followstats_running(m->fs.pid));
	pc_om_family(m->f, "probecache_follower_start_time_seconds", "gauge",
		     "When the follower that wrote follower.stats started, in Unix time.");
	if (ok)
		pc_om_sample(m->f, "probecache_follower_start_time_seconds", NULL, 0, m->fs.start);
	pc_om_family(m->f, "probecache_follower_last_sweep_seconds", "gauge",
		     "How long the follower's last sweep took, handing its copies to the module "
		     "included.");
	if (ok)
		pc_om_sample_double(m->f, "probecache_follower_last_sweep_seconds", NULL, 0,
				    m->fs.st.last_ms / 1000);
}

/*
 * The follower's counters as it last published them: a stale file (its
 * follower gone) still gives them, with up 0; no file gives up 0 alone; a
 * file not understood gives no sample at all.
 */
static void follower_metrics(const struct om *m)
{
	const struct follower_counter *c;

	follower_gauges(m);
	for (size_t i = 0; i < sizeof(follower_counters) / sizeof(follower_counters[0]); i++) {
		c = &follower_counters[i];
		pc_om_family(m->f, c->name, "counter", c->help);
		if (!m->follower)
			pc_om_sample(m->f, c->name, NULL, 0,
				     *(const uint64_t *)((const char *)&m->fs + c->off));
	}
}

/* The follower's file; one that cannot be used is said (where, why) and left out. */
static void follower_read(struct om *m)
{
	char path[PATH_MAX], why[256];
	size_t line = 0;

	m->follower = pc_followstats_path(path, sizeof(path));
	if (m->follower) {
		pc_warn("status: %s/%s: %s; the follower's counters left out", pc_run_dir(),
			PC_FOLLOWSTATS_FILE, strerror(-m->follower));
		return;
	}
	m->follower = pc_followstats_read(path, &m->fs, &line, why, sizeof(why));
	if (!m->follower || m->follower == -ENOENT)
		return;		/* no file: no follower ever published (up 0) */
	if (line)
		pc_warn("status: %s:%zu: %s; the follower's counters left out", path, line, why);
	else
		pc_warn("status: %s: %s; the follower's counters left out", path, why);
}

/* ---- the whole output ---- */

static int om_print(struct om *m)
{
	int ret;

	module_metrics(m);
	probe_counts(m);
	probe_metrics(m);
	ret = site_metrics(m);
	if (!ret)
		ret = uprobe_metrics(m);
	follower_metrics(m);
	fputs("# EOF\n", m->f);
	return ret;
}

/*
 * What the module lists. Without the module, nothing (the metrics say it
 * is not loaded); an unreadable uprobe_profile leaves the kernel's counts
 * out (its reason on stderr), not the rest.
 */
static int om_read(struct om *m)
{
	int ret;

	follower_read(m);	/* it may run while the module is not loaded */
	m->loaded = pc_module_loaded();
	if (!m->loaded)
		return 0;
	ret = pc_kprobes_read(&m->k);
	if (!ret)
		ret = pc_ksites_read(&m->ks);
	if (ret)
		return ret;
	pc_sysfs_read("version", m->version, sizeof(m->version));
	if (pc_uprofile_read(&m->up))
		pc_warn("status: the kernel's hit counts (uprobe_profile) left out");
	return 0;
}

static void om_free(struct om *m)
{
	pc_kprobes_free(&m->k);
	pc_ksites_free(&m->ks);
	pc_uprofile_free(&m->up);
}

/* @len bytes of @buf to a temporary file beside @file, then renamed over it. */
static int write_atomic(const char *file, const char *buf, size_t len)
{
	char tmp[PATH_MAX];
	FILE *f = pc_file_tmp(file, tmp, sizeof(tmp));
	int ret;

	if (!f)
		return -errno;
	if (fwrite(buf, 1, len, f) != len) {
		ret = errno ? -errno : -EIO;
		fclose(f);
		unlink(tmp);
		return ret;
	}
	/* node_exporter runs as its own user: readable by all, as the file it replaces */
	return pc_file_commit(f, tmp, file, 0644);
}

static int om_write(const char *output, const char *buf, size_t len)
{
	int ret;

	if (!output) {
		if (fwrite(buf, 1, len, stdout) != len || fflush(stdout))
			return errno ? -errno : -EIO;
		return 0;
	}
	ret = write_atomic(output, buf, len);
	if (ret)
		pc_err("status: %s: %s", output, strerror(-ret));
	return ret;
}

int pc_status_openmetrics(const char *output)
{
	struct om m = { 0 };
	char *buf = NULL;
	size_t len = 0;
	int ret = om_read(&m);

	if (!ret) {
		m.f = open_memstream(&buf, &len);
		ret = m.f ? om_print(&m) : -ENOMEM;
		if (m.f && ferror(m.f) && !ret)
			ret = -ENOMEM;
		if (m.f && fclose(m.f) && !ret)
			ret = -ENOMEM;
	}
	if (!ret)
		ret = om_write(output, buf, len);
	free(buf);
	om_free(&m);
	return ret;
}
