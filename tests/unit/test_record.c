// SPDX-License-Identifier: GPL-2.0
/*
 * Control-line parser (common/record.c): every fetcharg form with its parsed
 * fields, whole records, rejections with field + column + reason, the
 * round trip through pc_format_args, and the small lookup helpers.
 */
#include <stdio.h>
#include <stdlib.h>

#include "record.h"
#include "record_eq.h"
#include "tap.h"

#define HDR	"add p:g/e ab /x:0x10 "		/* args start at column 22 */
#define RHDR	"add r:g/e ab /x:0x10 "

static struct pc_command cmd, cmd2;
static struct pc_parse_error err;

static int parse(const char *line, size_t len, unsigned int max_args)
{
	return pc_parse_command(line, len, max_args, &cmd, &err);
}

static int parse_m(enum pc_mach m, const char *line)
{
	return pc_parse_command_mach(line, strlen(line), m, PROBECACHE_MAX_ARGS, &cmd, &err);
}

static const char *s(const char *v)
{
	return v ? v : "(null)";
}


/*
 * parse(format(parse(x))) == parse(x): re-parse the formatted args behind
 * the same header and compare every arg. @cmd holds parse(x).
 */
static bool round_trip(const char *hdr, char *fmt, size_t size)
{
	char line[8192];
	unsigned int i;
	int n;

	n = pc_format_args(&cmd.rec, fmt, size);
	if (n < 0)
		return false;
	snprintf(line, sizeof(line), "%s%s", hdr, fmt);
	if (pc_parse_command(line, strlen(line), PROBECACHE_MAX_ARGS, &cmd2, &err))
		return false;
	if (cmd2.rec.nargs != cmd.rec.nargs)
		return false;
	for (i = 0; i < cmd.rec.nargs; i++)
		if (!arg_eq(&cmd.rec.args[i], &cmd2.rec.args[i]))
			return false;
	return true;
}

struct arg_case {
	const char *arg;	/* appended to HDR (or RHDR when @ret) */
	bool ret;
	enum pc_base_kind kind;
	u64 v;			/* reg, imm (as u64), or fileoff */
	u8 index, scale;	/* SIB */
	u8 nderef;
	s64 deref[PROBECACHE_MAX_DEREF];
	enum pc_type type;
	const char *canon;	/* pc_format_args output */
};

static const struct arg_case arg_cases[] = {
	{ "a=%di", 0, PC_BASE_REG, PC_REG_DI, 0, 0, 0, {0}, PC_T_U64, "a=%di:u64" },
	{ "a=%ax:u8", 0, PC_BASE_REG, PC_REG_AX, 0, 0, 0, {0}, PC_T_U8, "a=%ax:u8" },
	{ "a=%r15:s32", 0, PC_BASE_REG, PC_REG_R15, 0, 0, 0, {0}, PC_T_S32, "a=%r15:s32" },
	{ "a=%ip:x64", 0, PC_BASE_REG, PC_REG_IP, 0, 0, 0, {0}, PC_T_X64, "a=%ip:x64" },
	{ "_A9=%r8:x16", 0, PC_BASE_REG, PC_REG_R8, 0, 0, 0, {0}, PC_T_X16, "_A9=%r8:x16" },
	{ "a=\\42", 0, PC_BASE_IMM, 42, 0, 0, 0, {0}, PC_T_U64, "a=\\42:u64" },
	{ "a=\\-8:s8", 0, PC_BASE_IMM, (u64)-8, 0, 0, 0, {0}, PC_T_S8, "a=\\-8:s8" },
	{ "a=\\0x601040", 0, PC_BASE_IMM, 0x601040, 0, 0, 0, {0}, PC_T_U64, "a=\\6295616:u64" },
	{ "a=\\0xffffffffffffffff", 0, PC_BASE_IMM, ~0ULL, 0, 0, 0, {0}, PC_T_U64, "a=\\-1:u64" },
	{ "a=\\-9223372036854775808", 0, PC_BASE_IMM, 1ULL << 63, 0, 0, 0, {0}, PC_T_U64,
	  "a=\\-9223372036854775808:u64" },
	{ "a=+8(%sp)", 0, PC_BASE_REG, PC_REG_SP, 0, 0, 1, {8}, PC_T_U64, "a=+8(%sp):u64" },
	{ "a=-0x10(%bp):s16", 0, PC_BASE_REG, PC_REG_BP, 0, 0, 1, {-16}, PC_T_S16,
	  "a=-16(%bp):s16" },
	{ "a=+0(+16(%di)):u32", 0, PC_BASE_REG, PC_REG_DI, 0, 0, 2, {16, 0}, PC_T_U32,
	  "a=+0(+16(%di)):u32" },
	{ "a=+1(+2(+3(+4(%si))))", 0, PC_BASE_REG, PC_REG_SI, 0, 0, 4, {4, 3, 2, 1}, PC_T_U64,
	  "a=+1(+2(+3(+4(%si)))):u64" },
	{ "a=+0(%di):string", 0, PC_BASE_REG, PC_REG_DI, 0, 0, 1, {0}, PC_T_STRING,
	  "a=+0(%di):string" },
	{ "a=+0(\\0x601040):u32", 0, PC_BASE_IMM, 0x601040, 0, 0, 1, {0}, PC_T_U32,
	  "a=+0(\\6295616):u32" },
	{ "a=+8(%ax,%bx,4)", 0, PC_BASE_SIB, PC_REG_AX, PC_REG_BX, 4, 1, {8}, PC_T_U64,
	  "a=+8(%ax,%bx,4):u64" },
	/* non-PIE global array: no base register */
	{ "a=+6295616(,%di,8):s32", 0, PC_BASE_SIB, PC_REG_NONE, PC_REG_DI, 8, 1, {6295616},
	  PC_T_S32, "a=+6295616(,%di,8):s32" },
	{ "a=-4(%r12,%r13,1):s32", 0, PC_BASE_SIB, PC_REG_R12, PC_REG_R13, 1, 1, {-4}, PC_T_S32,
	  "a=-4(%r12,%r13,1):s32" },
	{ "a=+0(+0x10(%dx,%cx,8)):string", 0, PC_BASE_SIB, PC_REG_DX, PC_REG_CX, 8, 2, {16, 0},
	  PC_T_STRING, "a=+0(+16(%dx,%cx,8)):string" },
	{ "a=@+0x4010", 0, PC_BASE_FILEOFF, 0x4010, 0, 0, 1, {0}, PC_T_U64, "a=@+0x4010:u64" },
	{ "a=@+100:u16", 0, PC_BASE_FILEOFF, 100, 0, 0, 1, {0}, PC_T_U16, "a=@+0x64:u16" },
	{ "a=@+0x4010:string", 0, PC_BASE_FILEOFF, 0x4010, 0, 0, 1, {0}, PC_T_STRING,
	  "a=@+0x4010:string" },
	{ "a=+8(-16(+24(@+0x4010))):x32", 0, PC_BASE_FILEOFF, 0x4010, 0, 0, 4, {0, 24, -16, 8},
	  PC_T_X32, "a=+8(-16(+24(@+0x4010))):x32" },
	{ "a=$retval", 1, PC_BASE_RETVAL, 0, 0, 0, 0, {0}, PC_T_U64, "a=$retval:u64" },
	{ "a=$retval:s64", 1, PC_BASE_RETVAL, 0, 0, 0, 0, {0}, PC_T_S64, "a=$retval:s64" },
	{ "a=+0($retval):string", 1, PC_BASE_RETVAL, 0, 0, 0, 1, {0}, PC_T_STRING,
	  "a=+0($retval):string" },
	{ "a=%di:x8", 1, PC_BASE_REG, PC_REG_DI, 0, 0, 0, {0}, PC_T_X8, "a=%di:x8" },
	{ "a=-9223372036854775808(%di)", 0, PC_BASE_REG, PC_REG_DI, 0, 0, 1, {INT64_MIN},
	  PC_T_U64, "a=-9223372036854775808(%di):u64" },
	{ "a=+9223372036854775807(%di)", 0, PC_BASE_REG, PC_REG_DI, 0, 0, 1, {INT64_MAX},
	  PC_T_U64, "a=+9223372036854775807(%di):u64" },
};

