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
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <linux/probecache.h>

#include "arm.h"
#include "armed.h"
#include "builtin.h"
#include "cache_select.h"
#include "fastpath.h"
#include "sitepush.h"
#include "kevent.h"
#include "kload.h"
#include "ksites.h"
#include "followpolicy.h"
#include "mapsweep.h"
#include "opts.h"
#include "pattern.h"
#include "pc.h"
#include "sdtscan.h"

#define BATCH_MAX	4000	/* bytes per write(): below one page */

struct arm_item {
	const struct pc_binary *b;
	const struct pc_entry *e;
	const char *path;
	uint64_t offset;			/* where it is armed: e->offset, + 1 on a USDT fast site */
	char name[2 * PROBECACHE_NAME_MAX + 2];	/* GROUP:EVENT in the kernel */
	char *line;				/* "add RECORD" or "del GROUP:EVENT" */
	int err;				/* 0 or -errno from the module */
	char why[256];
	bool fresh;				/* this call defined it */
	bool counted;				/* it was counting before this call */
	bool kept;				/* defined before under another name: kept */
	long pid;				/* what the probe is restricted to */
	int fd;					/* its file, opened before the add, or -1 */
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
	pc_debug("control: %.*s", (int)(len && line[len - 1] == '\n' ? len - 1 : len), line);
	if (!len || line[len - 1] != '\n')
		buf[len++] = '\n';
	ret = write_all(fd, buf, len, &done);
	if (ret)
		pc_last_error(why, whylen, -ret);
	free(buf);
	close(fd);
	return ret;
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

	for (size_t i = first; i < last; i++) {
		len += sprintf(buf + len, "%s\n", items[i].line);
		pc_debug("control: %s", items[i].line);
	}
	ret = write_all(fd, buf, len, &done);
	if (!ret)
		return last;
	bad = first + pc_count_lines(buf, done);
	if (bad >= last)	/* cannot happen with whole lines; be safe */
		return last;
	pc_last_error(items[bad].why, sizeof(items[bad].why), -ret);
	items[bad].err = ret;
	return bad + 1;
}

/*
 * Pushes every item's line through the open control @fd (one open per
 * command: its add and count batches go down the same file); per-item
 * outcome in ->err / ->why.
 */
