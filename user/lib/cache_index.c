// SPDX-License-Identifier: GPL-2.0
/* DIR/names: the GROUP:EVENT -> build-id index of the cache (cache_index.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/probecache.h>

#include "cache_index.h"
#include "pc.h"

#define INDEX_MAGIC	"probecache-names 1"
#define INDEX_MAX	(1u << 30)	/* 10 million lines of ~100 bytes */
#define KEY_LINE_MAX	(2 * PROBECACHE_NAME_MAX + 2 * PROBECACHE_BUILD_ID_MAX + 8)

/* ---- lines ---- */

struct lines {
	size_t n, cap;
	char **v;
	bool owned;	/* v[i] malloc'd (else they point into a file buffer) */
};

static int lines_push(struct lines *l, char *s)
{
	char **v = pc_grow(l->v, &l->cap, l->n, sizeof(*v), 1024);

	if (!v)
		return -ENOMEM;
	l->v = v;
	l->v[l->n++] = s;
	return 0;
}

static void lines_free(struct lines *l)
{
	for (size_t i = 0; l->owned && i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static int push_key(struct lines *l, const char *group, const char *name, const char *bid)
{
	char *s;

	if (asprintf(&s, "%s:%s %s", group, name, bid) < 0)
		return -ENOMEM;
	if (lines_push(l, s)) {
		free(s);
		return -ENOMEM;
	}
	return 0;
}

/* The key lines of one cached binary. */
static int binary_lines(struct pc_binary *b, void *ctx)
{
	struct lines *l = ctx;
	int ret = 0;

	for (size_t i = 0; !ret && i < b->nentries; i++) {
		const struct pc_entry *e = &b->entries[i];
		char buf[2 * PROBECACHE_NAME_MAX + 2];
		const char *name = pc_entry_sdt_name(e, buf, sizeof(buf));

		ret = push_key(l, e->group, e->event, b->build_id);
		if (!ret && name && strcmp(name, e->event) && !strchr(name, ' '))
			ret = push_key(l, e->group, name, b->build_id);
	}
	return ret;
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ---- shard files ---- */

/* DIR/names/XX indexes the cache files of bucket DIR/XX. */
static void shard_path(unsigned int k, char *buf, size_t len)
{
	snprintf(buf, len, "%s/names/%02x", pc_cache_dir(), k);
}

static unsigned int bucket_of(const char *bid)
{
	char xx[3] = { bid[0], bid[1], 0 };

	return strtoul(xx, NULL, 16) & 0xff;
}

/* "bucket XX SEC.NSEC": the shard's line that staleness compares; false if no bucket. */
static bool bucket_stamp(unsigned int k, char *buf, size_t len)
{
	char dir[PATH_MAX];
	struct stat st;

	snprintf(dir, sizeof(dir), "%s/%02x", pc_cache_dir(), k);
	if (lstat(dir, &st) || !S_ISDIR(st.st_mode))
		return false;
	snprintf(buf, len, "bucket %02x %lld.%09ld", k, (long long)st.st_mtim.tv_sec,
		 st.st_mtim.tv_nsec);
	return true;
}

static void sync_path(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

/* Writes shard @k: header, the bucket's stamp now, sorted unique @l, "end"; atomically. */
static int write_shard(unsigned int k, struct lines *l)
{
	char path[PATH_MAX], tmp[PATH_MAX + 16], stamp[64];
	size_t n = 0;
	FILE *f;
	int fd, ret = 0;

	shard_path(k, path, sizeof(path));
	if (!bucket_stamp(k, stamp, sizeof(stamp)))
		return unlink(path) && errno != ENOENT ? -errno : 0;	/* bucket gone */
	if (l->n)
		qsort(l->v, l->n, sizeof(*l->v), cmp_line);
	for (size_t i = 0; i < l->n; i++)
		n += !i || strcmp(l->v[i], l->v[i - 1]);
	snprintf(tmp, sizeof(tmp), "%s/names/.tmp.XXXXXX", pc_cache_dir());
	fd = mkstemp(tmp);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		ret = -errno;
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		return ret;
	}
	fprintf(f, "%s\n%s\nkeys %zu\n", INDEX_MAGIC, stamp, n);
	for (size_t i = 0; i < l->n; i++)
		if (!i || strcmp(l->v[i], l->v[i - 1]))
			fprintf(f, "%s\n", l->v[i]);
	fputs("end\n", f);
	return pc_file_commit(f, tmp, path, 0644);
}

/* ---- reading ---- */

/*
 * A shard is mapped, not read: a lookup touches its header and the few
 * pages a binary search visits.
 */
struct shard {
	char *map;
	size_t len;
	const char *keys, *end;	/* the key lines, each ending in '\n' */
};

struct pc_index {
	unsigned int n;
	struct shard s[256];
};

static void shard_close(struct shard *x)
{
	if (x->map)
		munmap(x->map, x->len);
	memset(x, 0, sizeof(*x));
}

void pc_index_close(struct pc_index *x)
{
	if (!x)
		return;
	for (unsigned int i = 0; i < x->n; i++)
		shard_close(&x->s[i]);
	free(x);
}

/* The line at @p: its length without the newline; 0 past the end. */
static size_t line_len(const struct shard *x, const char *p)
{
	const char *nl = p < x->end ? memchr(p, '\n', x->end - p) : NULL;

	return nl ? (size_t)(nl - p) : 0;
}

/* One key line into @buf as "GROUP:NAME BID", checked; false if it is no such line. */
static bool key_line(const struct shard *x, const char *p, char *buf, size_t size)
{
	size_t n = line_len(x, p);
	char *sp;

	if (!n || n >= size)
		return false;
	memcpy(buf, p, n);
	buf[n] = '\0';
	sp = strchr(buf, ' ');
	return sp && sp > buf && memchr(buf, ':', sp - buf) && pc_build_id_valid(sp + 1);
}

/* The next line of the header at *@pos, or NULL. */
static const char *hdr_line(const struct shard *x, const char **pos, size_t *n)
{
	const char *p = *pos, *nl = memchr(p, '\n', x->map + x->len - p);

	if (!nl)
		return NULL;
	*n = nl - p;
	*pos = nl + 1;
	return p;
}

static bool hdr_is(const char *s, size_t n, const char *want)
{
	return s && n == strlen(want) && !memcmp(s, want, n);
}

/* Header; with @stamp the bucket line must be it (the directory as it is now). */
static int parse_shard(struct shard *x, const char *stamp)
{
	const char *pos = x->map, *s;
	char keys[32];
	size_t n, want;

	s = hdr_line(x, &pos, &n);
	if (!hdr_is(s, n, INDEX_MAGIC))
		return -ESTALE;
	s = hdr_line(x, &pos, &n);
	if (!s || n < 7 || memcmp(s, "bucket ", 7) || (stamp && !hdr_is(s, n, stamp)))
		return -ESTALE;
	s = hdr_line(x, &pos, &n);
	if (!s || n >= sizeof(keys))
		return -ESTALE;
	memcpy(keys, s, n);
	keys[n] = '\0';
	if (sscanf(keys, "keys %zu", &want) != 1 || want > x->len / 9)
		return -ESTALE;	/* a key line is at least "g:e " and a 4-digit build-id */
	/* written last: a file cut short lacks it */
	if (x->len < 4 || memcmp(x->map + x->len - 4, "end\n", 4))
		return -ESTALE;
	x->keys = pos;
	x->end = x->map + x->len - 4;
	return x->keys > x->end ? -ESTALE : 0;
}

/* Shard @k, checked against @stamp (NULL: not checked). -ENOENT if there is none. */
static int shard_read(unsigned int k, const char *stamp, struct shard *x)
{
	char path[PATH_MAX];
	struct stat st;
	int fd, ret;

	memset(x, 0, sizeof(*x));
	shard_path(k, path, sizeof(path));
	fd = pc_open_regular(path, PC_RD_NOFOLLOW, &st);
	ret = fd < 0 ? fd : st.st_size > INDEX_MAX || !st.st_size ? -ESTALE : 0;
	if (!ret) {
		x->len = st.st_size;
		x->map = mmap(NULL, x->len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (x->map == MAP_FAILED) {
			x->map = NULL;
			ret = -errno;
		}
	}
	if (fd >= 0)
		close(fd);
	if (!ret)
		ret = parse_shard(x, stamp);
	if (ret)
		shard_close(x);
	return ret;
}

/* Calls @fn for every key line, checked, as "GROUP:NAME BID" in a buffer it may cut. */
static int each_key(const struct shard *x, int (*fn)(char *line, void *ctx), void *ctx)
{
	char buf[KEY_LINE_MAX];
	int ret = 0;

	for (const char *p = x->keys; !ret && p < x->end; p += line_len(x, p) + 1) {
		if (!line_len(x, p))
			return -ESTALE;
		if (key_line(x, p, buf, sizeof(buf)))
			ret = fn(buf, ctx);
	}
	return ret;
}

/* ---- the writer's session ---- */

/* One change: the file of @bid, and its key lines as stored (none if removed). */
struct touch {
	char bid[41];
	unsigned int seq;	/* a build-id stored twice: the later one counts */
};

static struct {
	bool active;		/* the lock is held and some bucket was touched */
	bool touched[256];	/* its shard is unlinked and is written at the end */
	bool full[256];		/* ... from every file of the bucket */
	struct shard base[256];	/* ... else from the shard as it was and the changes */
	struct touch *t;
	size_t nt, capt;
	struct lines add;	/* key lines of the stored binaries, in touch order */
	unsigned int *add_seq;	/* the touch each line came with */
	size_t cap_seq;
} ses;

/* Before bucket @k first changes: its shard as it is (if usable) and gone from disk. */
static void touch_bucket(unsigned int k)
{
	char path[PATH_MAX], stamp[64];

	if (ses.touched[k])
		return;
	if (!ses.active) {
		snprintf(path, sizeof(path), "%s/names", pc_cache_dir());
		mkdir(path, 0755);
	}
	ses.active = ses.touched[k] = true;
	ses.add.owned = true;
	/* a bucket not there yet has no files: an empty shard is the right base */
	if (bucket_stamp(k, stamp, sizeof(stamp)))
		ses.full[k] = shard_read(k, stamp, &ses.base[k]) != 0;
	shard_path(k, path, sizeof(path));
	/* gone before any cache file of the bucket changes: a crash from here on leaves none */
	if (!unlink(path)) {
		snprintf(path, sizeof(path), "%s/names", pc_cache_dir());
		sync_path(path);
	}
}

static int note_lines(const struct pc_binary *b, unsigned int seq)
{
	size_t from = ses.add.n;
	int ret = binary_lines((struct pc_binary *)b, &ses.add);

	if (!ret && ses.add.n > ses.cap_seq) {
		unsigned int *v = realloc(ses.add_seq, ses.add.cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		ses.add_seq = v;
		ses.cap_seq = ses.add.cap;
	}
	for (size_t i = from; !ret && i < ses.add.n; i++)
		ses.add_seq[i] = seq;
	return ret;
}

int pc_index_touch(const char *bid, const struct pc_binary *b)
{
	struct touch *t;
	unsigned int k;

	if (!bid) {
		for (k = 0; k < 256; k++) {
			touch_bucket(k);
			ses.full[k] = true;
		}
		return 0;
	}
	k = bucket_of(bid);
	touch_bucket(k);
	if (ses.full[k])
		return 0;
	t = pc_grow(ses.t, &ses.capt, ses.nt, sizeof(*t), 64);
	if (!t)
		return -ENOMEM;
	ses.t = t;
	t = &ses.t[ses.nt];
	snprintf(t->bid, sizeof(t->bid), "%s", bid);
	t->seq = ses.nt++;
	return b ? note_lines(b, t->seq) : 0;
}

void pc_index_redo(void)
{
	for (unsigned int k = 0; k < 256; k++)
		ses.full[k] |= ses.touched[k];
}

/* By build-id, the latest touch first. */
static int cmp_touch(const void *a, const void *b)
{
	const struct touch *x = a, *y = b;
	int c = strcmp(x->bid, y->bid);

	return c ? c : (x->seq < y->seq) - (x->seq > y->seq);
}

static int cmp_bid_only(const void *a, const void *b)
{
	return strcmp(((const struct touch *)a)->bid, ((const struct touch *)b)->bid);
}

/* ses.t sorted, one per build-id (its latest touch), and their build-ids as a set. */
static int latest_touches(struct pc_ids *changed)
{
	size_t k = 0;
	int ret = 0;

	if (ses.nt)
		qsort(ses.t, ses.nt, sizeof(*ses.t), cmp_touch);
	for (size_t i = 0; i < ses.nt; i++)
		if (!i || strcmp(ses.t[i].bid, ses.t[k - 1].bid))
			ses.t[k++] = ses.t[i];
	ses.nt = k;
	for (size_t i = 0; !ret && i < k; i++)
		ret = pc_ids_add(changed, ses.t[i].bid);
	return ret;
}

struct keep {
	struct pc_ids changed;
	struct lines *out;
};

static int keep_unchanged(char *line, void *ctx)
{
	struct keep *k = ctx;
	char *s;

	if (pc_ids_has(&k->changed, strchr(line, ' ') + 1))
		return 0;
	s = strdup(line);
	if (!s || lines_push(k->out, s)) {
		free(s);
		return -ENOMEM;
	}
	return 0;
}

/* The new lines of the last store of each changed build-id, into their buckets' lists. */
static int sort_new_lines(struct lines *by_bucket)
{
	for (size_t i = 0; i < ses.add.n; i++) {
		struct touch key, *t;
		unsigned int k;

		snprintf(key.bid, sizeof(key.bid), "%s", strchr(ses.add.v[i], ' ') + 1);
		t = bsearch(&key, ses.t, ses.nt, sizeof(*ses.t), cmp_bid_only);
		k = bucket_of(key.bid);
		if (!t || t->seq != ses.add_seq[i] || ses.full[k])
			continue;
		if (lines_push(&by_bucket[k], ses.add.v[i]))
			return -ENOMEM;
		ses.add.v[i] = NULL;	/* moved */
	}
	return 0;
}

/* Shard @k's lines: from every file of the bucket, or its old lines and the changes. */
static int shard_lines(unsigned int k, struct keep *kp)
{
	char xx[3];

	snprintf(xx, sizeof(xx), "%02x", k);
	if (ses.full[k])
		return pc_cache_foreach_bucket_quiet(xx, binary_lines, kp->out);
	return ses.base[k].map ? each_key(&ses.base[k], keep_unchanged, kp) : 0;
}

/* Shards that are missing, stale or damaged, though the session left their buckets alone. */
static void check_others(void)
{
	char stamp[64];
	struct shard x;

	for (unsigned int k = 0; k < 256; k++) {
		if (ses.touched[k] || !bucket_stamp(k, stamp, sizeof(stamp)))
			continue;
		if (shard_read(k, stamp, &x))
			ses.touched[k] = ses.full[k] = true;
		shard_close(&x);
	}
}

void pc_index_session_end(void)
{
	struct lines *l = calloc(256, sizeof(*l));
	struct keep kp = { 0 };
	int ret;

	if (!ses.active) {
		free(l);
		return;
	}
	check_others();
	ret = l ? latest_touches(&kp.changed) : -ENOMEM;
	for (unsigned int k = 0; l && k < 256; k++)
		l[k].owned = true;
	if (!ret)
		ret = sort_new_lines(l);
	for (unsigned int k = 0; !ret && k < 256; k++) {
		if (!ses.touched[k])
			continue;
		kp.out = &l[k];
		ret = shard_lines(k, &kp);
		if (!ret)
			ret = write_shard(k, &l[k]);
	}
	/* shards not written stay missing: readers read every file, writers rebuild them */
	if (ret)
		pc_info("%s/names: not written: %s", pc_cache_dir(), strerror(-ret));
	for (unsigned int k = 0; k < 256; k++) {
		if (l)
			lines_free(&l[k]);
		shard_close(&ses.base[k]);
	}
	free(l);
	pc_ids_free(&kp.changed);
	lines_free(&ses.add);
	free(ses.t);
	free(ses.add_seq);
	memset(&ses, 0, sizeof(ses));
}

/*
 * No DIR/names at all (a cache from before the index, or made by hand): a
 * reader builds it. A shard missing from an existing one (a writer died, or
 * a bucket came from elsewhere) is left to the next writer like a stale one.
 */
static bool no_index(void)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/names", pc_cache_dir());
	return lstat(path, &st) && errno == ENOENT;
}

/* Missing shards: built if the lock is free now. */
static int rebuild(const bool *missing)
{
	char stamp[64];
	struct shard x;

	if (pc_cache_trylock_quiet())
		return -ESTALE;
	for (unsigned int k = 0; k < 256; k++) {
		if (!missing[k] || !bucket_stamp(k, stamp, sizeof(stamp)))
			continue;
		if (shard_read(k, NULL, &x) == -ENOENT) {	/* still missing under the lock */
			touch_bucket(k);
			ses.full[k] = true;
		} else {
			shard_close(&x);
		}
	}
	pc_cache_unlock();
	return 0;
}

/* Every bucket's shard, as fresh as its directory; @missing: which have none. */
static int open_shards(struct pc_index *x, bool *missing, bool *any_missing)
{
	char stamp[64];
	int ret = 0;

	*any_missing = false;
	for (unsigned int k = 0; !ret && k < 256; k++) {
		if (!bucket_stamp(k, stamp, sizeof(stamp)))
			continue;
		ret = shard_read(k, stamp, &x->s[x->n]);
		if (!ret)
			x->n++;
		else if (ret == -ENOENT)
			*any_missing = missing[k] = true, ret = 0;
	}
	return ret;
}

int pc_index_open(struct pc_index **out)
{
	struct pc_index *x = calloc(1, sizeof(*x));
	bool missing[256] = { 0 }, any;
	struct stat st;
	int ret;

	if (!x)
		return -ENOMEM;
	if (stat(pc_cache_dir(), &st) || !S_ISDIR(st.st_mode)) {
		free(x);
		return -ESTALE;	/* no cache at all: nothing to index, and not ours to create */
	}
	ret = open_shards(x, missing, &any);
	if (!ret && any && no_index() && access(pc_cache_dir(), W_OK) == 0 && !rebuild(missing)) {
		pc_index_close(x);
		x = calloc(1, sizeof(*x));
		ret = x ? open_shards(x, missing, &any) : -ENOMEM;
	}
	if (!ret && any)
		ret = -ESTALE;
	if (ret) {
		pc_index_close(x);
		return ret == -ENOMEM ? ret : -ESTALE;
	}
	*out = x;
	return 0;
}

/* Key part of the line at @p against @key: <0, 0, >0 like strcmp. */
static int key_cmp(const char *p, const char *key)
{
	for (; *key && *p == *key; p++, key++)
		;
	if (!*key)
		return *p == ' ' ? 0 : 1;	/* a longer key sorts after */
	return (unsigned char)*p < (unsigned char)*key ? -1 : 1;
}

static const char *line_start(const char *lo, const char *p)
{
	while (p > lo && p[-1] != '\n')
		p--;
	return p;
}

/* The first key line >= @key: a binary search over the bytes, moved to line starts. */
static const char *lower_bound(const struct shard *x, const char *key)
{
	const char *lo = x->keys, *hi = x->end;

	while (lo < hi) {
		const char *mid = line_start(lo, lo + (hi - lo) / 2);

		if (key_cmp(mid, key) < 0)
			lo = mid + line_len(x, mid) + 1;
		else
			hi = mid;
	}
	return lo;
}

static int shard_lookup(const struct shard *x, const char *key, struct pc_ids *out)
{
	char buf[KEY_LINE_MAX];
	int ret = 0;

	for (const char *p = lower_bound(x, key); !ret && p < x->end && !key_cmp(p, key);
	     p += line_len(x, p) + 1) {
		if (!line_len(x, p))
			break;
		if (key_line(x, p, buf, sizeof(buf)))
			ret = pc_ids_add(out, strchr(buf, ' ') + 1);
	}
	return ret;
}

int pc_index_lookup(const struct pc_index *x, const char *key, struct pc_ids *out)
{
	int ret = 0;

	for (unsigned int i = 0; !ret && i < x->n; i++)
		ret = shard_lookup(&x->s[i], key, out);
	return ret;
}

struct scan {
	bool (*match)(const char *group, const char *name, const char *bid, void *ctx);
	void *ctx;
	struct pc_ids *out;
};

static int scan_line(char *line, void *ctx)
{
	struct scan *sc = ctx;
	char *colon = strchr(line, ':'), *sp = strchr(line, ' ');

	if (colon > sp)
		return 0;
	*colon = *sp = '\0';
	return sc->match(line, colon + 1, sp + 1, sc->ctx) ? pc_ids_add(sc->out, sp + 1) : 0;
}

int pc_index_scan(const struct pc_index *x,
		  bool (*match)(const char *group, const char *name, const char *bid, void *ctx),
		  void *ctx, struct pc_ids *out)
{
	struct scan sc = { match, ctx, out };
	int ret = 0;

	for (unsigned int i = 0; !ret && i < x->n; i++)
		ret = each_key(&x->s[i], scan_line, &sc);
	return ret;
}

/* ---- the cache lock (DIR/.lock): its outermost unlock ends the writer's session ---- */

static int lock_fd = -1;
static unsigned int lock_depth;

int pc_cache_lock(void)
{
	char path[PATH_MAX];
	int ret;

	if (lock_depth++)
		return 0;
	ret = pc_mkdir_p(pc_cache_dir());
	if (ret) {
		pc_err("%s: cannot create cache directory: %s", pc_cache_dir(), strerror(-ret));
		goto fail;
	}
	snprintf(path, sizeof(path), "%s/.lock", pc_cache_dir());
	lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (lock_fd < 0) {
		ret = -errno;
		pc_err("%s: %s", path, strerror(errno));
		goto fail;
	}
	while (flock(lock_fd, LOCK_EX)) {
		if (errno == EINTR)
			continue;
		ret = -errno;
		pc_err("%s: flock: %s", path, strerror(errno));
		close(lock_fd);
		lock_fd = -1;
		goto fail;
	}
	return 0;
fail:
	lock_depth--;
	return ret;
}

int pc_cache_trylock_quiet(void)
{
	char path[PATH_MAX];

	if (lock_depth) {
		lock_depth++;
		return 0;
	}
	snprintf(path, sizeof(path), "%s/.lock", pc_cache_dir());
	lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (lock_fd < 0)
		return -errno;
	if (flock(lock_fd, LOCK_EX | LOCK_NB)) {
		close(lock_fd);
		lock_fd = -1;
		return -EAGAIN;
	}
	lock_depth = 1;
	return 0;
}

void pc_cache_unlock(void)
{
	if (!lock_depth || --lock_depth)
		return;
	pc_index_session_end();	/* still under the lock */
	close(lock_fd);	/* drops the flock */
	lock_fd = -1;
}