static bool arg_matches(const struct arg_case *c, const struct pc_arg *a)
{
	unsigned int i;

	if (a->kind != c->kind || a->nderef != c->nderef || a->type != c->type)
		return false;
	for (i = 0; i < c->nderef; i++)
		if (a->deref[i] != c->deref[i])
			return false;
	switch (c->kind) {
	case PC_BASE_REG:
		return a->reg == c->v;
	case PC_BASE_IMM:
		return (u64)a->imm == c->v;
	case PC_BASE_SIB:
		return a->sib.base == c->v && a->sib.index == c->index && a->sib.scale == c->scale;
	case PC_BASE_FILEOFF:
		return a->fileoff == c->v;
	case PC_BASE_RETVAL:
		return true;
	}
	return false;
}

static void test_fetchargs(void)
{
	char line[512], fmt[512];
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(arg_cases); i++) {
		const struct arg_case *c = &arg_cases[i];

		snprintf(line, sizeof(line), "%s%s", c->ret ? RHDR : HDR, c->arg);
		ret = parse(line, strlen(line), PROBECACHE_MAX_ARGS);
		TAP_OK(!ret && cmd.rec.nargs == 1 && arg_matches(c, &cmd.rec.args[0]),
		       "arg '%s' parses to the expected fields", c->arg);
		if (ret)
			printf("# col %u %s: %s\n", err.column, s(err.field), s(err.why));
		fmt[0] = '\0';
		TAP_OK(!ret && round_trip(c->ret ? RHDR : HDR, fmt, sizeof(fmt)) &&
		       !strcmp(fmt, c->canon), "arg '%s' formats as '%s' and round-trips",
		       c->arg, c->canon);
		if (strcmp(fmt, c->canon))
			printf("# got '%s'\n", fmt);
	}
}

