// SPDX-License-Identifier: GPL-2.0
/*
 * SDT argument specs: parse "[-]SIZE@OPERAND" (x86 AT&T and aarch64 syntax)
 * and write it as a probecache record FETCHARG or as perf 6.1 writes it.
 * The input is untrusted note text: no recursion, every length checked.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "argspec.h"
#include "outbuf.h"

#define SPEC_MAX	256	/* longer arg specs are refused: real ones are < 64 */

struct x86_reg {
	const char *name;
	uint8_t reg, bytes;
	bool hi8;
};

/* ftrace names of x86 registers, indexed by pc_argspec.reg. */
static const char *const x86_ftrace[] = {
	"ax", "bx", "cx", "dx", "si", "di", "bp", "sp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "ip",
};

#define LEGACY(q, d, w, l, id) \
	{ q, id, 8, false }, { d, id, 4, false }, { w, id, 2, false }, { l, id, 1, false }
#define RNN(n, id) \
	{ "r" #n, id, 8, false }, { "r" #n "d", id, 4, false }, \
	{ "r" #n "w", id, 2, false }, { "r" #n "b", id, 1, false }

static const struct x86_reg x86_regs[] = {
	LEGACY("rax", "eax", "ax", "al", 0), { "ah", 0, 1, true },
	LEGACY("rbx", "ebx", "bx", "bl", 1), { "bh", 1, 1, true },
	LEGACY("rcx", "ecx", "cx", "cl", 2), { "ch", 2, 1, true },
	LEGACY("rdx", "edx", "dx", "dl", 3), { "dh", 3, 1, true },
	LEGACY("rsi", "esi", "si", "sil", 4),
	LEGACY("rdi", "edi", "di", "dil", 5),
	LEGACY("rbp", "ebp", "bp", "bpl", 6),
	LEGACY("rsp", "esp", "sp", "spl", 7),
	RNN(8, 8), RNN(9, 9), RNN(10, 10), RNN(11, 11),
	RNN(12, 12), RNN(13, 13), RNN(14, 14), RNN(15, 15),
	{ "rip", PC_AS_X86_IP, 8, false }, { "eip", PC_AS_X86_IP, 4, false },
};

static bool is_x86(uint16_t m)
{
	return m == PC_ARGSPEC_X86_64 || m == PC_ARGSPEC_I386;
}

/* Unsigned decimal or 0x hex at *p; advances *p. -EINVAL if none, -ERANGE on overflow. */
static int parse_uint(const char **p, uint64_t *v)
{
	const char *s = *p;
	unsigned int base = 10;
	uint64_t r = 0;
	int n = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && isxdigit((unsigned char)s[2])) {
		base = 16;
		s += 2;
	}
	for (;; s++, n++) {
		int d;

		if (isdigit((unsigned char)*s))
			d = *s - '0';
		else if (base == 16 && isxdigit((unsigned char)*s))
			d = tolower((unsigned char)*s) - 'a' + 10;
		else
			break;
		if (r > (UINT64_MAX - d) / base)
			return -ERANGE;
		r = r * base + d;
	}
	if (!n)
		return -EINVAL;
	*p = s;
	*v = r;
	return 0;
}

/* Optionally signed integer that must fit int64_t. */
static int parse_int(const char **p, int64_t *v)
{
	bool neg = false;
	uint64_t u;
	int ret;

	if (**p == '-' || **p == '+') {
		neg = **p == '-';
		(*p)++;
	}
	ret = parse_uint(p, &u);
	if (ret)
		return ret;
	if (u > (uint64_t)INT64_MAX + neg)
		return -ERANGE;
	*v = neg ? (int64_t)(0 - u) : (int64_t)u;
	return 0;
}

/* "[-]N@" prefix: sets a->size and returns the operand, or the whole spec if there is none. */
static const char *parse_size(const char *spec, struct pc_argspec *a, const char **why)
{
	const char *at = strchr(spec, '@'), *p = spec;
	int64_t n;

	a->size = 0;
	if (!at)
		return spec;
	if (parse_int(&p, &n) || p != at) {
		*why = "size before '@' is not a number";
		return NULL;
	}
	if (n != 1 && n != 2 && n != 4 && n != 8 && n != -1 && n != -2 && n != -4 && n != -8) {
		*why = "size must be 1, 2, 4 or 8 (negative: signed)";
		return NULL;
	}
	a->size = (int)n;
	return at + 1;
}

static const struct x86_reg *x86_lookup(const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof(x86_regs) / sizeof(x86_regs[0]); i++)
		if (strlen(x86_regs[i].name) == n && !memcmp(x86_regs[i].name, s, n))
			return &x86_regs[i];
	return NULL;
}

