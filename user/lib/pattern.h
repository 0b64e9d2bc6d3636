/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Selecting cached probes: PATTERN parsing and matching, a snapshot of the
 * whole cache, what the file at a cached path holds now, and the name a
 * cached probe gets in the kernel.
 */
#ifndef _PC_PATTERN_H
#define _PC_PATTERN_H

#include <stdbool.h>
#include <stddef.h>

#include "cache.h"

/*
 * PATTERN := [GLOB][@QUALIFIER]
 *   GLOB       fnmatch(3) over "GROUP:EVENT"; without ':' it matches EVENT in
 *              any group, or a whole GROUP; empty means "*". For SDT entries
 *              the glob also matches GROUP:NAME (the note's name), so one name
 *              selects all of its locations (NAME, NAME_1, ...), each still
 *              addressable, and PROVIDER:NAME (bpftrace's form).
 * Tracers' forms are rewritten first: GROUP/EVENT (ftrace), a bare PATH
 * (/..., ./..., ../...) as @PATH, usdt:PATH:PROVIDER:NAME (bpftrace).
 *   QUALIFIER  "/abs/path" (one binary: any of its cached paths, symlinks
 *              resolved) or a build-id hex prefix (one version).
 */
struct pc_pattern {
	char *text;		/* as given, for messages */
	char *glob;
	bool has_group;
	char *path;		/* as given, NULL if none */
	char *real;		/* realpath of @path if it resolves, else NULL */
	char *bid_prefix;	/* lower case, NULL if none */
};

int pc_pattern_parse(const char *s, struct pc_pattern *p);	/* -EINVAL, reported */
void pc_pattern_free(struct pc_pattern *p);
bool pc_pattern_match_name(const struct pc_pattern *p, const char *group, const char *event);
bool pc_pattern_match_binary(const struct pc_pattern *p, const char *build_id,
			     char *const *paths, size_t npaths);
bool pc_pattern_match(const struct pc_pattern *p, const struct pc_binary *b,
		      const struct pc_entry *e);

/* Parse argv-style patterns; on error everything parsed so far is freed. */
int pc_patterns_parse(char *const *argv, int n, struct pc_pattern **out);
void pc_patterns_free(struct pc_pattern *p, int n);
/* True if any of @n patterns matches (n == 0 matches everything). */
bool pc_patterns_match(const struct pc_pattern *p, int n, const struct pc_binary *b,
		       const struct pc_entry *e);

/*
 * When @n patterns selected nothing: "; did you mean A, B?" with the cached
 * GROUP:EVENT names closest to them as typed (edit distance), or "" if
 * none is close. Reads the cache itself.
 */
void pc_patterns_suggest(const struct pc_pattern *p, int n, char *buf, size_t size);

struct pc_name_index;

/*
 * Every readable cached binary, sorted by first path then build-id; ids
 * (binaries by build-id) and names (every entry by GROUP:EVENT, built on
 * first need by pc_kernel_event()) are sorted indexes for lookups that would
 * otherwise scan the whole cache per entry. They describe the snapshot as
 * loaded: whoever deletes entries from it (del) must not look names up
 * afterwards.
 */
struct pc_snapshot {
	size_t n;
	struct pc_binary **b;
	struct pc_binary **ids;
	struct pc_name_index *names;	/* a lookup cache: filled through a const snapshot */
};

int pc_snapshot_load(struct pc_snapshot *s);
/* A snapshot of @n binaries (malloc'd, as @b itself), which it owns from now on, even on error. */
int pc_snapshot_of(struct pc_snapshot *s, struct pc_binary **b, size_t n);
void pc_snapshot_free(struct pc_snapshot *s);
struct pc_binary *pc_snapshot_find(const struct pc_snapshot *s, const char *build_id);

/* What the file at a cached path holds now. */
enum pc_file_state {
	PC_FILE_SAME,		/* present, same build-id */
	PC_FILE_OTHER,		/* present, another build-id (in @now) */
	PC_FILE_MISSING,	/* no such file */
	PC_FILE_UNREADABLE,	/* cannot read, not ELF, or no build-id (reason in @now) */
};

enum pc_file_state pc_file_check(const char *path, const char *build_id, char now[41]);
const char *pc_file_state_name(enum pc_file_state st);

/*
 * Staleness: a cached path is stale when its file is gone or now holds
 * another build-id (an unreadable file is not judged). A binary none of whose
 * paths is live is wholly stale; gc removes it, and drops stale paths of the
 * others.
 */
struct pc_stale {
	struct pc_binary *b;
	const char *path;
	enum pc_file_state st;	/* PC_FILE_MISSING or PC_FILE_OTHER */
	char now[41];		/* PC_FILE_OTHER: the build-id there now */
	bool whole;		/* every path of b is stale */
};

int pc_stale_find(const struct pc_snapshot *s, struct pc_stale **out, size_t *n);

/*
 * Clash A: one GROUP:EVENT cached for binaries at different paths. The
 * kernel needs unique names, so every such probe is armed as
 * EVENT_XXXXXXXX (first 8 hex digits of its build-id; EVENT shortened to
 * fit PROBECACHE_NAME_MAX). Probes without a clash keep EVENT. The choice
 * depends only on the cache, so arm, list --format=record and disarm agree.
 */
void pc_kernel_event(const struct pc_snapshot *s, const struct pc_binary *b,
		     const struct pc_entry *e, char *buf, size_t size);
/* EVENT_XXXXXXXX, the name @e of @b gets in a clash, whether or not it has one. */
void pc_clash_event(const struct pc_binary *b, const struct pc_entry *e, char *buf,
		    size_t size);

#endif /* _PC_PATTERN_H */