static void test_records(void)
{
	static const u8 bid[20] = {
		0xc8, 0x91, 0x56, 0xeb, 0xda, 0xbf, 0x85, 0x9f, 0x4e, 0xe7,
		0x0c, 0xb0, 0xc3, 0x03, 0x00, 0x4d, 0xcc, 0xf1, 0xae, 0x51,
	};
	const char *l;
	int ret;

	l = "add p:sdt_libc/setjmp c89156ebdabf859f4ee70cb0c303004dccf1ae51 "
	    "/usr/lib/x86_64-linux-gnu/libc.so.6:0x2a0f1";
	ret = parse(l, strlen(l), 16);
	TAP_OK(!ret && cmd.cmd == PC_CMD_ADD && !cmd.rec.retprobe &&
	       !strcmp(cmd.rec.group, "sdt_libc") && !strcmp(cmd.rec.event, "setjmp") &&
	       cmd.rec.build_id_len == 20 && !memcmp(cmd.rec.build_id, bid, 20) &&
	       cmd.rec.path_len == 35 && cmd.rec.path == l + 63 &&
	       !memcmp(cmd.rec.path, "/usr/lib/x86_64-linux-gnu/libc.so.6", 35) &&
	       cmd.rec.offset == 0x2a0f1 && !cmd.rec.ref_ctr_offset && !cmd.rec.pid &&
	       !cmd.rec.nargs, "plain p: record: every field");

	l = "add r:G_1/Ev_2 C89156EBDABF859F4EE70CB0C303004DCCF1AE51 /a:b/c.so:0x0(0x1f)"
	    " pid=4194304 x=%di:u32 y=$retval";
	ret = parse(l, strlen(l), 16);
	TAP_OK(!ret && cmd.rec.retprobe && !strcmp(cmd.rec.group, "G_1") &&
	       !strcmp(cmd.rec.event, "Ev_2") && !memcmp(cmd.rec.build_id, bid, 20) &&
	       cmd.rec.path_len == 9 && !memcmp(cmd.rec.path, "/a:b/c.so", 9) &&
	       cmd.rec.offset == 0 && cmd.rec.ref_ctr_offset == 0x1f &&
	       cmd.rec.pid == 4194304 && cmd.rec.nargs == 2 &&
	       !strcmp(cmd.rec.args[0].name, "x") && !strcmp(cmd.rec.args[1].name, "y"),
	       "r: record, upper-case build-id, ':' in path, ref_ctr, pid, args");

	l = "  add   p:g/e   0a   /x:0xffffffffffffffff(0xffffffffffffffff)   pid=2147483647  ";
	ret = parse(l, strlen(l), 16);
	TAP_OK(!ret && cmd.rec.build_id_len == 1 && cmd.rec.build_id[0] == 0x0a &&
	       cmd.rec.offset == ~0ULL && cmd.rec.ref_ctr_offset == ~0ULL &&
	       cmd.rec.pid == 2147483647 && cmd.rec.path_len == 2,
	       "extra spaces; 1-byte build-id; u64 max offsets; s32 max pid");

	l = "del grp_1:ev";
	ret = parse(l, strlen(l), 16);
	TAP_OK(!ret && cmd.cmd == PC_CMD_DEL && !strcmp(cmd.group, "grp_1") &&
	       !strcmp(cmd.event, "ev"), "del GROUP:EVENT");
	ret = parse("clear", 5, 16);
	TAP_OK(!ret && cmd.cmd == PC_CMD_CLEAR, "clear");
	ret = parse(" clear ", 7, 16);
	TAP_OK(!ret && cmd.cmd == PC_CMD_CLEAR, "clear with surrounding spaces");
	ret = parse("clear\n", 5, 16);
	TAP_OK(!ret && cmd.cmd == PC_CMD_CLEAR, "only @len bytes are looked at");

	l = "site g:e /proc/12/map_files/7f00-7f10";
	ret = parse(l, strlen(l), 16);
	TAP_OK(!ret && cmd.cmd == PC_CMD_SITE && !strcmp(cmd.group, "g") &&
	       !strcmp(cmd.event, "e") && cmd.rec.path_len == 28 &&
	       !memcmp(cmd.rec.path, "/proc/12/map_files/7f00-7f10", 28),
	       "site GROUP:EVENT PATH");
	l = "site g:e";
	ret = parse(l, strlen(l), 16);
	TAP_OK(ret == -EINVAL && !strcmp(s(err.field), "path") && err.column == 9,
	       "site without a path: col %u", err.column);
	l = "site g:e lib.so";
	ret = parse(l, strlen(l), 16);
	TAP_OK(ret == -EINVAL && !strcmp(s(err.field), "path") && err.column == 10,
	       "site with a relative path: col %u", err.column);
	l = "site g:e /a/../b";
	ret = parse(l, strlen(l), 16);
	TAP_OK(ret == -EINVAL && !strcmp(s(err.field), "path"), "site: path not normalized");
	l = "site g:e /a /b";
	ret = parse(l, strlen(l), 16);
	TAP_OK(ret == -EINVAL && !strcmp(s(err.field), "command") && err.column == 13,
	       "site: trailing characters at col %u", err.column);
	l = "site g /a";
	ret = parse(l, strlen(l), 16);
	TAP_OK(ret == -EINVAL && !strcmp(s(err.field), "group"), "site: GROUP without :EVENT");

	l = "unsite g:e 259:3 18446744073709551615";
	ret = parse(l, strlen(l), 16);
	TAP_OK(!ret && cmd.cmd == PC_CMD_UNSITE && !strcmp(cmd.group, "g") &&
	       !strcmp(cmd.event, "e") && cmd.dev_major == 259 && cmd.dev_minor == 3 &&
	       cmd.ino == ~0ULL, "unsite GROUP:EVENT MAJ:MIN INO (u64 max inode)");
	l = "unsite g:e 4294967296:0 1";
	ret = parse(l, strlen(l), 16);
	TAP_OK(ret == -EINVAL && !strcmp(s(err.field), "dev") && err.column == 12,
	       "unsite: major past u32 at col %u", err.column);
	l = "unsite g:e 8 1";
	ret = parse(l, strlen(l), 16);
	TAP_OK(ret == -EINVAL && !strcmp(s(err.field), "dev") && err.column == 13,
	       "unsite: MAJ without :MIN, col %u", err.column);
	l = "unsite g:e 8:1x 1";
	ret = parse(l, strlen(l), 16);
	TAP_OK(ret == -EINVAL && !strcmp(s(err.field), "dev") && err.column == 15,
	       "unsite: junk after MIN at col %u", err.column);
	l = "unsite g:e 8:1";
	ret = parse(l, strlen(l), 16);
	TAP_OK(ret == -EINVAL && !strcmp(s(err.field), "ino") && err.column == 15,
	       "unsite without an inode: col %u", err.column);
	l = "unsite g:e 8:1 12a";
	ret = parse(l, strlen(l), 16);
	TAP_OK(ret == -EINVAL && !strcmp(s(err.field), "ino") && err.column == 18,
	       "unsite: junk in INO at col %u", err.column);
	l = "unsite g:e 8:1 12 x";
	ret = parse(l, strlen(l), 16);
	TAP_OK(ret == -EINVAL && !strcmp(s(err.field), "command") && err.column == 19,
	       "unsite: trailing characters at col %u", err.column);
}

