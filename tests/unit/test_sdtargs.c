// SPDX-License-Identifier: GPL-2.0
/*
 * user/lib/sdtargs.c: the ARG syntax (valid and refused), and applying
 * names and types to a note's record args, each check against the note.
 */
#include <errno.h>
#include <string.h>

#include "sdtargs.h"
#include "tap.h"

struct pcase {
	const char *text;
	int ret;
	const char *back;	/* pc_sdtargs_format() of the result */
};

static const struct pcase pcases[] = {
	{ "", 0, "" },
	{ "arg1", 0, "arg1=arg1" },
	{ "  arg2:s32\targ1 ", 0, "arg2=arg2:s32 arg1=arg1" },
	{ "path=arg1:string len=arg2:u32", 0, "path=arg1:string len=arg2:u32" },
	{ "type=+8(arg2):string", 0, "type=+8(arg2):string" },
	{ "v=-16(+0x10(arg3)):x64", 0, "v=-16(+16(arg3)):x64" },
	{ "a=+1(+2(+3(+4(arg1)))):u8", 0, "a=+1(+2(+3(+4(arg1)))):u8" },
	{ "a=+1(+2(+3(+4(+5(arg1))))):u8", -EINVAL, NULL },
	{ "arg16", 0, "arg16=arg16" },
	{ "arg17", -EINVAL, NULL },
	{ "arg0", -EINVAL, NULL },
	{ "arg01", -EINVAL, NULL },
	{ "x=arg1:u128", -EINVAL, NULL },
	{ "x=arg1:", -EINVAL, NULL },
	{ "x=arg1junk", -EINVAL, NULL },
	{ "+8(arg1):u64", -EINVAL, NULL },	/* a load needs a name */
	{ "x=+8(arg1:u64", -EINVAL, NULL },
	{ "x=+(arg1)", -EINVAL, NULL },
	{ "x=+99999999999999999999(arg1)", -EINVAL, NULL },
	{ "pid=arg1", -EINVAL, NULL },
	{ "common_pid=arg1", -EINVAL, NULL },
	{ "__probe_ip=arg1", -EINVAL, NULL },
	{ "9x=arg1", -EINVAL, NULL },
	{ "=arg1", -EINVAL, NULL },
	{ "a-b=arg1", -EINVAL, NULL },
	{ "abcdefghijabcdefghijabcdefghijab=arg1", -EINVAL, NULL },	/* 32 bytes */
	{ "abcdefghijabcdefghijabcdefghija=arg1", 0, "abcdefghijabcdefghijabcdefghija=arg1" },
	{ "a=arg1 a=arg2", -EINVAL, NULL },
	{ "arg1 arg1=arg2", -EINVAL, NULL },
	{ "a=arg1 b=arg1 c=arg1 d=arg1 e=arg1 f=arg1 g=arg1 h=arg1 i=arg1 j=arg1 k=arg1 "
	  "l=arg1 m=arg1 n=arg1 o=arg1 p2=arg1 q=arg1", -E2BIG, NULL },
};

struct acase {
	const char *args;	/* ARGs */
	const char *rec;	/* the note's unnamed record args */
	unsigned int nargs, wordsize;
	bool whole;
	int ret;
	const char *out;	/* named record args, or a part of the refusal's why */
};

