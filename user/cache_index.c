// SPDX-License-Identifier: GPL-2.0
/* DIR/names: the GROUP:EVENT -> build-id index of the cache (cache_index.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/probecache.h>

#include "cache_index.h"
#include "pc.h"

#define INDEX_MAGIC	"probecache-names 1"
#define INDEX_MAX	(1u << 30)	/* 10 million lines of ~100 bytes */
#define KEY_LINE_MAX	(2 * PROBECACHE_NAME_MAX + 2 * PROBECACHE_BUILD_ID_MAX + 8)

/* ---- sets of build-ids ---- */

int pc_ids_add(struct pc_ids *s, const char *bid)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		void *v = realloc(s->v, cap * sizeof(*s->v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	snprintf(s->v[s->n++], sizeof(s->v[0]), "%s", bid);
	return 0;
}

static int cmp_id(const void *a, const void *b)
{
	return strcmp(a, b);
}

void pc_ids_sort(struct pc_ids *s)
{
	size_t k = 0;

	if (!s->n)
		return;
	qsort(s->v, s->n, sizeof(*s->v), cmp_id);
	for (size_t i = 1; i < s->n; i++)
		if (strcmp(s->v[i], s->v[k]))
			memcpy(s->v[++k], s->v[i], sizeof(s->v[0]));
	s->n = k + 1;
}

bool pc_ids_has(const struct pc_ids *s, const char *bid)
{
	return s->n && bsearch(bid, s->v, s->n, sizeof(*s->v), cmp_id);
}

void pc_ids_free(struct pc_ids *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* ---- the file ---- */

static void index_path(char *buf, size_t len)
{
	snprintf(buf, len, "%s/names", pc_cache_dir());
}

/* "bucket XX SEC.NSEC\n" for every bucket directory there is now: what staleness compares. */
static int fingerprint(char **out, size_t *len)
{
	char name[3], line[64];
	FILE *f = open_memstream(out, len);
	int dfd = open(pc_cache_dir(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct stat st;

	if (!f || dfd < 0) {
		if (f)
			fclose(f);
		if (dfd >= 0)
			close(dfd);
		return f ? -errno : -ENOMEM;
	}
	for (unsigned int i = 0; i < 256; i++) {
		snprintf(name, sizeof(name), "%02x", i);
		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		snprintf(line, sizeof(line), "bucket %s %lld.%09ld\n", name,
			 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
		fputs(line, f);
	}
	close(dfd);
	return fclose(f) ? -ENOMEM : 0;
}

/* ---- lines ---- */

struct lines {
	size_t n, cap;
	char **v;
	bool owned;	/* v[i] malloc'd (else they point into a file buffer) */
};

static int lines_push(struct lines *l, char *s)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 1024;
		char **v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
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

/* The note's name of an SDT entry ("provider:name" -> "name"), else NULL. */
static const char *sdt_name(const struct pc_entry *e)
{
	const char *colon;

	if (e->kind != PC_ENTRY_SDT || !e->spec)
		return NULL;
	colon = strchr(e->spec, ':');
	return colon ? colon + 1 : e->spec;
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
		const char *name = sdt_name(e);

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

/* Writes header, fingerprint and the sorted, de-duplicated @l atomically. */
static int write_index(struct lines *l)
{
	char path[PATH_MAX], tmp[PATH_MAX + 16], *fp = NULL;
	size_t fplen, n = 0;
	FILE *f;
	int fd, ret;

	qsort(l->v, l->n, sizeof(*l->v), cmp_line);
	for (size_t i = 0; i < l->n; i++)
		n += !i || strcmp(l->v[i], l->v[i - 1]);
	ret = fingerprint(&fp, &fplen);
	if (ret)
		return ret;
	index_path(path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s/.names.XXXXXX", pc_cache_dir());
	fd = mkstemp(tmp);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		ret = -errno;
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		free(fp);
		return ret;
	}
	fprintf(f, "%s\n%skeys %zu\n", INDEX_MAGIC, fp, n);
	for (size_t i = 0; i < l->n; i++)
		if (!i || strcmp(l->v[i], l->v[i - 1]))
			fprintf(f, "%s\n", l->v[i]);
	fputs("end\n", f);
	free(fp);
	if (fflush(f) || fchmod(fd, 0644) || fsync(fd))
		ret = -errno;
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
	return ret;
}

/* ---- reading ---- */

/*
 * The file is mapped, not read: a lookup touches the header and the few
 * pages a binary search visits, so it costs the same at any cache size.
 */
struct pc_index {
	char *map;
	size_t len;
	const char *keys, *end;	/* the key lines, each ending in '\n' */
	size_t n;		/* as the header says */
};

void pc_index_close(struct pc_index *x)
{
	if (!x)
		return;
	if (x->map)
		munmap(x->map, x->len);
	free(x);
}

/* The line at @p: its length without the newline; 0 past the end. */
static size_t line_len(const struct pc_index *x, const char *p)
{
	const char *nl = p < x->end ? memchr(p, '\n', x->end - p) : NULL;

	return nl ? (size_t)(nl - p) : 0;
}

/* One key line into @buf as "GROUP:NAME BID", checked; false if it is no such line. */
static bool key_line(const struct pc_index *x, const char *p, char *buf, size_t size)
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
static const char *hdr_line(const struct pc_index *x, const char **pos, size_t *n)
{
	const char *p = *pos, *nl = memchr(p, '\n', x->map + x->len - p);

	if (!nl)
		return NULL;
	*n = nl - p;
	*pos = nl + 1;
	return p;
}

/* Header and fingerprint (which must be the directories' now); the key lines are checked when used. */
static int parse_index(struct pc_index *x, bool check_fresh)
{
	const char *pos = x->map, *s, *hdr;
	char *fp = NULL, keys[32];
	size_t n, fplen;
	int ret;

	s = hdr_line(x, &pos, &n);
	if (!s || n != strlen(INDEX_MAGIC) || memcmp(s, INDEX_MAGIC, n))
		return -ESTALE;
	hdr = pos;
	while ((s = hdr_line(x, &pos, &n)) && n > 7 && !memcmp(s, "bucket ", 7))
		;
	if (!s || n >= sizeof(keys))
		return -ESTALE;
	memcpy(keys, s, n);
	keys[n] = '\0';
	if (sscanf(keys, "keys %zu", &x->n) != 1 || x->n > x->len / 9)
		return -ESTALE;	/* a key line is at least "g:e " and a 4-digit build-id */
	/* written last: a file cut short lacks it */
	if (x->len < 4 || memcmp(x->map + x->len - 4, "end\n", 4))
		return -ESTALE;
	x->keys = pos;
	x->end = x->map + x->len - 4;
	if (x->keys > x->end)
		return -ESTALE;
	if (!check_fresh)
		return 0;
	ret = fingerprint(&fp, &fplen);
	if (!ret && (fplen != (size_t)(s - hdr) || memcmp(fp, hdr, fplen)))
		ret = -ESTALE;
	free(fp);
	return ret;
}

static int index_read(struct pc_index **out, bool check_fresh)
{
	struct pc_index *x = calloc(1, sizeof(*x));
	char path[PATH_MAX];
	struct stat st;
	int fd, ret;

	if (!x)
		return -ENOMEM;
	index_path(path, sizeof(path));
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
		ret = parse_index(x, check_fresh);
	if (ret) {
		pc_index_close(x);
		return ret;
	}
	*out = x;
	return 0;
}

/* Calls @fn for every key line, checked, as "GROUP:NAME BID" in a buffer it may cut. */
static int each_key(const struct pc_index *x, int (*fn)(char *line, void *ctx), void *ctx)
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
	bool active;		/* a cache file changed since the lock was taken */
	bool full;		/* rebuild from every cache file at the end */
	struct pc_index *base;	/* the index as it was, when usable */
	struct touch *t;
	size_t nt, capt;
	struct lines add;	/* key lines of the stored binaries, in touch order */
	unsigned int *add_seq;	/* the touch each line came with */
	size_t cap_seq;
} ses;

/* No bucket directory yet: an empty index is the right base (import into a new cache). */
static bool cache_empty(void)
{
	char *fp = NULL;
	size_t len = 0;
	bool empty = !fingerprint(&fp, &len) && !len;

	free(fp);
	return empty;
}

static void session_begin(void)
{
	char path[PATH_MAX];
	int fd;

	ses.active = true;
	ses.add.owned = true;
	ses.full = index_read(&ses.base, true) != 0 && !cache_empty();
	index_path(path, sizeof(path));
	/* gone before any cache file changes: a crash from here on leaves none */
	if (unlink(path))
		return;
	fd = open(pc_cache_dir(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
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

	if (!ses.active)
		session_begin();
	if (!bid)
		ses.full = true;
	if (ses.full)
		return 0;
	if (ses.nt == ses.capt) {
		size_t cap = ses.capt ? 2 * ses.capt : 64;

		t = realloc(ses.t, cap * sizeof(*t));
		if (!t)
			return -ENOMEM;
		ses.t = t;
		ses.capt = cap;
	}
	t = &ses.t[ses.nt];
	snprintf(t->bid, sizeof(t->bid), "%s", bid);
	t->seq = ses.nt++;
	return b ? note_lines(b, t->seq) : 0;
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

/* The old index's lines of unchanged build-ids, and the lines of each changed one's last store. */
static int incremental(struct lines *l)
{
	struct keep k = { .out = l };
	int ret = latest_touches(&k.changed);

	if (!ret && ses.base)
		ret = each_key(ses.base, keep_unchanged, &k);
	for (size_t i = 0; !ret && i < ses.add.n; i++) {
		struct touch key, *t;

		snprintf(key.bid, sizeof(key.bid), "%s", strchr(ses.add.v[i], ' ') + 1);
		t = bsearch(&key, ses.t, ses.nt, sizeof(*ses.t), cmp_bid_only);
		if (!t || t->seq != ses.add_seq[i])
			continue;
		ret = lines_push(l, ses.add.v[i]);
		if (!ret)
			ses.add.v[i] = NULL;	/* moved */
	}
	pc_ids_free(&k.changed);
	return ret;
}

void pc_index_session_end(void)
{
	struct lines l = { .owned = true };
	int ret;

	if (!ses.active)
		return;
	if (ses.full)
		ret = pc_cache_foreach_quiet(binary_lines, &l);
	else
		ret = incremental(&l);
	if (!ret)
		ret = write_index(&l);
	if (ret)	/* no index: readers read every file, the next writer rebuilds it */
		pc_info("%s/names: not written: %s", pc_cache_dir(), strerror(-ret));
	lines_free(&l);
	lines_free(&ses.add);
	pc_index_close(ses.base);
	free(ses.t);
	free(ses.add_seq);
	memset(&ses, 0, sizeof(ses));
}

/* Missing (first use, or a writer died): rebuild it if the lock is free now. */
static int rebuild(void)
{
	struct stat st;

	if (stat(pc_cache_dir(), &st) || !S_ISDIR(st.st_mode))
		return -ESTALE;	/* no cache at all: nothing to index, and not ours to create */
	if (pc_cache_trylock_quiet())
		return -ESTALE;
	if (access(pc_cache_dir(), W_OK) == 0)
		pc_index_touch(NULL, NULL);
	pc_cache_unlock();
	return 0;
}

int pc_index_open(struct pc_index **x)
{
	int ret = index_read(x, true);

	if (ret != -ENOENT)
		return ret == -ENOMEM ? ret : ret ? -ESTALE : 0;
	ret = rebuild();
	if (!ret)
		ret = index_read(x, true);
	return ret == -ENOMEM ? ret : ret ? -ESTALE : 0;
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
static const char *lower_bound(const struct pc_index *x, const char *key)
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

int pc_index_lookup(const struct pc_index *x, const char *key, struct pc_ids *out)
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

	return each_key(x, scan_line, &sc);
}
