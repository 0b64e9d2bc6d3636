// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for user/lib/sdtargs.c. Input: a selector byte (bit 0: a
 * provider entry, naming every arg; bit 1: 4-byte pointers; bits 2-5: the
 * note's arg count), then the ARG text, a newline, and the note's record args.
 * Besides memory safety: what parses formats back to text that parses to the
 * same; every named record arg list it makes is taken by the module's own
 * parser (common/record.c, in either machine's registers); every refusal says why.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/probecache.h>

#include "fuzz_check.h"
#include "record.h"
#include "../../user/lib/sdtargs.h"

static void check_record(const char *args)
{
	static struct pc_command cmd;
	static char line[PC_SDTARGS_LEN + 64];
	struct pc_parse_error err;
	int n = snprintf(line, sizeof(line), "add p:g/e 00ff /bin/x:0x10 %s", args);

	if (n < 0 || (size_t)n >= sizeof(line))
		return;
	if (pc_parse_command_mach(line, (size_t)n, PC_MACH_X86_64, PROBECACHE_MAX_ARGS, &cmd,
				  &err) &&
	    pc_parse_command_mach(line, (size_t)n, PC_MACH_AARCH64, PROBECACHE_MAX_ARGS, &cmd,
				  &err)) {
		fprintf(stderr, "record.c refused '%s': %s: %s\n", line, err.field, err.why);
		abort();
	}
}

static void round_trip(const struct pc_sdtargs *s)
{
	static char text[PC_SDTARGS_LEN], again[PC_SDTARGS_LEN];
	struct pc_sdtargs t;
	char why[256];

	CHECK(!pc_sdtargs_format(s, text, sizeof(text)));
	CHECK(!pc_sdtargs_parse(text, &t, why, sizeof(why)));
	CHECK(!pc_sdtargs_format(&t, again, sizeof(again)));
	CHECK(!strcmp(text, again));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char out[PC_SDTARGS_LEN];
	struct pc_sdtargs s;
	char why[256], *text, *rec;
	int ret;

	if (!size)
		return 0;
	text = malloc(size);
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	rec = strchr(text, '\n');
	if (rec)
		*rec++ = '\0';
	why[0] = '\0';
	ret = pc_sdtargs_parse(text, &s, why, sizeof(why));
	CHECK(!ret || why[0]);
	if (!ret) {
		round_trip(&s);
		why[0] = '\0';
		ret = pc_sdtargs_apply(&s, rec ? rec : "", (data[0] >> 2) & 15,
				       data[0] & 2 ? 4 : 8, data[0] & 1, out, sizeof(out),
				       why, sizeof(why));
		CHECK(!ret || why[0]);
		CHECK(strnlen(out, sizeof(out)) < sizeof(out));
		if (!ret && s.n)
			check_record(out);
	}
	free(text);
	return 0;
}
