// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for one line of /proc/probecache_probes (user/lib/listing.c).
 * The module is trusted less than it might be: a module of another version,
 * or a line cut short, must give a precise error and never a crash or leak.
 * Checks: a rejection names a field of the format; an accepted line gives
 * GROUP:EVENT, a build-id of an even count of lower-case hex digits, a path
 * without spaces, and printed back in the module's format, parses to the
 * same probe.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../user/lib/armed.h"
#include "fuzz_check.h"

#define LINE_MAX_FUZZ	8192

static char line[LINE_MAX_FUZZ + 1], line2[2 * LINE_MAX_FUZZ];

static const char *const fields[] = {
	"GROUP:EVENT", "state", "consumers", "hits", "counting", "type", "pid",
	"unlinked", "build_id", "offset", "ref_ctr_offset", "path", "args",
};

static void check_why(const char *why)
{
	size_t i, n;

	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		n = strlen(fields[i]);
		if (!strncmp(why, fields[i], n) && why[n] == ':')
			return;
	}
	fprintf(stderr, "fuzz_listing: why names no field: %s\n", why);
	abort();
}

static void check_probe(const struct pc_kprobe *p)
{
	char name[sizeof(p->name)];
	size_t n = strlen(p->build_id);

	snprintf(name, sizeof(name), "%s:%s", p->group, p->event);
	CHECK(!strcmp(name, p->name));
	CHECK(n >= 2 && n % 2 == 0 && strspn(p->build_id, "0123456789abcdef") == n);
	CHECK(p->path && p->path[0] && !strchr(p->path, ' '));
	CHECK(p->args && p->state[0]);
}

/* @p in the module's format, parsed again: the same probe. */
static void check_round_trip(const struct pc_kprobe *p)
{
	struct pc_kprobe q;
	char why[256];

	char consumers[32] = "";

	/* consumers= only from modules with trace events of their own (-1: none said) */
	if (p->consumers >= 0)
		snprintf(consumers, sizeof(consumers), " consumers=%ld", p->consumers);
	snprintf(line2, sizeof(line2),
		 "%s state=%s%s hits=%llu counting=%d type=p pid=%ld unlinked=%d "
		 "build_id=%s offset=0x%llx ref_ctr_offset=0x%llx path=%s args=%s",
		 p->name, p->state, consumers, (unsigned long long)p->hits, p->counting,
		 p->pid, p->unlinked, p->build_id, (unsigned long long)p->offset,
		 (unsigned long long)p->ref_ctr, p->path, p->args);
	CHECK(pc_kprobe_parse(line2, &q, why, sizeof(why)) == 0);
	CHECK(!strcmp(q.name, p->name) && !strcmp(q.state, p->state));
	CHECK(q.consumers == p->consumers && q.hits == p->hits && q.counting == p->counting);
	CHECK(q.pid == p->pid && q.unlinked == p->unlinked);
	CHECK(!strcmp(q.build_id, p->build_id) && q.offset == p->offset);
	CHECK(q.ref_ctr == p->ref_ctr && !strcmp(q.path, p->path) && !strcmp(q.args, p->args));
	free(q.path);
	free(q.args);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct pc_kprobe p;
	char why[256];
	int ret;

	if (size > LINE_MAX_FUZZ)
		return 0;
	memcpy(line, data, size);
	line[size] = '\0';
	ret = pc_kprobe_parse(line, &p, why, sizeof(why));
	CHECK(ret == 0 || ret == -EINVAL);
	if (ret)
		check_why(why);
	else
		check_probe(&p);
	if (!ret)
		check_round_trip(&p);
	free(p.path);
	free(p.args);
	return 0;
}