/* "%name" at *p (advanced past it). Valid for @machine, IP only where @ip_ok. */
static int x86_reg(const char **p, uint16_t machine, bool ip_ok,
		   const struct x86_reg **r, const char **why)
{
	const char *s = *p + 1;
	size_t n = 0;

	if (**p != '%') {
		*why = "expected a register";
		return -EINVAL;
	}
	while (isalnum((unsigned char)s[n]))
		n++;
	*r = x86_lookup(s, n);
	if (!*r) {
		*why = "unknown x86 register";
		return -EOPNOTSUPP;
	}
	if (machine == PC_ARGSPEC_I386 && ((*r)->bytes == 8 || (*r)->reg >= 8 ||
					   (strlen((*r)->name) == 3 && (*r)->name[2] == 'l'))) {
		*why = "register does not exist in 32-bit x86";
		return -EINVAL;
	}
	if ((*r)->reg == PC_AS_X86_IP && !ip_ok) {
		*why = "%rip is only usable as a memory base";
		return -EINVAL;
	}
	*p = s + n;
	return 0;
}

static bool sym_start(char c)
{
	return isalpha((unsigned char)c) || c == '_' || c == '.';
}

static bool sym_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '$';
}

/* One displacement term: a number, or the (single, added) symbol. */
static int disp_term(const char **p, bool neg, struct pc_argspec *a, const char **why)
{
	const char *s = *p;
	uint64_t u;
	size_t n = 0;

	if (sym_start(*s)) {
		while (sym_char(s[n]))
			n++;
		if (a->sym[0] || neg || n > PC_ARGSPEC_SYM_MAX) {
			*why = a->sym[0] ? "more than one symbol in displacement" :
			       neg ? "negated symbol in displacement" : "symbol name too long";
			return -EOPNOTSUPP;
		}
		memcpy(a->sym, s, n);
		a->sym[n] = '\0';
		*p = s + n;
		return 0;
	}
	if (parse_uint(p, &u) || u > (uint64_t)INT64_MAX ||
	    __builtin_add_overflow(a->disp, neg ? -(int64_t)u : (int64_t)u, &a->disp)) {
		*why = "bad or out of range displacement";
		return -EINVAL;
	}
	return 0;
}

/* "[-]term{+|-term}" up to '(' or the end. */
static int x86_disp(const char **p, struct pc_argspec *a, const char **why)
{
	bool neg = false, first = true;
	int ret;

	while (**p && **p != '(') {
		if (**p == '+' || **p == '-') {
			neg = **p == '-';
			(*p)++;
		} else if (!first) {
			if (**p == '@') {
				*why = "relocation operators (@GOTPCREL, ...) are not supported";
				return -EOPNOTSUPP;
			}
			*why = "unexpected character in displacement";
			return -EINVAL;
		}
		ret = disp_term(p, neg, a, why);
		if (ret)
			return ret;
		first = false;
		neg = false;
	}
	return 0;
}

/* "%index[,scale]" after the first ',' of a SIB operand. */
static int x86_index(const char **p, struct pc_argspec *a, unsigned int want, uint64_t *sc,
		     const char **why)
{
	const struct x86_reg *r;

	if (x86_reg(p, a->machine, false, &r, why))
		return -EINVAL;
	if (r->bytes != want || r->hi8) {
		*why = "address register must be full width";
		return -EOPNOTSUPP;
	}
	if (r->reg == 7 || a->base == PC_AS_X86_IP) {
		*why = r->reg == 7 ? "%rsp cannot be an index" : "%rip cannot take an index";
		return -EINVAL;
	}
	a->index = r->reg;
	if (**p == ',') {
		(*p)++;
		if (parse_uint(p, sc) || (*sc != 1 && *sc != 2 && *sc != 4 && *sc != 8)) {
			*why = "scale must be 1, 2, 4 or 8";
			return -EINVAL;
		}
	}
	return 0;
}

