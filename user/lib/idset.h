/* SPDX-License-Identifier: GPL-2.0 */
/* Sets of build-ids (idset.c), for the cache index and the selection by pattern. */
#ifndef _PC_IDSET_H
#define _PC_IDSET_H

#include <stdbool.h>
#include <stddef.h>

/* A set of build-ids. */
struct pc_ids {
	size_t n, cap;
	char (*v)[41];
};

int pc_ids_add(struct pc_ids *s, const char *bid);
void pc_ids_sort(struct pc_ids *s);	/* sorted, duplicates dropped */
bool pc_ids_has(const struct pc_ids *s, const char *bid);	/* after pc_ids_sort() */
void pc_ids_free(struct pc_ids *s);

#endif /* _PC_IDSET_H */
