// SPDX-License-Identifier: GPL-2.0
/*
 * Writing the probe cache: store, remove and clear cache files (their
 * format and reading are cache_file.c), each under the cache lock and told
 * to the index first (cache_index.h), which the lock's outermost unlock
 * writes.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache.h"
#include "pc.h"

/* ---- writing ---- */

/* What the reader takes back: no newline, and short enough with its keyword. */
static bool one_line(const char *s)
{
	return !s || (!strchr(s, '\n') && strlen(s) < PC_CACHE_LINE_MAX - 16);
}

static int check_binary(const struct pc_binary *b)
{
	if (!pc_build_id_valid(b->build_id) || !b->npaths)
		return -EINVAL;
	for (size_t i = 0; i < b->npaths; i++)
		if (b->paths[i][0] != '/' || !one_line(b->paths[i]))
			return -EINVAL;
	for (size_t i = 0; i < b->nentries; i++) {
		const struct pc_entry *e = &b->entries[i];

		if (!e->group || !e->event || !pc_cache_name_ok(e->group) || !pc_cache_name_ok(e->event) ||
		    !e->spec || !one_line(e->spec) || !one_line(e->args) ||
		    !one_line(e->uprobe_args) || !one_line(e->debuginfo))
			return -EINVAL;
	}
	return 0;
}

static void write_binary(FILE *f, const struct pc_binary *b)
{
	fprintf(f, "%s %d\nbuild-id %s\n", PC_CACHE_MAGIC, PC_CACHE_VERSION, b->build_id);
	for (size_t i = 0; i < b->npaths; i++)
		fprintf(f, "path %s\n", b->paths[i]);
	for (size_t i = 0; i < b->nentries; i++) {
		const struct pc_entry *e = &b->entries[i];

		fprintf(f, "probe %s %s %s %c 0x%" PRIx64 " 0x%" PRIx64 "\n",
			e->kind == PC_ENTRY_SDT ? "sdt" : "named", e->group, e->event,
			e->retprobe ? 'r' : 'p', e->offset, e->ref_ctr);
		fprintf(f, "spec %s\nargs %s\nuprobe %s\n", e->spec, e->args ? e->args : "",
			e->uprobe_args ? e->uprobe_args : "");
		if (e->debuginfo)
			fprintf(f, "debuginfo %s\n", e->debuginfo);
		fputs("end\n", f);
	}
}

/* fsync @dir itself or, with @whole_fs, syncfs its file system (all temp files at once). */
static int sync_dir(const char *dir, bool whole_fs)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (whole_fs ? syncfs(fd) : fsync(fd))
		ret = -errno;
	close(fd);
	return ret;
}

static int fsync_dir(const char *dir)
{
	return sync_dir(dir, false);
}

/* Writes @b to a new temp file in @dir, named in @tmp; with @sync also to disk. */
static int write_temp(const char *dir, const struct pc_binary *b, bool sync, char *tmp,
		      size_t len)
{
	FILE *f;
	int fd, ret = 0;

	snprintf(tmp, len, "%s/.tmp.XXXXXX", dir);
	fd = mkstemp(tmp);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		ret = -errno;
		close(fd);
		unlink(tmp);
		return ret;
	}
	write_binary(f, b);
	if (fflush(f) || fchmod(fd, 0644) || (sync && fsync(fd)))
		ret = -errno;
	if (fclose(f) && !ret)
		ret = -errno;
	if (ret)
		unlink(tmp);
	return ret;
}

/* Writes @b to a temp file next to @file, then renames it into place. */
static int replace_file(const char *file, const char *dir, const struct pc_binary *b)
{
	char tmp[PATH_MAX + 16];
	int ret = write_temp(dir, b, true, tmp, sizeof(tmp));

	if (ret)
		return ret;
	if (rename(tmp, file))
		ret = -errno;
	if (!ret)
		ret = fsync_dir(dir);
	if (ret)
		unlink(tmp);
	return ret;
}

int pc_cache_store(const struct pc_binary *b)
{
	char file[PATH_MAX], dir[PATH_MAX];
	int ret;

	if (check_binary(b)) {
		pc_err("%s: refusing to cache an invalid entry (bad name, path or newline)",
		       b->build_id);
		return -EINVAL;
	}
	ret = pc_cache_path(b->build_id, file, sizeof(file));
	if (ret)
		return ret;
	snprintf(dir, sizeof(dir), "%s/%.2s", pc_cache_dir(), b->build_id);
	ret = pc_cache_lock();
	if (ret)
		return ret;
	ret = pc_index_touch(b->build_id, b);
	if (!ret)
		ret = pc_mkdir_p(dir);
	if (!ret)
		ret = replace_file(file, dir, b);
	if (!ret)
		pc_debug("cache: wrote %s", file);
	if (ret)	/* the file is not what the index was told */
		pc_index_redo();
	pc_cache_unlock();
	if (ret)
		pc_err("%s: cannot write cache file: %s", file, strerror(-ret));
	return ret;
}