/* "(%base[,%index[,scale]])" or "(,%index[,scale])" at *p. */
static int x86_sib(const char **p, struct pc_argspec *a, const char **why)
{
	const struct x86_reg *r;
	const char *s = *p + 1;
	uint64_t sc = 1;
	unsigned int want = a->machine == PC_ARGSPEC_I386 ? 4 : 8;
	int ret;

	if (*s == '%') {
		if (x86_reg(&s, a->machine, true, &r, why))
			return -EINVAL;
		if (r->bytes != want || r->hi8)
			goto width;
		a->base = r->reg;
	}
	if (*s == ',') {
		s++;
		ret = x86_index(&s, a, want, &sc, why);
		if (ret)
			return ret;
	}
	if (*s != ')' || s[1] || (a->base == PC_AS_NOREG && a->index == PC_AS_NOREG)) {
		*why = "malformed (base,index,scale)";
		return -EINVAL;
	}
	a->scale = (uint8_t)sc;
	*p = s + 1;
	return 0;
width:
	*why = "address register must be full width";
	return -EOPNOTSUPP;
}

/* "$N": a constant. "$sym" (an address) has no fixed value in a PIE. */
static int x86_imm(const char *s, struct pc_argspec *a, const char **why)
{
	a->kind = PC_AS_IMM;
	if (sym_start(*s)) {
		*why = "symbol address immediates are not supported";
		return -EOPNOTSUPP;
	}
	if (parse_int(&s, &a->imm) || *s) {
		*why = "bad immediate";
		return -EINVAL;
	}
	return 0;
}

static int parse_x86(const char *s, struct pc_argspec *a, const char **why)
{
	const struct x86_reg *r;
	int ret;

	if (strchr(s, ':')) {
		*why = "segment-relative operands (%fs:, %gs:) are not supported";
		return -EOPNOTSUPP;
	}
	if (*s == '%') {
		ret = x86_reg(&s, a->machine, false, &r, why);
		if (ret)
			return ret;
		if (*s) {
			*why = "junk after register";
			return -EINVAL;
		}
		a->kind = PC_AS_REG;
		a->reg = r->reg;
		a->regbytes = r->bytes;
		a->hi8 = r->hi8;
		return 0;
	}
	if (*s == '$')
		return x86_imm(s + 1, a, why);
	a->kind = PC_AS_MEM;
	ret = x86_disp(&s, a, why);
	if (ret)
		return ret;
	if (*s == '(')
		return x86_sib(&s, a, why);
	if (!a->sym[0] && !a->disp) {
		*why = "empty operand";
		return -EINVAL;
	}
	return 0;
}

/* aarch64 "xN" / "wN" / "sp" / "wsp" at *p; sets number (31 = sp) and width. */
static int a64_reg(const char **p, uint8_t *reg, uint8_t *bytes, const char **why)
{
	const char *s = *p;
	uint64_t n;

	if (!strncmp(s, "sp", 2) || !strncmp(s, "wsp", 3)) {
		*bytes = *s == 'w' ? 4 : 8;
		*reg = 31;
		s += *s == 'w' ? 3 : 2;
	} else if ((*s == 'x' || *s == 'w') && isdigit((unsigned char)s[1])) {
		*bytes = *s == 'w' ? 4 : 8;
		s++;
		if (parse_uint(&s, &n) || n > 30)
			goto bad;
		*reg = (uint8_t)n;
	} else {
		goto bad;
	}
	if (isalnum((unsigned char)*s))
		goto bad;
	*p = s;
	return 0;
bad:
	*why = "unknown aarch64 register";
	return -EINVAL;
}

static void skip_blanks(const char **p)
{
	while (**p == ' ')
		(*p)++;
}

/* Second element of "[xN, ...]": #off, off, xM or xM, lsl #k. */
static int a64_mem_second(const char **p, struct pc_argspec *a, const char **why)
{
	uint8_t bytes;
	uint64_t k = 0;

	if (**p == 'x' || **p == 'w') {
		if (a64_reg(p, &a->index, &bytes, why))
			return -EINVAL;
		if (a->index == 31) {
			*why = "sp cannot be an index";
			return -EINVAL;
		}
		skip_blanks(p);
		if (**p == ',') {
			(*p)++;
			skip_blanks(p);
			if (strncmp(*p, "lsl", 3))
				goto bad;
			*p += 3;
			skip_blanks(p);
			if (**p == '#')
				(*p)++;
			if (parse_uint(p, &k) || k > 3)
				goto bad;
		}
		a->scale = (uint8_t)(1u << k);
		return bytes == 8 ? 0 : -EOPNOTSUPP;
	}
	if (**p == '#')
		(*p)++;
	if (parse_int(p, &a->disp))
		goto bad;
	return 0;
bad:
	*why = "malformed aarch64 address";
	return -EINVAL;
}

