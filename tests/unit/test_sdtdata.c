// SPDX-License-Identifier: GPL-2.0
/*
 * user/lib/sdtdata.c: provider files, a good one read whole, and each kind of
 * bad line refusing the file with its line number.
 */
#include <errno.h>
#include <string.h>

#include "sdtdata.h"
#include "tap.h"

static const char good[] =
	"# a comment\n"
	"\n"
	"probecache-sdt-args 1\n"
	"provider python\n"
	"source Include/pydtrace.d\n"
	"switch method__* -XX:+DTraceMethodProbes\n"
	"switch * USE_ZEND_DTRACE=1\n"
	"probe function__entry filename=arg1:string funcname=arg2:string lineno=arg3:s32\n"
	"  from pydtrace.d: probe function__entry(const char *, const char *, int)\n"
	"probe gc__done\n"
	"\tfrom pydtrace.d: probe gc__done()";	/* no final newline */

struct bcase {
	const char *text;
	const char *why;	/* a part of the refusal */
};

#define HEAD "probecache-sdt-args 1\nprovider p\nsource s\n"

static const struct bcase bad[] = {
	{ "", "empty file" },
	{ "# only a comment\n", "empty file" },
	{ "probecache-sdt-args 2\n", "line 1: not 'probecache-sdt-args 1'" },
	{ "probecache-sdt-args 1\nsource s\n", "line 2: 'source' before 'provider'" },
	{ "probecache-sdt-args 1\nprovider p\n", "no 'provider' or no 'source'" },
	{ "probecache-sdt-args 1\nprovider p/../x\nsource s\n", "line 2: 'p/../x' is no provider" },
	{ "probecache-sdt-args 1\nprovider p\nprovider q\nsource s\n", "line 3: 'provider' again" },
	{ HEAD "probe a arg1\n", "line 4: probe a has no 'from'" },
	{ HEAD "probe a arg1\nprobe b\nfrom x\n", "line 5: probe a has no 'from'" },
	{ HEAD "from x\n", "line 4: 'from' without a probe" },
	{ HEAD "probe a\nfrom x\nfrom y\n", "line 6: 'from' without a probe" },
	{ HEAD "probe a\nfrom\n", "line 5: 'from' says nothing" },
	{ HEAD "probe a\nfrom x\nprobe a\nfrom y\n", "line 6: probe a given twice" },
	{ HEAD "probe a-b\nfrom x\n", "line 4: 'a-b' is no probe name" },
	{ HEAD "probe a x=arg99\nfrom x\n", "line 4: probe a: expected argN" },
	{ HEAD "probe a pid=arg1\nfrom x\n", "line 4: probe a: 'pid'" },
	{ HEAD "switch *\n", "line 4: 'switch GLOB TEXT': no TEXT" },
	{ HEAD "source\n", "line 4: 'source' says nothing" },
	{ HEAD "args x\n", "line 4: unknown keyword 'args'" },
	{ HEAD "probe a\r\nfrom x\n", "line 4: NUL or CR byte" },
};

static void good_file(void)
{
	struct pc_sdtdata d;
	char why[256] = "";
	const struct pc_sdtdata_probe *p;
	int ret = pc_sdtdata_parse(good, sizeof(good) - 1, &d, why, sizeof(why));

	TAP_OK(!ret, "a good file parses: %s", why);
	if (ret)
		return;
	TAP_OK(!strcmp(d.provider, "python") && d.nsources == 1 && d.nprobes == 2 &&
	       d.nswitches == 2, "provider, source, probes and switches read");
	p = pc_sdtdata_find(&d, "function__entry");
	TAP_OK(p && p->args.n == 3 && p->line == 8 && !strcmp(p->args.a[2].name, "lineno") &&
	       !strncmp(p->from, "pydtrace.d: probe function__entry(", 34),
	       "function__entry: its 3 args, its line, its 'from'");
	p = pc_sdtdata_find(&d, "gc__done");
	TAP_OK(p && p->args.n == 0 && !strcmp(p->from, "pydtrace.d: probe gc__done()"),
	       "a probe without args, its 'from' on an unterminated last line");
	TAP_OK(!pc_sdtdata_find(&d, "line"), "an unknown probe is not found");
	TAP_OK(!strcmp(pc_sdtdata_switch(&d, "method__entry"), "-XX:+DTraceMethodProbes") &&
	       !strcmp(pc_sdtdata_switch(&d, "gc__done"), "USE_ZEND_DTRACE=1"),
	       "the first switch whose glob matches");
	pc_sdtdata_free(&d);
}

int main(void)
{
	good_file();
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct pc_sdtdata d;
		char why[256] = "";
		int ret = pc_sdtdata_parse(bad[i].text, strlen(bad[i].text), &d, why, sizeof(why));

		TAP_OK(ret == -EINVAL && strstr(why, bad[i].why) && !d.provider && !d.nprobes,
		       "refused (%s): %s", bad[i].why, why);
	}
	return tap_done();
}