/* Names, paths and lists at their exact limits, one byte either side. */
static void test_limits(void)
{
	char line[PATH_MAX + 256], name[128];
	size_t n;
	int ret, i;

	memset(name, 'n', sizeof(name));
	snprintf(line, sizeof(line), "add p:%.63s/%.63s ab /x:0x1", name, name);
	ret = parse(line, strlen(line), 16);
	TAP_OK(!ret && strlen(cmd.rec.group) == 63 && strlen(cmd.rec.event) == 63,
	       "63-byte group and event accepted");
	snprintf(line, sizeof(line), "add p:%.64s/e ab /x:0x1", name);
	ret = parse(line, strlen(line), 16);
	TAP_OK(ret == -ENAMETOOLONG && !strcmp(s(err.field), "group") && err.column == 70,
	       "64-byte group: -ENAMETOOLONG at its 64th byte (col %u)", err.column);
	snprintf(line, sizeof(line), "del g:%.64s", name);
	ret = parse(line, strlen(line), 16);
	TAP_OK(ret == -ENAMETOOLONG && !strcmp(s(err.field), "event") && err.column == 70,
	       "del: 64-byte event rejected at col %u", err.column);
	snprintf(line, sizeof(line), HDR "%.31s=%%di", name);
	ret = parse(line, strlen(line), 16);
	TAP_OK(!ret && strlen(cmd.rec.args[0].name) == 31, "31-byte arg name accepted");
	snprintf(line, sizeof(line), HDR "%.32s=%%di", name);
	ret = parse(line, strlen(line), 16);
	TAP_OK(ret == -ENAMETOOLONG && !strcmp(s(err.field), "arg1") && err.column == 22 + 31,
	       "32-byte arg name rejected at col %u", err.column);

	snprintf(line, sizeof(line), "add p:g/e %.40s /x:0x1", "0123456789abcdef0123456789abcdef01234567");
	ret = parse(line, strlen(line), 16);
	TAP_OK(!ret && cmd.rec.build_id_len == 20 && cmd.rec.build_id[19] == 0x67,
	       "40-digit build-id accepted");
	snprintf(line, sizeof(line), "add p:g/e %s /x:0x1", "0123456789abcdef0123456789abcdef0123456789");
	ret = parse(line, strlen(line), 16);
	TAP_OK(ret == -EINVAL && !strcmp(s(err.field), "build-id") && err.column == 11 + 40,
	       "42-digit build-id rejected at its 41st digit (col %u)", err.column);

	n = (size_t)snprintf(line, sizeof(line), "add p:g/e ab /");
	memset(line + n, 'p', PATH_MAX - 2);
	strcpy(line + n + PATH_MAX - 2, ":0x1");
	ret = parse(line, strlen(line), 16);
	TAP_OK(!ret && cmd.rec.path_len == PATH_MAX - 1, "path of PATH_MAX-1 bytes accepted");
	memset(line + n, 'p', PATH_MAX - 1);
	strcpy(line + n + PATH_MAX - 1, ":0x1");
	ret = parse(line, strlen(line), 16);
	TAP_OK(ret == -ENAMETOOLONG && !strcmp(s(err.field), "path") &&
	       err.column == 13 + PATH_MAX, "path of PATH_MAX bytes rejected at col %u",
	       err.column);

	n = (size_t)snprintf(line, sizeof(line), HDR);
	for (i = 0; i < 16; i++)
		n += (size_t)snprintf(line + n, sizeof(line) - n, "a%d=%%di ", i);
	ret = parse(line, n - 1, 16);
	TAP_OK(!ret && cmd.rec.nargs == 16 && !strcmp(cmd.rec.args[15].name, "a15"),
	       "16 args accepted with max_args 16");
	ret = parse(line, n - 1, 100);
	TAP_OK(!ret && cmd.rec.nargs == 16, "max_args above the ceiling is clamped, 16 still fit");
	strcpy(line + n, "z=%ax");
	ret = parse(line, strlen(line), 100);
	TAP_OK(ret == -E2BIG && !strcmp(s(err.field), "arg17") && err.column == n + 1,
	       "17th arg: -E2BIG, field arg17, col %u", err.column);
	ret = parse(HDR "a=%di b=%si c=%dx", strlen(HDR) + 17, 2);
	TAP_OK(ret == -E2BIG && !strcmp(s(err.field), "arg3") && err.column == 22 + 12,
	       "max_args 2: third arg refused at col %u", err.column);
	ret = parse(HDR "a=%di", strlen(HDR) + 5, 0);
	TAP_OK(ret == -E2BIG && !strcmp(s(err.field), "arg1"), "max_args 0: no args at all");
}

struct bad_case {
	const char *line;
	size_t len;		/* 0: strlen(line) */
	const char *caret;	/* '^' under the offending byte */
	int ret;
	const char *field;
	const char *why;
};

#define E(l, c, f, w)	{ l, 0, c, -EINVAL, f, w }