static int parse_a64_mem(const char *s, struct pc_argspec *a, const char **why)
{
	uint8_t bytes;
	int ret;

	a->kind = PC_AS_MEM;
	s++;
	if (a64_reg(&s, &a->base, &bytes, why))
		return -EINVAL;
	if (bytes != 8) {
		*why = "address register must be an x register or sp";
		return -EOPNOTSUPP;
	}
	skip_blanks(&s);
	if (*s == ',') {
		s++;
		skip_blanks(&s);
		ret = a64_mem_second(&s, a, why);
		if (ret) {
			if (ret == -EOPNOTSUPP)
				*why = "w-register index (sxtw/uxtw) is not supported";
			return ret;
		}
		skip_blanks(&s);
	}
	if (*s != ']' || s[1]) {
		*why = *s == ']' ? "pre/post-index addressing" : "malformed aarch64 address";
		return -EINVAL;
	}
	return 0;
}

static int parse_a64(const char *s, struct pc_argspec *a, const char **why)
{
	if (*s == '[')
		return parse_a64_mem(s, a, why);
	if (!strcmp(s, "xzr") || !strcmp(s, "wzr")) {
		a->kind = PC_AS_IMM;	/* the zero register reads as 0 */
		a->imm = 0;
		return 0;
	}
	if (*s == 'x' || *s == 'w' || !strcmp(s, "sp") || !strcmp(s, "wsp")) {
		a->kind = PC_AS_REG;
		if (a64_reg(&s, &a->reg, &a->regbytes, why))
			return -EINVAL;
		if (*s) {
			*why = "junk after register";
			return -EINVAL;
		}
		return 0;
	}
	a->kind = PC_AS_IMM;
	if (*s == '#')
		s++;
	if (parse_int(&s, &a->imm) || *s) {
		*why = "unknown aarch64 operand";
		return -EINVAL;
	}
	return 0;
}

int pc_argspec_parse(const char *spec, uint16_t machine, struct pc_argspec *a,
		     const char **why)
{
	const char *op;

	memset(a, 0, sizeof(*a));
	a->machine = machine;
	a->base = a->index = a->reg = PC_AS_NOREG;
	a->scale = 1;
	*why = "";
	if (strnlen(spec, SPEC_MAX + 1) > SPEC_MAX) {
		*why = "arg spec too long";
		return -EINVAL;
	}
	op = parse_size(spec, a, why);
	if (!op)
		return -EINVAL;
	if (!*op) {
		*why = "empty operand";
		return -EINVAL;
	}
	if (is_x86(machine))
		return parse_x86(op, a, why);
	if (machine == PC_ARGSPEC_AARCH64)
		return parse_a64(op, a, why);
	*why = "arg specs of this machine are not supported";
	return -EOPNOTSUPP;
}

const char *pc_argspec_type(const struct pc_argspec *a, unsigned int wordsize)
{
	static const char *const u[] = { "u8", "u16", NULL, "u32", NULL, NULL, NULL, "u64" };
	static const char *const s[] = { "s8", "s16", NULL, "s32", NULL, NULL, NULL, "s64" };
	int n = a->size;

	/* Size-less (pre-v3 style) operands: the register's width, else a word. */
	if (!n)
		n = a->kind == PC_AS_REG ? a->regbytes : (int)wordsize;
	if (n != 1 && n != 2 && n != 4 && n != 8 && n != -1 && n != -2 && n != -4 && n != -8)
		n = 8;
	return n < 0 ? s[-n - 1] : u[n - 1];
}

static const char *reg_name(const struct pc_argspec *a, uint8_t r, char tmp[8])
{
	if (is_x86(a->machine))
		return x86_ftrace[r];
	if (r == 31)
		return "sp";
	snprintf(tmp, 8, "x%u", r);
	return tmp;
}

