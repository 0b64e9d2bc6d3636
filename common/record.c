// SPDX-License-Identifier: GPL-2.0
/*
 * probecache control-line parser.
 *
 * Plain C shared by probecache.ko and the host unit tests / fuzzers: no
 * allocation, no libc beyond memchr/memcmp/memcpy/memset/strlen, no
 * recursion. Every byte of the line is either accepted by the grammar or
 * reported, with its 1-based column, in struct pc_parse_error.
 */
#include "record.h"

#define PC_U64_MAX	(~(u64)0)
#define PC_S64_MAX	(PC_U64_MAX >> 1)
#define PC_PID_MAX	0x7fffffffULL

struct pc_cur {
	const char *s;		/* the line, not NUL-terminated */
	size_t len;
	size_t pos;		/* next byte the tokenizer looks at */
	enum pc_mach mach;	/* whose register names */
	struct pc_parse_error *err;
};

static const char *const x86_regs[PC_NR_REGS] = {
	"ax", "bx", "cx", "dx", "si", "di", "bp", "sp", "r8", "r9",
	"r10", "r11", "r12", "r13", "r14", "r15", "ip",
};

/* arch/arm64/kernel/ptrace.c regoffset_table, as ftrace's uprobe_events reads it */
static const char *const a64_regs[PC_A64_NR_REGS] = {
	"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10",
	"x11", "x12", "x13", "x14", "x15", "x16", "x17", "x18", "x19", "x20",
	"x21", "x22", "x23", "x24", "x25", "x26", "x27", "x28", "x29", "x30",
	"sp", "pc",
};

static const struct {
	const char *const *names;
	unsigned int n;
} reg_sets[PC_NR_MACHS] = {
	[PC_MACH_X86_64] = { x86_regs, ARRAY_SIZE(x86_regs) },
	[PC_MACH_AARCH64] = { a64_regs, ARRAY_SIZE(a64_regs) },
};

static_assert(PC_NR_REGS < PC_REG_NONE && PC_A64_NR_REGS < PC_REG_NONE,
	      "register numbers must fit below PC_REG_NONE");

static const char *const type_names[] = {
	"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
	"x8", "x16", "x32", "x64", "string",
};

static const unsigned char type_sizes[] = { 1, 2, 4, 8, 1, 2, 4, 8, 1, 2, 4, 8, 0 };

/* One more than the arg limit: "too many args" names the arg it refused. */
static const char *const arg_fields[] = {
	"arg1", "arg2", "arg3", "arg4", "arg5", "arg6", "arg7", "arg8", "arg9",
	"arg10", "arg11", "arg12", "arg13", "arg14", "arg15", "arg16", "arg17",
};

static_assert(ARRAY_SIZE(type_names) == PC_T_STRING + 1,
	      "type_names out of sync with enum pc_type");
static_assert(ARRAY_SIZE(type_sizes) == PC_T_STRING + 1,
	      "type_sizes out of sync with enum pc_type");
static_assert(ARRAY_SIZE(arg_fields) == PROBECACHE_MAX_ARGS + 1,
	      "arg_fields must cover PROBECACHE_MAX_ARGS + 1 args");

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_name_char(char c)
{
	return is_name_start(c) || is_digit(c);
}

static bool is_ctrl(char ch)
{
	unsigned char c = ch;

	return c < 0x20 || c == 0x7f;
}