static const struct bad_case bad_cases[] = {
	E("", "^", "command", "empty line"),
	E("   ", "^", "command", "empty line"),
	E("ad", "^", "command", "unknown command"),
	E("adds p:g/e ab /x:0x1", "^", "command", "unknown command"),
	E("ADD p:g/e ab /x:0x1", "^", "command", "unknown command"),
	E("clear x", "      ^", "command", "trailing characters"),
	E("clear\t", "     ^", "command", "control character"),
	E("del g:e x", "        ^", "command", "trailing characters"),
	E("del", "   ^", "group", "expected GROUP:EVENT"),
	E("del ge", "      ^", "group", "expected ':' after group"),
	E("del g:", "      ^", "event", "empty name"),
	E("del g:e/f", "       ^", "event", "invalid character in name"),
	E("add", "   ^", "probe type", "expected 'p:' or 'r:'"),
	E("add x:g/e ab /x:0x1", "    ^", "probe type", "expected 'p:' or 'r:'"),
	E("add p/g/e ab /x:0x1", "     ^", "probe type", "expected 'p:' or 'r:'"),
	E("add p", "     ^", "probe type", "expected 'p:' or 'r:'"),
	E("add p:ge ab /x:0x1", "        ^", "group", "expected '/' after group"),
	E("add p:/e ab /x:0x1", "      ^", "group", "empty name"),
	E("add p:1g/e ab /x:0x1", "      ^", "group", "name starts with a digit"),
	E("add p:g-x/e ab /x:0x1", "       ^", "group", "invalid character in name"),
	E("add p:g/ ab /x:0x1", "        ^", "event", "empty name"),
	E("add p:g/e.1 ab /x:0x1", "         ^", "event", "invalid character in name"),
	E("add p:g/e", "         ^", "build-id", "missing build-id"),
	E("add p:g/e abc /x:0x1", "            ^", "build-id", "odd number of hex digits"),
	E("add p:g/e a /x:0x1", "          ^", "build-id", "odd number of hex digits"),
	E("add p:g/e abxd /x:0x1", "            ^", "build-id", "invalid hex digit"),
	E("add p:g/e 0xab /x:0x1", "           ^", "build-id", "invalid hex digit"),
	E("add p:g/e ab", "            ^", "path", "missing path"),
	E("add p:g/e ab x:0x1", "             ^", "path", "path must be absolute"),
	E("add p:g/e ab :0x1", "             ^", "path", "path must be absolute"),
	E("add p:g/e ab bin/true", "             ^", "path", "path must be absolute"),
	E("add p:g/e ab /bin//true:0x1", "                  ^", "path", "empty path component"),
	E("add p:g/e ab /bin/./true:0x1", "                  ^", "path", "'.' or '..' component"),
	E("add p:g/e ab /bin/../true:0x1", "                  ^", "path", "'.' or '..' component"),
	E("add p:g/e ab /bin/:0x1", "                 ^", "path", "path ends with '/'"),
	E("add p:g/e ab /:0x1", "             ^", "path", "path ends with '/'"),
	E("add p:g/e ab /bin\x7ftrue:0x1", "                 ^", "path", "control character"),
	E("add p:g/e ab /bin/true",
	  "                      ^", "offset", "expected ':0x' after path"),
	E("add p:g/e ab /bin/true:",
	  "                       ^", "offset", "expected 0x-prefixed hex"),
	E("add p:g/e ab /bin/true:10",
	  "                       ^", "offset", "expected 0x-prefixed hex"),
	E("add p:g/e ab /bin/true:0X10",
	  "                       ^", "offset", "expected 0x-prefixed hex"),
	E("add p:g/e ab /bin/true:0x",
	  "                         ^", "offset", "expected hex digit"),
	E("add p:g/e ab /bin/true:0x1g",
	  "                          ^", "offset", "expected hex digit or '('"),
	E("add p:g/e ab /x:0x10000000000000000",
	  "                                  ^", "offset", "value overflows u64"),
	E("add p:g/e ab /x:0x1(0x0)", "                    ^", "ref_ctr", "ref_ctr must not be 0"),
	E("add p:g/e ab /x:0x1(0x00)", "                    ^", "ref_ctr", "ref_ctr must not be 0"),
	E("add p:g/e ab /x:0x1(5)", "                    ^", "ref_ctr", "expected 0x-prefixed hex"),
	E("add p:g/e ab /x:0x1(0x5", "                       ^", "ref_ctr", "expected ')'"),
	E("add p:g/e ab /x:0x1(0x5]", "                       ^", "ref_ctr", "expected ')'"),
	E("add p:g/e ab /x:0x1(0x5)x",
	  "                        ^", "ref_ctr", "trailing characters"),
	E("add p:g/e ab /x:0x1(0x10000000000000000)",
	  "                                      ^", "ref_ctr", "value overflows u64"),
	E("add p:g/e ab /x:0x1 pid=0", "                        ^", "pid", "pid must be positive"),
	E("add p:g/e ab /x:0x1 pid=-1", "                        ^", "pid", "expected decimal pid"),
	E("add p:g/e ab /x:0x1 pid=", "                        ^", "pid", "expected decimal pid"),
	E("add p:g/e ab /x:0x1 pid=12a",
	  "                          ^", "pid", "expected decimal pid"),
	E("add p:g/e ab /x:0x1 pid=0x10",
	  "                         ^", "pid", "expected decimal pid"),
	E("add p:g/e ab /x:0x1 pid=2147483648",
	  "                                 ^", "pid", "pid out of range"),
	E("add p:g/e ab /x:0x1 pid=99999999999999999999999",
	  "                                 ^", "pid", "pid out of range"),
	E("add p:g/e ab /x:0x1 pid=1 pid=2", "                          ^", "pid", "duplicate pid"),
	E("add p:g/e ab /x:0x1 a=%di pid=2",
	  "                          ^", "pid", "pid= must come before args"),
	E(HDR "a", "                      ^", "arg1", "expected '=' after arg name"),
	E(HDR "=%di", "                     ^", "arg1", "empty name"),
	E(HDR "9a=%di", "                     ^", "arg1", "name starts with a digit"),
	E(HDR "a-b=%di", "                      ^", "arg1", "invalid character in name"),
	E(HDR "a=", "                       ^", "arg1", "expected fetch argument"),
	E(HDR "a=%di b=%si a=%dx",
	  "                                 ^", "arg3", "duplicate arg name"),
	E(HDR "a=%foo", "                        ^", "arg1", "unknown register"),
	E(HDR "a=%rax", "                        ^", "arg1", "unknown register"),
	E(HDR "a=%DI", "                        ^", "arg1", "unknown register"),
	E(HDR "a=%", "                        ^", "arg1", "unknown register"),
	E(HDR "a=di", "                       ^", "arg1", "expected fetch argument"),
	E(HDR "a=%di)", "                          ^", "arg1", "expected ':TYPE' or end of arg"),
	E(HDR "a=+8(%di", "                             ^", "arg1", "expected ')'"),
	E(HDR "a=+8%di", "                         ^", "arg1", "expected '('"),
	E(HDR "a=8(%di)", "                       ^", "arg1", "expected fetch argument"),
	E(HDR "a=++8(%di)", "                        ^", "arg1", "expected number"),
	E(HDR "a=+-8(%di)", "                        ^", "arg1", "expected number"),
	E(HDR "a=+(%di)", "                        ^", "arg1", "expected number"),
	E(HDR "a=+0x(%di)", "                          ^", "arg1", "expected hex digit"),
	E(HDR "a=+9223372036854775808(%di)",
	  "                       ^", "arg1", "offset out of s64 range"),
	E(HDR "a=-9223372036854775809(%di)",
	  "                       ^", "arg1", "offset out of s64 range"),
	E(HDR "a=+18446744073709551616(%di)",
	  "                                           ^", "arg1", "value overflows u64"),
	E(HDR "a=+1(+2(+3(+4(+5(%di)))))",
	  "                                   ^", "arg1", "too many dereferences"),
	E(HDR "a=+1(+2(+3(+4(@+0x10))))",
	  "                                   ^", "arg1", "too many dereferences"),
	E(HDR "a=+8(%ax,%bx,3)",
	  "                                  ^", "arg1", "scale must be 1, 2, 4 or 8"),
	E(HDR "a=+8(%ax,%bx,16)",
	  "                                  ^", "arg1", "scale must be 1, 2, 4 or 8"),
	E(HDR "a=+8(%ax,%bx,0)",
	  "                                  ^", "arg1", "scale must be 1, 2, 4 or 8"),
	E(HDR "a=+8(%ax,%bx)",
	  "                                 ^", "arg1", "expected ',' before scale"),
	E(HDR "a=+8(%ax,bx,2)",
	  "                              ^", "arg1", "expected index register"),
	E(HDR "a=+8(%ax,%zz,2)", "                               ^", "arg1", "unknown register"),
	E(HDR "a=+8(%ax,%bx,)", "                                  ^", "arg1", "expected number"),
	E(HDR "a=+8(,%bx,3)", "                               ^", "arg1", "scale must be 1, 2, 4 or 8"),
	E(HDR "a=+8(,bx,2)", "                           ^", "arg1", "expected index register"),
	E(HDR "a=,%bx,2", "                       ^", "arg1", "expected fetch argument"),
	E(HDR "a=%ax,%bx,4",
	  "                          ^", "arg1", "expected ':TYPE' or end of arg"),
	E(HDR "a=$retval", "                       ^", "arg1", "$retval needs an r: probe"),
	E(HDR "a=+0($retval)", "                          ^", "arg1", "$retval needs an r: probe"),
	E(RHDR "a=$ret", "                       ^", "arg1", "unknown variable"),
	E(RHDR "a=$retvals", "                       ^", "arg1", "unknown variable"),
	E(RHDR "a=$stack", "                       ^", "arg1", "unknown variable"),
	E(HDR "a=@0x10", "                        ^", "arg1", "expected '@+FILEOFF'"),
	E(HDR "a=@+", "                         ^", "arg1", "expected number"),
	E(HDR "a=@+x", "                         ^", "arg1", "expected number"),
	E(HDR "a=@+0x", "                           ^", "arg1", "expected hex digit"),
	E(HDR "a=@+-4", "                         ^", "arg1", "expected number"),
	E(HDR "a=\\", "                        ^", "arg1", "expected number"),
	E(HDR "a=\\-9223372036854775809",
	  "                        ^", "arg1", "value out of s64 range"),
	E(HDR "a=\\+5", "                        ^", "arg1", "expected number"),
	E(HDR "a=%di:u128", "                           ^", "arg1", "unknown type"),
	E(HDR "a=%di:", "                           ^", "arg1", "unknown type"),
	E(HDR "a=%di:U32", "                           ^", "arg1", "unknown type"),
	E(HDR "a=%di:string",
	  "                           ^", "arg1", "string needs a memory operand"),
	E(HDR "a=\\1:string",
	  "                          ^", "arg1", "string needs a memory operand"),
	E(HDR "a=%di b=%si:x", "                                 ^", "arg2", "unknown type"),
	E(HDR "a=%di\t", "                          ^", "arg1", "control character"),
	E(HDR "a=%di\r", "                          ^", "arg1", "control character"),
	E(HDR "a=%di\n", "                          ^", "arg1", "control character"),
	{ "add p:g/e ab /x\0y:0x1", 22, "               ^", -EINVAL, "path", "NUL byte" },
	{ "add p:g/\0 ab /x:0x1", 19, "        ^", -EINVAL, "event", "NUL byte" },
	{ "clear\0", 6, "     ^", -EINVAL, "command", "NUL byte" },
	{ HDR "a=%di\0", 27, "                          ^", -EINVAL, "arg1", "NUL byte" },
	{ "add p:g/e ab /x:0x1 pid=1\0", 26, "                         ^", -EINVAL, "pid", "NUL byte" },
};

