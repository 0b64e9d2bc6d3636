// SPDX-License-Identifier: GPL-2.0
/*
 * user/lib/openmetrics.c: label values escaped as the Prometheus text format
 * wants them (\\, \", \n), every byte that is not well-formed UTF-8 (overlong
 * forms, surrogates, past U+10FFFF, cut short) and other control characters
 * written as the text \xHH; samples with and without labels. user/lib/uprofile.c:
 * tracefs's uprobe_profile lines, as Linux prints them and refused otherwise.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "openmetrics.h"
#include "uprofile.h"
#include "tap.h"

/* what was written, as a string (overwritten by the next call) */
static char out[1024];

static const char *value(const char *v)
{
	FILE *f = fmemopen(memset(out, 0, sizeof(out)), sizeof(out), "w");

	pc_om_value(f, v);
	fclose(f);
	return out;
}

static void esc(const char *v, const char *want, const char *what)
{
	const char *got = value(v);

	TAP_OK(!strcmp(got, want), "label value, %s: '%s' (got '%s')", what, want, got);
}

static void utf8(const char *s, size_t want, const char *what)
{
	size_t got = pc_utf8_len((const unsigned char *)s);

	TAP_OK(got == want, "pc_utf8_len, %s: %zu (got %zu)", what, want, got);
}

static void sample(void)
{
	const char *l[] = { "event", "g:e", "path", "/a\"b" };
	FILE *f = fmemopen(memset(out, 0, sizeof(out)), sizeof(out), "w");

	pc_om_sample(f, "x_total", l, 2, 18446744073709551615ull);
	pc_om_sample(f, "y", NULL, 0, 0);
	pc_om_family(f, "y", "gauge", "Why.");
	fclose(f);
	TAP_OK(!strcmp(out, "x_total{event=\"g:e\",path=\"/a\\\"b\"} 18446744073709551615\ny 0\n"
		       "# HELP y Why.\n# TYPE y gauge\n"), "samples and a family header: '%s'", out);
}

static int parse(const char *text, struct pc_uprofile *u, size_t *lineno)
{
	char *buf = strdup(text);

	return buf ? pc_uprofile_parse(buf, strlen(buf), u, lineno) : -ENOMEM;
}

static void uprofile(void)
{
	struct pc_uprofile u;
	size_t line;
	int ret = parse("  /usr/bin/a tick                                                  12\n"
			"\n  /proc/7/root/b sdt_x/tock\t0\n", &u, &line);

	TAP_OK(!ret && u.n == 2 && !strcmp(u.r[0].file, "/usr/bin/a") &&
	       !strcmp(u.r[0].event, "tick") && u.r[0].hits == 12 &&
	       !strcmp(u.r[1].event, "sdt_x/tock") && !u.r[1].hits,
	       "uprobe_profile: two rows, a blank line skipped (ret %d, n %zu)", ret, u.n);
	pc_uprofile_free(&u);
	ret = parse("", &u, &line);
	TAP_OK(!ret && !u.n, "uprobe_profile: empty, no rows");
	pc_uprofile_free(&u);
	static const char *const bad[] = {
		"  /a tick\n", "  /a tick 1 2\n", "  /a tick x\n", "  /a tick -1\n",
		"  /a tick 18446744073709551616\n", "  /a tick 12x\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ret = parse(bad[i], &u, &line);
		TAP_OK(ret == -EINVAL && line == 1 && !u.n && !u.r,
		       "uprobe_profile refuses '%.*s' at line 1 (ret %d)", (int)strlen(bad[i]) - 1,
		       bad[i], ret);
		pc_uprofile_free(&u);
	}
	ret = parse("  /a t 1\n  /b t\n", &u, &line);
	TAP_OK(ret == -EINVAL && line == 2, "uprobe_profile: the bad line's number (%zu)", line);
	pc_uprofile_free(&u);
}

int main(void)
{
	esc("/usr/lib/x.so", "/usr/lib/x.so", "plain");
	esc("", "", "empty");
	esc("a\"b\\c\nd", "a\\\"b\\\\c\\nd", "quote, backslash, newline");
	esc("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
	    "2-, 3- and 4-byte UTF-8 kept");
	esc("a\xff" "b", "a\\\\xffb", "a byte that is never UTF-8");
	esc("\xc3", "\\\\xc3", "a sequence cut short at the end");
	esc("\xc3(", "\\\\xc3(", "a lead byte without its continuation");
	esc("\xc0\xaf", "\\\\xc0\\\\xaf", "an overlong '/'");
	esc("\xed\xa0\x80", "\\\\xed\\\\xa0\\\\x80", "a surrogate");
	esc("\xf4\x90\x80\x80", "\\\\xf4\\\\x90\\\\x80\\\\x80", "past U+10FFFF");
	esc("\t\x7f", "\\\\x09\\\\x7f", "control characters");
	utf8("a", 1, "ASCII");
	utf8("\xdf\xbf", 2, "U+07FF");
	utf8("\xe0\x9f\xbf", 0, "overlong 3-byte");
	utf8("\xe0\xa0\x80", 3, "U+0800");
	utf8("\xef\xbf\xbf", 3, "U+FFFF");
	utf8("\xf0\x8f\xbf\xbf", 0, "overlong 4-byte");
	utf8("\xf4\x8f\xbf\xbf", 4, "U+10FFFF");
	utf8("\xf5\x80\x80\x80", 0, "lead byte F5");
	utf8("\x80", 0, "a lone continuation byte");
	utf8("\xe2\x82", 0, "cut short by the end of the string");
	sample();
	uprofile();
	return tap_done();
}
