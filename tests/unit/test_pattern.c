// SPDX-License-Identifier: GPL-2.0
/* user/lib/pattern.c: PATTERN parsing and matching, kernel names for clash A. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/probecache.h>

#include "pattern.h"
#include "tap.h"

static struct pc_binary *bin(const char *bid, const char *path)
{
	struct pc_binary *b = pc_binary_new(bid);

	pc_binary_add_path(b, path);
	return b;
}

static struct pc_entry *entry(struct pc_binary *b, const char *group, const char *event,
			      const char *spec)
{
	struct pc_entry *e = pc_binary_add_entry(b);

	e->kind = PC_ENTRY_SDT;
	e->group = strdup(group);
	e->event = strdup(event);
	e->spec = strdup(spec);
	return e;
}

static bool matches(const char *pat, const struct pc_binary *b, const struct pc_entry *e)
{
	struct pc_pattern p;
	bool m;

	if (pc_pattern_parse(pat, &p))
		return false;
	m = pc_pattern_match(&p, b, e);
	pc_pattern_free(&p);
	return m;
}

static void test_parse(void)
{
	struct pc_pattern p;
	int ret;

	ret = pc_pattern_parse("sdt_x:a*@/usr/bin/x", &p);
	TAP_OK(ret == 0 && p.has_group && !strcmp(p.glob, "sdt_x:a*") &&
	       !strcmp(p.path, "/usr/bin/x") && !p.bid_prefix, "GLOB@/path");
	pc_pattern_free(&p);
	ret = pc_pattern_parse("throw@289EE3", &p);
	TAP_OK(ret == 0 && !p.has_group && !strcmp(p.bid_prefix, "289ee3"),
	       "EVENT@BUILDID-PREFIX, prefix lower-cased");
	pc_pattern_free(&p);
	ret = pc_pattern_parse("@/bin/x", &p);
	TAP_OK(ret == 0 && !strcmp(p.glob, "*"), "empty glob means every probe");
	pc_pattern_free(&p);
	ret = pc_pattern_parse("a:b:c", &p);
	TAP_OK(ret == -EINVAL, "two ':' refused");
	ret = pc_pattern_parse("x@zz", &p);
	TAP_OK(ret == -EINVAL, "qualifier neither path nor hex refused");
	ret = pc_pattern_parse("x@", &p);
	TAP_OK(ret == -EINVAL, "empty qualifier refused");
}

static void test_match(void)
{
	struct pc_binary *b = bin("289ee39f8c07bd4f", "/usr/lib/libstdc++.so.6.0.30");
	struct pc_entry *e0, *e1;

	entry(b, "sdt_libstdcxx", "throw", "libstdcxx:throw");
	entry(b, "sdt_libstdcxx", "throw_1", "libstdcxx:throw");
	e0 = &b->entries[0];
	e1 = &b->entries[1];
	TAP_OK(matches("sdt_libstdcxx:throw", b, e0) && matches("sdt_libstdcxx:throw", b, e1),
	       "a note's name selects all its locations");
	TAP_OK(!matches("sdt_libstdcxx:throw_1", b, e0) && matches("sdt_libstdcxx:throw_1", b, e1),
	       "NAME_N addresses one location");
	TAP_OK(matches("throw", b, e0) && matches("thr*", b, e1), "bare EVENT glob, any group");
	TAP_OK(!matches("sdt_other:throw", b, e0), "group must match when given");
	TAP_OK(matches("sdt_*:*", b, e0) && matches("*", b, e0), "globs over GROUP:EVENT");
	TAP_OK(matches("throw@/usr/lib/libstdc++.so.6.0.30", b, e0) &&
	       !matches("throw@/usr/lib/other.so", b, e0), "@/path chooses the binary");
	TAP_OK(matches("throw@289e", b, e0) && !matches("throw@289f", b, e0),
	       "@BUILDID-PREFIX chooses the version");
	pc_binary_free(b);
}

static void test_kernel_event(void)
{
	struct pc_binary *a = bin("aaaaaaaa11112222", "/bin/a");
	struct pc_binary *c = bin("cccccccc33334444", "/bin/c");
	struct pc_binary *a2 = bin("bbbbbbbb55556666", "/bin/a");	/* clash B with a */
	struct pc_binary *arr[] = { a, c, a2 };
	struct pc_snapshot s = { .n = 2, .b = arr };
	char buf[PROBECACHE_NAME_MAX + 1];
	char longname[60];

	entry(a, "sdt_rs", "always", "rs:always");
	entry(c, "sdt_rs", "always", "rs:always");
	entry(a, "sdt_rs", "tick", "rs:tick");
	entry(a2, "sdt_rs", "tick", "rs:tick");
	pc_kernel_event(&s, a, &a->entries[0], buf, sizeof(buf));
	TAP_OK(!strcmp(buf, "always_aaaaaaaa"), "clash A: build-id suffix (%s)", buf);
	pc_kernel_event(&s, c, &c->entries[0], buf, sizeof(buf));
	TAP_OK(!strcmp(buf, "always_cccccccc"), "clash A: the other one too (%s)", buf);
	s.n = 3;
	pc_kernel_event(&s, a2, &a2->entries[0], buf, sizeof(buf));
	TAP_OK(!strcmp(buf, "tick"), "clash B (same path) keeps the plain name");
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	entry(a, "sdt_rs", longname, "rs:x");
	entry(c, "sdt_rs", longname, "rs:x");
	pc_kernel_event(&s, a, &a->entries[2], buf, sizeof(buf));
	TAP_OK(strlen(buf) == PROBECACHE_NAME_MAX && !strcmp(buf + 54, "_aaaaaaaa"),
	       "long names are shortened to fit %d bytes", PROBECACHE_NAME_MAX);
	pc_binary_free(a);
	pc_binary_free(c);
	pc_binary_free(a2);
}

int main(void)
{
	test_parse();
	test_match();
	test_kernel_event();
	return tap_done();
}