static void test_rejections(void)
{
	unsigned int i, col;
	int ret;

	for (i = 0; i < ARRAY_SIZE(bad_cases); i++) {
		const struct bad_case *c = &bad_cases[i];
		size_t len = c->len ? c->len : strlen(c->line);

		col = (unsigned int)(strchr(c->caret, '^') - c->caret) + 1;
		ret = parse(c->line, len, PROBECACHE_MAX_ARGS);
		TAP_OK(ret == c->ret && !strcmp(s(err.field), c->field) && err.column == col &&
		       !strcmp(s(err.why), c->why), "reject #%u (%s col %u: %s)",
		       i + 1, c->field, col, c->why);
		if (ret != c->ret || err.column != col || strcmp(s(err.field), c->field) ||
		    strcmp(s(err.why), c->why))
			printf("#   line '%.*s': got %d col %u %s: %s\n", (int)len, c->line,
			       ret, err.column, s(err.field), s(err.why));
	}
}

/* A many-arg record of mixed forms survives format -> parse unchanged. */
static void test_round_trip_mixed(void)
{
	static const char line[] = RHDR "a=%di b=+8(-16(%sp)):s32 c=+8(%ax,%bx,4):x8 "
		"d=@+0x4010:u16 e=+4(@+10):string f=\\-5 g=\\0xffffffffffffffff "
		"h=+0($retval):string i=-0x7fffffffffffffff(\\0):x64";
	static const char canon[] = "a=%di:u64 b=+8(-16(%sp)):s32 c=+8(%ax,%bx,4):x8 "
		"d=@+0x4010:u16 e=+4(@+0xa):string f=\\-5:u64 g=\\-1:u64 "
		"h=+0($retval):string i=-9223372036854775807(\\0):x64";
	char fmt[1024];
	int ret;

	ret = parse(line, strlen(line), 16);
	TAP_OK(!ret && cmd.rec.nargs == 9, "mixed 9-arg r: record parses");
	TAP_OK(!ret && round_trip(RHDR, fmt, sizeof(fmt)) && !strcmp(fmt, canon),
	       "mixed record round-trips to canonical text");
	TAP_OK(pc_format_args(&cmd.rec, fmt, sizeof(fmt)) == (int)strlen(canon),
	       "pc_format_args returns the length written");
}

