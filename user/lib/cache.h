/* SPDX-License-Identifier: GPL-2.0 */
/*
 * On-disk probe cache: one small text file per build-id under the cache
 * directory, metadata only. Writes go to a temp file + rename, under an
 * flock on DIR/.lock. A corrupt file is reported by name and skipped by
 * readers; writers keep what parses and keep the file as FILE.corrupt.
 */
#ifndef _PC_CACHE_H
#define _PC_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum pc_entry_kind { PC_ENTRY_SDT, PC_ENTRY_NAMED };

/* One probe location. */
struct pc_entry {
	enum pc_entry_kind kind;
	char *group;		/* "sdt_libstdcxx", "probe_app" */
	char *event;		/* "throw", "throw_1" (per-location unique within group) */
	bool retprobe;
	uint64_t offset;	/* file offset */
	uint64_t ref_ctr;	/* semaphore file offset, 0 if none */
	char *args;		/* record-syntax fetchargs, may be "" */
	char *uprobe_args;	/* ftrace uprobe_events syntax, may be "" */
	char *spec;		/* SDT: "provider:name"; named: the probe-desc given to add */
	char *debuginfo;	/* named: build-id of the debuginfo used; NULL otherwise */
};

/* Everything cached about one build-id. */
struct pc_binary {
	char build_id[41];
	size_t npaths;
	char **paths;		/* origin paths, newest first */
	size_t nentries;
	struct pc_entry *entries;
};

/* Directory: --cache-dir, else $PROBECACHE_DIR, else /var/cache/probecache. */
const char *pc_cache_dir(void);
void pc_cache_set_dir(const char *dir);

int pc_cache_load(const char *build_id, struct pc_binary **out);	/* -ENOENT if absent */
/*
 * For a read-modify-write under pc_cache_lock(): the cached binary, or a new
 * one if none is cached. A corrupt or unreadable file is kept whole as
 * FILE.corrupt (never silently dropped) and what parses of it is returned.
 */
int pc_cache_load_update(const char *build_id, struct pc_binary **out);
int pc_cache_store(const struct pc_binary *b);				/* atomic replace */
/*
 * pc_cache_store() of @n binaries with one syncfs() and one fsync per bucket
 * directory instead of two fsyncs per file: each file is still replaced
 * atomically, by a temp file whose data is on disk before the rename.
 * *@stored: how many were replaced (the first ones) when it fails.
 */
int pc_cache_store_many(struct pc_binary *const *b, size_t n, size_t *stored);
int pc_cache_remove(const char *build_id);
/* Calls @fn for every readable cached binary; corrupt files are warned about and skipped. */
int pc_cache_foreach(int (*fn)(struct pc_binary *b, void *ctx), void *ctx);

/* Serialize read-modify-write cycles (scan, del, gc) against other writers; nests. */
int pc_cache_lock(void);
void pc_cache_unlock(void);
/* Remove every cache file, corrupt ones included; counts them in @removed. */
int pc_cache_clear(unsigned int *removed);
/* 4..40 lower-case hex digits, even count: what may name a cache file. */
bool pc_build_id_valid(const char *build_id);

struct pc_binary *pc_binary_new(const char *build_id);
int pc_binary_add_path(struct pc_binary *b, const char *path);
struct pc_entry *pc_binary_add_entry(struct pc_binary *b);	/* zeroed, owned by b */
void pc_binary_del_entry(struct pc_binary *b, size_t i);	/* keeps the others' order */
void pc_entry_clear(struct pc_entry *e);			/* frees its strings */
void pc_binary_free(struct pc_binary *b);

#endif /* _PC_CACHE_H */