static const struct acase acases[] = {
	/* python function__entry on Debian's python3.11 */
	{ "filename=arg1:string funcname=arg2:string lineno=arg3:s32",
	  "arg1=%bp:u64 arg2=%r12:u64 arg3=%ax:s32", 3, 8, true, 0,
	  "filename=+0(%bp):string funcname=+0(%r12):string lineno=%ax:s32" },
	/* a pointer kept on the stack, a pointer in .bss */
	{ "q=arg1:string", "arg1=-144(%bp):u64", 1, 8, true, 0, "q=+0(-144(%bp)):string" },
	{ "q=arg1:string", "arg1=@+0x895168:u64", 1, 8, true, 0, "q=+0(@+0x895168):string" },
	/* libstdc++ throw: the mangled name is the type_info's second word */
	{ "obj=arg1:x64 type=+8(arg2):string", "arg1=%di:u64 arg2=%si:u64", 2, 8, true, 0,
	  "obj=%di:x64 type=+0(+8(%si)):string" },
	{ "type=+8(arg2):string", "arg1=%dx:u64 arg2=-80(%bx):u64", 2, 8, false, 0,
	  "type=+0(+8(-80(%bx))):string" },
	/* no type: the note's own for argN, u64 for a load */
	{ "a=arg1 b=+4(arg2)", "arg1=%di:s32 arg2=%si:u64", 2, 8, true, 0,
	  "a=%di:s32 b=+4(%si):u64" },
	/* the sign is the entry's to choose, the size is the note's */
	{ "mode=arg1:u32", "arg1=%r14:s32", 1, 8, true, 0, "mode=%r14:u32" },
	{ "mode=arg1:u32", "arg1=%r14:u64", 1, 8, true, -EINVAL, "mode: arg1 is 8 bytes" },
	{ "mode=arg1:s64", "arg1=%ax:s32", 1, 8, true, -EINVAL, "s64 reads 8" },
	/* constants: by value */
	{ "unique=arg1:u8", "arg1=\\0:s32", 1, 8, true, 0, "unique=\\0:u8" },
	{ "unique=arg1:u8", "arg1=\\256:s32", 1, 8, true, -EINVAL, "u8 reads 1" },
	{ "ret=arg1:s32", "arg1=\\-1:u32", 1, 8, true, 0, "ret=\\-1:s32" },
	{ "ret=arg1:u32", "arg1=\\-1:s32", 1, 8, true, 0, "ret=\\-1:u32" },
	{ "ret=arg1:u32", "arg1=\\-1:u32", 1, 8, true, 0, "ret=\\-1:u32" },
	{ "v=arg1:u16", "arg1=\\-1:u32", 1, 8, true, -EINVAL, "u16 reads 2" },
	{ "v=arg1:x8", "arg1=\\-128:s32", 1, 8, true, 0, "v=\\-128:x8" },
	{ "v=arg1:x8", "arg1=\\255:s32", 1, 8, true, 0, "v=\\255:x8" },
	{ "len=arg1:s32", "arg1=\\8192:s32", 1, 8, true, 0, "len=\\8192:s32" },
	/* a string or a load needs a pointer */
	{ "s=arg1:string", "arg1=%ax:s32", 1, 8, true, -EINVAL, "not a 8-byte pointer" },
	{ "s=+8(arg1):u32", "arg1=%ax:u32", 1, 8, true, -EINVAL, "not a 8-byte pointer" },
	{ "s=arg1:string", "arg1=%ax:u32", 1, 4, true, 0, "s=+0(%ax):string" },
	/* a provider entry names every arg; a user names what it wants */
	{ "a=arg1", "arg1=%di:u64 arg2=%si:u64", 2, 8, true, -EINVAL, "arg2 has no name" },
	{ "a=arg2", "arg1=%di:u64 arg2=%si:u64", 2, 8, false, 0, "a=%si:u64" },
	{ "a=arg3", "arg1=%di:u64 arg2=%si:u64", 2, 8, false, -EINVAL, "the note has 2 args" },
	{ "a=arg2", "arg1=%di:u64", 2, 8, false, -EINVAL, "arg2 has no record form" },
	{ "", "", 0, 8, true, 0, "" },
	/* loads nest at most PROBECACHE_MAX_DEREF deep, the note's own included */
	{ "s=+8(+8(arg1)):string", "arg1=+8(%sp):u64", 1, 8, true, 0,
	  "s=+0(+8(+8(+8(%sp)))):string" },
	{ "s=+8(+8(arg1)):string", "arg1=+0(+8(%sp)):u64", 1, 8, true, -EINVAL, "deeper" },
	{ "s=arg1:string", "arg1=+0(+8(%ax,%bx,8)):u64", 1, 8, true, 0,
	  "s=+0(+0(+8(%ax,%bx,8))):string" },
	/* the note's record args must be unnamed */
	{ "a=arg1", "x=%di:u64", 1, 8, true, -EINVAL, "do not parse" },
	{ "a=arg1", "arg1=%di", 1, 8, true, -EINVAL, "do not parse" },
};

static void parse_cases(void)
{
	for (size_t i = 0; i < sizeof(pcases) / sizeof(pcases[0]); i++) {
		const struct pcase *c = &pcases[i];
		struct pc_sdtargs s;
		char why[256], back[512] = "";
		int ret = pc_sdtargs_parse(c->text, &s, why, sizeof(why));

		if (!ret)
			pc_sdtargs_format(&s, back, sizeof(back));
		TAP_OK(ret == c->ret && (ret ? why[0] != '\0' : !strcmp(back, c->back)),
		       "parse '%s': %d %s", c->text, ret, ret ? why : back);
	}
}

static void apply_cases(void)
{
	for (size_t i = 0; i < sizeof(acases) / sizeof(acases[0]); i++) {
		const struct acase *c = &acases[i];
		struct pc_sdtargs s;
		char why[256] = "", out[512];
		int ret = pc_sdtargs_parse(c->args, &s, why, sizeof(why));

		if (!ret)
			ret = pc_sdtargs_apply(&s, c->rec, c->nargs, c->wordsize, c->whole, out,
					       sizeof(out), why, sizeof(why));
		TAP_OK(ret == c->ret && (ret ? strstr(why, c->out) != NULL : !strcmp(out, c->out)),
		       "apply '%s' to '%s': %d %s", c->args, c->rec, ret, ret ? why : out);
	}
}

static void small_buffer(void)
{
	struct pc_sdtargs s;
	char why[128], out[8];
	int ret;

	pc_sdtargs_parse("filename=arg1:string", &s, why, sizeof(why));
	ret = pc_sdtargs_apply(&s, "arg1=%bp:u64", 1, 8, true, out, sizeof(out), why,
			       sizeof(why));
	TAP_OK(ret == -ENOSPC && strlen(out) < sizeof(out), "a short buffer: -ENOSPC, terminated");
}

int main(void)
{
	parse_cases();
	apply_cases();
	small_buffer();
	return tap_done();
}
