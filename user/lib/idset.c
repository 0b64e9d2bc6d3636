// SPDX-License-Identifier: GPL-2.0
/* Sets of build-ids (idset.h): what the cache index finds, what a selection loaded. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idset.h"
#include "pc.h"

int pc_ids_add(struct pc_ids *s, const char *bid)
{
	void *v = pc_grow(s->v, &s->cap, s->n, sizeof(*s->v), 16);

	if (!v)
		return -ENOMEM;
	s->v = v;
	snprintf(s->v[s->n++], sizeof(s->v[0]), "%s", bid);
	return 0;
}

static int cmp_id(const void *a, const void *b)
{
	return strcmp(a, b);
}

void pc_ids_sort(struct pc_ids *s)
{
	size_t k = 0;

	if (!s->n)
		return;
	qsort(s->v, s->n, sizeof(*s->v), cmp_id);
	for (size_t i = 1; i < s->n; i++)
		if (strcmp(s->v[i], s->v[k]))
			memcpy(s->v[++k], s->v[i], sizeof(s->v[0]));
	s->n = k + 1;
}

bool pc_ids_has(const struct pc_ids *s, const char *bid)
{
	return s->n && bsearch(bid, s->v, s->n, sizeof(*s->v), cmp_id);
}

void pc_ids_free(struct pc_ids *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}