static void push_items(int fd, struct arm_item *items, size_t n)
{
	size_t i = 0, j, len;

	while (i < n) {
		for (j = i, len = 0; j < n; j++) {
			size_t l = strlen(items[j].line) + 1;

			if (j > i && len + l > BATCH_MAX)
				break;
			len += l;
		}
		i = send_batch(fd, items, i, j);
	}
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
	it->offset = e->offset;
	if (e->kind == PC_ENTRY_SDT && !e->retprobe)
		it->offset = pc_sdt_arm_offset(path, e->offset);
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
		     e->group, event, it->b->build_id, it->path, it->offset, ref, pidarg,
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

/* EEXIST: the same probe defined before (@kp, as listed), or another holding the name? */
static bool same_probe_defined(const struct arm_item *it, const struct pc_kprobe *kp)
{
	return kp && !strcmp(kp->build_id, it->b->build_id) && kp->offset == it->offset;
}

/*
 * After "add": 0 if the probe is defined as this record asks (now or
 * before), else the error to report. A definition for another pid is not
 * ours to change: counting it would count other processes' hits. @k: the
 * module's probes as listed before the add.
 */
static int define_outcome(struct arm_item *it, const struct pc_kprobes *k)
{
	const struct pc_kprobe *kp = pc_kprobes_get(k, it->name);

	if (it->kept)
		return 0;
	if (!it->err) {
		it->fresh = true;
		return 0;
	}
	if (it->err != -EEXIST || !same_probe_defined(it, kp))
		return it->err;
	if (kp->pid > 0 && kp->pid != it->pid)
		snprintf(it->why, sizeof(it->why), "already defined for pid %ld; disarm it first",
			 kp->pid);
	else if (kp->pid <= 0 && it->pid)
		snprintf(it->why, sizeof(it->why), "already defined for every process; disarm it "
			 "first to count for pid %ld only", it->pid);
	else
		return it->err = 0;
	return it->err = -EEXIST;
}

/*
 * "count GROUP:EVENT" for every defined item not counting yet. The module
 * re-checks the file (ESTALE if it changed since add) and arms the probe.
 */
static int count_items(int fd, struct arm_item *items, size_t n, const struct pc_kprobes *k)
{
	struct arm_item *cnt = calloc(n ? n : 1, sizeof(*cnt));
	size_t *idx = calloc(n ? n : 1, sizeof(*idx)), m = 0;
	int ret = cnt && idx ? 0 : -ENOMEM;
	const struct pc_kprobe *kp;

	for (size_t i = 0; !ret && i < n; i++) {
		if (items[i].err)
			continue;
		kp = pc_kprobes_get(k, items[i].name);
		items[i].counted = kp && kp->counting;
		if (items[i].counted)
			continue;
		cnt[m] = items[i];
		if (asprintf(&cnt[m].line, "count %s", items[i].name) < 0) {
			ret = -ENOMEM;
			break;
		}
		idx[m++] = i;
	}
	if (!ret)
		push_items(fd, cnt, m);
	for (size_t k = 0; k < m; k++) {
		struct arm_item *it = &items[idx[k]];

		/* a concurrent count got there first */
		if (cnt[k].err == -EALREADY || cnt[k].err == -EEXIST)
			it->counted = true;
		else if (cnt[k].err)
			snprintf(it->why, sizeof(it->why), "count: %s", reason(cnt[k].why));
		if (!it->counted)
			it->err = cnt[k].err;
		free(cnt[k].line);
	}
	free(cnt);
	free(idx);
	return ret;
}

static void report_fail(const struct arm_item *it, struct pc_arm_result *res)
{
	res->failed++;
	if (it->line && !strncmp(it->why, "invalid record", 14))
		pc_err("%s (%s): %s", it->name, it->path, it->why);
	else if (it->err == -ESTALE)
		pc_err("%s (%s): the file changed since it was defined, not armed (kernel: %s); "
		       "disarm it and scan the file again", it->name, it->path, reason(it->why));
	else
		pc_err("%s (%s): kernel: %s", it->name, it->path, reason(it->why));
}

static void report_item(const struct arm_item *it, const struct pc_arm_opts *opts,
			struct pc_arm_result *res)
{
	const char *event = it->name + strlen(it->e->group) + 1;
	bool again = opts->count ? it->counted : !it->fresh;
	unsigned int what = (it->fresh ? PC_DID_DEFINE : 0) | (opts->count && !it->counted ?
							      PC_DID_COUNT : 0);

	/* a definition made before counting failed is still ours to undo */
	if (opts->done && (it->err ? what & PC_DID_DEFINE : what))
		opts->done(it->e->group, event, it->err ? PC_DID_DEFINE : what, opts->ctx);
	if (it->err) {
		report_fail(it, res);
		return;
	}
	if (again)
		res->already++;
	else
		res->armed++;
	if (!opts->quiet)
		printf("%s%s %s (%s)\n", again ? "already " : "", opts->count ? "armed" : "defined",
		       it->name, it->path);
}

/*
 * A probe defined before under another name (its plain EVENT, before a clash
 * gave it EVENT_XXXXXXXX, and in use then) keeps that name: nothing is sent
 * for it and the item takes the kernel's name. The others are pushed.
 */
static void push_unkept(int fd, struct arm_item *items, size_t n, const struct pc_kprobes *k)
{
	struct arm_item *push = malloc((n ? n : 1) * sizeof(*push));
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		const struct pc_kprobe *kp = pc_kprobes_find_entry(k, items[i].b, items[i].e);

		if (kp && strcmp(kp->name, items[i].name)) {
			snprintf(items[i].name, sizeof(items[i].name), "%s", kp->name);
			items[i].kept = true;
		}
	}
	if (!push) {
		push_items(fd, items, n);
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (!items[i].kept)
			push[m++] = items[i];
	push_items(fd, push, m);
	for (size_t i = 0, j = 0; i < n; i++)
		if (!items[i].kept)
			items[i] = push[j++];
	free(push);
}

/* Open each item's file before the add: the event may have to name this open file. */
static void open_items(struct arm_item *items, size_t n)
{
	for (size_t i = 0; i < n; i++)
		items[i].fd = open(items[i].path, O_RDONLY | O_CLOEXEC);
}

static void close_items(struct arm_item *items, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (items[i].fd >= 0)
			close(items[i].fd);
}

/* The verified inode of @it's own file (site 0), as the module lists it. */
static int verified_inode(const struct pc_ksites *ks, struct arm_item *it,
			  struct pc_kevent_file *f)
{
	for (size_t i = 0; i < ks->n; i++)
		if (ks->s[i].site == 0 && !strcmp(ks->s[i].name, it->name)) {
			f->dev = makedev(ks->s[i].dev_major, ks->s[i].dev_minor);
			f->ino = ks->s[i].ino;
			return 0;
		}
	snprintf(it->why, sizeof(it->why), "%s/%s lists no file for it (a module without "
		 "sites, older than its kernel events?)", pc_proc_dir(), PROBECACHE_SITES);
	return -ENOENT;
}

/*
 * The kernel's uprobe event of a probe this call defined. If it cannot be
 * defined, neither is the probe: the module's definition is deleted again.
 */
static int define_event(int fd, struct arm_item *it, const struct pc_ksites *ks)
{
	struct pc_kevent_file f = { .fd = it->fd };
	char del[sizeof(it->name) + 8];
	int ret;

	ret = verified_inode(ks, it, &f);
	if (!ret && !pc_kevent_same_file(it->fd, it->path, f.dev, f.ino, it->b->build_id)) {
		ret = -EAGAIN;
		if (it->fresh)
			snprintf(it->why, sizeof(it->why), "%s was replaced while it was defined; "
				 "try again", it->path);
		else
			snprintf(it->why, sizeof(it->why), "%s is no longer the file the module "
				 "verified (replaced since, as by an upgrade): disarm it, then define "
				 "it again", it->path);
	} else if (!ret) {
		ret = pc_kevent_define(it->line, &f, it->why, sizeof(it->why));
	}
	if (!ret || !it->fresh)
		return it->err = ret;
	snprintf(del, sizeof(del), "del %s\n", it->name);
	if (write(fd, del, strlen(del)) < 0)
		pc_warn("%s: the module keeps a definition without its event: %s", it->name,
			strerror(errno));
	it->fresh = false;
	return it->err = ret;
}

/* Defined by this call, or before but its event gone (root removed it): make it. */
static bool needs_event(const struct arm_item *it)
{
	char group[PROBECACHE_NAME_MAX + 1];
	const char *colon = strchr(it->name, ':');

	if (it->err || it->kept || !colon)
		return false;
	if (it->fresh)
		return true;
	snprintf(group, sizeof(group), "%.*s", (int)(colon - it->name), it->name);
	return !pc_kevent_exists(group, colon + 1);
}

/*
 * Under the events lock, with the sites read under it: a definition deleted
 * meanwhile gets no event, and no other definer takes the names meanwhile.
 */
static int define_events(int fd, struct arm_item *items, size_t n)
{
	struct pc_ksites ks = { 0 };
	bool any = false;
	int ret, lock;

	for (size_t i = 0; i < n; i++)
		any |= needs_event(&items[i]);
	if (!any)
		return 0;
	lock = pc_kevent_lock();
	if (lock < 0)
		return lock;
	ret = pc_ksites_read(&ks);
	for (size_t i = 0; !ret && i < n; i++)
		if (needs_event(&items[i]))
			define_event(fd, &items[i], &ks);
	pc_ksites_free(&ks);
	pc_kevent_unlock(lock);
	return ret;
}

/* "GROUP:EVENT" split into its parts. */
static void split_name(const char *name, char *group, size_t glen, const char **event)
{
	const char *colon = strchr(name, ':');

	*event = colon ? colon + 1 : "";
	snprintf(group, glen, "%.*s", colon ? (int)(colon - name) : 0, name);
}

int pc_probe_delete(const char *name, char *why, size_t whylen)
{
	char group[PROBECACHE_NAME_MAX + 1], line[2 * PROBECACHE_NAME_MAX + 8];
	const char *event;
	int ret, lock;

	split_name(name, group, sizeof(group), &event);
	lock = pc_kevent_lock();
	if (lock < 0)
		return lock;
	ret = pc_kevent_remove_all(group, event, why, whylen);
	snprintf(line, sizeof(line), "del %s", name);
	if (!ret)
		ret = pc_control_write(line, why, whylen);
	pc_kevent_unlock(lock);
	return ret;
}

int pc_probes_clear(char *why, size_t whylen)
{
	char group[PROBECACHE_NAME_MAX + 1];
	struct pc_kprobes k = { 0 };
	const char *event;
	int ret, lock = pc_kevent_lock();

	if (lock < 0)
		return lock;
	ret = pc_kprobes_read(&k);
	for (size_t i = 0; !ret && i < k.n; i++) {
		split_name(k.p[i].name, group, sizeof(group), &event);
		ret = pc_kevent_remove_all(group, event, why, whylen);
	}
	pc_kprobes_free(&k);
	if (!ret)
		ret = pc_control_write("clear", why, whylen);
	pc_kevent_unlock(lock);
	return ret;
}

/*
 * The items our own parser accepted, in order, sent; outcomes copied back.
 * The module's listing is read once before anything is sent: what was
 * defined and counting before this call (nothing is sent if it cannot be read).
 */
static int push_valid(struct arm_plan *pl, const struct pc_arm_opts *opts)
{
	struct arm_item *send = malloc((pl->n ? pl->n : 1) * sizeof(*send));
	struct pc_kprobes k = { 0 };
	size_t nsend = 0;
	int fd, ret = 0;

	if (!send)
		return -ENOMEM;
	for (size_t i = 0; i < pl->n; i++)
		if (!pl->items[i].err) {
			send[nsend] = pl->items[i];
			send[nsend++].fd = -1;	/* opened by open_items() */
		}
	fd = nsend ? open_control() : -1;
	if (nsend && fd < 0)
		ret = fd;
	if (!ret && nsend)
		ret = pc_kprobes_read(&k);
	if (!ret) {
		open_items(send, nsend);
		push_unkept(fd, send, nsend, &k);
	}
	for (size_t i = 0; !ret && i < nsend; i++)
		define_outcome(&send[i], &k);
	if (!ret)
		ret = define_events(fd, send, nsend);
	close_items(send, nsend);
	if (!ret && opts->count)
		ret = count_items(fd, send, nsend, &k);
	if (fd >= 0)
		close(fd);
	pc_kprobes_free(&k);
	for (size_t i = 0, j = 0; !ret && i < pl->n; i++)
		if (!pl->items[i].err)
			pl->items[i] = send[j++];
	free(send);
	return ret;
}

/*
 * The copies follow.conf leaves out, by their owner, are not handed (-EPERM),
 * as the follower does not hand them. A bad follow.conf: none is (-EINVAL).
 */
static int policy_filter(struct pc_sweep *sw)
{
	struct pc_follow_policy p;
	char path[PATH_MAX];
	int ret;

	pc_follow_policy_path(path, sizeof(path));
	ret = pc_follow_policy_read(&p, path);
	if (ret) {
		pc_warn("no other copy followed: %s must be fixed first", path);
		return ret;
	}
	for (size_t i = 0; i < sw->nsites; i++)
		if (!sw->sites[i].err && !pc_follow_policy_site(&p, &sw->sites[i]))
			sw->sites[i].err = -EPERM;
	pc_follow_policy_free(&p);
	return 0;
}

/*
 * Every other copy of a defined probe's binary that a process maps becomes a
 * site of the probe (lib/sitepush.h): one sweep for all the items. A bad
 * follow.conf leaves the copies out, not the probes.
 */
static int follow_items(struct arm_plan *pl, const struct pc_arm_opts *opts,
			struct pc_arm_result *res)
{
	struct pc_follow_result fr = { 0 };
	struct pc_ksites have = { 0 };
	struct pc_sweep sw = { 0 };
	int fd, ret;

	fd = open_control();
	if (fd < 0)
		return fd;
	ret = pc_sweep_run(&sw, NULL, 0);
	if (!ret && policy_filter(&sw))
		goto out;
	if (!ret)
		ret = pc_ksites_read(&have);
	if (sw.ndenied)
		pc_info("%zu processes or mappings could not be read: copies there are not followed",
			sw.ndenied);
	for (size_t i = 0; !ret && i < pl->n; i++)
		if (!pl->items[i].err)
			ret = pc_follow_push(fd, pl->items[i].name, pl->items[i].b->build_id,
					     pl->items[i].path, &sw, &have, opts->quiet, &fr);
out:
	pc_sweep_free(&sw);
	pc_ksites_free(&have);
	close(fd);
	res->sites = fr.added;
	res->sites_failed = fr.failed;
	return ret;
}

int pc_arm(char *const *patterns, int npatterns, const struct pc_arm_opts *opts,
	   struct pc_arm_result *res)
{
	struct arm_plan pl = { 0 };
	struct pc_pattern *pats;
	int ret;

	memset(res, 0, sizeof(*res));
	ret = pc_patterns_parse(patterns, npatterns, &pats);
	if (ret)
		return ret;
	ret = pc_snapshot_load_matching(&pl.snap, pats, npatterns);
	if (!ret)
		ret = plan_select(&pl, pats, npatterns, opts->quiet);
	for (size_t i = 0; !ret && i < pl.n; i++) {
		pl.items[i].pid = opts->pid;
		if (opts->only_path)
			pl.items[i].path = opts->only_path;
		ret = make_record(&pl, &pl.items[i], opts->pid);
	}
	res->matched = pl.matched;
	res->skipped = pl.skipped;
	/* records our own parser refused are reported, never sent */
	if (!ret && pl.n)
		ret = push_valid(&pl, opts);
	if (!ret && pl.n && !opts->only_path)
		ret = follow_items(&pl, opts, res);
	for (size_t i = 0; !ret && i < pl.n; i++)
		report_item(&pl.items[i], opts, res);
	plan_free(&pl);
	pc_patterns_free(pats, npatterns);
	if (!ret && res->failed)
		ret = -EIO;
	return ret;
}

/* Does an entry @pats select share GROUP and cached EVENT with (@group, @event)? */
static bool same_name_selected(const struct pc_snapshot *s, const struct pc_pattern *pats,
			       int npats, const char *group, const char *event)
{
	for (size_t i = 0; i < s->n; i++)
		for (size_t j = 0; j < s->b[i]->nentries; j++) {
			const struct pc_entry *e = &s->b[i]->entries[j];

			if (!strcmp(e->group, group) && !strcmp(e->event, event) &&
			    pc_patterns_match(pats, npats, s->b[i], e))
				return true;
		}
	return false;
}

/*
 * Caching @patterns' binaries may have made a clash (pattern.h): a probe of
 * another binary defined before under its plain EVENT is now named
 * EVENT_XXXXXXXX by the rule. Where nothing uses it (no consumer), it is
 * deleted and *@redo gets "GROUP:EVENT@BUILDID" to define it again under the
 * rule's name, so the names do not depend on the order of the scans; a name
 * in use stays. 0 or -errno.
 */
static int rename_unused(const char *cmd, char *const *patterns, int npatterns,
			 char ***redo, size_t *nredo)
{
	struct pc_snapshot snap;
	struct pc_pattern *pats;
	struct pc_kprobes k;
	char ev[PROBECACHE_NAME_MAX + 1], why[256];
	int ret;

	*redo = NULL;
	*nredo = 0;
	if (pc_kprobes_read(&k))
		return 0;	/* reported; pc_arm() reports it again if it matters */
	ret = pc_patterns_parse(patterns, npatterns, &pats);
	if (!ret && pc_snapshot_load(&snap))
		memset(&snap, 0, sizeof(snap));
	for (size_t i = 0; !ret && i < k.n; i++) {
		const struct pc_kprobe *kp = &k.p[i];
		const struct pc_binary *b = pc_snapshot_find(&snap, kp->build_id);
		const struct pc_entry *e = NULL;
		char **tmp;

		for (size_t j = 0; b && !e && j < b->nentries; j++)
			if (pc_kprobe_is_entry(kp, b, &b->entries[j]))
				e = &b->entries[j];
		if (!e || kp->consumers > 0 || kp->counting)
			continue;
		pc_kernel_event(&snap, b, e, ev, sizeof(ev));
		if (!strcmp(ev, kp->event) ||
		    !same_name_selected(&snap, pats, npatterns, e->group, e->event))
			continue;
		if (pc_probe_delete(kp->name, why, sizeof(why))) {
			pc_warn("%s: %s keeps its name: %s", cmd, kp->name, why);
			continue;
		}
		tmp = realloc(*redo, (*nredo + 1) * sizeof(**redo));
		if (!tmp || asprintf(&tmp[*nredo], "%s:%s@%s", e->group, e->event,
				     b->build_id) < 0) {
			ret = -ENOMEM;
			if (tmp)
				*redo = tmp;
			break;
		}
		*redo = tmp;
		(*nredo)++;
		/* said even by a quiet scan: a consumer's name changed */
		printf("%s: %s (%s) is now %s:%s: another cached binary has %s:%s\n", cmd,
			       kp->name, kp->path, e->group, ev, e->group, e->event);
	}
	if (!ret)
		pc_snapshot_free(&snap);
	if (!ret)
		pc_patterns_free(pats, npatterns);
	pc_kprobes_free(&k);
	return ret;
}

int pc_define_cached(const char *cmd, char *const *patterns, int npatterns, bool count,
		     bool quiet)
{
	struct pc_arm_opts opts = { .count = count, .quiet = quiet };
	struct pc_arm_result res;
	char ctl[PATH_MAX];
	int ret;

	if (!npatterns)
		return 0;
	if (!pc_module_loaded() && count) {
		pc_err("%s: --arm: %s/control: probecache.ko is not loaded (run '%s load')", cmd,
		       pc_sysfs_dir(), pc_prog);
		return -ENOENT;
	}
	if (!pc_module_loaded()) {
		/* cached only: say so, the README's "caches and defines" did not happen */
		pc_err("%s: cached, not defined: %s/control: probecache.ko is not loaded; run '%s "
		       "load', then '%s define PATTERN' (or %s again) to make them trace events",
		       cmd, pc_sysfs_dir(), pc_prog, pc_prog, cmd);
		return 0;
	}
	snprintf(ctl, sizeof(ctl), "%s/control", pc_sysfs_dir());
	if (access(ctl, W_OK)) {
		pc_warn("%s: cached but not defined: %s: %s (run '%s define' as root)", cmd, ctl,
			strerror(errno), pc_prog);
		return PC_EXIT_PARTIAL;
	}
	{
		struct pc_arm_opts ropts = { .quiet = quiet };
		struct pc_arm_result rres = { 0 };
		char **redo;
		size_t nredo;
		int rret = 0;

		ret = rename_unused(cmd, patterns, npatterns, &redo, &nredo);
		if (ret)
			return ret;
		ret = pc_arm(patterns, npatterns, &opts, &res);
		/* the renamed ones are defined again, never counted: they were not */
		if (nredo && ret != -ENOMEM && ret != -EINVAL)
			rret = pc_arm(redo, (int)nredo, &ropts, &rres);
		if (nredo && (rret == -ENOMEM || rret == -EINVAL))
			ret = rret;
		else if (nredo)
			res.failed += rres.failed, res.skipped += rres.skipped,
			res.sites += rres.sites, res.sites_failed += rres.sites_failed;
		if (!ret && rret)
			ret = rret;
		for (size_t i = 0; i < nredo; i++)
			free(redo[i]);
		free(redo);
	}
	if (ret == -ENOMEM || ret == -EINVAL)
		return ret;
	printf("%s: %u %s in probecache.ko, %u already, %u skipped, %u failed\n", cmd,
	       res.armed, count ? "armed" : "defined", res.already, res.skipped, res.failed);
	if (res.sites)
		printf("%s: followed them to %u other copies of their binaries ('%s status')\n",
		       cmd, res.sites, pc_prog);
	if (res.sites_failed)
		pc_warn("%s: %u other copies were refused by the kernel (reasons above)", cmd,
			res.sites_failed);
	if (ret && count)
		return ret;	/* --arm was asked for and did not happen */
	return ret || res.skipped ? PC_EXIT_PARTIAL : 0;
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
		if (pc_entry_armed_at(&b->entries[i], kp->offset) &&
		    !strcmp(b->entries[i].group, kp->group) &&
		    pc_pattern_match(p, b, &b->entries[i]))
			return true;
	return false;
}

bool pc_kprobe_selected(const struct pc_pattern *pats, int npats, const struct pc_kprobe *kp,
			const struct pc_snapshot *snap)
{
	for (int j = 0; j < npats; j++)
		if (kprobe_matches(&pats[j], kp, snap))
			return true;
	return false;
}

/* One "del NAME" (or "nocount NAME" with @keep) per selected probe. */
static int disarm_plan(const struct pc_pattern *pats, int npats, const struct pc_kprobes *k,
		       const struct pc_snapshot *snap, bool keep, struct arm_item **out, size_t *n)
{
	struct arm_item *items = calloc(k->n ? k->n : 1, sizeof(*items));

	*n = 0;
	if (!items)
		return -ENOMEM;
	for (size_t i = 0; i < k->n; i++) {
		struct arm_item *it = &items[*n];

		if (!pc_kprobe_selected(pats, npats, &k->p[i], snap))
			continue;
		snprintf(it->name, sizeof(it->name), "%s", k->p[i].name);
		it->path = k->p[i].path;
		it->counted = k->p[i].counting;
		if (asprintf(&it->line, "%s %s", keep ? "nocount" : "del", k->p[i].name) < 0) {
			it->line = NULL;
			free(items);
			return -ENOMEM;
		}
		(*n)++;
	}
	*out = items;
	return 0;
}

/* EBUSY: say who still holds it, that nothing changed and how to finish. */
static void report_busy(const struct arm_item *it)
{
	long n = pc_kprobe_long(it->name, "consumers");
	char cons[64] = "";

	if (n >= 0)
		snprintf(cons, sizeof(cons), " (consumers %ld)", n);
	pc_err("%s (%s): in use by perf, ftrace or a BPF program%s: not deleted, nothing "
	       "changed; run disarm again once they have stopped", it->name, it->path, cons);
}

static void disarm_report(const struct arm_item *it, bool keep, bool quiet,
			  struct pc_disarm_result *res)
{
	if (!it->err) {
		res->done++;
		if (!quiet)
			printf("%s %s (%s)\n", keep ? "stopped counting" : "disarmed", it->name,
			       it->path);
	} else if (it->err == -EBUSY) {
		res->busy++;
		report_busy(it);
	} else if (it->err == -ENOENT) {
		res->gone++;
		if (!quiet)
			printf("%s (%s): already gone\n", it->name, it->path);
	} else {
		res->failed++;
		pc_err("%s (%s): kernel: %s", it->name, it->path, reason(it->why));
	}
}

/* With @keep, a probe that is not counting has nothing to stop. */
static void drop_not_counting(struct arm_item *items, size_t *n, bool quiet,
			      struct pc_disarm_result *res)
{
	size_t m = 0;

	for (size_t i = 0; i < *n; i++) {
		if (items[i].counted) {
			items[m++] = items[i];
			continue;
		}
		res->gone++;
		if (!quiet)
			printf("%s (%s): not counting\n", items[i].name, items[i].path);
		free(items[i].line);
	}
	*n = m;
}

/*
 * The kernel's event goes first; the core refuses it (EBUSY) while perf,
 * ftrace or BPF hold it, and then the definition stays, nothing changed.
 */
static void remove_events(struct arm_item *items, size_t *n, bool quiet,
			  struct pc_disarm_result *res)
{
	char group[PROBECACHE_NAME_MAX + 1];
	size_t m = 0;

	for (size_t i = 0; i < *n; i++) {
		struct arm_item *it = &items[i];
		const char *colon = strchr(it->name, ':');

		snprintf(group, sizeof(group), "%.*s", (int)(colon - it->name), it->name);
		it->err = pc_kevent_remove_all(group, colon + 1, it->why, sizeof(it->why));
		if (!it->err) {
			items[m++] = *it;
			continue;
		}
		disarm_report(it, false, quiet, res);
		free(it->line);
	}
	*n = m;
}

int pc_disarm(char *const *patterns, int npatterns, bool keep, bool quiet,
	      struct pc_disarm_result *res)
{
	struct pc_snapshot snap = { 0 };
	struct pc_pattern *pats;
	struct pc_kprobes k;
	struct arm_item *items = NULL;
	size_t n = 0;
	int ret, fd, lock;

	memset(res, 0, sizeof(*res));
	ret = pc_patterns_parse(patterns, npatterns, &pats);
	if (ret)
		return ret;
	ret = pc_kprobes_read(&k);
	if (ret)
		goto out_pats;
	if (pc_snapshot_load(&snap))
		memset(&snap, 0, sizeof(snap));	/* names alone still select */
	ret = disarm_plan(pats, npatterns, &k, &snap, keep, &items, &n);
	res->matched = n;
	if (!ret && keep)
		drop_not_counting(items, &n, quiet, res);
	fd = !ret && n ? open_control() : -1;
	if (!ret && n && fd < 0)
		ret = fd;
	if (fd >= 0) {
		lock = keep ? -1 : pc_kevent_lock();
		if (!keep && lock < 0)
			ret = lock;
		if (!ret && !keep)
			remove_events(items, &n, quiet, res);
		if (!ret)
			push_items(fd, items, n);
		pc_kevent_unlock(lock);
		close(fd);
	}
	for (size_t i = 0; !ret && i < n; i++)
		disarm_report(&items[i], keep, quiet, res);
	for (size_t i = 0; i < n; i++)
		free(items[i].line);
	free(items);
	pc_snapshot_free(&snap);
	pc_kprobes_free(&k);
out_pats:
	pc_patterns_free(pats, npatterns);
	if (!ret && res->failed)
		ret = -EIO;
	else if (!ret && res->busy)
		ret = -EBUSY;
	return ret;
}

int pc_disarm_cached(const char *cmd, const struct pc_snapshot *snap, pc_cached_sel sel,
		     void *ctx, bool quiet)
{
	struct pc_disarm_result res;
	struct pc_kprobes k;
	char **pats = NULL;
	size_t n = 0;
	int ret;

	if (!pc_module_loaded())
		return 0;
	ret = pc_kprobes_read(&k);
	if (ret)
		return ret == -ENOENT ? 0 : ret;
	for (size_t i = 0; !ret && i < k.n; i++) {
		const struct pc_kprobe *kp = &k.p[i];
		const struct pc_binary *b = pc_snapshot_find(snap, kp->build_id);
		bool hit = false;

		for (size_t j = 0; b && !hit && j < b->nentries; j++)
			hit = b->entries[j].offset == kp->offset &&
			      !strcmp(b->entries[j].group, kp->group) &&
			      sel(kp, b, &b->entries[j], ctx);
		if (!hit)
			continue;
		char **tmp = realloc(pats, (n + 1) * sizeof(*pats));

		if (!tmp || asprintf(&tmp[n], "%s@%s", kp->name, kp->build_id) < 0)
			ret = -ENOMEM;
		else
			n++;
		if (tmp)
			pats = tmp;
	}
	pc_kprobes_free(&k);
	if (!ret && n)
		ret = pc_disarm(pats, (int)n, false, quiet, &res);
	if (ret && ret != -ENOMEM)
		pc_err("%s: nothing removed from the cache: %zu of its probes are defined in "
		       "probecache.ko and could not all be deleted there (see above); once "
		       "nothing uses them run '%s disarm PATTERN', then '%s' again", cmd, n,
		       pc_prog, cmd);
	for (size_t i = 0; i < n; i++)
		free(pats[i]);
	free(pats);
	return ret;
}

/* ---- commands ---- */

static int arm_help(bool count)
{
	if (count)
		printf("usage: %s arm [-p PID] [--path PATH] [-q] PATTERN...\n\n"
		       "Define the cached probes PATTERN selects (as 'define' does) where they\n"
		       "are not defined yet, then start probecache.ko's own hit counting on each\n"
		       "('count'), which arms it: the module re-checks the file and registers\n"
		       "the uprobe. Hits show in 'status'. perf, ftrace and BPF users need only\n"
		       "'define' (or 'scan'): the probe arms itself while they listen.\n\n",
		       pc_prog);
	else
		printf("usage: %s define [-p PID] [--path PATH] [-q] PATTERN...\n\n"
		       "Push the cached probes PATTERN selects into probecache.ko as trace\n"
		       "events GROUP:EVENT (perf list, perf record -e GROUP:EVENT, ftrace,\n"
		       "bpftrace). The module verifies each file now but registers no uprobe and\n"
		       "touches no semaphore: a probe is armed only while a consumer has its\n"
		       "event enabled.\n\n", pc_prog);
	printf("PATTERN is a glob over GROUP:EVENT (a bare glob: EVENT in any group, or GROUP;\n"
	       "GROUP/EVENT, PROVIDER:NAME and a PATH work too),\n"
	       "optionally @/path or @BUILDID-PREFIX. Each entry is checked against the\n"
	       "file at its path first: when the file holds another cached version, that\n"
	       "version is used and the choice printed; otherwise it is skipped as stale.\n"
	       "One GROUP:EVENT cached for binaries at different paths becomes one probe per\n"
	       "binary, GROUP:EVENT_XXXXXXXX (its build-id's first 8 hex digits).\n\n"
	       "Every other copy of the binary a process maps (another path, a deleted\n"
	       "file still running, another mount namespace) is followed: the kernel\n"
	       "verifies its build-id and arms it with the probe, under the same event.\n"
	       "Copies mapped later: '%s follow' (probecache-follow.service).\n\n"
	       "  -p, --pid PID   only this process hits the probes\n"
	       "      --path PATH the probes go on this file only (it must hold their\n"
	       "                  build-id), no other copy\n"
	       "  -q, --quiet     print only problems\n"
	       "  -h, --help      this help\n\n"
	       "Exit: 0 all done, 1 error or kernel refusal, 2 usage, 3 some skipped\n"
	       "(binary gone or changed).\n", pc_prog);
	return 0;
}

static int parse_pid(const char *cmd, const char *s, pid_t *pid)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v <= 0 || v > INT32_MAX) {
		pc_err("%s: -p '%s': not a process id", cmd, s);
		return -EINVAL;
	}
	*pid = (pid_t)v;
	return 0;
}

