// SPDX-License-Identifier: GPL-2.0
/*
 * arm / disarm: select cached probes, verify the file at each cached path
 * against the cached build-id now, and push records into probecache.ko.
 *
 * Version choice (clash B): when the file at a path holds another build-id
 * than the selected cache entry, and that other build-id is cached with the
 * same GROUP:EVENT, the probe is armed from that version and the choice is
 * reported; otherwise the entry is skipped as stale. The module verifies the
 * build-id again on the inode it opens, so a file replaced between our check
 * and its open is still refused.
 *
 * Records go to control in batches of whole lines that fit one page (one
 * sysfs store call each). The module stops at a rejected line and returns
 * the bytes of the lines before it (a short write); resending from there
 * makes the rejected line fail alone, with its errno and last_error
 * ("line L col C: FIELD: WHY"); we report it and go on after it.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/probecache.h>

#include "arm.h"
#include "armed.h"
#include "cache_select.h"
#include "pattern.h"
#include "pc.h"

#define BATCH_MAX	4000	/* bytes per write(): below one page */

struct arm_item {
	const struct pc_binary *b;
	const struct pc_entry *e;
	const char *path;
	char name[2 * PROBECACHE_NAME_MAX + 2];	/* GROUP:EVENT in the kernel */
	char *line;				/* "add RECORD" or "del GROUP:EVENT" */
	int err;				/* 0 or -errno from the module */
	char why[256];
};

struct arm_plan {
	struct pc_snapshot snap;
	size_t n;
	struct arm_item *items;
	unsigned int skipped;
	unsigned int matched;
	/* path -> build-id it holds now, so each file is read once */
	size_t nseen;
	struct { char *path; enum pc_file_state st; char now[41]; } *seen;
	size_t nsaid;
	const struct pc_binary **said;
};

/* ---- talking to the module ---- */

static void read_last_error(char *why, size_t whylen, int err)
{
	if (!why || !whylen)
		return;
	if (pc_sysfs_read("last_error", why, whylen) || !why[0])
		snprintf(why, whylen, "%s", strerror(err));
}

static int open_control(void)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/control", pc_sysfs_dir());
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		int err = errno;

		if (err == ENOENT)
			pc_err("%s: probecache.ko is not loaded (run '%s load')", path, pc_prog);
		else
			pc_err("%s: %s", path, strerror(err));
		return -err;
	}
	return fd;
}

/*
 * Write @len bytes; returns 0, or -errno of the first failing write with
 * @done set to the bytes accepted before it.
 */
