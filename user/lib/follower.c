// SPDX-License-Identifier: GPL-2.0
/* The follower: see follower.h. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "armed.h"
#include "sitepush.h"
#include "siterelease.h"
#include "follower.h"
#include "kevent.h"
#include "kload.h"
#include "pc.h"

#define CACHE_SLOTS	16384u		/* a power of 2; flushed when 3/4 full */
#define GEN_UNKNOWN	UINT64_MAX	/* read by a sweep, which does not see i_generation */
#define RETRY_PIDS	4		/* processes remembered to sweep again for a retry */
#define BACKOFF_MAX_MS	60000.0		/* a transient refusal is tried again at least this often */

/* One inode some process mapped executable. */
struct inode_entry {
	dev_t dev;
	ino_t ino;
	uint64_t gen;
	bool used, read;
	char bid[41];		/* "" none, or not readable */
	unsigned int epoch;	/* handed to the module at this epoch */
	unsigned int final;	/* refused for good (a proof) at this probe generation, or 0 */
	bool retry;		/* refused for the moment: handed again at @due */
	bool again;		/* ... its processes queued: hand it at the next sweep */
	unsigned char tries;	/* retries so far: the backoff doubles with each */
	double due;
	pid_t pids[RETRY_PIDS];	/* processes mapping it, swept again for the retry */
};

struct pc_follower {
	bool quiet;
	bool loaded;			/* the module was, at the last refresh */
	struct pc_kprobes probes;
	struct pc_ksites sites;
	char (*bids)[41];		/* the probes' build-ids, sorted, distinct */
	size_t nbids;
	unsigned int epoch;		/* bumped when probes change or a site goes */
	unsigned int pgen;		/* bumped when probes change: final refusals tried again */
	bool capacity_wait;		/* a copy refused for want of sites: sweep all when one goes */
	bool sweep_all;			/* the next refresh asks for a sweep of every process */
	bool retrying;			/* some inode waits for its retry */
	const struct pc_follow_policy *policy;
	struct inode_entry *tab;
	size_t used;
	pid_t *queue;
	size_t nq, qcap;
	struct pc_follower_stats st;
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static struct inode_entry *slot(struct pc_follower *f, dev_t dev, ino_t ino)
{
	size_t h = ((uint64_t)dev * 0x9e3779b97f4a7c15ull ^ ino) * 0x9e3779b97f4a7c15ull;
	struct inode_entry *e;

	for (size_t i = 0;; i++) {
		e = &f->tab[(h + i) & (CACHE_SLOTS - 1)];
		if (!e->used || (e->dev == dev && e->ino == ino))
			return e;
	}
}

/* The entry of @dev/@ino, created unread if new; a new @gen resets it. */
static struct inode_entry *entry_get(struct pc_follower *f, dev_t dev, ino_t ino, uint64_t gen)
{
	struct inode_entry *e;

	if (f->used >= CACHE_SLOTS / 4 * 3) {
		memset(f->tab, 0, CACHE_SLOTS * sizeof(*f->tab));
		f->used = 0;	/* every inode read again, once */
	}
	e = slot(f, dev, ino);
	if (e->used && (e->gen == gen || gen == GEN_UNKNOWN))
		return e;
	if (e->used && e->gen == GEN_UNKNOWN) {
		e->gen = gen;	/* a sweep read it: the same inode, now with its generation */
		return e;
	}
	f->used += !e->used;
	*e = (struct inode_entry){ .dev = dev, .ino = ino, .gen = gen, .used = true };
	return e;
}

static int cmp_bid(const void *a, const void *b)
{
	return strcmp(a, b);
}

static bool bid_defined(const struct pc_follower *f, const char *bid)
{
	return bid[0] && f->nbids && bsearch(bid, f->bids, f->nbids, sizeof(*f->bids), cmp_bid);
}

/* @pid queued for the next sweep, once. */
static void queue_pid(struct pc_follower *f, pid_t pid)
{
	pid_t *q;

	for (size_t i = 0; i < f->nq; i++)
		if (f->queue[i] == pid)
			return;
	q = pc_grow(f->queue, &f->qcap, f->nq, sizeof(*q), 64);
	if (!q)
		return;		/* without memory: the next mapping may tell */
	f->queue = q;
	f->queue[f->nq++] = pid;
	f->st.queued++;
}

/* Refused for good, waiting for its retry, or handed at this epoch: nothing to do now. */
static bool settled(const struct pc_follower *f, const struct inode_entry *e)
{
	if (e->final == f->pgen)
		return true;
	if (e->retry)
		return !e->again;
	return e->epoch == f->epoch;
}

void pc_follower_mapped(const struct pc_mmap_rec *r, void *arg)
{
	struct pc_follower *f = arg;
	struct inode_entry *e;

	f->st.mappings++;
	if (!f->nbids)
		return;		/* nothing to follow: read nothing */
	e = entry_get(f, r->dev, r->ino, r->gen);
	if (e->read && (settled(f, e) || !bid_defined(f, e->bid)))
		return;
	queue_pid(f, r->pid);
}

/* The probes' build-ids, sorted and distinct; stale probes take no site. */
static int bids_build(struct pc_follower *f)
{
	size_t n = 0;

	free(f->bids);
	f->nbids = 0;
	f->bids = calloc(f->probes.n + 1, sizeof(*f->bids));
	if (!f->bids)
		return -ENOMEM;
	for (size_t i = 0; i < f->probes.n; i++)
		if (strcmp(f->probes.p[i].state, "stale") && f->probes.p[i].build_id[0])
			snprintf(f->bids[n++], sizeof(*f->bids), "%s", f->probes.p[i].build_id);
	qsort(f->bids, n, sizeof(*f->bids), cmp_bid);
	for (size_t i = 0; i < n; i++)
		if (!f->nbids || strcmp(f->bids[f->nbids - 1], f->bids[i]))
			memmove(f->bids[f->nbids++], f->bids[i], sizeof(*f->bids));
	return 0;
}

static bool probes_same(const struct pc_kprobes *a, const struct pc_kprobes *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->p[i].name, b->p[i].name) || strcmp(a->p[i].build_id, b->p[i].build_id) ||
		    strcmp(a->p[i].state, b->p[i].state))
			return false;
	return true;
}