static int parse_arm(int argc, char **argv, struct pc_arm_opts *opts)
{
	static const struct option lopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "path", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	int opt;

	while ((opt = pc_getopt(argc, argv, "p:h", lopts)) != -1) {
		switch (opt) {
		case 'p':
			if (parse_pid(argv[0], optarg, &opts->pid))
				return -EINVAL;
			break;
		case 'P':
			if (optarg[0] != '/') {
				pc_err("%s: --path '%s': not an absolute path", argv[0], optarg);
				return -EINVAL;
			}
			opts->only_path = optarg;
			break;
		case 'h':
			return 1;
		default:
			return pc_usage(argv[0]);
		}
	}
	opts->quiet = pc_quiet;	/* -q: a global option */
	return optind < argc ? 0 : pc_usage(argv[0]);
}

/* The cached binaries with notes @u name, scanned again with the names, not defined. */
static int rescan(struct pc_sdtuser *u, size_t n)
{
	struct pc_scan_stats st = { .users = u, .nusers = n };
	int ret = pc_scan_cached(&st);

	if (!ret) {
		pc_scan_finish(&st);
		pc_scan_progress_done(&st);
	}
	pc_strset_free(&st.cached);
	return ret ? ret : st.failed ? -EIO : 0;
}

/* PATTERN 'sdt_PROVIDER:NAME ARG...' as one more of @u; *@pat becomes "sdt_PROVIDER:NAME". */
static int user_pattern(char **pat, struct pc_sdtuser *u, size_t *nu)
{
	char why[300];
	int ret = pc_sdtuser_parse(*pat, &u[*nu], why, sizeof(why));

	if (ret == 1 && pc_sdtuser_find(u, *nu, u[*nu].spec))
		snprintf(why, sizeof(why), "%s named twice", u[*nu].spec);
	else if (ret == 0)
		snprintf(why, sizeof(why), "a PATTERN with ARGs must be sdt_PROVIDER:NAME ARG...");
	else if (ret == 1)
		return asprintf(pat, "sdt_%s", u[(*nu)++].spec) < 0 ? -ENOMEM : 0;
	pc_err("'%s': %s", *pat, why);
	return -EINVAL;
}