static int write_all(int fd, const char *buf, size_t len, size_t *done)
{
	ssize_t n;

	*done = 0;
	while (*done < len) {
		n = write(fd, buf + *done, len - *done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		*done += n;
	}
	return 0;
}

int pc_control_write(const char *line, char *why, size_t whylen)
{
	size_t len = strlen(line), done;
	char *buf;
	int fd, ret;

	if (why && whylen)
		why[0] = '\0';
	fd = open_control();
	if (fd < 0)
		return fd;
	buf = malloc(len + 2);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	memcpy(buf, line, len);
	if (!len || line[len - 1] != '\n')
		buf[len++] = '\n';
	ret = write_all(fd, buf, len, &done);
	if (ret)
		read_last_error(why, whylen, -ret);
	free(buf);
	close(fd);
	return ret;
}

static size_t count_lines(const char *buf, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += buf[i] == '\n';
	return n;
}

/*
 * Send items[first..last) as one buffer. The module applies lines up to a
 * rejected one and returns their bytes; write_all() then resends from the
 * rejected line, which fails alone. Returns the index to continue from.
 */
static size_t send_batch(int fd, struct arm_item *items, size_t first, size_t last)
{
	char buf[BATCH_MAX + PROBECACHE_LINE_MAX + 2];
	size_t len = 0, done, bad;
	int ret;

	for (size_t i = first; i < last; i++)
		len += sprintf(buf + len, "%s\n", items[i].line);
	ret = write_all(fd, buf, len, &done);
	if (!ret)
		return last;
	bad = first + count_lines(buf, done);
	if (bad >= last)	/* cannot happen with whole lines; be safe */
		return last;
	read_last_error(items[bad].why, sizeof(items[bad].why), -ret);
	items[bad].err = ret;
	return bad + 1;
}

/* Pushes every item's line; per-item outcome in ->err / ->why. */
static int push_items(struct arm_item *items, size_t n)
{
	size_t i = 0, j, len;
	int fd;

	if (!n)
		return 0;
	fd = open_control();
	if (fd < 0)
		return fd;
	while (i < n) {
		for (j = i, len = 0; j < n; j++) {
			size_t l = strlen(items[j].line) + 1;

			if (j > i && len + l > BATCH_MAX)
				break;
			len += l;
		}
		i = send_batch(fd, items, i, j);
	}
	close(fd);
	return 0;
}

/* ---- choosing what to arm ---- */

static enum pc_file_state plan_check(struct arm_plan *pl, const char *path,
				     const char *build_id, char now[41])
{
	size_t i;
	void *tmp;

	for (i = 0; i < pl->nseen; i++)
		if (!strcmp(pl->seen[i].path, path))
			break;
	if (i == pl->nseen) {
		tmp = realloc(pl->seen, (pl->nseen + 1) * sizeof(*pl->seen));
		if (!tmp)
			return PC_FILE_UNREADABLE;
		pl->seen = tmp;
		pl->seen[i].path = strdup(path);
		pl->seen[i].st = pc_file_check(path, "", pl->seen[i].now);
		pl->nseen++;
	}
	snprintf(now, 41, "%s", pl->seen[i].now);
	if (pl->seen[i].st != PC_FILE_OTHER)
		return pl->seen[i].st;
	return strcmp(now, build_id) ? PC_FILE_OTHER : PC_FILE_SAME;
}

static const struct pc_entry *find_entry(const struct pc_binary *b, const char *group,
					 const char *event)
{
	for (size_t i = 0; i < b->nentries; i++)
		if (!strcmp(b->entries[i].group, group) && !strcmp(b->entries[i].event, event))
			return &b->entries[i];
	return NULL;
}

static bool planned(const struct arm_plan *pl, const struct pc_binary *b,
		    const struct pc_entry *e, const char *path)
{
	for (size_t i = 0; i < pl->n; i++)
		if (pl->items[i].b == b && pl->items[i].e == e && !strcmp(pl->items[i].path, path))
			return true;
	return false;
}

static int plan_add(struct arm_plan *pl, const struct pc_binary *b, const struct pc_entry *e,
		    const char *path)
{
	struct arm_item *it;

	if (planned(pl, b, e, path))
		return 0;
	it = realloc(pl->items, (pl->n + 1) * sizeof(*it));
	if (!it)
		return -ENOMEM;
	pl->items = it;
	it = &pl->items[pl->n++];
	memset(it, 0, sizeof(*it));
	it->b = b;
	it->e = e;
	it->path = path;
	return 0;
}

/* Clash B: say which version was chosen, once per stale version. */
static void say_choice(struct arm_plan *pl, const struct pc_binary *stale,
		       const struct pc_binary *now, const char *path, bool quiet)
{
	const struct pc_binary **said;

	for (size_t i = 0; i < pl->nsaid; i++)
		if (pl->said[i] == stale)
			return;
	said = realloc(pl->said, (pl->nsaid + 1) * sizeof(*said));
	if (!said)
		return;
	pl->said = said;
	pl->said[pl->nsaid++] = stale;
	if (!quiet)
		printf("%s: build-ids %s and %s are both cached; arming %s, the one the file "
		       "has now (%s is stale)\n", path, stale->build_id, now->build_id,
		       now->build_id, stale->build_id);
}

static void skip(struct arm_plan *pl, const struct pc_binary *b, const struct pc_entry *e,
		 const char *path, const char *fmt, const char *arg)
{
	char why[160];

	snprintf(why, sizeof(why), fmt, arg);
	pc_warn("%s:%s (%s): skipped: %s (cached build-id %s)", e->group, e->event, path,
		why, b->build_id);
	pl->skipped++;
}

/* "@/path" arms at that path only: which of @b's paths it names, or NULL. */
static const char *only_path(const struct pc_pattern *p, const struct pc_binary *b)
{
	for (size_t i = 0; p->path && i < b->npaths; i++)
		if (!strcmp(b->paths[i], p->path) || (p->real && !strcmp(b->paths[i], p->real)))
			return b->paths[i];
	return NULL;
}

/*
 * Where does cached (@b, @e) get armed, if anywhere? At @only if given, else
 * at the newest of its paths that holds its build-id now.
 */
static int plan_entry(struct arm_plan *pl, const struct pc_binary *b, const struct pc_entry *e,
		      const char *only, bool quiet)
{
	const struct pc_binary *other;
	const struct pc_entry *oe;
	const char *path = only ? only : b->paths[0];
	enum pc_file_state st;
	char now[41];

	pl->matched++;
	for (size_t i = 0; !only && i < b->npaths; i++)
		if (plan_check(pl, b->paths[i], b->build_id, now) == PC_FILE_SAME)
			return plan_add(pl, b, e, b->paths[i]);
	st = plan_check(pl, path, b->build_id, now);
	if (st == PC_FILE_SAME)
		return plan_add(pl, b, e, path);
	if (st == PC_FILE_MISSING) {
		skip(pl, b, e, path, "%s", "the file is gone");
		return 0;
	}
	if (st == PC_FILE_UNREADABLE) {
		skip(pl, b, e, path, "cannot read the file's build-id: %s", now);
		return 0;
	}
	other = pc_snapshot_find(&pl->snap, now);
	oe = other ? find_entry(other, e->group, e->event) : NULL;
	if (!oe) {
		skip(pl, b, e, path, "stale: the file now has build-id %s, which is not cached "
		     "with this probe (scan it again)", now);
		return 0;
	}
	say_choice(pl, b, other, path, quiet);
	return plan_add(pl, other, oe, path);
}

/* The first of @pats selecting (@b, @e), or NULL. */
static const struct pc_pattern *first_match(const struct pc_pattern *pats, int npats,
					    const struct pc_binary *b, const struct pc_entry *e)
{
	for (int k = 0; k < npats; k++)
		if (pc_pattern_match(&pats[k], b, e))
			return &pats[k];
	return NULL;
}

static int plan_select(struct arm_plan *pl, const struct pc_pattern *pats, int npats,
		       bool quiet)
{
	const struct pc_pattern *p;
	int ret = 0;

	for (size_t i = 0; i < pl->snap.n && !ret; i++) {
		const struct pc_binary *b = pl->snap.b[i];

		for (size_t j = 0; j < b->nentries && !ret; j++) {
			p = first_match(pats, npats, b, &b->entries[j]);
			if (p)
				ret = plan_entry(pl, b, &b->entries[j], only_path(p, b), quiet);
		}
	}
	return ret;
}

static void plan_free(struct arm_plan *pl)
{
	for (size_t i = 0; i < pl->n; i++)
		free(pl->items[i].line);
	for (size_t i = 0; i < pl->nseen; i++)
		free(pl->seen[i].path);
	free(pl->items);
	free(pl->seen);
	free(pl->said);
	pc_snapshot_free(&pl->snap);
}

/* Builds "add RECORD" and checks it with the module's own parser. */
static int make_record(struct arm_plan *pl, struct arm_item *it, pid_t pid)
{
	const struct pc_entry *e = it->e;
	char event[PROBECACHE_NAME_MAX + 1], ref[32] = "", pidarg[32] = "", why[200];

	pc_kernel_event(&pl->snap, it->b, e, event, sizeof(event));
	snprintf(it->name, sizeof(it->name), "%s:%s", e->group, event);
	if (e->ref_ctr)
		snprintf(ref, sizeof(ref), "(0x%" PRIx64 ")", e->ref_ctr);
	if (pid)
		snprintf(pidarg, sizeof(pidarg), " pid=%d", (int)pid);
	if (asprintf(&it->line, "add %c:%s/%s %s %s:0x%" PRIx64 "%s%s%s%s", e->retprobe ? 'r' : 'p',
		     e->group, event, it->b->build_id, it->path, e->offset, ref, pidarg,
		     e->args && e->args[0] ? " " : "", e->args ? e->args : "") < 0) {
		it->line = NULL;
		return -ENOMEM;
	}
	it->err = pc_record_check(it->line, strlen(it->line), why, sizeof(why));
	if (it->err == -ENOMEM)
		return -ENOMEM;
	if (it->err)
		snprintf(it->why, sizeof(it->why), "invalid record: %s", why);
	return 0;
}

/* "line 3 col 7: path: WHY" names a line of our batch: keep "path: WHY". */
static const char *reason(const char *why)
{
	const char *p;

	if (strncmp(why, "line ", 5) || !(p = strstr(why, ": ")))
		return why;
	return p + 2;
}

/* EEXIST: the same probe armed before, or another probe holding the name? */
static bool same_probe_armed(const struct arm_item *it)
{
	char rel[PATH_MAX], bid[2 * PROBECACHE_BUILD_ID_MAX + 1], off[32];

	snprintf(rel, sizeof(rel), "probes/%s/build_id", it->name);
	if (pc_sysfs_read(rel, bid, sizeof(bid)))
		return false;
	snprintf(rel, sizeof(rel), "probes/%s/offset", it->name);
	if (pc_sysfs_read(rel, off, sizeof(off)))
		return false;
	for (char *c = bid; *c; c++)
		*c = *c >= 'A' && *c <= 'F' ? *c - 'A' + 'a' : *c;
	return !strcmp(bid, it->b->build_id) && strtoull(off, NULL, 0) == it->e->offset;
}

static void report_item(struct arm_item *it, const struct pc_arm_opts *opts,
			struct pc_arm_result *res)
{
	if (!it->err) {
		res->armed++;
		if (!opts->quiet)
			printf("armed %s (%s)\n", it->name, it->path);
		if (opts->armed)
			opts->armed(it->e->group, it->name + strlen(it->e->group) + 1, opts->ctx);
	} else if (it->err == -EEXIST && same_probe_armed(it)) {
		res->already++;
		if (!opts->quiet)
			printf("already armed %s (%s)\n", it->name, it->path);
	} else {
		res->failed++;
		if (it->line && !strncmp(it->why, "invalid record", 14))
			pc_err("%s (%s): %s", it->name, it->path, it->why);
		else
			pc_err("%s (%s): kernel: %s", it->name, it->path, reason(it->why));
	}
}

int pc_arm(char *const *patterns, int npatterns, const struct pc_arm_opts *opts,
	   struct pc_arm_result *res)
{
	struct arm_plan pl = { 0 };
	struct pc_pattern *pats;
	struct arm_item *send = NULL;
	size_t nsend = 0;
	int ret;

	memset(res, 0, sizeof(*res));
	ret = pc_patterns_parse(patterns, npatterns, &pats);
	if (ret)
		return ret;
	ret = pc_snapshot_load_matching(&pl.snap, pats, npatterns);
	if (!ret)
		ret = plan_select(&pl, pats, npatterns, opts->quiet);
	for (size_t i = 0; !ret && i < pl.n; i++)
		ret = make_record(&pl, &pl.items[i], opts->pid);
	res->matched = pl.matched;
	res->skipped = pl.skipped;
	if (!ret && pl.n)
		send = malloc(pl.n * sizeof(*send));
	if (!ret && pl.n && !send)
		ret = -ENOMEM;
	/* records our own parser refused are reported, never sent */
	for (size_t i = 0; !ret && i < pl.n; i++)
		if (!pl.items[i].err)
			send[nsend++] = pl.items[i];
	if (!ret)
		ret = push_items(send, nsend);
	for (size_t i = 0, j = 0; !ret && i < pl.n; i++) {
		struct arm_item *it = pl.items[i].err ? &pl.items[i] : &send[j++];

		report_item(it, opts, res);
	}
	free(send);
	plan_free(&pl);
	pc_patterns_free(pats, npatterns);
	if (!ret && res->failed)
		ret = -EIO;
	return ret;
}

/* ---- disarm ---- */

static bool kprobe_matches(const struct pc_pattern *p, const struct pc_kprobe *kp,
			   const struct pc_snapshot *snap)
{
	const struct pc_binary *b = pc_snapshot_find(snap, kp->build_id);
	char *path = kp->path;

	if (!pc_pattern_match_binary(p, kp->build_id, &path, 1))
		return false;
	if (pc_pattern_match_name(p, kp->group, kp->event))
		return true;
	/* by its cache entry too, so "disarm sdt_x:throw" finds throw_1a2b3c4d */
	for (size_t i = 0; b && i < b->nentries; i++)
		if (b->entries[i].offset == kp->offset && !strcmp(b->entries[i].group, kp->group) &&
		    pc_pattern_match(p, b, &b->entries[i]))
			return true;
	return false;
}

static int disarm_plan(const struct pc_pattern *pats, int npats, const struct pc_kprobes *k,
		       const struct pc_snapshot *snap, struct arm_item **out, size_t *n)
{
	struct arm_item *items = calloc(k->n ? k->n : 1, sizeof(*items));

	*n = 0;
	if (!items)
		return -ENOMEM;
	for (size_t i = 0; i < k->n; i++) {
		int j;

		for (j = 0; j < npats; j++)
			if (kprobe_matches(&pats[j], &k->p[i], snap))
				break;
		if (j == npats)
			continue;
		snprintf(items[*n].name, sizeof(items[*n].name), "%s", k->p[i].name);
		items[*n].path = k->p[i].path;
		if (asprintf(&items[*n].line, "del %s", k->p[i].name) < 0) {
			items[*n].line = NULL;
			break;
		}
		(*n)++;
	}
	*out = items;
	return 0;
}

/* res: armed = disarmed now, already = left armed (EBUSY) or gone meanwhile. */
static void disarm_report(const struct arm_item *it, struct pc_arm_result *res)
{
	if (!it->err) {
		res->armed++;
		printf("disarmed %s (%s)\n", it->name, it->path);
	} else if (it->err == -EBUSY) {
		res->already++;
		printf("%s (%s): still in use, left armed\n", it->name, it->path);
	} else if (it->err == -ENOENT) {
		res->already++;
		printf("%s (%s): already gone\n", it->name, it->path);
	} else {
		res->failed++;
		pc_err("%s (%s): kernel: %s", it->name, it->path, reason(it->why));
	}
}

int pc_disarm(char *const *patterns, int npatterns, struct pc_arm_result *res)
{
	struct pc_snapshot snap = { 0 };
	struct pc_pattern *pats;
	struct pc_kprobes k;
	struct arm_item *items = NULL;
	size_t n = 0;
	int ret;

	memset(res, 0, sizeof(*res));
	ret = pc_patterns_parse(patterns, npatterns, &pats);
	if (ret)
		return ret;
	ret = pc_kprobes_read(&k);
	if (ret)
		goto out_pats;
	if (pc_snapshot_load(&snap))
		memset(&snap, 0, sizeof(snap));	/* names alone still select */
	ret = disarm_plan(pats, npatterns, &k, &snap, &items, &n);
	res->matched = n;
	if (!ret)
		ret = push_items(items, n);
	for (size_t i = 0; !ret && i < n; i++)
		disarm_report(&items[i], res);
	for (size_t i = 0; i < n; i++)
		free(items[i].line);
	free(items);
	pc_snapshot_free(&snap);
	pc_kprobes_free(&k);
out_pats:
	pc_patterns_free(pats, npatterns);
	if (!ret && res->failed)
		ret = -EIO;
	return ret;
}

/* ---- commands ---- */

static int arm_help(void)
{
	printf("usage: %s arm [-p PID] [-q] PATTERN...\n\n"
	       "Verify each cached probe PATTERN selects against the file at its path and\n"
	       "arm it in probecache.ko. PATTERN is a glob over GROUP:EVENT (a bare EVENT\n"
	       "glob matches any group), optionally @/path or @BUILDID-PREFIX.\n\n"
	       "When the file at a path now holds another cached version, that version is\n"
	       "armed and the choice is printed; otherwise the probe is skipped as stale.\n"
	       "One GROUP:EVENT cached for binaries at different paths is armed once per\n"
	       "binary, as GROUP:EVENT_XXXXXXXX (its build-id's first 8 hex digits).\n\n"
	       "  -p, --pid PID   only this process hits the probes\n"
	       "  -q, --quiet     print only problems\n"
	       "  -h, --help      this help\n\n"
	       "Exit: 0 all armed, 1 error or kernel refusal, 2 usage, 3 some skipped\n"
	       "(binary gone or changed).\n", pc_prog);
	return 0;
}

static int parse_pid(const char *s, pid_t *pid)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v <= 0 || v > INT32_MAX) {
		pc_err("arm: -p '%s': not a process id", s);
		return -EINVAL;
	}
	*pid = (pid_t)v;
	return 0;
}