/* Link-time address of a symbolic/absolute memory operand, as a file offset. */
static int mem_fileoff(const struct pc_argspec *a, const struct pc_argctx *ctx,
		       uint64_t *off, const char **why)
{
	uint64_t v = 0;
	int ret;

	if (a->sym[0]) {
		ret = ctx->sym_value(ctx->priv, a->sym, &v);
		if (ret) {
			*why = ret == -EEXIST ? "symbol name is ambiguous (several local symbols)" :
			       "symbol not in .symtab, .dynsym or the build-id debug file";
			return ret;
		}
	} else if (!ctx->fixed) {
		*why = "absolute address in a position-independent binary";
		return -EOPNOTSUPP;
	}
	ret = ctx->vaddr_to_off(ctx->priv, v + (uint64_t)a->disp, off);
	if (ret)
		*why = "address is not inside any PT_LOAD segment";
	return ret;
}

/* +D(%B) / +D(%B,%I,S) when base or index is a general register. */
static int mem_reg(const struct pc_argspec *a, const struct pc_argctx *ctx, struct pc_out *o,
		   const char **why)
{
	uint64_t v = 0;
	int64_t d = a->disp;
	uint8_t b = a->base, i = a->index, s = a->scale;
	char t1[8], t2[8];

	if (a->sym[0]) {
		/* Only an ET_EXEC symbol is a constant the module can add to a register. */
		if (!ctx->fixed) {
			*why = "symbol plus register in a position-independent binary";
			return -EOPNOTSUPP;
		}
		if (ctx->sym_value(ctx->priv, a->sym, &v)) {
			*why = "symbol not found or ambiguous";
			return -ENOENT;
		}
		d = (int64_t)(v + (uint64_t)d);
	}
	/* No base: "+D(,%idx,S)", the record grammar's SIB without base register. */
	if (b == PC_AS_NOREG) {
		pc_outf(o, "%c%" PRIu64 "(,%%%s,%u", d < 0 ? '-' : '+',
		     d < 0 ? 0 - (uint64_t)d : (uint64_t)d, reg_name(a, i, t2), s);
		pc_outf(o, ")");
		return 0;
	}
	pc_outf(o, "%c%" PRIu64 "(%%%s", d < 0 ? '-' : '+', d < 0 ? 0 - (uint64_t)d : (uint64_t)d,
	     reg_name(a, b, t1));
	if (i != PC_AS_NOREG)
		pc_outf(o, ",%%%s,%u", reg_name(a, i, t2), s);
	pc_outf(o, ")");
	return 0;
}

static int record_mem(const struct pc_argspec *a, const struct pc_argctx *ctx, struct pc_out *o,
		      const char **why)
{
	uint64_t off;
	int ret;

	if (a->base == PC_AS_X86_IP && !a->sym[0]) {
		/* Bare N(%rip): relative to the probed instruction, as libbpf reads it. */
		pc_outf(o, "%c%" PRIu64 "(%%ip)", a->disp < 0 ? '-' : '+',
		     a->disp < 0 ? 0 - (uint64_t)a->disp : (uint64_t)a->disp);
		return 0;
	}
	if (a->base == PC_AS_X86_IP || (a->base == PC_AS_NOREG && a->index == PC_AS_NOREG)) {
		ret = mem_fileoff(a, ctx, &off, why);
		if (ret)
			return ret;
		pc_outf(o, "@+0x%" PRIx64, off);
		return 0;
	}
	return mem_reg(a, ctx, o, why);
}

int pc_argspec_record(const struct pc_argspec *a, const struct pc_argctx *ctx,
		      char *buf, size_t len, const char **why)
{
	struct pc_out o = { buf, len, 0, 0 };
	char tmp[8];
	int ret = 0;

	*why = "";
	if (len)
		buf[0] = '\0';
	switch (a->kind) {
	case PC_AS_REG:
		if (a->hi8) {
			*why = "high-byte register (%ah..%dh) has no record form";
			return -EOPNOTSUPP;
		}
		pc_outf(&o, "%%%s", reg_name(a, a->reg, tmp));
		break;
	case PC_AS_IMM:
		pc_outf(&o, "\\%" PRId64, a->imm);
		break;
	case PC_AS_MEM:
		ret = record_mem(a, ctx, &o, why);
		break;
	}
	if (ret)
		return ret;
	pc_outf(&o, ":%s", pc_argspec_type(a, ctx->wordsize));
	if (o.err)
		*why = "output buffer too small";
	return o.err;
}