/*
 * PATTERNs 'sdt_PROVIDER:NAME ARG...': the cached notes of PROVIDER:NAME get
 * those names first (sdtscan.h); *@out are the PATTERNs with sdt_PROVIDER:NAME
 * in their place (only those malloc'd: free_patterns()).
 */
static int user_names(char **pats, int n, char ***out)
{
	struct pc_sdtuser *u = calloc(n, sizeof(*u));
	char **p = calloc(n ? n : 1, sizeof(*p));
	size_t nu = 0;
	int ret = u && p ? 0 : -ENOMEM;

	for (int i = 0; !ret && i < n; i++) {
		p[i] = pats[i];
		if (strpbrk(pats[i], " \t"))
			ret = user_pattern(&p[i], u, &nu);
	}
	if (!ret && nu)
		ret = rescan(u, nu);
	free(u);
	*out = p;
	return ret;
}

static void free_patterns(char **p, char **orig, int n)
{
	for (int i = 0; p && i < n; i++)
		if (p[i] != orig[i])
			free(p[i]);
	free(p);
}

/* arm and define: the same selection, with or without the module's counting. */
static int arm_or_define(int argc, char **argv, bool count)
{
	struct pc_arm_opts opts = { .count = count };
	struct pc_arm_result res;
	char **upats = NULL;
	int ret = parse_arm(argc, argv, &opts);

	if (ret)
		return ret > 0 ? arm_help(count) : ret;
	ret = user_names(argv + optind, argc - optind, &upats);
	if (ret) {
		free_patterns(upats, argv + optind, argc - optind);
		return ret;
	}
	ret = pc_arm(upats, argc - optind, &opts, &res);
	free_patterns(upats, argv + optind, argc - optind);
	if (ret == -EINVAL || ret == -ENOMEM || ret == -ENOENT)
		return ret;
	if (!res.matched) {
		struct pc_pattern *pats;
		char dym[512] = "";

		if (!pc_patterns_parse(argv + optind, argc - optind, &pats)) {
			pc_patterns_suggest(pats, argc - optind, dym, sizeof(dym));
			pc_patterns_free(pats, argc - optind);
		}
		pc_err("%s: no cached probe matches in %s%s (see '%s list')", argv[0],
		       pc_cache_dir(), dym, pc_prog);
		return -ENOENT;
	}
	if (!opts.quiet || res.failed || res.skipped)
		printf("%u %s, %u already %s, %u skipped, %u failed\n", res.armed,
		       count ? "armed" : "defined", res.already, count ? "armed" : "defined",
		       res.skipped, res.failed);
	if (res.sites_failed)
		pc_warn("%u other copies were refused by the kernel (reasons above)",
			res.sites_failed);
	if (ret)
		return ret;
	return res.skipped ? PC_EXIT_PARTIAL : 0;
}

