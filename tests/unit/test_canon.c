// SPDX-License-Identifier: GPL-2.0
/*
 * user/lib/canon.c: /proc/PID/root/... resolved inside that root, prefix kept;
 * everything else as realpath(3). Our own /proc/PID/root is "/", so the
 * expected paths are the host's, under the prefix.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "canon.h"
#include "tap.h"

static char tmp[256], pre[64];

static void canon_is(const char *in, const char *want, const char *what)
{
	char out[PATH_MAX];
	int ret = pc_canonical_path(in, out);

	TAP_OK(!ret && !strcmp(out, want), "%s: %s -> %s (got %s, %d)", what,
	       in, want, ret ? "" : out, ret);
}

static void canon_fails(const char *in, int want, const char *what)
{
	char out[PATH_MAX];
	int ret = pc_canonical_path(in, out);

	TAP_OK(ret == want, "%s: %s fails with %d (got %d)", what, in, want, ret);
}

int main(void)
{
	char in[1024], want[1024], link[1024], real[PATH_MAX];
	char tmpl[] = "/tmp/pc_canon.XXXXXX";

	if (!mkdtemp(tmpl) || !realpath(tmpl, real) || strlen(real) >= sizeof(tmp))
		return perror("mkdtemp"), 1;
	strcpy(tmp, real);
	snprintf(pre, sizeof(pre), "/proc/%d/root", (int)getpid());
	snprintf(in, sizeof(in), "%s/d", tmp);
	mkdir(in, 0700);
	snprintf(in, sizeof(in), "%s/d/f", tmp);
	fclose(fopen(in, "w"));
	snprintf(in, sizeof(in), "%s/rel", tmp);
	symlink("d/f", in);
	snprintf(in, sizeof(in), "%s/abs", tmp);
	snprintf(link, sizeof(link), "%s/d", tmp);
	symlink(link, in);
	snprintf(in, sizeof(in), "%s/loop", tmp);
	symlink("loop", in);

	snprintf(want, sizeof(want), "%s%s/d/f", pre, tmp);
	snprintf(in, sizeof(in), "%s%s/d/./f", pre, tmp);
	canon_is(in, want, "'.' dropped, prefix kept");
	snprintf(in, sizeof(in), "%s%s/d/../d//f", pre, tmp);
	canon_is(in, want, "'..' and '//'");
	snprintf(in, sizeof(in), "%s%s/rel", pre, tmp);
	canon_is(in, want, "relative symlink resolved inside the root");
	snprintf(in, sizeof(in), "%s%s/abs/f", pre, tmp);
	canon_is(in, want, "absolute symlink restarts at the root");
	snprintf(in, sizeof(in), "%s/../../..%s/d/f", pre, tmp);
	canon_is(in, want, "'..' stops at the root, as in a chroot");
	snprintf(in, sizeof(in), "%s/", pre);
	canon_is(in, pre, "the root itself");
	snprintf(in, sizeof(in), "%s%s/loop", pre, tmp);
	canon_fails(in, -ELOOP, "symlink loop");
	snprintf(in, sizeof(in), "%s%s/nope", pre, tmp);
	canon_fails(in, -ENOENT, "missing file");
	snprintf(in, sizeof(in), "%s%s/rel", "/proc/self/root", tmp);
	snprintf(want, sizeof(want), "%s/d/f", tmp);
	canon_is(in, want, "/proc/self/root: plain realpath (self means nothing later)");
	snprintf(in, sizeof(in), "%s/rel", tmp);
	canon_is(in, want, "other paths: realpath");
	snprintf(in, sizeof(in), "/proc/1x/root%s/rel", tmp);
	canon_fails(in, -ENOENT, "not a pid: realpath, which fails");

	snprintf(in, sizeof(in), "rm -rf '%s'", tmp);
	if (system(in))
		return 1;
	return tap_done();
}