/* Re-read the sites listing; a site gone (pruned, deleted) bumps the epoch. */
static int sites_reload(struct pc_follower *f)
{
	struct pc_ksites k;
	const struct pc_ksite *s;
	int ret = pc_ksites_read(&k);

	if (ret)
		return ret;
	for (size_t i = 0; i < f->sites.n; i++) {
		s = &f->sites.s[i];
		if (!pc_ksites_has(&k, s->name, makedev(s->dev_major, s->dev_minor), s->ino)) {
			f->epoch++;	/* its copy, mapped again, must be handed again */
			f->sweep_all |= f->capacity_wait;	/* and a copy refused for room */
			f->capacity_wait = false;
			break;
		}
	}
	pc_ksites_free(&f->sites);
	f->sites = k;
	/* A pruned copy's event holds its deleted inode: it goes too. */
	pc_kevent_prune_copies();
	return 0;
}

/*
 * Sites no process maps go (siterelease.h); what they held is free for
 * other copies at once. One mapped again whose event could not be given
 * back is found by a sweep of every process.
 */
static int release_idle(struct pc_follower *f)
{
	struct pc_release_result r = { 0 };
	int ret;

	if (!pc_sites_idle(&f->sites))
		return 0;
	ret = pc_sites_release(f->quiet, &r);
	f->st.released += r.released;
	f->sweep_all |= r.lost > 0;
	if (!ret && r.released)
		ret = sites_reload(f);
	return ret;
}

int pc_follower_refresh(struct pc_follower *f)
{
	struct pc_kprobes k = { 0 };
	bool changed;
	int ret = 0;

	f->loaded = pc_module_loaded();
	if (f->loaded)
		ret = pc_kprobes_read(&k);
	if (ret)
		return ret;
	changed = !probes_same(&k, &f->probes);
	pc_kprobes_free(&f->probes);
	f->probes = k;
	if (changed) {
		f->epoch++;
		f->pgen++;
		ret = bids_build(f);
	}
	if (!ret && f->loaded)
		ret = sites_reload(f);
	if (!ret && f->loaded)
		ret = release_idle(f);
	changed |= f->sweep_all;
	f->sweep_all = false;
	return ret < 0 ? ret : changed;
}

/* Is @st's file owned by someone the policy follows? */
static bool owner_followed(const struct pc_follower *f, const struct pc_site *st)
{
	return !f->policy || pc_follow_policy_site(f->policy, st);
}

/*
 * What the sweep read, into the cache; each inode is handed to the module
 * once an epoch: one handed before in this epoch is taken out of @sw (its
 * err set), so a process queued again for another library's sake does not
 * send its copies twice.
 */
static void cache_fill(struct pc_follower *f, struct pc_sweep *sw)
{
	struct pc_site *s;
	struct inode_entry *e;

	for (size_t i = 0; i < sw->nsites; i++) {
		s = &sw->sites[i];
		if (s->how == PC_SITE_UNREAD)
			continue;	/* gone or denied: not known */
		e = entry_get(f, s->dev, s->ino, GEN_UNKNOWN);
		if (e->read && settled(f, e) && !s->err) {
			s->err = -EALREADY;
			continue;
		}
		e->read = true;
		snprintf(e->bid, sizeof(e->bid), "%s", s->err ? "" : s->build_id);
		e->epoch = f->epoch;
		e->retry = e->again = false;
		if (!s->err && bid_defined(f, s->build_id) && !owner_followed(f, s))
			s->err = -EPERM;	/* not handed: the policy leaves its owner out */
		for (size_t i = 0; i < RETRY_PIDS; i++)
			e->pids[i] = i < s->npids ? s->pids[i].pid : 0;
	}
}