/* One binary of pc_cache_store_many(): its file and the temp file that replaces it. */
struct pending {
	char file[PATH_MAX];
	char tmp[PATH_MAX + 16];
	bool written;
};

static int stage(const struct pc_binary *b, struct pending *p)
{
	char dir[PATH_MAX];
	int ret;

	if (check_binary(b)) {
		pc_err("%s: refusing to cache an invalid entry (bad name, path or newline)",
		       b->build_id);
		return -EINVAL;
	}
	ret = pc_cache_path(b->build_id, p->file, sizeof(p->file));
	snprintf(dir, sizeof(dir), "%s/%.2s", pc_cache_dir(), b->build_id);
	if (!ret)
		ret = pc_mkdir_p(dir);
	if (!ret)
		ret = write_temp(dir, b, false, p->tmp, sizeof(p->tmp));
	if (ret)
		pc_err("%s: cannot write cache file: %s", p->file, strerror(-ret));
	p->written = !ret;
	return ret;
}

/* Each bucket directory once, after all renames into it. */
static int sync_buckets(struct pc_binary *const *b, size_t n)
{
	bool seen[256] = { 0 };
	char dir[PATH_MAX];
	int ret = 0;

	for (size_t i = 0; i < n && !ret; i++) {
		unsigned int k = strtoul((char[3]){ b[i]->build_id[0], b[i]->build_id[1], 0 },
					 NULL, 16) & 0xff;

		if (seen[k])
			continue;
		seen[k] = true;
		snprintf(dir, sizeof(dir), "%s/%.2s", pc_cache_dir(), b[i]->build_id);
		ret = fsync_dir(dir);
	}
	return ret;
}

int pc_cache_store_many(struct pc_binary *const *b, size_t n, size_t *stored)
{
	struct pending *p = calloc(n ? n : 1, sizeof(*p));
	int ret = p ? pc_cache_lock() : -ENOMEM;

	*stored = 0;
	if (ret) {
		free(p);
		return ret;
	}
	for (size_t i = 0; !ret && i < n; i++)
		ret = pc_index_touch(b[i]->build_id, b[i]);
	for (size_t i = 0; !ret && i < n; i++)
		ret = stage(b[i], &p[i]);
	if (!ret)	/* the data of every temp file at once, not an fsync per file */
		ret = sync_dir(pc_cache_dir(), true);
	for (size_t i = 0; !ret && i < n; i++) {
		if (rename(p[i].tmp, p[i].file)) {
			ret = -errno;
			pc_err("%s: cannot replace cache file: %s", p[i].file, strerror(-ret));
		}
		p[i].written = !!ret;	/* renamed: nothing left to clean up */
		*stored += !ret;
	}
	if (!ret)
		ret = sync_buckets(b, n);
	if (ret)	/* some files are not what the index was told */
		pc_index_redo();
	for (size_t i = 0; i < n; i++)
		if (p[i].written)
			unlink(p[i].tmp);
	pc_cache_unlock();
	free(p);
	return ret;
}

int pc_cache_remove(const char *build_id)
{
	char file[PATH_MAX], dir[PATH_MAX];
	int ret = pc_cache_path(build_id, file, sizeof(file));

	if (ret)
		return ret;
	snprintf(dir, sizeof(dir), "%s/%.2s", pc_cache_dir(), build_id);
	ret = pc_cache_lock();
	if (ret)
		return ret;
	ret = pc_index_touch(build_id, NULL);
	if (!ret && unlink(file)) {
		ret = -errno;
		pc_index_redo();	/* still there: its keys must stay */
	} else if (!ret) {
		fsync_dir(dir);
	}
	rmdir(dir);	/* only succeeds once the last file of the bucket is gone */
	pc_cache_unlock();
	return ret;
}

int pc_cache_clear(unsigned int *removed)
{
	char **ids = NULL, file[PATH_MAX], dir[PATH_MAX];
	size_t n = 0;
	int ret;

	*removed = 0;
	ret = pc_cache_lock();
	if (ret)
		return ret;
	ret = pc_index_touch(NULL, NULL);
	if (!ret)
		ret = pc_cache_list_ids(&ids, &n);
	for (size_t i = 0; !ret && i < n; i++) {
		snprintf(file, sizeof(file), "%s/%.2s/%s%s", pc_cache_dir(), ids[i], ids[i] + 2,
			 PC_CACHE_SUFFIX);
		snprintf(dir, sizeof(dir), "%s/%.2s", pc_cache_dir(), ids[i]);
		if (unlink(file) && errno != ENOENT) {
			ret = -errno;
			pc_err("%s: %s", file, strerror(errno));
			break;
		}
		(*removed)++;
		rmdir(dir);
	}
	pc_cache_free_ids(ids, n);
	pc_cache_unlock();
	return ret;
}
