/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DIR/names/XX: which cache files of bucket DIR/XX hold a probe of a given
 * GROUP:EVENT, so that selecting one event reads a few cache files instead
 * of all of them. One shard per bucket, so a writer rewrites only the
 * shards of the buckets it changed, whatever the size of the cache.
 *
 * Text, like the cache files:
 *
 *   probecache-names 1
 *   bucket 2e 1764739200.123456789     mtime of DIR/2e when the shard was written
 *   keys 3                             then that many lines, sorted (strcmp)
 *   sdt_libstdcxx:throw 2e4f...        GROUP:EVENT BUILD-ID
 *   sdt_libstdcxx:throw_1 2e4f...
 *   probe_app:parse 2e91...
 *   end                                last: a file cut short is not used
 *
 * An SDT entry is listed under GROUP:EVENT and, when its note's name
 * differs (throw_1 of throw), under GROUP:NAME too. The index only narrows
 * the search: whatever it names is loaded and matched as without it.
 *
 * Consistency. Writers keep it under the cache lock: before a session's
 * first change to a bucket its shard is unlinked (and DIR/names synced); at
 * the session's end (the outermost pc_cache_unlock) it is written anew,
 * atomically (temp file, fsync, rename): the old lines of the build-ids the
 * session did not change and the new lines of those it stored, or every
 * file of the bucket when the old shard was missing or stale or a change
 * failed. The same end rebuilds any other shard found missing, stale or
 * damaged. A writer that dies in between leaves a shard missing, never a
 * wrong one. A reader uses the index only if every bucket has a shard whose
 * mtime is that of the bucket now (so a change by anything else, e.g. an
 * older probecache-resolve, makes it stale); otherwise it reads the whole
 * cache as before. With no DIR/names at all (a cache older than the index)
 * a reader that can take the lock at once builds it; a shard missing or
 * stale in an existing index waits for the next writer (a reader does not
 * change a cache it cannot vouch for).
 */
#ifndef _PC_CACHE_INDEX_H
#define _PC_CACHE_INDEX_H

#include <stdbool.h>
#include <stddef.h>

#include "cache_file.h"
#include "idset.h"

/* ---- writers (cache.c, under the lock) ---- */

/*
 * Before a change to @bid's cache file: @b is what will be stored, NULL if
 * it is removed. @bid NULL: any file may change (or a change failed and the
 * files are not what was said): the index is rebuilt from them all.
 */
int pc_index_touch(const char *bid, const struct pc_binary *b);
/* A change said by pc_index_touch() failed: the touched buckets are indexed from their files. */
void pc_index_redo(void);
/* At the end of the outermost lock: writes the index if the session changed anything. */
void pc_index_session_end(void);

/* ---- readers ---- */

struct pc_index;

/* -ESTALE: no usable index (missing and not rebuildable, stale, damaged). */
int pc_index_open(struct pc_index **x);
void pc_index_close(struct pc_index *x);
/* Adds the build-ids listed under @key ("GROUP:NAME"). */
int pc_index_lookup(const struct pc_index *x, const char *key, struct pc_ids *out);
/* Adds the build-ids of every line for which @match(group, name, bid, ctx) holds. */
int pc_index_scan(const struct pc_index *x,
		  bool (*match)(const char *group, const char *name, const char *bid, void *ctx),
		  void *ctx, struct pc_ids *out);

/* ---- the cache lock: its outermost unlock ends the writer's session ---- */

/* Serialize read-modify-write cycles (scan, del, gc) against other writers; nests. */
int pc_cache_lock(void);
void pc_cache_unlock(void);
/* Try the lock without waiting or saying anything; 0 if taken. */
int pc_cache_trylock_quiet(void);

#endif /* _PC_CACHE_INDEX_H */
