// SPDX-License-Identifier: GPL-2.0
/*
 * The on-disk probe cache.
 *
 * Layout: DIR/XX/YYYY....probes, one file per build-id, where XX are the
 * first two hex digits of the build-id and YYYY... the rest (lower case),
 * like perf's .build-id/ tree. DIR/.lock is the lock file. Nothing else in
 * DIR belongs to the cache; files whose name starts with '.' are temp files.
 *
 * File format (text, one record per line, "KEYWORD VALUE" where VALUE is the
 * rest of the line; no field may contain a newline):
 *
 *   probecache-cache 1                  format version, always the first line
 *   build-id 289ee39f8c07bd4f...        must equal the file's name
 *   path /usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30
 *   path /opt/old/copy.so               origin paths, newest first, >= 1
 *   probe sdt sdt_libstdcxx throw p 0xa90a1 0x0
 *   spec libstdcxx:throw                SDT: provider:name [a user's ARGs]; named: the probe-desc
 *   args arg1=%di:u64 arg2=%si:u64      record syntax (linux/probecache.h), may be empty
 *   uprobe arg1=%di:u64 arg2=%si:u64    ftrace uprobe_events syntax, may be empty
 *   debuginfo 0123abcd...               named entries only: build-id of the debuginfo
 *   end
 *
 * "probe KIND GROUP EVENT p|r OFFSET REFCTR" opens an entry and "end" closes
 * it. KIND is sdt or named; OFFSET and REFCTR are file offsets in 0x hex,
 * REFCTR 0 when the probe has no semaphore. The cache holds metadata only,
 * never a copy of the ELF: arming verifies the build-id of the file at the
 * path instead.
 *
 * Writers take flock(DIR/.lock, LOCK_EX), write a temp file in the same
 * directory, fsync it, rename it over the old file and fsync the directory,
 * so readers (which take no lock) see either the old or the new file. A file
 * that does not parse is reported with its name and line and skipped. A
 * writer about to replace such a file keeps what parses of it and keeps the
 * file itself as FILE.corrupt (pc_cache_load_update), so no named entry is
 * ever lost without a copy.
 *
 * Cache files are read through pc_read_file(): regular files only, no
 * symlinks, at most PC_CACHE_FILE_MAX bytes and lines under
 * PC_CACHE_LINE_MAX; the writer refuses fields that would break either.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/probecache.h>

#include "cache_file.h"
#include "pc.h"

static char *cache_dir;

const char *pc_cache_dir(void)
{
	const char *env;

	if (cache_dir)
		return cache_dir;
	env = getenv("PROBECACHE_DIR");
	return env && *env ? env : "/var/cache/probecache";
}

void pc_cache_set_dir(const char *dir)
{
	free(cache_dir);
	cache_dir = strdup(dir);
}

/* Build-ids name files: only 4..40 lower-case hex digits are accepted. */
bool pc_build_id_valid(const char *id)
{
	size_t n = strlen(id);

	if (n < 4 || n > 2 * PROBECACHE_BUILD_ID_MAX || n % 2)
		return false;
	for (; *id; id++)
		if (!isxdigit((unsigned char)*id) || isupper((unsigned char)*id))
			return false;
	return true;
}