int pc_argspec_split(const char *argstr,
		     int (*fn)(const char *spec, unsigned int idx, void *priv),
		     void *priv)
{
	char spec[SPEC_MAX + 1];
	unsigned int idx = 0;
	const char *p = argstr;
	int ret;

	for (;;) {
		size_t n = 0;
		int depth = 0;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			return 0;
		while (p[n] && (depth > 0 || (p[n] != ' ' && p[n] != '\t'))) {
			depth += p[n] == '[' ? 1 : p[n] == ']' ? -1 : 0;
			if (++n > SPEC_MAX)
				return -E2BIG;
		}
		memcpy(spec, p, n);
		spec[n] = '\0';
		p += n;
		ret = fn(spec, idx++, priv);
		if (ret)
			return ret;
	}
}

/*
 * perf 6.1 tools/perf/arch/x86/util/perf_regs.c, reproduced: the same regex,
 * the same 6-character register limit and the same prefix-matching rename
 * table (strncmp over the operand's register length).
 */
static const char *const perf_x86_rename[][2] = {
	{ "%eax", "%ax" }, { "%rax", "%ax" }, { "%al", "%ax" }, { "%ah", "%ax" },
	{ "%ebx", "%bx" }, { "%rbx", "%bx" }, { "%bl", "%bx" }, { "%bh", "%bx" },
	{ "%ecx", "%cx" }, { "%rcx", "%cx" }, { "%cl", "%cx" }, { "%ch", "%cx" },
	{ "%edx", "%dx" }, { "%rdx", "%dx" }, { "%dl", "%dx" }, { "%dh", "%dx" },
	{ "%esi", "%si" }, { "%rsi", "%si" }, { "%sil", "%si" },
	{ "%edi", "%di" }, { "%rdi", "%di" }, { "%dil", "%di" },
	{ "%ebp", "%bp" }, { "%rbp", "%bp" }, { "%bpl", "%bp" },
	{ "%rsp", "%sp" }, { "%esp", "%sp" }, { "%spl", "%sp" },
	{ "%r8b", "%r8" }, { "%r8w", "%r8" }, { "%r8d", "%r8" },
	{ "%r9b", "%r9" }, { "%r9w", "%r9" }, { "%r9d", "%r9" },
	{ "%r10b", "%r10" }, { "%r10w", "%r10" }, { "%r10d", "%r10" },
	{ "%r11b", "%r11" }, { "%r11w", "%r11" }, { "%r11d", "%r11" },
	{ "%r12b", "%r12" }, { "%r12w", "%r12" }, { "%r12d", "%r12" },
	{ "%r13b", "%r13" }, { "%r13w", "%r13" }, { "%r13d", "%r13" },
	{ "%r14b", "%r14" }, { "%r14w", "%r14" }, { "%r14d", "%r14" },
	{ "%r15b", "%r15" }, { "%r15w", "%r15" }, { "%r15d", "%r15" },
};

#define PERF_X86_RE	"^([+\\-]?)([0-9]*)(\\(?)(%[a-z][a-z0-9]+)(\\)?)$"
#define PERF_A64_RE1	"^(x[1-2]?[0-9]|3[0-1])$"
#define PERF_A64_RE2	"^\\[sp(, )?([0-9]+)?\\]$"

static regex_t perf_re[3];

static int perf_re_init(void)
{
	static int done;
	static const char *const src[3] = { PERF_X86_RE, PERF_A64_RE1, PERF_A64_RE2 };

	for (; done < 3; done++)
		if (regcomp(&perf_re[done], src[done], REG_EXTENDED))
			return -ENOMEM;
	return 0;
}

#define RM_LEN(rm, i)	((int)((rm)[i].rm_eo - (rm)[i].rm_so))