static void test_format_errors(void)
{
	char buf[64];
	int ret, need;

	parse(HDR "a=+8(%ax,%bx,4):x8 b=%di", strlen(HDR) + 24, 16);
	need = pc_format_args(&cmd.rec, buf, sizeof(buf));
	TAP_OK(need == 28 && !strcmp(buf, "a=+8(%ax,%bx,4):x8 b=%di:u64"), "two args formatted");
	memset(buf, 'X', sizeof(buf));
	ret = pc_format_args(&cmd.rec, buf, (size_t)need);
	TAP_OK(ret == -ENOSPC && buf[need - 1] == '\0' && strlen(buf) == (size_t)need - 1,
	       "one byte short: -ENOSPC with a NUL-terminated prefix");
	ret = pc_format_args(&cmd.rec, buf, (size_t)need + 1);
	TAP_OK(ret == need, "exact size fits");
	TAP_OK(pc_format_args(&cmd.rec, NULL, 0) == -ENOSPC, "size 0: -ENOSPC, nothing written");
	cmd.rec.args[0].sib.scale = 3;
	TAP_OK(pc_format_args(&cmd.rec, buf, sizeof(buf)) == -EINVAL, "SIB scale 3: -EINVAL");
	cmd.rec.args[0].sib.scale = 4;
	cmd.rec.args[0].nderef = 0;
	TAP_OK(pc_format_args(&cmd.rec, buf, sizeof(buf)) == -EINVAL, "SIB without load: -EINVAL");
	cmd.rec.args[0].nderef = 1;
	cmd.rec.args[1].type = (enum pc_type)99;
	TAP_OK(pc_format_args(&cmd.rec, buf, sizeof(buf)) == -EINVAL, "bad type: -EINVAL");
	cmd.rec.args[1].type = PC_T_U64;
	cmd.rec.args[1].reg = PC_NR_REGS;
	TAP_OK(pc_format_args(&cmd.rec, buf, sizeof(buf)) == -EINVAL, "bad register: -EINVAL");
	cmd.rec.nargs = PROBECACHE_MAX_ARGS + 1;
	TAP_OK(pc_format_args(&cmd.rec, buf, sizeof(buf)) == -EINVAL, "nargs too big: -EINVAL");
	cmd.rec.nargs = 0;
	TAP_OK(pc_format_args(&cmd.rec, buf, sizeof(buf)) == 0 && !buf[0], "no args: empty");
}

static void test_lookups(void)
{
	static const char *const regs[] = {
		"ax", "bx", "cx", "dx", "si", "di", "bp", "sp", "r8", "r9",
		"r10", "r11", "r12", "r13", "r14", "r15", "ip",
	};
	static const char *const types[] = {
		"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
		"x8", "x16", "x32", "x64", "string",
	};
	static const unsigned int sizes[] = { 1, 2, 4, 8, 1, 2, 4, 8, 1, 2, 4, 8, 0 };
	bool ok = true;
	int i;

	for (i = 0; i < PC_NR_REGS; i++)
		ok &= !strcmp(s(pc_reg_name(PC_MACH_X86_64, i)), regs[i]);
	TAP_OK(ok && !pc_reg_name(PC_MACH_X86_64, PC_NR_REGS) &&
	       !pc_reg_name(PC_MACH_X86_64, (unsigned int)-1) &&
	       pc_nr_regs(PC_MACH_X86_64) == PC_NR_REGS,
	       "pc_reg_name for every x86-64 register, NULL outside");
	ok = true;
	for (i = 0; i <= 30; i++) {
		char x[16];

		snprintf(x, sizeof(x), "x%d", i);
		ok &= !strcmp(s(pc_reg_name(PC_MACH_AARCH64, i)), x);
	}
	TAP_OK(ok && !strcmp(s(pc_reg_name(PC_MACH_AARCH64, PC_A64_SP)), "sp") &&
	       !strcmp(s(pc_reg_name(PC_MACH_AARCH64, PC_A64_PC)), "pc") &&
	       !pc_reg_name(PC_MACH_AARCH64, PC_A64_NR_REGS) &&
	       pc_nr_regs(PC_MACH_AARCH64) == 33,
	       "pc_reg_name for every aarch64 register (x0..x30 sp pc), NULL outside");
	TAP_OK(!pc_reg_name(PC_NR_MACHS, 0) && !pc_reg_name((enum pc_mach)-1, 0) &&
	       !pc_nr_regs(PC_NR_MACHS), "unknown machine: no registers");
	TAP_OK(pc_mach_of_elf(62) == PC_MACH_X86_64 && pc_mach_of_elf(183) == PC_MACH_AARCH64 &&
	       pc_mach_of_elf(3) == -1 && pc_mach_of_elf(0) == -1,
	       "pc_mach_of_elf: EM_X86_64, EM_AARCH64, others none");
	ok = true;
	for (i = 0; i <= PC_T_STRING; i++)
		ok &= !strcmp(s(pc_type_name((enum pc_type)i)), types[i]) &&
		      pc_type_size((enum pc_type)i) == sizes[i];
	TAP_OK(ok && !pc_type_name((enum pc_type)(PC_T_STRING + 1)) &&
	       !pc_type_size((enum pc_type)(PC_T_STRING + 1)),
	       "pc_type_name/pc_type_size for every type, NULL/0 outside");
}

/* aarch64 register names (ftrace's on arm64), parsed with the machine given. */
static const struct arg_case a64_cases[] = {
	{ "a=%x0", 0, PC_BASE_REG, PC_A64_X0, 0, 0, 0, {0}, PC_T_U64, "a=%x0:u64" },
	{ "a=%x30:s32", 0, PC_BASE_REG, PC_A64_X30, 0, 0, 0, {0}, PC_T_S32, "a=%x30:s32" },
	{ "a=%x9:u8", 0, PC_BASE_REG, 9, 0, 0, 0, {0}, PC_T_U8, "a=%x9:u8" },
	{ "a=%sp", 0, PC_BASE_REG, PC_A64_SP, 0, 0, 0, {0}, PC_T_U64, "a=%sp:u64" },
	{ "a=%pc:x64", 0, PC_BASE_REG, PC_A64_PC, 0, 0, 0, {0}, PC_T_X64, "a=%pc:x64" },
	{ "a=+24(%sp)", 0, PC_BASE_REG, PC_A64_SP, 0, 0, 1, {24}, PC_T_U64, "a=+24(%sp):u64" },
	{ "a=-0x10(%x29):s32", 0, PC_BASE_REG, PC_A64_X29, 0, 0, 1, {-16}, PC_T_S32,
	  "a=-16(%x29):s32" },
	{ "a=+0(+8(%x1)):string", 0, PC_BASE_REG, 1, 0, 0, 2, {8, 0}, PC_T_STRING,
	  "a=+0(+8(%x1)):string" },
	{ "a=+0(%x3,%x4,8)", 0, PC_BASE_SIB, 3, 4, 8, 1, {0}, PC_T_U64, "a=+0(%x3,%x4,8):u64" },
	{ "a=+0(%sp,%x2,1):u32", 0, PC_BASE_SIB, PC_A64_SP, 2, 1, 1, {0}, PC_T_U32,
	  "a=+0(%sp,%x2,1):u32" },
	{ "a=\\-1:s32", 0, PC_BASE_IMM, (u64)-1, 0, 0, 0, {0}, PC_T_S32, "a=\\-1:s32" },
	{ "a=@+0x10:u64", 0, PC_BASE_FILEOFF, 0x10, 0, 0, 1, {0}, PC_T_U64, "a=@+0x10:u64" },
	{ "a=$retval:s64", 1, PC_BASE_RETVAL, 0, 0, 0, 0, {0}, PC_T_S64, "a=$retval:s64" },
};

