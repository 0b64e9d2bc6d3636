// SPDX-License-Identifier: GPL-2.0
/* perf probe-definition parser: accepted forms, their pieces, and rejections. */
#include <errno.h>
#include <string.h>

#include "probepoint.h"
#include "tap.h"

static const char *s(const char *v)
{
	return v ? v : "(null)";
}

static void test_points(void)
{
	struct pc_probe_desc pd;
	char err[128];
	int ret;

	ret = pc_pp_parse("work", &pd, err, sizeof(err));
	TAP_OK(!ret && !strcmp(s(pd.function), "work") &&
	       !pd.file && !pd.line && !pd.event && !pd.nargs, "bare function");
	pc_pp_free(&pd);
	ret = pc_pp_parse("grp:ev=work@src/t.c:3", &pd, err, sizeof(err));
	TAP_OK(!ret &&
	       !strcmp(s(pd.group), "grp") && !strcmp(s(pd.event), "ev") &&
	       !strcmp(s(pd.function), "work") && !strcmp(s(pd.file), "src/t.c") && pd.line == 3,
	       "GROUP:EVENT=FUNC@SRC:RLN");
	pc_pp_free(&pd);
	ret = pc_pp_parse("t.c:17", &pd, err, sizeof(err));
	TAP_OK(!ret && !pd.function &&
	       !strcmp(s(pd.file), "t.c") && pd.line == 17, "SRC:ALN");
	pc_pp_free(&pd);
	ret = pc_pp_parse("dir/t.c;loc+=*", &pd, err, sizeof(err));
	TAP_OK(!ret && !pd.function &&
	       !strcmp(s(pd.file), "dir/t.c") && !strcmp(s(pd.lazy), "loc+=*"), "SRC;PTN");
	pc_pp_free(&pd);
	ret = pc_pp_parse("work;a=b*", &pd, err, sizeof(err));
	TAP_OK(!ret && !strcmp(s(pd.function), "work") &&
	       !strcmp(s(pd.lazy), "a=b*") && !pd.event, "FUNC;PTN keeps '=' in the pattern");
	pc_pp_free(&pd);
	ret = pc_pp_parse("work+0x10", &pd, err, sizeof(err));
	TAP_OK(!ret && pd.offset == 16, "FUNC+OFFS hex");
	pc_pp_free(&pd);
	ret = pc_pp_parse("work%return $retval", &pd, err, sizeof(err));
	TAP_OK(!ret && pd.retprobe &&
	       pd.nargs == 1 && pd.args[0].kind == PC_PP_RETVAL, "FUNC%%return $retval");
	pc_pp_free(&pd);
	ret = pc_pp_parse("work@t.c%return", &pd, err, sizeof(err));
	TAP_OK(!ret && pd.retprobe &&
	       !strcmp(s(pd.file), "t.c"), "FUNC@SRC%%return");
	pc_pp_free(&pd);
}

static void test_args(void)
{
	struct pc_probe_desc pd;
	char err[128], name[64];
	const struct pc_pp_arg *a;
	int ret;

	ret = pc_pp_parse("f p->next->y foo=arr[3].x:u8 s:string $params %di", &pd,
			    err, sizeof(err));
	TAP_OK(!ret && pd.nargs == 5, "five args parse");
	a = &pd.args[0];
	TAP_OK(a->kind == PC_PP_VAR && !strcmp(a->var, "p") && a->nfields == 2 &&
	       a->fields[0].ref && !strcmp(a->fields[0].name, "next") &&
	       !strcmp(a->fields[1].name, "y"), "p->next->y fields");
	TAP_OK(!pc_pp_arg_tvname(a, name, sizeof(name)) && !strcmp(name, "y"),
	       "p->next->y named after its last field");
	a = &pd.args[1];
	TAP_OK(!strcmp(s(a->name), "foo") && a->nfields == 2 && !a->fields[0].name &&
	       a->fields[0].index == 3 && !a->fields[1].ref && !strcmp(s(a->type), "u8"),
	       "foo=arr[3].x:u8");
	a = &pd.args[2];
	TAP_OK(!pc_pp_arg_tvname(a, name, sizeof(name)) && !strcmp(name, "s_string"),
	       "s:string named s_string like perf");
	TAP_OK(pd.args[3].kind == PC_PP_PARAMS && pd.args[4].kind == PC_PP_REG,
	       "$params and %%di kinds");
	pc_pp_free(&pd);
}

static void test_rejects(void)
{
	static const char *const bad[] = {
		"", "t.c", "work:3+4", "work;", "work+4%return", "work%entry",
		"work:abc", "1ev=work", "work a:u128", "work a[x]", "work a->", "work %",
		"work $retval", "work%return a", "work@a.c@b.c", "t.c+4", "g-x:e=work",
		"work a->1b", "w-k",
	};
	struct pc_probe_desc pd;
	char err[128];
	int ret;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		ret = pc_pp_parse(bad[i], &pd, err, sizeof(err));
		TAP_OK(ret < 0 && err[0] && !pd.function && !pd.nargs,
		       "rejects '%s': %s", bad[i], err);
	}
	{
		char big[1024] = "f";

		for (int i = 0; i < 17; i++)
			strcat(big, " a");
		ret = pc_pp_parse(big, &pd, err, sizeof(err));
		TAP_OK(ret == -E2BIG, "17 args: %s", err);
	}
}

static void test_glob(void)
{
	TAP_OK(pc_glob_match("malloc", "mall*") && pc_glob_match("ab", "a?") &&
	       !pc_glob_match("abc", "a?") && pc_glob_match("x1", "x[0-9]") &&
	       !pc_glob_match("xa", "x[0-9]") && pc_glob_match("a*b", "a\\*b") &&
	       !pc_glob_match("axb", "a\\*b") && !pc_glob_match("x", "*[") &&
	       !pc_glob_match("a", "[!a"), "glob (unterminated classes too)");
	TAP_OK(pc_lazy_match("\tloc += strlen(s);", "loc+=*") &&
	       pc_lazy_match("  return loc + p->x;", "return*") &&
	       !pc_lazy_match("int loc = 1;", "loc*"), "lazy match ignores blanks");
}

static void test_group(void)
{
	char g[64];

	TAP_OK(!pc_pp_default_group("/usr/lib/libc.so.6", g, sizeof(g)) &&
	       !strcmp(g, "probe_libc"), "group of libc.so.6: %s", g);
	TAP_OK(!pc_pp_default_group("/x/dw-app_2", g, sizeof(g)) && !strcmp(g, "probe_dw"),
	       "group cut at '-': %s", g);
	TAP_OK(pc_pp_default_group("/x/.hidden", g, sizeof(g)) < 0, "no usable basename");
}

int main(void)
{
	test_points();
	test_args();
	test_rejects();
	test_glob();
	test_group();
	return tap_done();
}