/* Returns 1 and appends the op if perf keeps it, 0 if perf skips it. */
static int perf_x86_op(const char *op, struct pc_out *o)
{
	regmatch_t rm[6];
	const char *reg, *pfx = "";
	int rlen;

	if (strchr(op, ',') || strchr(op, '$') || regexec(&perf_re[0], op, 6, rm, 0) ||
	    RM_LEN(rm, 4) > 6)
		return 0;
	if (RM_LEN(rm, 3)) {
		if (RM_LEN(rm, 1))
			pfx = op[rm[1].rm_so] == '-' ? "-" : "+";
		else
			pfx = RM_LEN(rm, 2) ? "+" : "+0";
	}
	reg = op + rm[4].rm_so;
	rlen = RM_LEN(rm, 4);
	for (size_t i = 0; i < sizeof(perf_x86_rename) / sizeof(perf_x86_rename[0]); i++) {
		if (!strncmp(perf_x86_rename[i][0], reg, rlen)) {
			reg = perf_x86_rename[i][1];
			rlen = (int)strlen(reg);
			break;
		}
	}
	pc_outf(o, "%s%.*s%.*s%.*s%.*s", pfx, RM_LEN(rm, 2), op + rm[2].rm_so,
	     RM_LEN(rm, 3), op + rm[3].rm_so, rlen, reg, RM_LEN(rm, 5), op + rm[5].rm_so);
	return 1;
}

/* perf 6.1 tools/perf/arch/arm64/util/perf_regs.c, reproduced. */
static int perf_a64_op(const char *op, struct pc_out *o)
{
	regmatch_t rm[5];

	if (!regexec(&perf_re[1], op, 3, rm, 0)) {
		pc_outf(o, "%%%.*s", RM_LEN(rm, 1), op + rm[1].rm_so);
		return 1;
	}
	if (!regexec(&perf_re[2], op, 5, rm, 0)) {
		if (rm[2].rm_so == -1)
			pc_outf(o, "+0(%%sp)");
		else
			pc_outf(o, "+%.*s(%%sp)", RM_LEN(rm, 2), op + rm[2].rm_so);
		return 1;
	}
	return 0;
}

/* synthesize_sdt_probe_arg(): "N@OP" with N in -8..8 (else the note fails). */
static int perf_arg(const char *arg, unsigned int idx, uint16_t machine, struct pc_out *o)
{
	static const char *const suffix[17] = {
		":s64", "", "", "", ":s32", "", ":s16", ":s8",
		"", ":u8", ":u16", "", ":u32", "", "", "", ":u64"
	};
	const char *at = strchr(arg, '@'), *op = arg, *sfx = "";
	size_t mark = o->pos;
	int kept = 0;

	if (at) {
		long n = strtol(arg, NULL, 10);	/* perf ignores what follows the digits */

		if (n < -8 || n > 8)
			return -EINVAL;
		sfx = suffix[n + 8];
		op = at + 1;
	}
	pc_outf(o, " arg%u=", idx + 1);
	if (is_x86(machine))
		kept = perf_x86_op(op, o);
	else if (machine == PC_ARGSPEC_AARCH64)
		kept = perf_a64_op(op, o);
	if (!kept) {
		o->pos = mark;
		if (!o->err && o->len)
			o->buf[mark] = '\0';
		return 0;
	}
	pc_outf(o, "%s", sfx);
	return 0;
}

/* Next blank-separated word of @s at *p (perf's argv_split, on isspace). */
static size_t perf_word(const char *s, size_t *p)
{
	while (s[*p] && isspace((unsigned char)s[*p]))
		(*p)++;
	size_t n = 0;

	while (s[*p + n] && !isspace((unsigned char)s[*p + n]))
		n++;
	return n;
}

int pc_argspec_perf(const char *argstr, uint16_t machine, char *buf, size_t len)
{
	struct pc_out o = { buf, len, 0, 0 };
	char arg[2 * SPEC_MAX + 2];
	size_t p = 0, n, n2, p2;
	unsigned int idx = 0;
	int ret;

	if (len)
		buf[0] = '\0';
	if (perf_re_init())
		return -ENOMEM;
	/* populate_sdt_note(): an empty string or one starting with ':' has no args. */
	if (!argstr[0] || argstr[0] == ':')
		return 0;
	while ((n = perf_word(argstr, &p)) > 0) {
		if (n > SPEC_MAX)
			return -E2BIG;
		memcpy(arg, argstr + p, n);
		arg[n] = '\0';
		p += n;
		/* perf's arm64 FIXUP: "[sp," is joined with the following word. */
		p2 = p;
		if (strstr(arg, "[sp,") && (n2 = perf_word(argstr, &p2)) > 0 && n2 <= SPEC_MAX) {
			arg[n] = ' ';
			memcpy(arg + n + 1, argstr + p2, n2);
			arg[n + 1 + n2] = '\0';
			p = p2 + n2;
		}
		ret = perf_arg(arg, idx++, machine, &o);
		if (ret)
			return ret;
	}
	return o.err;
}
