// SPDX-License-Identifier: GPL-2.0
/*
 * Scanning SDT notes into the cache (sdtscan.h).
 *
 * Paths are canonicalized with realpath(3), as perf's build-id cache does,
 * so a library found through its soname link is cached under its real file.
 * SDT notes become entries of group sdt_PROVIDER; several notes with one name
 * become NAME, NAME_1, NAME_2... in note order, the names perf gives them
 * when it adds them one after the other. A rescan replaces the binary's SDT
 * entries and keeps its named ones (from 'add'), and the names a user gave
 * a note (spec "PROVIDER:NAME ARG...").
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/probecache.h>

#include "cache.h"
#include "canon.h"
#include "sdt.h"
#include "sdtscan.h"

static struct pc_scan_stats *cur_stats;	/* for the nftw callback */

/* 1 if @path starts with the ELF magic, 0 if not, -errno if it cannot be read. */
static int is_elf(const char *path)
{
	unsigned char magic[4];
	struct stat st;
	int fd = pc_open_regular(path, 0, &st);
	ssize_t n;

	if (fd < 0)
		return fd;
	n = read(fd, magic, sizeof(magic));
	close(fd);
	return n == 4 && !memcmp(magic, "\177ELF", 4);
}

/* NAME, NAME_1, NAME_2...: NAME_n for the note with n earlier ones of its name. */
static int sdt_event_name(const struct pc_binary *b, const char *spec, const char *name,
			  char *buf, size_t size)
{
	char other[2 * PROBECACHE_NAME_MAX + 2];
	unsigned int nth = 0;

	for (size_t i = 0; i < b->nentries; i++) {
		const char *o = pc_entry_sdt_spec(&b->entries[i], other, sizeof(other));

		nth += o && !strcmp(o, spec);
	}
	if (nth)
		snprintf(buf, size, "%s_%u", name, nth);
	else
		snprintf(buf, size, "%s", name);
	return strlen(buf) > PROBECACHE_NAME_MAX ? -ENAMETOOLONG : 0;
}

/*
 * The note's record args: named by the user's ARGs @u if any (they must agree
 * with the note), else by its provider file when that agrees with the note.
 */
static int note_args(const char *path, const struct pc_sdt_file *f, const struct pc_sdt_note *n,
		     const struct pc_sdtuser *u, char **out)
{
	char why[300];
	int ret = pc_sdtnames_args(path, f, n, u ? &u->args : NULL, out, why, sizeof(why));

	if (ret == -EINVAL)
		pc_err("%s: %s:%s at 0x%" PRIx64 ": %s", path, n->provider, n->name, n->pc_off, why);
	if (!ret && !*out)
		*out = strdup(n->rec_args ? n->rec_args : "");
	return ret ? ret : *out ? 0 : -ENOMEM;
}

/* @u: the user's names for this note, NULL for none. */
static int add_note(struct pc_binary *b, const char *path, const struct pc_sdt_file *f,
		    const struct pc_sdt_note *n, const struct pc_sdtuser *u)
{
	char group[PROBECACHE_NAME_MAX + 8], event[PROBECACHE_NAME_MAX + 16], *spec;
	struct pc_entry *e;
	int ret;

	if (asprintf(&spec, "%s:%s", n->provider, n->name) < 0)
		return -ENOMEM;
	snprintf(group, sizeof(group), "sdt_%s", n->provider);
	ret = sdt_event_name(b, spec, n->name, event, sizeof(event));
	if (!ret && u) {
		free(spec);
		if (asprintf(&spec, "%s %s", u->spec, u->text) < 0)
			return -ENOMEM;
	}
	if (!ret && strlen(group) > PROBECACHE_NAME_MAX)
		ret = -ENAMETOOLONG;
	e = ret ? NULL : pc_binary_add_entry(b);
	if (!e) {
		free(spec);
		return ret ? ret : -ENOMEM;
	}
	e->kind = PC_ENTRY_SDT;
	e->offset = n->pc_off;
	e->ref_ctr = n->sem_off;
	e->spec = spec;
	e->group = strdup(group);
	e->event = strdup(event);
	e->uprobe_args = strdup(n->uprobe_args ? n->uprobe_args : "");
	if (!e->group || !e->event || !e->uprobe_args)
		return -ENOMEM;
	return note_args(path, f, n, u, &e->args);
}

static size_t count_sdt(const struct pc_binary *b)
{
	size_t n = 0;

	for (size_t i = 0; i < b->nentries; i++)
		n += b->entries[i].kind == PC_ENTRY_SDT;
	return n;
}

/*
 * A damaged copy of a binary (same build-id, some notes unreadable) must not
 * replace the entries a clean copy gave: it keeps the cache as it is and is
 * not recorded as a path of the build-id.
 */
static int check_worse(const char *path, const struct pc_sdt_file *f, const struct pc_binary *b)
{
	size_t cached = count_sdt(b);

	if (!f->nskipped || f->nnotes >= cached)
		return 0;
	pc_err("%s: %u SDT notes unreadable, %zu read; build-id %s keeps the %zu entries "
	       "cached from %s, this copy is not recorded", path, f->nskipped, f->nnotes,
	       f->build_id, cached, b->npaths ? b->paths[0] : "an earlier scan");
	return -EBADMSG;
}