static void test_aarch64(void)
{
	static const char *const bad_a64[] = { "%di", "%ax", "%ip", "%x31", "%w0", "%x", "%X0",
					       "%xzr", "+0(%x1,%di,1)" };
	static const char *const bad_x86[] = { "%x0", "%x30", "%pc", "+8(%x29)" };
	char line[1024], fmt[512];
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(a64_cases); i++) {
		const struct arg_case *c = &a64_cases[i];

		snprintf(line, sizeof(line), "%s%s", c->ret ? RHDR : HDR, c->arg);
		ret = parse_m(PC_MACH_AARCH64, line);
		TAP_OK(!ret && cmd.rec.mach == PC_MACH_AARCH64 && cmd.rec.nargs == 1 &&
		       arg_matches(c, &cmd.rec.args[0]),
		       "aarch64 arg '%s' parses to the expected fields", c->arg);
		if (ret)
			printf("# col %u %s: %s\n", err.column, s(err.field), s(err.why));
		fmt[0] = '\0';
		ret = ret ? ret : pc_format_args(&cmd.rec, fmt, sizeof(fmt));
		TAP_OK(ret > 0 && !strcmp(fmt, c->canon), "aarch64 arg '%s' formats as '%s'",
		       c->arg, c->canon);
		snprintf(line, sizeof(line), "%s%s", c->ret ? RHDR : HDR, fmt);
		memcpy(&cmd2, &cmd, sizeof(cmd));
		ret = parse_m(PC_MACH_AARCH64, line);
		TAP_OK(!ret && arg_eq(&cmd.rec.args[0], &cmd2.rec.args[0]),
		       "aarch64 arg '%s' round-trips", c->arg);
	}
	for (i = 0; i < ARRAY_SIZE(bad_a64); i++) {
		snprintf(line, sizeof(line), HDR "a=%s", bad_a64[i]);
		ret = parse_m(PC_MACH_AARCH64, line);
		TAP_OK(ret == -EINVAL && !strcmp(s(err.field), "arg1") &&
		       !strcmp(s(err.why), "unknown register"),
		       "aarch64 refuses '%s': unknown register", bad_a64[i]);
	}
	for (i = 0; i < ARRAY_SIZE(bad_x86); i++) {
		snprintf(line, sizeof(line), HDR "a=%s", bad_x86[i]);
		ret = parse_m(PC_MACH_X86_64, line);
		TAP_OK(ret == -EINVAL && !strcmp(s(err.why), "unknown register") &&
		       err.column == strlen(HDR) + 4 + (bad_x86[i][0] == '+' ? 3 : 0),
		       "x86-64 refuses aarch64 '%s' at the register", bad_x86[i]);
	}
	/* %sp is in both tables, at different numbers. */
	ret = parse_m(PC_MACH_X86_64, HDR "a=%sp");
	TAP_OK(!ret && cmd.rec.mach == PC_MACH_X86_64 && cmd.rec.args[0].reg == PC_REG_SP,
	       "x86-64 %%sp is PC_REG_SP");
	ret = parse_m(PC_MACH_AARCH64, HDR "a=%sp");
	TAP_OK(!ret && cmd.rec.args[0].reg == PC_A64_SP, "aarch64 %%sp is PC_A64_SP");
	/* A record parsed for one machine does not format with the other's names. */
	ret = parse_m(PC_MACH_AARCH64, HDR "a=%x20");
	cmd.rec.mach = PC_MACH_X86_64;
	TAP_OK(!ret && pc_format_args(&cmd.rec, fmt, sizeof(fmt)) == -EINVAL,
	       "x20 (20) is no x86-64 register: format -EINVAL");
	cmd.rec.args[0].reg = 15;
	TAP_OK(pc_format_args(&cmd.rec, fmt, sizeof(fmt)) > 0 && !strcmp(fmt, "a=%r15:u64"),
	       "register numbers are per machine: 15 formats as x86-64 r15");
	cmd.rec.mach = PC_MACH_AARCH64;
	TAP_OK(pc_format_args(&cmd.rec, fmt, sizeof(fmt)) > 0 && !strcmp(fmt, "a=%x15:u64"),
	       "... and as aarch64 x15");
	cmd.rec.mach = PC_NR_MACHS;
	TAP_OK(pc_format_args(&cmd.rec, fmt, sizeof(fmt)) == -EINVAL,
	       "unknown rec->mach: format -EINVAL");
	ret = pc_parse_command_mach("clear", 5, PC_NR_MACHS, 16, &cmd, &err);
	TAP_OK(ret == -EINVAL && !strcmp(s(err.why), "unknown machine"),
	       "unknown machine: parse -EINVAL");
	ret = parse("clear", 5, 16);
	TAP_OK(!ret && cmd.rec.mach == PC_MACH_NATIVE, "pc_parse_command uses PC_MACH_NATIVE");
}

/* A failed parse leaves a stale error behind; a good one must not. */
static void test_error_reset(void)
{
	int ret;

	parse("bogus", 5, 16);
	ret = parse("clear", 5, 16);
	TAP_OK(!ret && !err.field && !err.why && !err.column, "success clears @err");
}

int main(void)
{
	test_fetchargs();
	test_records();
	test_limits();
	test_rejections();
	test_round_trip_mixed();
	test_format_errors();
	test_lookups();
	test_aarch64();
	test_error_reset();
	return tap_done();
}
