// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for user/lib/argspec.c. Input: one selector byte (bits 0-1:
 * x86-64, i386, aarch64, other; bit 2: ET_EXEC), then the arg text.
 * Besides memory safety it checks that whatever record FETCHARG we emit for
 * x86 is accepted by the module's own parser (common/record.c), and that the
 * outputs are NUL-terminated inside their buffers.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/probecache.h>

#include "record.h"
#include "../../user/lib/argspec.h"

static const uint16_t machines[4] = { PC_ARGSPEC_X86_64, PC_ARGSPEC_I386, PC_ARGSPEC_AARCH64, 21 };

static int sym(void *priv, const char *name, uint64_t *v)
{
	(void)priv;
	if (name[0] == 'd')
		return -EEXIST;
	*v = 0x1000 + (uint64_t)strlen(name) * 0x100;
	return name[0] == 'n' ? -ENOENT : 0;
}

static int off(void *priv, uint64_t v, uint64_t *o)
{
	(void)priv;
	if (v < 0x1000 || v >= 0x100000)
		return -ERANGE;
	*o = v - 0x1000;
	return 0;
}

static int count(const char *spec, unsigned int idx, void *priv)
{
	(void)spec;
	*(unsigned int *)priv = idx + 1;
	return 0;
}

/* The module must take every x86 FETCHARG we produce. */
static void check_record(const char *fetch)
{
	static struct pc_command cmd;
	struct pc_parse_error err;
	char line[512];
	int n = snprintf(line, sizeof(line), "add p:g/e 00ff /bin/x:0x10 arg1=%s", fetch);

	if (n < 0 || (size_t)n >= sizeof(line))
		return;
	if (pc_parse_command(line, (size_t)n, PROBECACHE_MAX_ARGS, &cmd, &err)) {
		fprintf(stderr, "record.c refused '%s': %s: %s\n", line, err.field, err.why);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pc_argctx ctx = { sym, off, NULL, false, 8 };
	struct pc_argspec a;
	const char *why;
	char *s, rec[300], perf[4096];
	unsigned int n = 0;
	uint16_t m;
	int ret;

	if (!size)
		return 0;
	m = machines[data[0] & 3];
	ctx.fixed = data[0] & 4;
	s = malloc(size);
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	ret = pc_argspec_parse(s, m, &a, &why);
	if (!ret) {
		ret = pc_argspec_record(&a, &ctx, rec, sizeof(rec), &why);
		if (!ret && (strnlen(rec, sizeof(rec)) == sizeof(rec) || !strchr(rec, ':')))
			abort();
		if (!ret && (m == PC_ARGSPEC_X86_64 || m == PC_ARGSPEC_I386))
			check_record(rec);
	}
	if (ret && !*why)
		abort();	/* every refusal says why */
	ret = pc_argspec_perf(s, m, perf, sizeof(perf));
	if ((ret && ret != -EINVAL && ret != -E2BIG && ret != -ENOSPC) ||
	    strnlen(perf, sizeof(perf)) == sizeof(perf))
		abort();
	pc_argspec_split(s, count, &n);
	free(s);
	return 0;
}