int pc_cache_path(const char *build_id, char *buf, size_t size)
{
	int n;

	if (!pc_build_id_valid(build_id))
		return -EINVAL;
	n = snprintf(buf, size, "%s/%.2s/%s%s", pc_cache_dir(), build_id, build_id + 2,
		     PC_CACHE_SUFFIX);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int pc_mkdir_p(const char *dir)
{
	char tmp[PATH_MAX];
	char *p;

	if (snprintf(tmp, sizeof(tmp), "%s", dir) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	for (p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(tmp, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

/* ---- binaries and entries in memory ---- */

const char *pc_entry_sdt_spec(const struct pc_entry *e, char *buf, size_t size)
{
	if (e->kind != PC_ENTRY_SDT || !e->spec)
		return NULL;
	snprintf(buf, size, "%.*s", (int)strcspn(e->spec, " "), e->spec);
	return buf;
}

const char *pc_entry_sdt_name(const struct pc_entry *e, char *buf, size_t size)
{
	const char *colon;

	if (!pc_entry_sdt_spec(e, buf, size))
		return NULL;
	colon = strchr(buf, ':');
	if (colon)
		memmove(buf, colon + 1, strlen(colon + 1) + 1);
	return buf;
}

const char *pc_entry_sdt_args(const struct pc_entry *e)
{
	const char *sp = e->kind == PC_ENTRY_SDT && e->spec ? strchr(e->spec, ' ') : NULL;

	return sp ? sp + 1 : NULL;
}

struct pc_binary *pc_binary_new(const char *build_id)
{
	struct pc_binary *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	snprintf(b->build_id, sizeof(b->build_id), "%s", build_id);
	return b;
}

/* Adds @path in front (newest first); an existing copy moves to the front. */
int pc_binary_add_path(struct pc_binary *b, const char *path)
{
	char **paths, *dup;
	size_t i;

	if (path[0] != '/' || strchr(path, '\n'))
		return -EINVAL;
	for (i = 0; i < b->npaths; i++) {
		if (strcmp(b->paths[i], path))
			continue;
		dup = b->paths[i];
		memmove(b->paths + 1, b->paths, i * sizeof(*b->paths));
		b->paths[0] = dup;
		return 0;
	}
	dup = strdup(path);
	paths = realloc(b->paths, (b->npaths + 1) * sizeof(*paths));
	if (!dup || !paths) {
		free(dup);
		if (paths)
			b->paths = paths;
		return -ENOMEM;
	}
	memmove(paths + 1, paths, b->npaths * sizeof(*paths));
	paths[0] = dup;
	b->paths = paths;
	b->npaths++;
	return 0;
}

struct pc_entry *pc_binary_add_entry(struct pc_binary *b)
{
	struct pc_entry *e = realloc(b->entries, (b->nentries + 1) * sizeof(*e));

	if (!e)
		return NULL;
	b->entries = e;
	e = &b->entries[b->nentries++];
	memset(e, 0, sizeof(*e));
	return e;
}

void pc_entry_clear(struct pc_entry *e)
{
	free(e->group);
	free(e->event);
	free(e->args);
	free(e->uprobe_args);
	free(e->spec);
	free(e->debuginfo);
	memset(e, 0, sizeof(*e));
}

/* Removes entry @i, keeping the order of the others. */
void pc_binary_del_entry(struct pc_binary *b, size_t i)
{
	if (i >= b->nentries)
		return;
	pc_entry_clear(&b->entries[i]);
	memmove(&b->entries[i], &b->entries[i + 1], (b->nentries - i - 1) * sizeof(*b->entries));
	b->nentries--;
}

void pc_binary_free(struct pc_binary *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->npaths; i++)
		free(b->paths[i]);
	for (size_t i = 0; i < b->nentries; i++)
		pc_entry_clear(&b->entries[i]);
	free(b->paths);
	free(b->entries);
	free(b);
}

/* ---- parsing ---- */

/*
 * Strict parsing refuses a file at its first bad line. Salvage parsing (a
 * writer about to replace a corrupt file) keeps every path and entry that
 * parses: a bad line is skipped and drops the entry it is part of.
 */
struct parse_ctx {
	const char *file;
	unsigned int line;
	struct pc_binary *b;
	struct pc_entry *cur;	/* open "probe" block */
	bool have_build_id;
	bool salvage;
	bool fatal;		/* not this build-id's file at all: nothing to salvage */
	unsigned int nbad;	/* bad lines seen (salvage) */
	unsigned int bad_line;	/* the first one and why */
	const char *why;
};

static int corrupt(struct parse_ctx *p, const char *why)
{
	if (!p->nbad++) {
		p->bad_line = p->line;
		p->why = why;
	}
	return -EBADMSG;
}

static int corrupt_fatal(struct parse_ctx *p, const char *why)
{
	p->fatal = true;
	return corrupt(p, why);
}

bool pc_cache_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > PROBECACHE_NAME_MAX)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '.' && *s != '-')
			return false;
	return true;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (strncmp(s, "0x", 2) || !isxdigit((unsigned char)s[2]))
		return -EINVAL;
	errno = 0;
	*v = strtoull(s + 2, &end, 16);
	return errno || *end ? -EINVAL : 0;
}

static int parse_probe(struct parse_ctx *p, char *val)
{
	char kind[16], group[128], event[128], pr[4], off[32], ref[32], extra;
	uint64_t offset, ref_ctr;
	struct pc_entry *e;

	if (p->cur)
		return corrupt(p, "'probe' inside an unterminated entry");
	if (sscanf(val, "%15s %127s %127s %3s %31s %31s %c", kind, group, event, pr, off, ref,
		   &extra) != 6)
		return corrupt(p, "'probe' needs KIND GROUP EVENT p|r OFFSET REFCTR");
	if (strcmp(kind, "sdt") && strcmp(kind, "named"))
		return corrupt(p, "probe kind is neither sdt nor named");
	if (!pc_cache_name_ok(group) || !pc_cache_name_ok(event))
		return corrupt(p, "bad probe group or event name");
	if (strcmp(pr, "p") && strcmp(pr, "r"))
		return corrupt(p, "probe type is neither p nor r");
	if (parse_u64(off, &offset) || parse_u64(ref, &ref_ctr))
		return corrupt(p, "bad probe offset or semaphore offset");
	e = pc_binary_add_entry(p->b);
	if (!e)
		return -ENOMEM;
	p->cur = e;	/* from here on a failure drops it with the block */
	e->kind = kind[0] == 's' ? PC_ENTRY_SDT : PC_ENTRY_NAMED;
	e->retprobe = pr[0] == 'r';
	e->offset = offset;
	e->ref_ctr = ref_ctr;
	e->group = strdup(group);
	e->event = strdup(event);
	return e->group && e->event ? 0 : -ENOMEM;
}

enum field { F_SPEC, F_ARGS, F_UPROBE, F_DEBUGINFO };

static int set_field(struct parse_ctx *p, enum field f, const char *val)
{
	char **field;

	if (!p->cur)
		return corrupt(p, "entry field outside a 'probe' block");
	field = f == F_SPEC ? &p->cur->spec : f == F_ARGS ? &p->cur->args :
		f == F_UPROBE ? &p->cur->uprobe_args : &p->cur->debuginfo;
	if (*field)
		return corrupt(p, "entry field given twice");
	*field = strdup(val);
	return *field ? 0 : -ENOMEM;
}

/* The file lists paths newest first already: append, don't reorder. */
static int append_path(struct parse_ctx *p, const char *val)
{
	struct pc_binary *b = p->b;
	char **paths;

	if (p->cur || val[0] != '/')
		return corrupt(p, "bad 'path' (must be absolute, outside entries)");
	for (size_t i = 0; i < b->npaths; i++)
		if (!strcmp(b->paths[i], val))
			return corrupt(p, "path listed twice");
	paths = realloc(b->paths, (b->npaths + 1) * sizeof(*paths));
	if (!paths)
		return -ENOMEM;
	b->paths = paths;
	paths[b->npaths] = strdup(val);
	if (!paths[b->npaths])
		return -ENOMEM;
	b->npaths++;
	return 0;
}

static int parse_end(struct parse_ctx *p)
{
	struct pc_entry *e = p->cur;

	if (!e)
		return corrupt(p, "'end' without 'probe'");
	if (!e->spec)
		return corrupt(p, "entry without 'spec'");
	if ((!e->args && !(e->args = strdup(""))) ||
	    (!e->uprobe_args && !(e->uprobe_args = strdup(""))))
		return -ENOMEM;
	p->cur = NULL;
	return 0;
}

static int parse_build_id(struct parse_ctx *p, const char *val)
{
	if (p->cur)
		return corrupt(p, "'build-id' inside an entry");
	if (p->have_build_id)
		return corrupt(p, "build-id given twice");
	if (strcmp(val, p->b->build_id))
		return corrupt_fatal(p, "build-id does not match the file name");
	p->have_build_id = true;
	return 0;
}

static int parse_line(struct parse_ctx *p, char *line)
{
	char *val = strchr(line, ' ');

	if (val)
		*val++ = '\0';
	else
		val = line + strlen(line);
	if (!strcmp(line, "build-id"))
		return parse_build_id(p, val);
	if (!strcmp(line, "path"))
		return append_path(p, val);
	if (!strcmp(line, "probe"))
		return parse_probe(p, val);
	if (!strcmp(line, "spec"))
		return set_field(p, F_SPEC, val);
	if (!strcmp(line, "args"))
		return set_field(p, F_ARGS, val);
	if (!strcmp(line, "uprobe"))
		return set_field(p, F_UPROBE, val);
	if (!strcmp(line, "debuginfo"))
		return set_field(p, F_DEBUGINFO, val);
	if (!strcmp(line, "end"))
		return parse_end(p);
	return corrupt(p, "unknown keyword");
}

/* Salvage: a bad line inside a block drops the whole entry. */
static int bad_line(struct parse_ctx *p, int ret)
{
	if (ret != -EBADMSG || !p->salvage || p->fatal)
		return ret;
	if (p->cur) {
		pc_binary_del_entry(p->b, p->cur - p->b->entries);
		p->cur = NULL;
	}
	return 0;
}

static int check_line(struct parse_ctx *p, char *line, size_t n)
{
	if (n >= PC_CACHE_LINE_MAX)
		return corrupt(p, "line longer than 65535 bytes");
	if (strlen(line) != n)
		return corrupt(p, "NUL byte in line");
	if (p->line == 1 && strcmp(line, PC_CACHE_MAGIC " 1"))
		return corrupt_fatal(p, "not a probecache cache file of format version 1");
	return p->line == 1 ? 0 : parse_line(p, line);
}

static int parse_lines(struct parse_ctx *p, char *buf, size_t len)
{
	char *pos = buf, *end = buf + len, *s;
	bool nl;
	int ret = 0;

	while (!ret && (s = pc_next_line(&pos, end, &nl))) {
		p->line++;
		if (!nl)
			return bad_line(p, corrupt(p, "truncated line"));
		ret = bad_line(p, check_line(p, s, pos - 1 - s));
	}
	return ret;
}

static bool same_event(const struct pc_entry *a, const struct pc_entry *b)
{
	return !strcmp(a->group, b->group) && !strcmp(a->event, b->event);
}

static int cmp_event(const void *x, const void *y)
{
	const struct pc_entry *a = *(const struct pc_entry *const *)x;
	const struct pc_entry *b = *(const struct pc_entry *const *)y;
	int c = strcmp(a->group, b->group);

	return c ? c : strcmp(a->event, b->event);
}

/* A GROUP:EVENT given twice would be listed and armed twice: the later copy goes. */
static int check_dups(struct parse_ctx *p)
{
	struct pc_binary *b = p->b;
	struct pc_entry **v;
	size_t i;

	if (b->nentries < 2)
		return 0;
	v = malloc(b->nentries * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < b->nentries; i++)
		v[i] = &b->entries[i];
	qsort(v, b->nentries, sizeof(*v), cmp_event);
	for (i = 1; i < b->nentries; i++)
		if (same_event(v[i - 1], v[i]))
			break;
	if (i < b->nentries) {
		struct pc_entry *later = v[i - 1] > v[i] ? v[i - 1] : v[i];

		corrupt(p, "a probe block is given twice");
		if (p->salvage)
			pc_binary_del_entry(b, later - b->entries);
	}
	free(v);
	return i < b->nentries ? (p->salvage ? check_dups(p) : -EBADMSG) : 0;
}

static int parse_buf(struct parse_ctx *p, char *buf, size_t len)
{
	int ret = parse_lines(p, buf, len);

	if (ret)
		return ret;
	if (p->line == 0)
		return corrupt(p, "empty file");
	p->line = 0;	/* what follows is about the whole file */
	if (p->cur && bad_line(p, corrupt(p, "entry not closed by 'end'")))
		return -EBADMSG;
	if (!p->have_build_id && bad_line(p, corrupt(p, "no 'build-id' line")))
		return -EBADMSG;
	if (!p->b->npaths && !p->salvage)
		return corrupt(p, "no 'path' line");
	ret = check_dups(p);
	return ret ? ret : p->nbad && !p->salvage ? -EBADMSG : 0;
}

static int load_file(struct parse_ctx *p, const char *build_id, struct pc_binary **out)
{
	char *buf;
	size_t len;
	int ret = pc_read_file(p->file, PC_RD_NOFOLLOW, PC_CACHE_FILE_MAX, &buf, &len);

	if (ret)
		return ret;
	pc_debug("cache: read %s", p->file);
	p->b = pc_binary_new(build_id);
	ret = p->b ? parse_buf(p, buf, len) : -ENOMEM;
	free(buf);
	if (ret) {
		pc_binary_free(p->b);
		return ret;
	}
	*out = p->b;
	return 0;
}

static bool quiet;	/* the index reading files for itself: the command says nothing */

/* "FILE:LINE: corrupt cache file: WHY", or "FILE: WHY" when it could not be read. */
static void report(const struct parse_ctx *p, int err, const char *verdict)
{
	if (quiet)
		return;
	if (err != -EBADMSG)
		pc_warn("%s: %s%s", p->file, pc_file_strerror(err), verdict);
	else if (p->bad_line)
		pc_warn("%s:%u: corrupt cache file%s: %s", p->file, p->bad_line, verdict, p->why);
	else
		pc_warn("%s: corrupt cache file%s: %s", p->file, verdict, p->why);
}

int pc_cache_load(const char *build_id, struct pc_binary **out)
{
	char file[PATH_MAX];
	struct parse_ctx p = { .file = file };
	int ret = pc_cache_path(build_id, file, sizeof(file));

	if (!ret)
		ret = load_file(&p, build_id, out);
	if (ret && ret != -ENOENT && ret != -ENOMEM && ret != -EINVAL)
		report(&p, ret, "");
	return ret;
}

int pc_cache_load_quiet(const char *build_id, struct pc_binary **out)
{
	int ret;

	quiet = true;
	ret = pc_cache_load(build_id, out);
	quiet = false;
	return ret;
}

/*
 * A hard link FILE.corrupt (or FILE.corrupt.N if taken: an older copy is
 * never overwritten). A link, not a rename: FILE stays in place until the
 * writer's store replaces it, so a writer that stops early changes nothing
 * a reader sees.
 */
static int keep_copy(const char *file, char *aside, size_t size)
{
	for (unsigned int n = 0; n < 100; n++) {
		if (n)
			snprintf(aside, size, "%s.corrupt.%u", file, n);
		else
			snprintf(aside, size, "%s.corrupt", file);
		if (!link(file, aside))
			return 0;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

/* What parses of an unreadable or corrupt @file; the file itself is kept as a copy. */
static int salvage(struct parse_ctx *p, const char *build_id, int err, struct pc_binary **out)
{
	char aside[PATH_MAX + 32];
	int ret;

	report(p, err, "");
	*p = (struct parse_ctx){ .file = p->file, .salvage = true };
	if (err != -EBADMSG || load_file(p, build_id, out)) {
		*out = pc_binary_new(build_id);
		if (!*out)
			return -ENOMEM;
	}
	ret = keep_copy(p->file, aside, sizeof(aside));
	if (ret) {
		pc_err("%s: cannot keep a copy of the damaged cache file: %s; not replacing it",
		       p->file, strerror(-ret));
		pc_binary_free(*out);
		return ret;
	}
	pc_warn("%s: kept whole as %s; what parses of it is carried over: %zu paths, "
		"%zu entries", p->file, aside, (*out)->npaths, (*out)->nentries);
	return 0;
}

int pc_cache_load_update(const char *build_id, struct pc_binary **out)
{
	char file[PATH_MAX];
	struct parse_ctx p = { .file = file };
	int ret = pc_cache_path(build_id, file, sizeof(file));

	if (!ret)
		ret = load_file(&p, build_id, out);
	if (ret == -ENOENT) {
		*out = pc_binary_new(build_id);
		return *out ? 0 : -ENOMEM;
	}
	if (!ret || ret == -ENOMEM || ret == -EINVAL)
		return ret;
	return salvage(&p, build_id, ret, out);
}

/* ---- walking ---- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Collects the build-ids of every DIR/XX/YYYY.probes (of bucket @only if given), sorted. */
static int list_bucket_ids(const char *only, char ***out, size_t *n)
{
	DIR *top, *sub;
	struct dirent *d, *e;
	char dir[PATH_MAX], **ids = NULL, **tmp;
	size_t len;

	*n = 0;
	*out = NULL;
	top = opendir(pc_cache_dir());
	if (!top)
		return errno == ENOENT ? 0 : -errno;
	while ((d = readdir(top))) {
		if (strlen(d->d_name) != 2 || !isxdigit((unsigned char)d->d_name[0]) ||
		    !isxdigit((unsigned char)d->d_name[1]) || (only && strcmp(d->d_name, only)))
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", pc_cache_dir(), d->d_name);
		sub = opendir(dir);
		if (!sub)
			continue;
		while ((e = readdir(sub))) {
			len = strlen(e->d_name);
			if (e->d_name[0] == '.' || len <= strlen(PC_CACHE_SUFFIX) ||
			    strcmp(e->d_name + len - strlen(PC_CACHE_SUFFIX), PC_CACHE_SUFFIX))
				continue;
			tmp = realloc(ids, (*n + 1) * sizeof(*ids));
			if (!tmp)
				break;
			ids = tmp;
			if (asprintf(&ids[*n], "%s%.*s", d->d_name,
				     (int)(len - strlen(PC_CACHE_SUFFIX)), e->d_name) < 0)
				break;
			(*n)++;
		}
		closedir(sub);
	}
	closedir(top);
	if (*n)
		qsort(ids, *n, sizeof(*ids), cmp_str);
	*out = ids;
	return 0;
}

int pc_cache_list_ids(char ***out, size_t *n)
{
	return list_bucket_ids(NULL, out, n);
}

void pc_cache_free_ids(char **ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
}

static int foreach_in(const char *only, int (*fn)(struct pc_binary *b, void *ctx), void *ctx)
{
	char **ids, file[PATH_MAX];
	struct parse_ctx p;
	struct pc_binary *b;
	size_t n, i;
	int ret = list_bucket_ids(only, &ids, &n);

	if (ret) {
		pc_err("%s: %s", pc_cache_dir(), strerror(-ret));
		return ret;
	}
	for (i = 0; i < n && !ret; i++) {
		if (pc_cache_path(ids[i], file, sizeof(file))) {
			pc_warn("%s/%.2s/%s%s: not a build-id file name, skipped", pc_cache_dir(),
				ids[i], ids[i] + 2, PC_CACHE_SUFFIX);
			continue;
		}
		p = (struct parse_ctx){ .file = file };
		ret = load_file(&p, ids[i], &b);
		if (ret == -ENOMEM)
			break;
		if (ret) {
			/* Removed meanwhile is no news; anything else is said, the rest still counts. */
			if (ret != -ENOENT)
				report(&p, ret, ", skipped");
			ret = 0;
			continue;
		}
		ret = fn(b, ctx);
		pc_binary_free(b);
	}
	pc_cache_free_ids(ids, n);
	return ret;
}

int pc_cache_foreach(int (*fn)(struct pc_binary *b, void *ctx), void *ctx)
{
	return foreach_in(NULL, fn, ctx);
}

int pc_cache_foreach_bucket_quiet(const char *xx, int (*fn)(struct pc_binary *b, void *ctx),
				  void *ctx)
{
	int ret;

	quiet = true;
	ret = foreach_in(xx, fn, ctx);
	quiet = false;
	return ret;
}