/* A user's names an SDT entry of a cached binary carries (its spec "P:N ARG..."). */
static int keep_user(const struct pc_entry *e, struct pc_sdtuser **old, size_t *nold)
{
	struct pc_sdtuser *u;
	char *def, why[300];
	int ret;

	if (!pc_entry_sdt_args(e))
		return 0;
	u = realloc(*old, (*nold + 1) * sizeof(*u));
	if (!u)
		return -ENOMEM;
	*old = u;
	if (asprintf(&def, "%%%s", e->spec) < 0)
		return -ENOMEM;
	ret = pc_sdtuser_parse(def, &u[*nold], why, sizeof(why));
	free(def);
	if (ret == 1 && !pc_sdtuser_find(u, *nold, u[*nold].spec))
		(*nold)++;
	else if (ret < 0)
		pc_warn("cached '%s': %s: dropped", e->spec, why);
	return 0;
}

/*
 * The cached binary to update, minus its SDT entries; the user's names those
 * carried in @old (a rescan keeps them).
 */
static int base_binary(const char *path, const struct pc_sdt_file *f, struct pc_binary **out,
		       struct pc_sdtuser **old, size_t *nold)
{
	struct pc_binary *b;
	int ret = pc_cache_load_update(f->build_id, &b);

	if (ret)
		return ret;
	ret = check_worse(path, f, b);
	for (size_t i = b->nentries; !ret && i-- > 0;) {
		if (b->entries[i].kind != PC_ENTRY_SDT)
			continue;
		ret = keep_user(&b->entries[i], old, nold);
		pc_binary_del_entry(b, i);
	}
	if (ret)
		pc_binary_free(b);
	else
		*out = b;
	return ret;
}

/* The user's names for note @n: this run's --args, else those the cache had. */
static struct pc_sdtuser *note_user(struct pc_scan_stats *st, struct pc_sdtuser *old, size_t nold,
				    const struct pc_sdt_note *n)
{
	char spec[2 * PROBECACHE_NAME_MAX + 2];
	struct pc_sdtuser *u;

	snprintf(spec, sizeof(spec), "%s:%s", n->provider, n->name);
	u = pc_sdtuser_find(st->users, st->nusers, spec);
	if (u)
		u->used++;
	else
		u = pc_sdtuser_find(old, nold, spec);
	return u && u->args.n ? u : NULL;	/* no ARGs: back to the provider file's */
}

/* Records @f, read from canonical @path, in the cache under its lock. */
static int cache_file(const char *path, const struct pc_sdt_file *f, struct pc_scan_stats *st)
{
	struct pc_binary *b = NULL;
	struct pc_sdtuser *old = NULL;
	size_t nold = 0;
	int ret = pc_cache_lock();

	if (ret)
		return ret;
	ret = base_binary(path, f, &b, &old, &nold);
	if (!ret)
		ret = pc_binary_add_path(b, path);
	for (size_t i = 0; !ret && i < f->nnotes; i++) {
		ret = add_note(b, path, f, &f->notes[i], note_user(st, old, nold, &f->notes[i]));
		if (ret == -ENAMETOOLONG) {
			pc_warn("%s: SDT note %s:%s: event name too long, not cached", path,
				f->notes[i].provider, f->notes[i].name);
			ret = 0;
		}
	}
	if (!ret)
		ret = pc_cache_store(b);
	pc_binary_free(b);
	free(old);
	pc_cache_unlock();
	return ret;
}