int cmd_arm(int argc, char **argv)
{
	return arm_or_define(argc, argv, true);
}

int cmd_define(int argc, char **argv)
{
	return arm_or_define(argc, argv, false);
}

static int disarm_help(void)
{
	printf("usage: %s disarm [-k] [-q] PATTERN...\n\n"
	       "Delete the probes in probecache.ko whose kernel name GROUP:EVENT, or whose\n"
	       "cache entry, matches PATTERN (@/path and @BUILDID-PREFIX select by binary):\n"
	       "their trace events go away and their hit counting stops. A probe that\n"
	       "ftrace, perf or a BPF program still uses is refused by the module (EBUSY):\n"
	       "it is reported with its consumer count and left exactly as it was; run\n"
	       "disarm again once they have stopped.\n\n"
	       "  -k, --keep-defined  only stop the hit counting that 'arm' started; the\n"
	       "                      trace event stays for perf, ftrace and BPF\n"
	       "  -q, --quiet         print only problems\n"
	       "  -h, --help          this help\n\n"
	       "Exit: 0 done, 1 some probe in use (EBUSY), refused or none matched, 2 usage.\n",
	       pc_prog);
	return 0;
}

int cmd_disarm(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "keep-defined", no_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct pc_disarm_result res;
	bool keep = false, quiet;
	int opt, ret;

	while ((opt = pc_getopt(argc, argv, "kh", lopts)) != -1) {
		if (opt == 'h')
			return disarm_help();
		if (opt == 'k')
			keep = true;
		else
			return pc_usage("disarm");
	}
	quiet = pc_quiet;	/* -q: a global option */
	if (optind >= argc)
		return pc_usage("disarm");
	ret = pc_disarm(argv + optind, argc - optind, keep, quiet, &res);
	if (ret && ret != -EBUSY)
		return ret;
	if (!res.matched) {
		pc_err("disarm: no probe in the module matches");
		return -ENOENT;
	}
	if (!quiet || res.busy)
		printf("%u %s, %u in use (unchanged), %u %s\n", res.done,
		       keep ? "stopped counting" : "disarmed", res.busy, res.gone,
		       keep ? "not counting" : "already gone");
	return ret;
}
