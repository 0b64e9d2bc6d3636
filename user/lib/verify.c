// SPDX-License-Identifier: GPL-2.0
/*
 * Does the file at a cached path still hold the cached build-id? Which
 * cached paths are stale (pc_stale_find, for gc and status)?
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pattern.h"
#include "sdt.h"

enum pc_file_state pc_file_check(const char *path, const char *build_id, char now[41])
{
	struct stat st;
	int ret;

	now[0] = '\0';
	if (stat(path, &st))
		return errno == ENOENT || errno == ENOTDIR ? PC_FILE_MISSING : PC_FILE_UNREADABLE;
	ret = pc_read_build_id(path, now);
	if (ret) {
		snprintf(now, 41, "%s", ret == -ENOENT ? "no build-id" : strerror(-ret));
		return PC_FILE_UNREADABLE;
	}
	return strcmp(now, build_id) ? PC_FILE_OTHER : PC_FILE_SAME;
}

const char *pc_file_state_name(enum pc_file_state st)
{
	switch (st) {
	case PC_FILE_SAME:
		return "ok";
	case PC_FILE_OTHER:
		return "changed";
	case PC_FILE_MISSING:
		return "missing";
	default:
		return "unreadable";
	}
}

static int add_stale(struct pc_stale **out, size_t *n, struct pc_binary *b, const char *path,
		     enum pc_file_state st, const char *now)
{
	struct pc_stale *s = realloc(*out, (*n + 1) * sizeof(*s));

	if (!s)
		return -ENOMEM;
	*out = s;
	s = &s[(*n)++];
	memset(s, 0, sizeof(*s));
	s->b = b;
	s->path = path;
	s->st = st;
	snprintf(s->now, sizeof(s->now), "%s", now);
	return 0;
}

int pc_stale_find(const struct pc_snapshot *s, struct pc_stale **out, size_t *n)
{
	char now[41];
	int ret = 0;

	*out = NULL;
	*n = 0;
	for (size_t i = 0; !ret && i < s->n; i++) {
		struct pc_binary *b = s->b[i];
		size_t first = *n;

		for (size_t j = 0; !ret && j < b->npaths; j++) {
			enum pc_file_state st = pc_file_check(b->paths[j], b->build_id, now);

			if (st == PC_FILE_MISSING || st == PC_FILE_OTHER)
				ret = add_stale(out, n, b, b->paths[j], st, now);
		}
		for (size_t j = first; !ret && j < *n; j++)
			(*out)[j].whole = *n - first == b->npaths;
	}
	return ret;
}
