/* SPDX-License-Identifier: GPL-2.0 */
/*
 * On-disk probe cache: one small text file per build-id under the cache
 * directory, metadata only (cache_file.h). Writes go to a temp file +
 * rename, under an flock on DIR/.lock (cache_index.h, whose session the
 * lock spans), and keep the index in step (cache.c). A corrupt file is
 * reported by name and skipped by readers; writers keep what parses and
 * keep the file as FILE.corrupt.
 */
#ifndef _PC_CACHE_H
#define _PC_CACHE_H

#include <stddef.h>

#include "cache_index.h"

int pc_cache_store(const struct pc_binary *b);				/* atomic replace */
/*
 * pc_cache_store() of @n binaries with one syncfs() and one fsync per bucket
 * directory instead of two fsyncs per file: each file is still replaced
 * atomically, by a temp file whose data is on disk before the rename.
 * *@stored: how many were replaced (the first ones) when it fails.
 */
int pc_cache_store_many(struct pc_binary *const *b, size_t n, size_t *stored);
int pc_cache_remove(const char *build_id);
/* Remove every cache file, corrupt ones included; counts them in @removed. */
int pc_cache_clear(unsigned int *removed);

#endif /* _PC_CACHE_H */
