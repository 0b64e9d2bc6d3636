/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The probe cache's files (cache_file.c): one small text file per build-id
 * under the cache directory, metadata only; their names, format, parsing,
 * loading and walking. A corrupt file is reported by name and skipped by
 * readers; writers (cache.h) keep what parses and keep the file as
 * FILE.corrupt. Below the index (cache_index.h) and the writers (cache.h).
 */
#ifndef _PC_CACHE_FILE_H
#define _PC_CACHE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PC_CACHE_MAGIC		"probecache-cache"
#define PC_CACHE_VERSION	1
#define PC_CACHE_SUFFIX		".probes"

#define PC_CACHE_LINE_MAX	65536u		/* far above any path or 16-arg list */
#define PC_CACHE_FILE_MAX	(64u << 20)	/* 65536 notes of ~200 bytes, with room */

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
	char *spec;		/* SDT: "provider:name" or, with a user's names, "provider:name ARG...";
				   named: the probe-desc given to add */
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
/* Calls @fn for every readable cached binary; corrupt files are warned about and skipped. */
int pc_cache_foreach(int (*fn)(struct pc_binary *b, void *ctx), void *ctx);

/*
 * For the index: pc_cache_foreach() of bucket DIR/@xx, pc_cache_load(), no
 * warnings about bad files.
 */
int pc_cache_foreach_bucket_quiet(const char *xx, int (*fn)(struct pc_binary *b, void *ctx),
				  void *ctx);
int pc_cache_load_quiet(const char *build_id, struct pc_binary **out);
/* 4..40 lower-case hex digits, even count: what may name a cache file. */
bool pc_build_id_valid(const char *build_id);

struct pc_binary *pc_binary_new(const char *build_id);
int pc_binary_add_path(struct pc_binary *b, const char *path);
struct pc_entry *pc_binary_add_entry(struct pc_binary *b);	/* zeroed, owned by b */
void pc_binary_del_entry(struct pc_binary *b, size_t i);	/* keeps the others' order */
void pc_entry_clear(struct pc_entry *e);			/* frees its strings */
void pc_binary_free(struct pc_binary *b);

/* An SDT entry's note: @buf = "PROVIDER:NAME" of its spec (without a user's ARGs). NULL
 * for a named entry. */
const char *pc_entry_sdt_spec(const struct pc_entry *e, char *buf, size_t size);
/* ... and the note's NAME alone, in @buf. */
const char *pc_entry_sdt_name(const struct pc_entry *e, char *buf, size_t size);
/* A user's ARGs of an SDT entry ("path=arg1:string ..."), NULL when it has none. */
const char *pc_entry_sdt_args(const struct pc_entry *e);

/* For cache.c and cache_index.c only. */
bool pc_cache_name_ok(const char *s);	/* a GROUP or EVENT the cache may hold */
int pc_cache_path(const char *build_id, char *buf, size_t size);	/* DIR/XX/YYYY.probes */
int pc_mkdir_p(const char *dir);
int pc_cache_list_ids(char ***out, size_t *n);	/* every cached build-id, sorted */
void pc_cache_free_ids(char **ids, size_t n);

#endif /* _PC_CACHE_FILE_H */
