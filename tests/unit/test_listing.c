// SPDX-License-Identifier: GPL-2.0
/*
 * user/lib/listing.c: one line of /proc/probecache_probes into struct
 * pc_kprobe. Every field, the bounds of each, args as the rest of the line,
 * and every prefix of a valid line (a read cut short) parsed under ASan.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "armed.h"
#include "tap.h"

#define HEAD "g:e state=armed consumers=3 hits=12 counting=1 type=p pid=0 unlinked=0 "
#define GOOD HEAD "build_id=4F1E offset=0x1a2b ref_ctr_offset=0x4010 path=/usr/bin/x args="

static int parse(const char *s, struct pc_kprobe *p, char *why, size_t len)
{
	char *line = strdup(s);
	int ret = line ? pc_kprobe_parse(line, p, why, len) : -ENOMEM;

	free(line);
	return ret;
}

static void done(struct pc_kprobe *p)
{
	free(p->path);
	free(p->args);
}

static void good(const char *s, const char *args, const char *what)
{
	struct pc_kprobe p;
	char why[256] = "";
	int ret = parse(s, &p, why, sizeof(why));

	TAP_OK(!ret && !strcmp(p.args, args), "%s: args '%s' (got %d %s '%s')", what, args, ret,
	       why, ret ? "" : p.args);
	if (!ret)
		done(&p);
	ret = parse("g:e state=defined hits=0 counting=0 type=p pid=0 unlinked=0 build_id=4f "
		    "offset=0x1 ref_ctr_offset=0x0 path=/x args=", &p, why, sizeof(why));
	TAP_OK(!ret && p.consumers == -1 && !strcmp(p.state, "defined"),
	       "no consumers= (a module whose events are the kernel's): -1, unknown (got %d %s)",
	       ret, ret ? why : "");
	if (!ret)
		done(&p);
}

static void bad(const char *s, const char *want, const char *what)
{
	struct pc_kprobe p;
	char why[256] = "";
	int ret = parse(s, &p, why, sizeof(why));

	TAP_OK(ret == -EINVAL && !strcmp(why, want), "%s: %s (got %d %s)", what, want, ret, why);
	done(&p);
}

static void fields(void)
{
	struct pc_kprobe p;
	char why[256];
	int ret = parse(GOOD "a=%di:s32 b=+8(%sp):u64", &p, why, sizeof(why));

	TAP_OK(!ret && !strcmp(p.name, "g:e") && !strcmp(p.group, "g") && !strcmp(p.event, "e"),
	       "name, group, event");
	TAP_OK(!ret && !strcmp(p.state, "armed") && p.consumers == 3 && p.hits == 12 &&
	       p.counting && p.pid == 0 && !p.unlinked, "state, consumers, hits, counting, pid");
	TAP_OK(!ret && !strcmp(p.build_id, "4f1e") && p.offset == 0x1a2b && p.ref_ctr == 0x4010,
	       "build-id lower-cased, offsets");
	TAP_OK(!ret && !strcmp(p.path, "/usr/bin/x") && !strcmp(p.args, "a=%di:s32 b=+8(%sp):u64"),
	       "path, args the rest of the line");
	if (!ret)
		done(&p);
}

/* Every prefix of a valid line: -EINVAL, or (cut inside args) the args cut. */
static void prefixes(void)
{
	const char *full = GOOD "a=%di:s32";
	size_t at = strlen(GOOD), n = strlen(full), fails = 0;

	for (size_t i = 0; i < n; i++) {
		char *s = strndup(full, i), why[256];
		struct pc_kprobe p;
		int ret = pc_kprobe_parse(s, &p, why, sizeof(why));

		fails += i < at ? ret != -EINVAL : ret != 0;
		done(&p);
		free(s);
	}
	TAP_OK(!fails, "every prefix of a line: refused before args=, else parsed (%zu wrong)",
	       fails);
}

int main(void)
{
	char name[300], bid[100], want[200];

	fields();
	good(GOOD, "", "empty args");
	good(GOOD "x=y= z", "x=y= z", "args with '=' and spaces");
	good(GOOD " lead", " lead", "args keep their leading space");
	bad(HEAD "build_id=4f offset=0x1 ref_ctr_offset=0x0 path=/x",
	    "args: missing (the line ends before it)", "no args=");
	bad(HEAD "build_id=4f offset=0x1 ref_ctr_offset=0x0 path=/x ARGS=", "args: expected here: 'ARGS='",
	    "args= misspelt");
	bad(HEAD "build_id=4f offset=0x1 ref_ctr_offset=0x0 path= args=", "path: empty: 'path='",
	    "empty path");
	bad("g:e state=Armed", "state: want a lower-case word: 'state=Armed'", "state");
	bad("g:e state=armed consumers=-1", "consumers: want a decimal number: 'consumers=-1'",
	    "negative consumers");
	bad("g:e state=armed consumers=9223372036854775808",
	    "consumers: out of range: 'consumers=9223372036854775808'", "consumers past LONG_MAX");
	bad(HEAD "build_id=4f offset=0x ref_ctr_offset=0x0 path=/x args=",
	    "offset: want 0x and hex digits: 'offset=0x'", "offset 0x alone");
	bad(HEAD "build_id=4f offset=0x10000000000000000 ref_ctr_offset=0x0 path=/x args=",
	    "offset: out of range: 'offset=0x10000000000000000'", "offset past 64 bits");
	bad("g:e state=armed consumers=0 hits=0 counting=2", "counting: want 0 or 1: 'counting=2'",
	    "counting 2");
	bad("g:e state=armed consumers=0 hits=0 counting=0 type=u", "type: want p or r: 'type=u'",
	    "type u");
	bad("g:e  state=armed", "state: empty (two spaces in a row)", "two spaces");
	bad("g:e state=armed ", "hits: missing (the line ends before it)", "a trailing space");
	bad("g:e:f state=armed", "GROUP:EVENT: want GROUP:EVENT, each 1 to 63 characters: 'g:e:f'",
	    "two colons");
	bad(":e state=armed", "GROUP:EVENT: want GROUP:EVENT, each 1 to 63 characters: ':e'",
	    "empty group");
	memset(bid, 'a', 40);
	snprintf(bid + 40, sizeof(bid) - 40, " offset=0x1 ref_ctr_offset=0x0 path=/x args=");
	snprintf(name, sizeof(name), HEAD "build_id=%s", bid);
	good(name, "", "a 40-digit build-id");
	snprintf(name, sizeof(name), HEAD "build_id=aa%s", bid);
	snprintf(want, sizeof(want), "build_id: want an even number of hex digits, 2 to 40: "
		 "'build_id=aa%.40s'", bid);
	bad(name, want, "a 42-digit build-id");
	memset(name, 'n', 63);
	snprintf(name + 63, sizeof(name) - 63, ":%s", GOOD + 2);
	good(name, "", "a 63-character group");
	memset(name, 'n', 64);
	snprintf(name + 64, sizeof(name) - 64, ":e state=armed");
	bad(name, "GROUP:EVENT: want GROUP:EVENT, each 1 to 63 characters: "
	    "'nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn...'",
	    "a 64-character group");
	prefixes();
	return tap_done();
}
