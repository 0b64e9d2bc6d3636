// SPDX-License-Identifier: GPL-2.0
/*
 * Issue 42's user-space parsers: user/lib/followpolicy.c (follow.conf: whose
 * copies the follower hands the module; every bad line refused, naming
 * FILE:LINE) and the sites listing's optional mapped= and uid= fields
 * (user/lib/ksites.c: a line without them is mapped, owner unknown).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "followpolicy.h"
#include "ksites.h"
#include "tap.h"

static char dir[] = "/tmp/pc-followpolicy.XXXXXX";

/* @text into DIR/@name; its path in a static buffer */
static const char *put(const char *name, const char *text)
{
	static char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	return path;
}

static void policies(void)
{
	struct pc_follow_policy p;
	int ret;

	ret = pc_follow_policy_read(&p, put("gone/x", ""));
	TAP_OK(!ret && p.all, "no file: every owner (ret %d)", ret);
	ret = pc_follow_policy_read(&p, put("empty", "# nothing\n\n"));
	TAP_OK(!ret && p.all, "comments only: every owner (ret %d)", ret);
	ret = pc_follow_policy_read(&p, put("all", "owners all\n"));
	TAP_OK(!ret && p.all && pc_follow_policy_allows(&p, 4242), "owners all (ret %d)", ret);
	ret = pc_follow_policy_read(&p, put("some", " owners\troot 1000 # and\nowners 77\r\n"));
	TAP_OK(!ret && !p.all && p.n == 3 && pc_follow_policy_allows(&p, 0) &&
	       pc_follow_policy_allows(&p, 1000) && pc_follow_policy_allows(&p, 77) &&
	       !pc_follow_policy_allows(&p, 5), "owners lines add up, names and uids (ret %d, %zu)",
	       ret, p.n);
	pc_follow_policy_free(&p);
}

static void bad(const char *text, const char *what)
{
	struct pc_follow_policy p;
	int ret = pc_follow_policy_read(&p, put("bad", text));

	TAP_OK(ret == -EINVAL && p.all && !p.n, "refused: %s (ret %d)", what, ret);
}

static void bads(void)
{
	bad("owners\n", "owners without an owner");
	bad("owners all root\n", "'all' with owners");
	bad("owners root\nowners all\n", "'all' after owners");
	bad("owners nosuchuser42\n", "a user getpwnam does not know");
	bad("owners 4294967295\n", "uid -1");
	bad("owners 12x\n", "a uid with a tail");
	bad("owner root\n", "an unknown setting");
	bad("ownersroot\n", "no blank after owners");
}

static void sites(void)
{
	struct pc_ksites k;
	int ret;

	put("probecache_sites",
	    "g:e site=0 state=armed hits=1 error=0 unlinked=0 dev=8:1 ino=2 path=/a\n"
	    "g:e site=1 state=armed hits=0 error=0 unlinked=0 mapped=0 uid=1000 dev=8:1 ino=3 path=/b c\n"
	    "g:e site=2 state=defined hits=0 error=-5 unlinked=1 mapped=1 uid=0 dev=0:44 ino=4 path=/proc/1/map_files/1-2\n");
	setenv("PROBECACHE_PROC", dir, 1);
	ret = pc_ksites_read(&k);
	TAP_OK(!ret && k.n == 3, "sites: old and new lines read (ret %d, %zu)", ret, k.n);
	if (ret || k.n != 3)
		return;
	TAP_OK(k.s[0].mapped && k.s[0].uid == -1 && k.s[0].ino == 2 && !strcmp(k.s[0].path, "/a"),
	       "  without mapped= and uid=: mapped, owner unknown");
	TAP_OK(!k.s[1].mapped && k.s[1].uid == 1000 && k.s[1].ino == 3 &&
	       !strcmp(k.s[1].path, "/b c"), "  mapped=0 uid=1000, the path after them");
	TAP_OK(k.s[2].mapped && k.s[2].uid == 0 && k.s[2].dev_minor == 44 && k.s[2].unlinked,
	       "  mapped=1 uid=0");
	pc_ksites_free(&k);
	put("probecache_sites", "g:e site=1 state=armed hits=0 error=0 unlinked=0 mapped=2 uid=1 dev=8:1 ino=3 path=/b\n");
	TAP_OK(pc_ksites_read(&k) == -EBADMSG, "  mapped=2: not a site line");
	put("probecache_sites", "g:e site=1 state=armed hits=0 error=0 unlinked=0 mapped=0 uid=x dev=8:1 ino=3 path=/b\n");
	TAP_OK(pc_ksites_read(&k) == -EBADMSG, "  uid=x: not a site line");
}

int main(void)
{
	char cmd[64];

	if (!mkdtemp(dir)) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	policies();
	bads();
	sites();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		TAP_OK(0, "%s", cmd);
	return tap_done();
}