static void progress(struct pc_scan_stats *st, bool done)
{
	struct timespec now;
	long ms;

	if (!st->progress)
		return;
	if (done) {
		if (st->last.tv_sec)
			fputs("\r\033[K", stderr);
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (now.tv_sec - st->start.tv_sec) * 1000 + (now.tv_nsec - st->start.tv_nsec) / 1000000;
	if (ms < 1000)	/* short scans stay quiet */
		return;
	ms = (now.tv_sec - st->last.tv_sec) * 1000 + (now.tv_nsec - st->last.tv_nsec) / 1000000;
	if (st->last.tv_sec && ms < 200)
		return;
	st->last = now;
	fprintf(stderr, "\rscanning: %u ELF files, %u with SDT notes, %lu events", st->elf,
		st->with_notes, st->events);
}

/* Caches what pc_sdt_read() found in canonical @real and says so. */
static int record_file(const char *real, const struct pc_sdt_file *f, struct pc_scan_stats *st,
		       bool explicit)
{
	int ret;

	if (!f->build_id[0]) {
		st->no_build_id++;
		if (!explicit) {	/* -r counts them in the summary */
			if (pc_verbose)
				pc_warn("%s: no GNU build-id, cannot be cached", real);
			return 0;
		}
		pc_err("%s: no GNU build-id, cannot be cached", real);
		st->failed++;
		return -ENOENT;
	}
	if (!f->nnotes) {
		st->without_notes++;
		if (explicit && !pc_quiet)
			printf("%s (%s): 0 events\n", real, f->build_id);
		return 0;
	}
	ret = cache_file(real, f, st);
	if (ret) {
		st->failed++;
		return ret;
	}
	st->with_notes++;
	st->events += f->nnotes;
	if (pc_strset_add(&st->cached, f->build_id))
		return -ENOMEM;
	if (st->progress && st->last.tv_sec)
		fputs("\r\033[K", stderr);
	if (!pc_quiet)
		printf("%s (%s): %zu events\n", real, f->build_id, f->nnotes);
	return 0;
}

static int scan_fail(const char *arg, int err, struct pc_scan_stats *st)
{
	pc_err("%s: %s", arg, pc_file_strerror(err));
	st->failed++;
	return err;
}

/* One file. @explicit: named on the command line (non-ELF is an error then). */
static int scan_one(const char *arg, struct pc_scan_stats *st, bool explicit)
{
	struct pc_sdt_file f = { 0 };
	char real[PATH_MAX];
	int ret;

	ret = pc_canonical_path(arg, real);
	if (ret)
		return scan_fail(arg, ret, st);
	ret = is_elf(real);
	if (ret < 0)
		return scan_fail(arg, ret, st);
	if (!ret) {
		st->non_elf++;
		if (!explicit)
			return 0;
		pc_err("%s: not an ELF file", arg);
		st->failed++;
		return -ENOEXEC;
	}
	st->elf++;
	progress(st, false);
	ret = pc_sdt_read(real, &f);
	if (ret) {
		st->failed++;
		return ret;
	}
	ret = record_file(real, &f, st, explicit);
	pc_sdt_free(&f);
	return ret;
}

static int walk_fn(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	if (type == FTW_DNR) {
		pc_warn("%s: cannot read directory, skipped", path);
		cur_stats->failed++;
	} else if (type == FTW_F && S_ISREG(sb->st_mode)) {
		scan_one(path, cur_stats, false);
	}
	return 0;
}

int pc_scan_arg(const char *arg, struct pc_scan_stats *st)
{
	char real[PATH_MAX];
	struct stat sb;
	int ret;

	if (stat(arg, &sb))
		return scan_fail(arg, -errno, st);
	if (S_ISREG(sb.st_mode))
		return scan_one(arg, st, true);
	if (!S_ISDIR(sb.st_mode))
		return scan_fail(arg, -ENODEV, st);
	if (!st->recursive) {
		pc_err("%s: is a directory (use -r)", arg);
		st->failed++;
		return -EISDIR;
	}
	/* FTW_PHYS keeps the walk inside the tree, but /lib -> usr/lib must be entered. */
	ret = pc_canonical_path(arg, real);
	if (ret)
		return scan_fail(arg, ret, st);
	cur_stats = st;
	if (nftw(real, walk_fn, 16, FTW_PHYS))
		return scan_fail(arg, -errno, st);
	return 0;
}

/* A user's names that no note of the files scanned took fail the run. */
void pc_scan_finish(struct pc_scan_stats *st)
{
	for (size_t i = 0; i < st->nusers; i++) {
		if (st->users[i].used)
			continue;
		pc_err("no SDT probe %s in the files scanned: its names were not used",
		       st->users[i].spec);
		st->failed++;
	}
}

struct cached_paths {
	struct pc_sdtuser *users;
	size_t nusers;
	struct pc_strset paths;
};

/* The path of cached binary @b, if it has notes @c->users name and still holds @b. */
static int cached_path(struct pc_binary *b, void *ctx)
{
	struct cached_paths *c = ctx;
	char spec[2 * PROBECACHE_NAME_MAX + 2], bid[41];
	bool wanted = false;

	for (size_t i = 0; i < b->nentries && !wanted; i++)
		wanted = pc_entry_sdt_spec(&b->entries[i], spec, sizeof(spec)) &&
			 pc_sdtuser_find(c->users, c->nusers, spec);
	if (!wanted || !b->npaths)
		return 0;
	if (pc_read_build_id(b->paths[0], bid) || strcmp(bid, b->build_id)) {
		pc_warn("%s: no longer holds build-id %s: its notes keep their names",
			b->paths[0], b->build_id);
		return 0;
	}
	return pc_strset_add(&c->paths, b->paths[0]);
}

int pc_scan_cached(struct pc_scan_stats *st)
{
	struct cached_paths c = { st->users, st->nusers, { 0 } };
	int ret = pc_cache_foreach(cached_path, &c);

	if (!ret && !c.paths.n) {
		pc_err("no cached binary has SDT probe %s%s", st->users[0].spec,
		       st->nusers > 1 ? " or the others named" : "");
		ret = -ENOENT;
	}
	for (int i = 0; !ret && i < c.paths.n; i++)
		pc_scan_arg(c.paths.v[i], st);
	pc_strset_free(&c.paths);
	return ret;
}

void pc_scan_progress_done(struct pc_scan_stats *st)
{
	progress(st, true);
}