static double backoff_ms(unsigned int tries)
{
	double ms = 1000.0 * (1u << (tries < 8 ? tries : 8));

	return ms < BACKOFF_MAX_MS ? ms : BACKOFF_MAX_MS;
}

/*
 * pc_follow_result's outcome: what a refusal means for the inode
 * (sitepush.h). A transient one waits its backoff, then its processes are
 * swept again (queue_due()), the other copies served meanwhile.
 */
static void outcome(void *arg, const struct pc_site *st, int err)
{
	struct pc_follower *f = arg;
	struct inode_entry *e = entry_get(f, st->dev, st->ino, GEN_UNKNOWN);

	if (!err || err == -EEXIST) {
		e->tries = e->retry ? e->tries : 0;
		return;
	}
	switch (pc_site_class(err)) {
	case PC_SITE_FINAL:
		e->final = f->pgen;
		break;
	case PC_SITE_TRANSIENT:
		if (!e->retry)
			e->due = now_ms() + backoff_ms(e->tries);
		e->retry = f->retrying = true;
		break;
	case PC_SITE_CAPACITY:
		f->capacity_wait = true;
		break;
	case PC_SITE_GONE:
		break;		/* as handed: a new mapping of it queues it again */
	}
}

/* Does one of @e's processes live? Each living one is queued. */
static bool queue_alive(struct pc_follower *f, const struct inode_entry *e)
{
	bool any = false;

	for (size_t i = 0; i < RETRY_PIDS && e->pids[i]; i++)
		if (!kill(e->pids[i], 0) || errno == EPERM) {
			queue_pid(f, e->pids[i]);
			any = true;
		}
	return any;
}

/*
 * The inodes whose backoff ran out: their processes queued for a sweep,
 * which hands them again. The next try is due after the next backoff in
 * case the sweep does not find the inode; with none of its processes left,
 * it waits for a new mapping.
 */
static void queue_due(struct pc_follower *f)
{
	double now = now_ms();
	bool left = false;
	struct inode_entry *e;

	if (!f->retrying)
		return;
	for (size_t i = 0; i < CACHE_SLOTS; i++) {
		e = &f->tab[i];
		if (!e->used || !e->retry || (e->due > now && (left = true)))
			continue;
		e->tries += e->tries < UINT8_MAX;
		e->due = now + backoff_ms(e->tries);
		e->again = true;
		if (!queue_alive(f, e)) {
			e->retry = e->again = false;
			e->read = false;	/* read again when next mapped */
			continue;
		}
		f->st.retries++;
		left = true;
	}
	f->retrying = left;
}

static int push_all(struct pc_follower *f, const struct pc_sweep *sw)
{
	struct pc_follow_result res = { .outcome = outcome, .arg = f };
	char path[PATH_MAX];
	const struct pc_kprobe *p;
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/control", pc_sysfs_dir());
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		pc_err("%s: %s", path, strerror(-ret));
		return ret;
	}
	for (size_t i = 0; !ret && i < f->probes.n; i++) {
		p = &f->probes.p[i];
		if (strcmp(p->state, "stale"))
			ret = pc_follow_push(fd, p->name, p->build_id, p->path, sw, &f->sites,
					     f->quiet, &res);
	}
	close(fd);
	f->st.added += res.added;
	f->st.refused += res.failed;
	return ret;
}

int pc_follower_run(struct pc_follower *f, bool all)
{
	struct pc_sweep sw = { 0 };
	double t0 = now_ms();
	int ret;

	queue_due(f);
	if (!f->loaded || !f->nbids || (!all && !f->nq)) {
		f->nq = 0;
		return 0;
	}
	ret = pc_sweep_run(&sw, f->queue, all ? 0 : f->nq);
	f->nq = 0;
	f->st.sweeps++;
	f->st.full += all;
	if (!ret) {
		cache_fill(f, &sw);
		ret = push_all(f, &sw);
	}
	if (!ret)
		ret = sites_reload(f);
	pc_sweep_free(&sw);
	f->st.last_ms = now_ms() - t0;
	return ret;
}

struct pc_follower *pc_follower_new(bool quiet, const struct pc_follow_policy *policy)
{
	struct pc_follower *f = calloc(1, sizeof(*f));

	if (f)
		f->tab = calloc(CACHE_SLOTS, sizeof(*f->tab));
	if (!f || !f->tab) {
		free(f);
		return NULL;
	}
	f->quiet = quiet;
	f->policy = policy;
	f->pgen = 1;
	return f;
}

void pc_follower_free(struct pc_follower *f)
{
	if (!f)
		return;
	pc_kprobes_free(&f->probes);
	pc_ksites_free(&f->sites);
	free(f->bids);
	free(f->tab);
	free(f->queue);
	free(f);
}

const struct pc_follower_stats *pc_follower_stats(const struct pc_follower *f)
{
	return &f->st;
}

size_t pc_follower_probes(const struct pc_follower *f)
{
	return f->nbids;
}
