// SPDX-License-Identifier: GPL-2.0
/* DIR/names: the GROUP:EVENT -> build-id index of the cache (cache_index.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/probecache.h>

#include "cache_index.h"
#include "pc.h"

#define INDEX_MAGIC	"probecache-names 1"
#define INDEX_MAX	(1u << 30)	/* 10 million lines of ~100 bytes */

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

struct pc_index {
	char *buf;
	size_t n;
	char **keys;	/* "GROUP:NAME BID", sorted */
};

void pc_index_close(struct pc_index *x)
{
	if (!x)
		return;
	free(x->buf);
	free(x->keys);
	free(x);
}

/* A key line: "GROUP:NAME BID" with a valid build-id. */
static bool key_ok(const char *s)
{
	const char *sp = strchr(s, ' ');

	return sp && sp > s && memchr(s, ':', sp - s) && pc_build_id_valid(sp + 1);
}

/* Header, fingerprint (must be the directories' now) and the key lines. */
static int parse_index(struct pc_index *x, size_t len, bool check_fresh)
{
	char *pos = x->buf, *end = x->buf + len, *s, *fp = NULL, *hdr;
	size_t fplen, want;
	bool nl;
	int ret;

	s = pc_next_line(&pos, end, &nl);
	if (!s || !nl || strcmp(s, INDEX_MAGIC))
		return -ESTALE;
	hdr = pos;
	while ((s = pc_next_line(&pos, end, &nl)) && nl && !strncmp(s, "bucket ", 7))
		;
	if (!s || !nl || sscanf(s, "keys %zu", &want) != 1)
		return -ESTALE;
	if (check_fresh) {
		ret = fingerprint(&fp, &fplen);
		if (ret)
			return ret;
		ret = (size_t)(s - hdr) == fplen ? 0 : -ESTALE;
		/* the bucket lines, cut at their newlines by pc_next_line() */
		for (size_t i = 0; !ret && i < fplen; i++)
			if (fp[i] != (hdr[i] ? hdr[i] : '\n'))
				ret = -ESTALE;
		free(fp);
		if (ret)
			return ret;
	}
	if (want > len / 9)	/* a key line is at least "g:e " and a 4-digit build-id */
		return -ESTALE;
	x->keys = malloc((want ? want : 1) * sizeof(*x->keys));
	if (!x->keys)
		return -ENOMEM;
	while (x->n < want && (s = pc_next_line(&pos, end, &nl)) && nl && key_ok(s))
		x->keys[x->n++] = s;
	return x->n == want && pos == end ? 0 : -ESTALE;
}

static int index_read(struct pc_index **out, bool check_fresh)
{
	struct pc_index *x = calloc(1, sizeof(*x));
	char path[PATH_MAX];
	size_t len;
	int ret;

	if (!x)
		return -ENOMEM;
	index_path(path, sizeof(path));
	ret = pc_read_file(path, PC_RD_NOFOLLOW, INDEX_MAX, &x->buf, &len);
	if (!ret)
		ret = parse_index(x, len, check_fresh);
	if (ret) {
		pc_index_close(x);
		return ret;
	}
	*out = x;
	return 0;
}

/* ---- the writer's session ---- */

static struct {
	bool active;		/* a cache file changed since the lock was taken */
	bool full;		/* rebuild from every cache file at the end */
	struct pc_index *base;	/* the index as it was, when usable */
	struct pc_ids changed;
} ses;

int pc_index_touch(const char *bid)
{
	char path[PATH_MAX];
	int fd;

	if (!ses.active) {
		ses.active = true;
		ses.full = index_read(&ses.base, true) != 0;
		index_path(path, sizeof(path));
		/* gone before any cache file changes: a crash from here on leaves none */
		if (!unlink(path)) {
			fd = open(pc_cache_dir(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (fd >= 0) {
				fsync(fd);
				close(fd);
			}
		}
	}
	if (!bid) {
		ses.full = true;
		return 0;
	}
	return ses.full ? 0 : pc_ids_add(&ses.changed, bid);
}

/* The old index's lines of unchanged build-ids, then the changed files' lines now. */
static int incremental(struct lines *l)
{
	const struct pc_index *x = ses.base;
	struct pc_binary *b;
	int ret = 0;

	pc_ids_sort(&ses.changed);
	for (size_t i = 0; !ret && i < x->n; i++) {
		char *s = strdup(x->keys[i]);

		if (!s)
			return -ENOMEM;
		if (pc_ids_has(&ses.changed, strchr(s, ' ') + 1) || lines_push(l, s))
			free(s);
	}
	for (size_t i = 0; !ret && i < ses.changed.n; i++) {
		ret = pc_cache_load_quiet(ses.changed.v[i], &b);
		if (ret == -ENOMEM)
			break;
		if (ret) {	/* removed, or unreadable: it has no keys */
			ret = 0;
			continue;
		}
		ret = binary_lines(b, l);
		pc_binary_free(b);
	}
	return ret;
}

void pc_index_session_end(void)
{
	struct lines l = { .owned = true };
	int ret;

	if (!ses.active)
		return;
	if (ses.full || !ses.base)
		ret = pc_cache_foreach_quiet(binary_lines, &l);
	else
		ret = incremental(&l);
	if (!ret)
		ret = write_index(&l);
	if (ret)	/* no index: readers read every file, the next writer rebuilds it */
		pc_info("%s/names: not written: %s", pc_cache_dir(), strerror(-ret));
	lines_free(&l);
	pc_index_close(ses.base);
	pc_ids_free(&ses.changed);
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
		pc_index_touch(NULL);
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

/* First key line >= @key, comparing only the key part. */
static size_t lower_bound(const struct pc_index *x, const char *key)
{
	size_t lo = 0, hi = x->n, klen = strlen(key);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *s = x->keys[mid];
		int c = strncmp(s, key, klen);

		if (!c)
			c = s[klen] == ' ' ? 0 : 1;	/* a longer key sorts after */
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int pc_index_lookup(const struct pc_index *x, const char *key, struct pc_ids *out)
{
	size_t klen = strlen(key);
	int ret = 0;

	for (size_t i = lower_bound(x, key); !ret && i < x->n; i++) {
		const char *s = x->keys[i];

		if (strncmp(s, key, klen) || s[klen] != ' ')
			break;
		ret = pc_ids_add(out, s + klen + 1);
	}
	return ret;
}

int pc_index_scan(const struct pc_index *x,
		  bool (*match)(const char *group, const char *name, const char *bid, void *ctx),
		  void *ctx, struct pc_ids *out)
{
	char buf[2 * PROBECACHE_NAME_MAX + 2 * PROBECACHE_BUILD_ID_MAX + 8];
	int ret = 0;

	for (size_t i = 0; !ret && i < x->n; i++) {
		char *colon, *sp;

		snprintf(buf, sizeof(buf), "%s", x->keys[i]);
		colon = strchr(buf, ':');
		sp = strchr(buf, ' ');
		if (!colon || !sp || colon > sp)
			continue;
		*colon = *sp = '\0';
		if (match(buf, colon + 1, sp + 1, ctx))
			ret = pc_ids_add(out, sp + 1);
	}
	return ret;
}
