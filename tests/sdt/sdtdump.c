// SPDX-License-Identifier: GPL-2.0
/*
 * sdtdump [-r] BIN: print what pc_sdt_read() makes of BIN, one line per note,
 * in perf's uprobe_events form (default) or with record args (-r). Lets the
 * parity suite and the fixture tests look at user/sdt.c without the cache.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sdt.h"

static void print_note(const char *path, const struct pc_sdt_note *n, int record)
{
	printf("p:sdt_%s/%s %s:0x%" PRIx64, n->provider, n->name, path, n->pc_off);
	if (n->sem_off)
		printf("(0x%" PRIx64 ")", n->sem_off);
	if (record)
		printf("%s%s\n", *n->rec_args ? " " : "", n->rec_args);
	else
		printf("%s%s\n", *n->uprobe_args ? " " : "", n->uprobe_args);
}

int main(int argc, char **argv)
{
	struct pc_sdt_file f;
	int record = argc > 2 && !strcmp(argv[1], "-r");
	const char *path = argv[argc - 1];
	char *real;
	int ret;

	if (argc < 2 || (argc > 2 && !record)) {
		fprintf(stderr, "usage: sdtdump [-r] BIN\n");
		return 2;
	}
	ret = pc_sdt_read(path, &f);
	if (ret)
		return 1;
	real = realpath(path, NULL);
	printf("# build-id %s machine %u notes %zu skipped %u\n", f.build_id, f.machine,
	       f.nnotes, f.nskipped);
	for (size_t i = 0; i < f.nnotes; i++)
		print_note(real ? real : path, &f.notes[i], record);
	free(real);
	pc_sdt_free(&f);
	return 0;
}
