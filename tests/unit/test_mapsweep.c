// SPDX-License-Identifier: GPL-2.0
/*
 * user/lib/mapsweep.c: maps lines parsed with every bound checked (under
 * ASan: nothing read past a short line), and a sweep of this very process:
 * its executable found once under the build-id it has, the query by
 * build-id, a vanished pid counted as gone and not denied.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "mapsweep.h"
#include "sdt.h"
#include "tap.h"

static void parses(const char *in, const char *path, bool deleted, unsigned long long ino,
		   const char *what)
{
	char *line = strdup(in);
	struct pc_maps_line ml;
	bool ok = pc_maps_line_parse(line, &ml);	/* once: it cuts the suffix in place */

	TAP_OK(ok && !strcmp(ml.path, path) && ml.deleted == deleted && ml.ino == ino,
	       "%s: '%s' -> path '%s' deleted %d ino %llu", what, in, path, deleted, ino);
	free(line);
}

static void rejects(const char *in, const char *what)
{
	char *line = strdup(in);	/* exactly its bytes: ASan sees any read past them */
	struct pc_maps_line ml;

	TAP_OK(!pc_maps_line_parse(line, &ml), "%s: '%s' skipped", what, in);
	free(line);
}

static void parse_cases(void)
{
	char line[] = "7f0000001000-7f0000002000 r-xp 00001000 103:05 4242   /x";
	struct pc_maps_line ml;

	parses("55e603e1c000-55e603e21000 r-xp 00002000 fe:00 10952934                   /usr/bin/sleep",
	       "/usr/bin/sleep", false, 10952934, "an executable file mapping");
	TAP_OK(pc_maps_line_parse(line, &ml) && ml.start == 0x7f0000001000ul &&
	       ml.end == 0x7f0000002000ul && major(ml.dev) == 0x103 && minor(ml.dev) == 5,
	       "range and a 3-digit major (103:05) read in hex");
	parses("1000-2000 r-xp 00000000 00:1a 77 /tmp/a b/sleep (deleted)", "/tmp/a b/sleep",
	       true, 77, "blanks in the path, (deleted) cut off");
	parses("1000-2000 r-xp 00000000 00:01 1024 /memfd:jit (deleted)", "/memfd:jit", true, 1024,
	       "a memfd");
	parses("1000-2000 r-xp 00000000 00:1a 77 / (deleted)", "/", true, 77, "path '/' deleted");
	parses("1000-2000 r-xp 00000000 00:1a 77  (deleted)", "(deleted)", false, 77,
	       "a name that is only the suffix is no deleted file");
	rejects("1000-2000 r--p 00000000 fe:00 10952934 /usr/lib/libc.so.6", "not executable");
	rejects("1000-2000 r-xp 00000000 00:00 0 ", "anonymous (inode 0)");
	rejects("7ffd1000-7ffd3000 r-xp 00000000 00:00 0                          [vdso]", "vdso");
	rejects("1000-2000 r-xp 00000000 fe:00 10952934 ", "no path");
	rejects("", "empty line");
	rejects("1000", "address only");
	rejects("1000-", "range cut short");
	rejects("1000-2000 r-x", "perms cut short");
	rejects("1000-2000 r-xp", "perms and nothing else");
	rejects("1000-2000 r-xp 0", "offset cut short");
	rejects("1000-2000 r-xp 00000000 fe", "device cut short");
	rejects("1000-2000 r-xp 00000000 fe:00 12", "inode cut short");
	rejects("1000-2000 r-xp 00000000 fe:00 -1 /x", "a signed inode");
	rejects("1000-2000 r-xp 00000000  fe:00 1 /x", "a blank where a number starts");
	rejects("1000-2000 r-xp 00000000 fe:00 99999999999999999999999 /x", "an inode past 64 bits");
	rejects("zz-2000 r-xp 00000000 fe:00 1 /x", "no hex address");
}

static void sweep_self(void)
{
	struct pc_sweep s;
	pid_t pids[2] = { getpid(), INT_MAX };	/* no process has pid INT_MAX (pid_max <= 2^22) */
	const struct pc_site *site, *found = NULL;
	char bid[41], exe[PATH_MAX];
	struct stat st;
	size_t pos = 0, n = 0;
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	int ret;

	exe[len > 0 ? len : 0] = '\0';
	stat("/proc/self/exe", &st);
	ret = pc_read_build_id("/proc/self/exe", bid);	/* TAP_OK evaluates its condition twice */
	TAP_OK(ret == 0, "this test has a build-id (%s)", bid);
	ret = pc_sweep_run(&s, pids, 2);
	TAP_OK(ret == 0, "sweep of this process and a pid that is none");
	TAP_OK(s.stats.procs == 1 && s.stats.gone == 1 && s.ndenied == 0,
	       "one process read, the missing one gone, nothing denied (%zu, %zu, %zu)",
	       s.stats.procs, s.stats.gone, s.ndenied);
	TAP_OK(s.stats.reads <= s.nsites, "at most one build-id read per inode (%zu reads, %zu inodes)",
	       s.stats.reads, s.nsites);
	while ((site = pc_sweep_next(&s, bid, &pos))) {
		n++;
		found = site;
	}
	TAP_OK(n == 1 && found->ino == st.st_ino && !strcmp(found->path, exe),
	       "the query finds our executable once, by inode (%zu sites)", n);
	TAP_OK(found && found->how == PC_SITE_PATH && found->npids == 1 &&
	       found->pids[0].pid == getpid() && !found->deleted && found->mntns,
	       "read through its path, our pid and mount namespace, not deleted");
	pos = 0;
	TAP_OK(!pc_sweep_next(&s, "00112233445566778899aabbccddeeff00112233", &pos),
	       "an unmapped build-id finds nothing");
	pc_sweep_free(&s);
}

int main(void)
{
	parse_cases();
	sweep_self();
	return tap_done();
}