static int hexval(char c)
{
	if (is_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * Record a rejection at byte index @at. When that byte is a NUL or another
 * control character, say so instead of the grammar's complaint: that is
 * the more useful diagnosis for a line that came from a binary blob.
 */
static int fail(struct pc_cur *c, size_t at, const char *field, const char *why, int ret)
{
	if (at < c->len && c->s[at] == '\0')
		why = "NUL byte";
	else if (at < c->len && is_ctrl(c->s[at]))
		why = "control character";
	c->err->column = at >= UINT_MAX ? UINT_MAX : (unsigned int)(at + 1);
	c->err->field = field;
	c->err->why = why;
	return ret;
}

/* Fields are separated by runs of spaces; returns false at end of line. */
static bool next_token(struct pc_cur *c, size_t *start, size_t *end)
{
	while (c->pos < c->len && c->s[c->pos] == ' ')
		c->pos++;
	if (c->pos == c->len)
		return false;
	*start = c->pos;
	while (c->pos < c->len && c->s[c->pos] != ' ')
		c->pos++;
	*end = c->pos;
	return true;
}

/* [A-Za-z_][A-Za-z0-9_]* of at most @max bytes, copied NUL-terminated. */
static int parse_name(struct pc_cur *c, size_t start, size_t stop, size_t max,
		      const char *field, char *out)
{
	size_t i;

	if (start == stop)
		return fail(c, start, field, "empty name", -EINVAL);
	if (is_digit(c->s[start]))
		return fail(c, start, field, "name starts with a digit", -EINVAL);
	for (i = start; i < stop; i++) {
		if (!is_name_char(c->s[i]))
			return fail(c, i, field, "invalid character in name", -EINVAL);
		if (i - start == max)
			return fail(c, i, field, "name too long", -ENAMETOOLONG);
	}
	memcpy(out, c->s + start, stop - start);
	out[stop - start] = '\0';
	return 0;
}

/* "0x1f": prefix, then hex digits up to the first non-hex byte. */
static int parse_hex(struct pc_cur *c, size_t *pos, size_t end, const char *field, u64 *val)
{
	size_t i = *pos;
	u64 v = 0;
	int d;

	if (end - i < 2 || c->s[i] != '0' || c->s[i + 1] != 'x')
		return fail(c, i, field, "expected 0x-prefixed hex", -EINVAL);
	i += 2;
	if (i == end || hexval(c->s[i]) < 0)
		return fail(c, i, field, "expected hex digit", -EINVAL);
	for (; i < end && (d = hexval(c->s[i])) >= 0; i++) {
		if (v >> 60)
			return fail(c, i, field, "value overflows u64", -EINVAL);
		v = v << 4 | (u64)d;
	}
	*val = v;
	*pos = i;
	return 0;
}

/* Decimal ("42", never octal) or 0x hex ("0x2a"), as a u64. */
static int parse_num(struct pc_cur *c, size_t *pos, size_t end, const char *field, u64 *val)
{
	size_t i = *pos;
	u64 v = 0;
	unsigned int d;

	if (end - i >= 2 && c->s[i] == '0' && c->s[i + 1] == 'x')
		return parse_hex(c, pos, end, field, val);
	if (i == end || !is_digit(c->s[i]))
		return fail(c, i, field, "expected number", -EINVAL);
	for (; i < end && is_digit(c->s[i]); i++) {
		d = c->s[i] - '0';
		if (v > PC_U64_MAX / 10 || (v == PC_U64_MAX / 10 && d > PC_U64_MAX % 10))
			return fail(c, i, field, "value overflows u64", -EINVAL);
		v = v * 10 + d;
	}
	*val = v;
	*pos = i;
	return 0;
}

/*
 * [-]NUM as an s64; positive values up to U64_MAX are taken as their two's
 * complement bit pattern (\0xffffffffffffffff is \-1).
 */
static int parse_imm(struct pc_cur *c, size_t *pos, size_t end, const char *field, s64 *val)
{
	size_t start = *pos;
	bool neg = false;
	u64 mag;
	int ret;

	if (*pos < end && c->s[*pos] == '-') {
		neg = true;
		(*pos)++;
	}
	ret = parse_num(c, pos, end, field, &mag);
	if (ret)
		return ret;
	if (neg && mag > PC_S64_MAX + 1)
		return fail(c, start, field, "value out of s64 range", -EINVAL);
	*val = (s64)(neg ? 0 - mag : mag);
	return 0;
}

/* "+8" / "-0x10": a load offset; the sign is mandatory, the value an s64. */
static int parse_off(struct pc_cur *c, size_t *pos, size_t end, const char *field, s64 *off)
{
	size_t start = *pos;
	bool neg = c->s[start] == '-';
	u64 mag;
	int ret;

	(*pos)++;
	ret = parse_num(c, pos, end, field, &mag);
	if (ret)
		return ret;
	if (mag > PC_S64_MAX + neg)
		return fail(c, start, field, "offset out of s64 range", -EINVAL);
	*off = (s64)(neg ? 0 - mag : mag);
	return 0;
}

/*
 * "%di", "%r12", "%x0": the register name is everything alphanumeric after
 * '%', one of c->mach's.
 */
static int parse_reg(struct pc_cur *c, size_t *pos, size_t end, const char *field, u8 *reg)
{
	const char *const *names = reg_sets[c->mach].names;
	size_t start = *pos + 1, i = start;
	unsigned int r;

	while (i < end && is_name_char(c->s[i]))
		i++;
	for (r = 0; r < reg_sets[c->mach].n; r++) {
		if (strlen(names[r]) == i - start &&
		    !memcmp(names[r], c->s + start, i - start)) {
			*reg = r;
			*pos = i;
			return 0;
		}
	}
	return fail(c, start, field, "unknown register", -EINVAL);
}

/*
 * x86 SIB operand; the caller has parsed "+8(%ax" (or "+8(" with arg->reg
 * PC_REG_NONE) and *pos is at ','.
 *   +8(%ax,%bx,4)  ->  kind SIB, base ax, index bx, scale 4
 *   +8(,%bx,4)     ->  kind SIB, base PC_REG_NONE, index bx, scale 4
 * aarch64's "[x1, x2, lsl #3]" is the same shape: +0(%x1,%x2,8).
 */
static int parse_sib(struct pc_cur *c, size_t *pos, size_t end, const char *field,
		     struct pc_arg *arg)
{
	u8 base = arg->reg;
	size_t at;
	u64 scale;
	int ret;

	(*pos)++;
	if (*pos == end || c->s[*pos] != '%')
		return fail(c, *pos, field, "expected index register", -EINVAL);
	ret = parse_reg(c, pos, end, field, &arg->sib.index);
	if (ret)
		return ret;
	if (*pos == end || c->s[*pos] != ',')
		return fail(c, *pos, field, "expected ',' before scale", -EINVAL);
	at = ++(*pos);
	ret = parse_num(c, pos, end, field, &scale);
	if (ret)
		return ret;
	if (scale != 1 && scale != 2 && scale != 4 && scale != 8)
		return fail(c, at, field, "scale must be 1, 2, 4 or 8", -EINVAL);
	arg->kind = PC_BASE_SIB;
	arg->sib.base = base;
	arg->sib.scale = (u8)scale;
	return 0;
}

/* "$retval": only meaningful where there is a return value, in r: probes. */
static int parse_var(struct pc_cur *c, size_t *pos, size_t end, const char *field,
		     bool retprobe, struct pc_arg *arg)
{
	size_t i = *pos + 1;

	while (i < end && is_name_char(c->s[i]))
		i++;
	if (i - *pos != 7 || memcmp(c->s + *pos, "$retval", 7))
		return fail(c, *pos, field, "unknown variable", -EINVAL);
	if (!retprobe)
		return fail(c, *pos, field, "$retval needs an r: probe", -EINVAL);
	arg->kind = PC_BASE_RETVAL;
	*pos = i;
	return 0;
}

/* "@+0x4010": memory at wherever file offset 0x4010 is mapped. */
static int parse_fileoff(struct pc_cur *c, size_t *pos, size_t end, const char *field,
			 struct pc_arg *arg)
{
	(*pos)++;
	if (*pos == end || c->s[*pos] != '+')
		return fail(c, *pos, field, "expected '@+FILEOFF'", -EINVAL);
	(*pos)++;
	arg->kind = PC_BASE_FILEOFF;
	return parse_num(c, pos, end, field, &arg->fileoff);
}

/*
 * The innermost operand. @in_deref says we are inside "+OFF(", where a
 * register may start a SIB operand.
 */
static int parse_base(struct pc_cur *c, size_t *pos, size_t end, const char *field,
		      bool retprobe, bool in_deref, struct pc_arg *arg)
{
	int ret;

	if (*pos == end)
		return fail(c, *pos, field, "expected fetch argument", -EINVAL);
	switch (c->s[*pos]) {
	case '%':
		/* %di */
		arg->kind = PC_BASE_REG;
		ret = parse_reg(c, pos, end, field, &arg->reg);
		if (!ret && in_deref && *pos < end && c->s[*pos] == ',')
			ret = parse_sib(c, pos, end, field, arg);
		return ret;
	case ',':
		/* +0x601040(,%di,8): a non-PIE global array indexed by a register */
		if (!in_deref)
			return fail(c, *pos, field, "expected fetch argument", -EINVAL);
		arg->reg = PC_REG_NONE;
		return parse_sib(c, pos, end, field, arg);
	case '\\':
		/* \42, \-8, \0x601040 */
		arg->kind = PC_BASE_IMM;
		(*pos)++;
		return parse_imm(c, pos, end, field, &arg->imm);
	case '$':
		/* $retval */
		return parse_var(c, pos, end, field, retprobe, arg);
	case '@':
		/* @+0x4010 */
		return parse_fileoff(c, pos, end, field, arg);
	default:
		return fail(c, *pos, field, "expected fetch argument", -EINVAL);
	}
}

/*
 * FETCHARG, parsed without recursion: the "+OFF(" prefixes are collected
 * outermost first, then the base, then as many ')' as there were prefixes.
 *   -8(+16(%bp))  ->  base bp, deref[0] = 16, deref[1] = -8
 *   +4(@+0x4010)  ->  fileoff 0x4010, deref[0] = 0 (implied), deref[1] = 4
 */
static int parse_fetcharg(struct pc_cur *c, size_t *pos, size_t end, const char *field,
			  bool retprobe, struct pc_arg *arg)
{
	s64 offs[PROBECACHE_MAX_DEREF];
	unsigned int n = 0, i;
	int ret;

	while (*pos < end && (c->s[*pos] == '+' || c->s[*pos] == '-')) {
		if (n == PROBECACHE_MAX_DEREF)
			return fail(c, *pos, field, "too many dereferences", -EINVAL);
		ret = parse_off(c, pos, end, field, &offs[n]);
		if (ret)
			return ret;
		if (*pos == end || c->s[*pos] != '(')
			return fail(c, *pos, field, "expected '('", -EINVAL);
		(*pos)++;
		n++;
	}
	if (*pos < end && c->s[*pos] == '@' && n == PROBECACHE_MAX_DEREF)
		return fail(c, *pos, field, "too many dereferences", -EINVAL);
	ret = parse_base(c, pos, end, field, retprobe, n > 0, arg);
	if (ret)
		return ret;
	if (arg->kind == PC_BASE_FILEOFF)
		arg->deref[arg->nderef++] = 0;
	for (i = 0; i < n; i++) {
		if (*pos == end || c->s[*pos] != ')')
			return fail(c, *pos, field, "expected ')'", -EINVAL);
		(*pos)++;
		arg->deref[arg->nderef++] = offs[n - 1 - i];
	}
	return 0;
}

/* Optional ":TYPE" closing the arg; u64 when absent. */
static int parse_type(struct pc_cur *c, size_t pos, size_t end, const char *field,
		      struct pc_arg *arg)
{
	size_t start = pos + 1;
	unsigned int t;

	arg->type = PC_T_U64;
	if (pos == end)
		return 0;
	if (c->s[pos] != ':')
		return fail(c, pos, field, "expected ':TYPE' or end of arg", -EINVAL);
	for (t = 0; t <= PC_T_STRING; t++) {
		if (strlen(type_names[t]) == end - start &&
		    !memcmp(type_names[t], c->s + start, end - start))
			break;
	}
	if (t > PC_T_STRING)
		return fail(c, start, field, "unknown type", -EINVAL);
	/* Like ftrace: the string is read where the last load would have been. */
	if (t == PC_T_STRING && !arg->nderef)
		return fail(c, start, field, "string needs a memory operand", -EINVAL);
	arg->type = t;
	return 0;
}

/* "pid" is the pid= field's keyword; args may not reuse it or each other's names. */
static int check_arg_name(struct pc_cur *c, size_t start, const struct pc_record *rec,
			  const char *field)
{
	const char *name = rec->args[rec->nargs].name;
	unsigned int i;

	if (!memcmp(name, "pid", 4))
		return fail(c, start, "pid", rec->pid ? "duplicate pid" :
			    "pid= must come before args", -EINVAL);
	for (i = 0; i < rec->nargs; i++) {
		if (!memcmp(rec->args[i].name, name, sizeof(rec->args[i].name)))
			return fail(c, start, field, "duplicate arg name", -EINVAL);
	}
	/* The arg becomes a field of the probe's trace event, beside these. */
	if (!strncmp(name, "common_", 7) || !strncmp(name, "__probe_", 8))
		return fail(c, start, field,
			    "name reserved for the event's own fields", -EINVAL);
	return 0;
}

/* NAME=FETCHARG[:TYPE] */
static int parse_arg(struct pc_cur *c, size_t start, size_t end, unsigned int max_args,
		     struct pc_record *rec)
{
	const char *field = arg_fields[rec->nargs];
	struct pc_arg *arg = &rec->args[rec->nargs];
	const char *eq;
	size_t pos;
	int ret;

	if (rec->nargs >= max_args)
		return fail(c, start, field, "too many args", -E2BIG);
	eq = memchr(c->s + start, '=', end - start);
	pos = eq ? (size_t)(eq - c->s) : end;
	ret = parse_name(c, start, pos, PROBECACHE_ARG_NAME_MAX, field, arg->name);
	if (ret)
		return ret;
	if (!eq)
		return fail(c, pos, field, "expected '=' after arg name", -EINVAL);
	ret = check_arg_name(c, start, rec, field);
	if (ret)
		return ret;
	pos++;
	ret = parse_fetcharg(c, &pos, end, field, rec->retprobe, arg);
	if (ret)
		return ret;
	ret = parse_type(c, pos, end, field, arg);
	if (ret)
		return ret;
	rec->nargs++;
	return 0;
}

/* p:GROUP/EVENT or r:GROUP/EVENT */
static int parse_probe_name(struct pc_cur *c, size_t start, size_t end, struct pc_record *rec)
{
	const char *slash;
	size_t stop;
	int ret;

	if (c->s[start] != 'p' && c->s[start] != 'r')
		return fail(c, start, "probe type", "expected 'p:' or 'r:'", -EINVAL);
	if (end - start < 2 || c->s[start + 1] != ':')
		return fail(c, start + 1, "probe type", "expected 'p:' or 'r:'", -EINVAL);
	rec->retprobe = c->s[start] == 'r';
	start += 2;
	slash = memchr(c->s + start, '/', end - start);
	stop = slash ? (size_t)(slash - c->s) : end;
	ret = parse_name(c, start, stop, PROBECACHE_NAME_MAX, "group", rec->group);
	if (ret)
		return ret;
	if (!slash)
		return fail(c, stop, "group", "expected '/' after group", -EINVAL);
	return parse_name(c, stop + 1, end, PROBECACHE_NAME_MAX, "event", rec->event);
}

/* 1..PROBECACHE_BUILD_ID_MAX bytes as an even number of hex digits. */
static int parse_build_id(struct pc_cur *c, size_t start, size_t end, struct pc_record *rec)
{
	size_t i;

	for (i = start; i < end; i++) {
		if (hexval(c->s[i]) < 0)
			return fail(c, i, "build-id", "invalid hex digit", -EINVAL);
		if (i - start == 2 * PROBECACHE_BUILD_ID_MAX)
			return fail(c, i, "build-id", "build-id too long", -EINVAL);
	}
	if ((end - start) & 1)
		return fail(c, end - 1, "build-id", "odd number of hex digits", -EINVAL);
	for (i = start; i < end; i += 2)
		rec->build_id[(i - start) / 2] = hexval(c->s[i]) << 4 | hexval(c->s[i + 1]);
	rec->build_id_len = (end - start) / 2;
	return 0;
}

/* One component of an absolute path: no "", ".", ".." (the path must be normalized). */
static int check_component(struct pc_cur *c, size_t start, size_t stop, size_t path_end)
{
	size_t n = stop - start;

	if (!n && stop == path_end)
		return fail(c, stop - 1, "path", "path ends with '/'", -EINVAL);
	if (!n)
		return fail(c, stop, "path", "empty path component", -EINVAL);
	if ((n == 1 && c->s[start] == '.') ||
	    (n == 2 && c->s[start] == '.' && c->s[start + 1] == '.'))
		return fail(c, start, "path", "'.' or '..' component", -EINVAL);
	return 0;
}

/*
 * An absolute, normalized path (no "//", "/./", "/../", trailing '/'),
 * without control characters, shorter than PATH_MAX. Spaces cannot occur:
 * they end the field.
 */
static int check_path(struct pc_cur *c, size_t start, size_t end)
{
	size_t i, comp = start + 1;
	int ret;

	if (start == end || c->s[start] != '/')
		return fail(c, start, "path", "path must be absolute", -EINVAL);
	for (i = start + 1; i <= end; i++) {
		if (i < end && i - start == PATH_MAX - 1)
			return fail(c, i, "path", "path too long", -ENAMETOOLONG);
		if (i < end && is_ctrl(c->s[i]))
			return fail(c, i, "path", "control character", -EINVAL);
		if (i < end && c->s[i] != '/')
			continue;
		ret = check_component(c, comp, i, end);
		if (ret)
			return ret;
		comp = i + 1;
	}
	return 0;
}

/* /abs/path:0xOFFSET[(0xREFCTR)]; the path ends at the last ':' of the field. */
static int parse_location(struct pc_cur *c, size_t start, size_t end, struct pc_record *rec)
{
	size_t colon = end, pos, at;
	int ret;

	while (colon > start && c->s[colon - 1] != ':')
		colon--;
	if (colon == start) {
		ret = check_path(c, start, end);
		return ret ? ret : fail(c, end, "offset", "expected ':0x' after path", -EINVAL);
	}
	colon--;
	ret = check_path(c, start, colon);
	if (ret)
		return ret;
	rec->path = c->s + start;
	rec->path_len = colon - start;
	pos = colon + 1;
	ret = parse_hex(c, &pos, end, "offset", &rec->offset);
	if (ret || pos == end)
		return ret;
	if (c->s[pos] != '(')
		return fail(c, pos, "offset", "expected hex digit or '('", -EINVAL);
	at = ++pos;
	ret = parse_hex(c, &pos, end, "ref_ctr", &rec->ref_ctr_offset);
	if (ret)
		return ret;
	if (!rec->ref_ctr_offset)
		return fail(c, at, "ref_ctr", "ref_ctr must not be 0", -EINVAL);
	if (pos == end || c->s[pos] != ')')
		return fail(c, pos, "ref_ctr", "expected ')'", -EINVAL);
	if (pos + 1 != end)
		return fail(c, pos + 1, "ref_ctr", "trailing characters", -EINVAL);
	return 0;
}

/* pid=PID: a positive decimal thread-group id that fits in s32. */
static int parse_pid(struct pc_cur *c, size_t start, size_t end, struct pc_record *rec)
{
	u64 v = 0;
	size_t i;

	if (start == end)
		return fail(c, start, "pid", "expected decimal pid", -EINVAL);
	for (i = start; i < end; i++) {
		if (!is_digit(c->s[i]))
			return fail(c, i, "pid", "expected decimal pid", -EINVAL);
		v = v * 10 + (u64)(c->s[i] - '0');
		if (v > PC_PID_MAX)
			return fail(c, i, "pid", "pid out of range", -EINVAL);
	}
	if (!v)
		return fail(c, start, "pid", "pid must be positive", -EINVAL);
	rec->pid = (s32)v;
	return 0;
}

/* After the location: [pid=PID] then NAME=FETCHARG[:TYPE]... */
static int parse_tail(struct pc_cur *c, unsigned int max_args, struct pc_record *rec)
{
	bool first = true;
	size_t s, e;
	int ret;

	while (next_token(c, &s, &e)) {
		if (first && e - s >= 4 && !memcmp(c->s + s, "pid=", 4))
			ret = parse_pid(c, s + 4, e, rec);
		else
			ret = parse_arg(c, s, e, max_args, rec);
		if (ret)
			return ret;
		first = false;
	}
	return 0;
}

static int parse_record(struct pc_cur *c, unsigned int max_args, struct pc_record *rec)
{
	size_t s, e;
	int ret;

	if (!next_token(c, &s, &e))
		return fail(c, c->len, "probe type", "expected 'p:' or 'r:'", -EINVAL);
	ret = parse_probe_name(c, s, e, rec);
	if (ret)
		return ret;
	if (!next_token(c, &s, &e))
		return fail(c, c->len, "build-id", "missing build-id", -EINVAL);
	ret = parse_build_id(c, s, e, rec);
	if (ret)
		return ret;
	if (!next_token(c, &s, &e))
		return fail(c, c->len, "path", "missing path", -EINVAL);
	ret = parse_location(c, s, e, rec);
	if (ret)
		return ret;
	return parse_tail(c, max_args, rec);
}

/* del|count|nocount GROUP:EVENT */
static int parse_del(struct pc_cur *c, struct pc_command *cmd)
{
	const char *colon;
	size_t s, e, stop;
	int ret;

	if (!next_token(c, &s, &e))
		return fail(c, c->len, "group", "expected GROUP:EVENT", -EINVAL);
	colon = memchr(c->s + s, ':', e - s);
	stop = colon ? (size_t)(colon - c->s) : e;
	ret = parse_name(c, s, stop, PROBECACHE_NAME_MAX, "group", cmd->group);
	if (ret)
		return ret;
	if (!colon)
		return fail(c, stop, "group", "expected ':' after group", -EINVAL);
	return parse_name(c, stop + 1, e, PROBECACHE_NAME_MAX, "event", cmd->event);
}

/* site GROUP:EVENT PATH */
static int parse_site(struct pc_cur *c, struct pc_command *cmd)
{
	size_t s, e;
	int ret;

	ret = parse_del(c, cmd);
	if (ret)
		return ret;
	if (!next_token(c, &s, &e))
		return fail(c, c->len, "path", "missing path", -EINVAL);
	ret = check_path(c, s, e);
	if (ret)
		return ret;
	cmd->rec.path = c->s + s;
	cmd->rec.path_len = e - s;
	return 0;
}

/* A NUM that fits a u32, of the field @field, from *@pos up to @end. */
static int parse_u32(struct pc_cur *c, size_t *pos, size_t end, const char *field, u32 *val)
{
	size_t start = *pos;
	u64 v;
	int ret;

	ret = parse_num(c, pos, end, field, &v);
	if (ret)
		return ret;
	if (v > 0xffffffffULL)
		return fail(c, start, field, "value overflows u32", -EINVAL);
	*val = (u32)v;
	return 0;
}

/* unsite GROUP:EVENT MAJ:MIN INO (as the sites listing prints them) */
static int parse_unsite(struct pc_cur *c, struct pc_command *cmd)
{
	size_t s, e, pos;
	u64 ino;
	int ret;

	ret = parse_del(c, cmd);
	if (ret)
		return ret;
	if (!next_token(c, &s, &e))
		return fail(c, c->len, "dev", "missing MAJ:MIN", -EINVAL);
	pos = s;
	ret = parse_u32(c, &pos, e, "dev", &cmd->dev_major);
	if (ret)
		return ret;
	if (pos == e || c->s[pos] != ':')
		return fail(c, pos, "dev", "expected ':' after the major number", -EINVAL);
	pos++;
	ret = parse_u32(c, &pos, e, "dev", &cmd->dev_minor);
	if (ret)
		return ret;
	if (pos != e)
		return fail(c, pos, "dev", "trailing characters", -EINVAL);
	if (!next_token(c, &s, &e))
		return fail(c, c->len, "ino", "missing inode number", -EINVAL);
	pos = s;
	ret = parse_num(c, &pos, e, "ino", &ino);
	if (ret)
		return ret;
	if (pos != e)
		return fail(c, pos, "ino", "trailing characters", -EINVAL);
	cmd->ino = ino;
	return 0;
}

static int parse_verb(struct pc_cur *c, size_t start, size_t end, enum pc_cmd *cmd)
{
	static const char *const verbs[] = {
		"add", "del", "clear", "count", "nocount", "site", "unsite",
	};
	static const enum pc_cmd ids[] = {
		PC_CMD_ADD, PC_CMD_DEL, PC_CMD_CLEAR, PC_CMD_COUNT, PC_CMD_NOCOUNT,
		PC_CMD_SITE, PC_CMD_UNSITE,
	};
	size_t n = 0;
	unsigned int i;

	while (start + n < end && c->s[start + n] >= 'a' && c->s[start + n] <= 'z')
		n++;
	for (i = 0; i < ARRAY_SIZE(verbs); i++) {
		if (strlen(verbs[i]) != n || memcmp(verbs[i], c->s + start, n))
			continue;
		if (start + n != end)	/* "clear\t", "add," */
			return fail(c, start + n, "command", "unknown command", -EINVAL);
		*cmd = ids[i];
		return 0;
	}
	return fail(c, start, "command", "unknown command", -EINVAL);
}

/*
 * Grammar of one control line (no newline; NUL and control bytes anywhere
 * are errors). Fields are separated by one or more spaces; leading and
 * trailing spaces are ignored.
 *
 *   add p|r:GROUP/EVENT BUILD-ID /PATH:0xOFF[(0xREFCTR)] [pid=PID] [ARG]...
 *   del GROUP:EVENT
 *   count GROUP:EVENT
 *   nocount GROUP:EVENT
 *   clear
 *   site GROUP:EVENT PATH
 *   unsite GROUP:EVENT MAJ:MIN INO
 *
 *   GROUP, EVENT  [A-Za-z_][A-Za-z0-9_]*, 1..PROBECACHE_NAME_MAX bytes
 *   BUILD-ID      2..2*PROBECACHE_BUILD_ID_MAX hex digits, even count
 *   PATH          absolute and normalized: no "//", "/./", "/../" or trailing
 *                 '/', < PATH_MAX bytes; may contain ':' (the last one in
 *                 the field starts the offset)
 *   OFF, REFCTR   "0x" + 1..16 hex digits; REFCTR != 0
 *   PID           decimal, 1..2^31-1; must precede the args
 *   ARG           NAME=FETCHARG[:TYPE], NAME like GROUP but at most
 *                 PROBECACHE_ARG_NAME_MAX bytes, unique, not "pid" and not
 *                 starting "common_" or "__probe_" (event fields); at most
 *                 min(@max_args, PROBECACHE_MAX_ARGS) args
 *   FETCHARG      %REG | \IMM | $retval (r: only) | @+NUM | [+-]NUM(FETCHARG)
 *                 | [+-]NUM(%REG,%REG,1|2|4|8), at most PROBECACHE_MAX_DEREF
 *                 loads in all (@+ counts as one)
 *   REG           a register name of the parse's machine (x86-64: ax..r15 ip;
 *                 aarch64: x0..x30 sp pc)
 *   NUM           decimal or 0x hex; IMM may also be negative
 *   MAJ, MIN      NUM < 2^32: the device of a site's inode, as listed
 *   INO           NUM: its inode number
 *   TYPE          u8..u64 s8..s64 x8..x64 string (string needs a load)
 *
 * On error, @err->column is the 1-based byte index of the first byte that
 * is wrong (one past the field when something is missing), @err->field
 * names the field and @err->why is a static reason. @cmd is then
 * partially filled and must not be used.
 */
int pc_parse_command_mach(const char *line, size_t len, enum pc_mach mach,
			  unsigned int max_args, struct pc_command *cmd,
			  struct pc_parse_error *err)
{
	struct pc_cur c = { .s = line, .len = len, .pos = 0, .mach = mach, .err = err };
	size_t s, e;
	int ret;

	memset(cmd, 0, sizeof(*cmd));
	memset(err, 0, sizeof(*err));
	if ((unsigned int)mach >= PC_NR_MACHS)
		return fail(&c, 0, "command", "unknown machine", -EINVAL);
	cmd->rec.mach = (u8)mach;
	if (max_args > PROBECACHE_MAX_ARGS)
		max_args = PROBECACHE_MAX_ARGS;
	if (!next_token(&c, &s, &e))
		return fail(&c, 0, "command", "empty line", -EINVAL);
	ret = parse_verb(&c, s, e, &cmd->cmd);
	if (ret)
		return ret;
	if (cmd->cmd == PC_CMD_ADD)
		ret = parse_record(&c, max_args, &cmd->rec);
	else if (cmd->cmd == PC_CMD_SITE)
		ret = parse_site(&c, cmd);
	else if (cmd->cmd == PC_CMD_UNSITE)
		ret = parse_unsite(&c, cmd);
	else if (cmd->cmd != PC_CMD_CLEAR)
		ret = parse_del(&c, cmd);
	if (ret)
		return ret;
	if (next_token(&c, &s, &e))
		return fail(&c, s, "command", "trailing characters", -EINVAL);
	return 0;
}

int pc_parse_command(const char *line, size_t len, unsigned int max_args,
		     struct pc_command *cmd, struct pc_parse_error *err)
{
	return pc_parse_command_mach(line, len, PC_MACH_NATIVE, max_args, cmd, err);
}

/* The ELF e_machine numbers, spelled out: elf.h is not available to both builds. */
int pc_mach_of_elf(unsigned int e_machine)
{
	switch (e_machine) {
	case 62:		/* EM_X86_64 */
		return PC_MACH_X86_64;
	case 183:		/* EM_AARCH64 */
		return PC_MACH_AARCH64;
	}
	return -1;
}

/* Output that counts what did not fit, so callers learn the needed size. */
struct pc_out {
	char *buf;
	size_t size, len;
};

static void out_mem(struct pc_out *o, const char *s, size_t n)
{
	size_t room = o->len < o->size ? o->size - o->len : 0;

	if (room)
		memcpy(o->buf + o->len, s, n < room ? n : room);
	o->len += n;
}

static void out_str(struct pc_out *o, const char *s)
{
	out_mem(o, s, strlen(s));
}

/* Decimal without 64-bit division (none on 32-bit kernels without do_div). */
static void out_dec(struct pc_out *o, u64 v)
{
	static const u64 pow10[] = {
		10000000000000000000ULL, 1000000000000000000ULL, 100000000000000000ULL,
		10000000000000000ULL, 1000000000000000ULL, 100000000000000ULL,
		10000000000000ULL, 1000000000000ULL, 100000000000ULL, 10000000000ULL,
		1000000000ULL, 100000000ULL, 10000000ULL, 1000000ULL, 100000ULL,
		10000ULL, 1000ULL, 100ULL, 10ULL, 1ULL,
	};
	bool lead = true;
	unsigned int i;
	char d;

	for (i = 0; i < ARRAY_SIZE(pow10); i++) {
		for (d = '0'; v >= pow10[i]; d++)
			v -= pow10[i];
		if (d == '0' && lead && pow10[i] != 1)
			continue;
		lead = false;
		out_mem(o, &d, 1);
	}
}

static void out_hex(struct pc_out *o, u64 v)
{
	static const char digits[] = "0123456789abcdef";
	int shift = 60;

	out_str(o, "0x");
	while (shift > 0 && !(v >> shift))
		shift -= 4;
	for (; shift >= 0; shift -= 4)
		out_mem(o, &digits[(v >> shift) & 0xf], 1);
}

static void out_signed(struct pc_out *o, const char *plus, s64 v)
{
	if (v < 0) {
		out_str(o, "-");
		out_dec(o, 0 - (u64)v);
	} else {
		out_str(o, plus);
		out_dec(o, (u64)v);
	}
}

/* Args from elsewhere than pc_parse_command may be inconsistent: refuse them. */
static bool arg_valid(const struct pc_arg *a, unsigned int nregs)
{
	if (a->nderef > PROBECACHE_MAX_DEREF || (unsigned int)a->type > PC_T_STRING ||
	    !memchr(a->name, '\0', sizeof(a->name)) || !a->name[0])
		return false;
	switch (a->kind) {
	case PC_BASE_REG:
		return a->reg < nregs;
	case PC_BASE_IMM:
	case PC_BASE_RETVAL:
		return true;
	case PC_BASE_SIB:
		return a->nderef && (a->sib.base < nregs || a->sib.base == PC_REG_NONE) &&
		       a->sib.index < nregs &&
		       a->sib.scale && a->sib.scale <= 8 && !(a->sib.scale & (a->sib.scale - 1));
	case PC_BASE_FILEOFF:
		return a->nderef && !a->deref[0];
	}
	return false;
}

static void out_base(struct pc_out *o, const struct pc_arg *a,
		     const char *const *reg_names)
{
	switch (a->kind) {
	case PC_BASE_REG:
		out_str(o, "%");
		out_str(o, reg_names[a->reg]);
		break;
	case PC_BASE_IMM:
		out_str(o, "\\");
		out_signed(o, "", a->imm);
		break;
	case PC_BASE_RETVAL:
		out_str(o, "$retval");
		break;
	case PC_BASE_SIB:
		if (a->sib.base != PC_REG_NONE) {
			out_str(o, "%");
			out_str(o, reg_names[a->sib.base]);
		}
		out_str(o, ",%");
		out_str(o, reg_names[a->sib.index]);
		out_str(o, ",");
		out_dec(o, a->sib.scale);
		break;
	case PC_BASE_FILEOFF:
		out_str(o, "@+");
		out_hex(o, a->fileoff);
		break;
	}
}

/* NAME=FETCHARG:TYPE, loads written outermost first as in the input. */
static void out_arg(struct pc_out *o, const struct pc_arg *a,
		    const char *const *reg_names)
{
	/* @+ implies the innermost load; SIB's own parens are deref[0]. */
	unsigned int first = a->kind == PC_BASE_FILEOFF ? 1 : 0;
	unsigned int i;

	out_str(o, a->name);
	out_str(o, "=");
	for (i = a->nderef; i > first; i--) {
		out_signed(o, "+", a->deref[i - 1]);
		out_str(o, "(");
	}
	out_base(o, a, reg_names);
	for (i = a->nderef; i > first; i--)
		out_str(o, ")");
	out_str(o, ":");
	out_str(o, type_names[a->type]);
}

/*
 * Returns the length written (without the NUL), -ENOSPC if @size was too
 * small (@buf then holds a truncated, NUL-terminated prefix when size > 0),
 * -EINVAL if an arg is inconsistent.
 */
int pc_format_args(const struct pc_record *rec, char *buf, size_t size)
{
	struct pc_out o = { .buf = buf, .size = size, .len = 0 };
	unsigned int i;

	if (rec->nargs > PROBECACHE_MAX_ARGS || rec->mach >= PC_NR_MACHS)
		return -EINVAL;
	for (i = 0; i < rec->nargs; i++) {
		if (!arg_valid(&rec->args[i], reg_sets[rec->mach].n))
			return -EINVAL;
		if (i)
			out_str(&o, " ");
		out_arg(&o, &rec->args[i], reg_sets[rec->mach].names);
	}
	if (o.len >= size) {
		if (size)
			buf[size - 1] = '\0';
		return -ENOSPC;
	}
	buf[o.len] = '\0';
	return (int)o.len;
}

/* NULL for values outside the enum. */
const char *pc_type_name(enum pc_type t)
{
	return (unsigned int)t <= PC_T_STRING ? type_names[t] : NULL;
}

const char *pc_reg_name(enum pc_mach m, unsigned int r)
{
	if ((unsigned int)m >= PC_NR_MACHS || r >= reg_sets[m].n)
		return NULL;
	return reg_sets[m].names[r];
}

unsigned int pc_nr_regs(enum pc_mach m)
{
	return (unsigned int)m < PC_NR_MACHS ? reg_sets[m].n : 0;
}

unsigned int pc_type_size(enum pc_type t)
{
	return (unsigned int)t <= PC_T_STRING ? type_sizes[t] : 0;
}
