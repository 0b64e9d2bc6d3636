// SPDX-License-Identifier: GPL-2.0
/*
 * sdtdump [-r|-c|-s] BIN: print what pc_sdt_read() makes of BIN, one line per
 * note, in perf's uprobe_events form (default) or with record args (-r), or
 * its file offset and the note's own argument string (-s: "0xOFF 8@%rdi ...").
 * -c also feeds every note's "add" record line to the module's own parser
 * (common/record.c) with the register names of BIN's machine (the host's for
 * one without its own, i386) and exits 1 if it refuses one. Lets the parity
 * suite and the fixture tests look at user/lib/sdt.c without the cache.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/probecache.h>

#include "record.h"
#include "sdt.h"

static void print_note(const char *path, const struct pc_sdt_note *n, int record)
{
	if (record == 's') {
		printf("0x%" PRIx64 " %s\n", n->pc_off, n->argstr);
		return;
	}
	printf("p:sdt_%s/%s %s:0x%" PRIx64, n->provider, n->name, path, n->pc_off);
	if (n->sem_off)
		printf("(0x%" PRIx64 ")", n->sem_off);
	if (record)
		printf("%s%s\n", *n->rec_args ? " " : "", n->rec_args);
	else
		printf("%s%s\n", *n->uprobe_args ? " " : "", n->uprobe_args);
}

/* Does the module's parser accept this note as a record? Prints why not. */
static int check_record(const struct pc_sdt_file *f, const char *path,
			const struct pc_sdt_note *n)
{
	static struct pc_command cmd;
	struct pc_parse_error err = { 0 };
	char line[PROBECACHE_LINE_MAX];
	int len, mach = pc_mach_of_elf(f->machine);

	if (mach < 0)
		mach = PC_MACH_NATIVE;
	len = snprintf(line, sizeof(line), "add p:sdt_%s/%s %s %s:0x%" PRIx64, n->provider,
		       n->name, f->build_id, path, n->pc_off);
	if (n->sem_off)
		len += snprintf(line + len, sizeof(line) - len, "(0x%" PRIx64 ")", n->sem_off);
	len += snprintf(line + len, sizeof(line) - len, "%s%s", *n->rec_args ? " " : "",
			n->rec_args);
	if ((size_t)len >= sizeof(line) ||
	    pc_parse_command_mach(line, len, (enum pc_mach)mach, PROBECACHE_MAX_ARGS, &cmd, &err)) {
		fprintf(stderr, "record refused: col %u %s: %s: %s\n", err.column,
			err.field ? err.field : "?", err.why ? err.why : "line too long", line);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct pc_sdt_file f;
	int record = argc > 2 && (!strcmp(argv[1], "-r") || !strcmp(argv[1], "-c") ||
				  !strcmp(argv[1], "-s"));
	int check = record && argv[1][1] == 'c', bad = 0;
	const char *path = argv[argc - 1];
	char *real;
	int ret;

	if (argc < 2 || (argc > 2 && !record)) {
		fprintf(stderr, "usage: sdtdump [-r|-c|-s] BIN\n");
		return 2;
	}
	ret = pc_sdt_read(path, &f);
	if (ret)
		return 1;
	real = realpath(path, NULL);
	printf("# build-id %s machine %u notes %zu skipped %u\n", f.build_id, f.machine,
	       f.nnotes, f.nskipped);
	if (record && argv[1][1] == 's')
		record = 's';
	for (size_t i = 0; i < f.nnotes; i++) {
		print_note(real ? real : path, &f.notes[i], record);
		if (check)
			bad |= check_record(&f, real ? real : path, &f.notes[i]);
	}
	free(real);
	pc_sdt_free(&f);
	return bad;
}