int cmd_arm(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct pc_arm_opts opts = { 0 };
	struct pc_arm_result res;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "p:qh", lopts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			if (parse_pid(optarg, &opts.pid))
				return -EINVAL;
			break;
		case 'q':
			opts.quiet = true;
			break;
		case 'h':
			return arm_help();
		default:
			return pc_usage("arm");
		}
	}
	if (optind >= argc)
		return pc_usage("arm");
	ret = pc_arm(argv + optind, argc - optind, &opts, &res);
	if (ret == -EINVAL || ret == -ENOMEM || ret == -ENOENT)
		return ret;
	if (!res.matched) {
		pc_err("arm: no cached probe matches in %s (see '%s list')", pc_cache_dir(),
		       pc_prog);
		return -ENOENT;
	}
	if (!opts.quiet || res.failed || res.skipped)
		printf("%u armed, %u already armed, %u skipped, %u failed\n", res.armed,
		       res.already, res.skipped, res.failed);
	if (ret)
		return ret;
	return res.skipped ? PC_EXIT_PARTIAL : 0;
}

static int disarm_help(void)
{
	printf("usage: %s disarm PATTERN...\n\n"
	       "Disarm armed probes whose kernel name GROUP:EVENT, or whose cache entry,\n"
	       "matches PATTERN (@/path and @BUILDID-PREFIX select by binary). A probe\n"
	       "still in use (EBUSY) is left armed and reported.\n\n"
	       "  -h, --help      this help\n", pc_prog);
	return 0;
}

int cmd_disarm(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct pc_arm_result res;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
		if (opt == 'h')
			return disarm_help();
		return pc_usage("disarm");
	}
	if (optind >= argc)
		return pc_usage("disarm");
	ret = pc_disarm(argv + optind, argc - optind, &res);
	if (ret)
		return ret;
	if (!res.matched) {
		pc_err("disarm: no armed probe matches");
		return -ENOENT;
	}
	printf("%u disarmed, %u left armed or gone\n", res.armed, res.already);
	return 0;
}
