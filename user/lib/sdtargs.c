// SPDX-License-Identifier: GPL-2.0
/*
 * Names and types for SDT arguments (sdtargs.h): parsing "NAME=EXPR:TYPE"
 * lists and applying one to a note's record args, checked against the note.
 * Untrusted text (the command line, provider files, cache files): no
 * recursion, every length bounded.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outbuf.h"
#include "record.h"
#include "sdtargs.h"

#define ITEM_MAX	256	/* one ARG; real ones are < 64 bytes */

static const char *const types[] = {
	"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
	"x8", "x16", "x32", "x64", "string",
};

static int __attribute__((format(printf, 3, 4))) bad(char *why, size_t whylen,
						       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Bytes a TYPE reads: 1..8, 0 for string, -1 for no such type. */
static int type_size(const char *t)
{
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(t, types[i]))
			return t[0] == 's' && t[1] == 't' ? 0 : atoi(t + 1) / 8;
	return -1;
}

static bool name_ok(const char *s, size_t n)
{
	if (!n || n > PROBECACHE_ARG_NAME_MAX || (!isalpha((unsigned char)s[0]) && s[0] != '_'))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return false;
	/* The event's own fields, and the record's pid= keyword. */
	return strncmp(s, "common_", 7) && strncmp(s, "__probe_", 8) &&
	       !(n == 3 && !memcmp(s, "pid", 3));
}

/* Signed decimal or 0x hex offset at *p, fitting int64_t. */
static int parse_off(const char **p, int64_t *v)
{
	bool neg = **p == '-';
	char *end;
	uint64_t u;

	(*p)++;
	if (!isdigit((unsigned char)**p))
		return -EINVAL;
	errno = 0;
	u = strtoull(*p, &end, 0);
	if (errno || u > (uint64_t)INT64_MAX)
		return -EINVAL;
	*p = end;
	*v = neg ? -(int64_t)u : (int64_t)u;
	return 0;
}

/* "argN" at *p: N in 1..PC_SDTARGS_MAX. */
static int parse_argn(const char **p, unsigned int *n)
{
	const char *s = *p;
	unsigned int v = 0;

	if (strncmp(s, "arg", 3) || !isdigit((unsigned char)s[3]) || s[3] == '0')
		return -EINVAL;
	for (s += 3; isdigit((unsigned char)*s) && v <= PC_SDTARGS_MAX; s++)
		v = v * 10 + (unsigned int)(*s - '0');
	if (v > PC_SDTARGS_MAX)
		return -EINVAL;
	*n = v;
	*p = s;
	return 0;
}

/* EXPR: loads collected outermost first, then argN, then their ')'. */
static int parse_expr(const char **p, struct pc_sdtarg *a, char *why, size_t whylen)
{
	int64_t offs[PROBECACHE_MAX_DEREF];
	unsigned int n = 0;

	while (**p == '+' || **p == '-') {
		if (n == PROBECACHE_MAX_DEREF)
			return bad(why, whylen, "more than %d loads", PROBECACHE_MAX_DEREF);
		if (parse_off(p, &offs[n]) || **p != '(')
			return bad(why, whylen, "expected +OFF( or -OFF( with a number");
		(*p)++;
		n++;
	}
	if (parse_argn(p, &a->argn))
		return bad(why, whylen, "expected argN, N from 1 to %d", PC_SDTARGS_MAX);
	for (a->nload = 0; a->nload < n; a->nload++) {
		if (**p != ')')
			return bad(why, whylen, "expected ')'");
		(*p)++;
		a->off[a->nload] = offs[n - 1 - a->nload];
	}
	return 0;
}

static int parse_item(char *s, struct pc_sdtarg *a, char *why, size_t whylen)
{
	char *eq = strchr(s, '='), *colon;
	const char *p = eq ? eq + 1 : s;

	memset(a, 0, sizeof(*a));
	if (eq && !name_ok(s, (size_t)(eq - s)))
		return bad(why, whylen, "'%.*s': a NAME is [A-Za-z_][A-Za-z0-9_]*, at most %d "
			   "bytes, not pid, common_* or __probe_*", (int)(eq - s), s,
			   PROBECACHE_ARG_NAME_MAX);
	if (parse_expr(&p, a, why, whylen))
		return -EINVAL;
	colon = strchr(p, ':');
	if (*p && (p != colon || type_size(colon + 1) < 0))
		return bad(why, whylen, "'%s': expected :TYPE (u8..u64, s8..s64, x8..x64, "
			   "string) after the expression", s);
	if (colon)
		snprintf(a->type, sizeof(a->type), "%s", colon + 1);
	if (eq)
		snprintf(a->name, sizeof(a->name), "%.*s", (int)(eq - s), s);
	else if (a->nload)
		return bad(why, whylen, "'%s': a load needs NAME=", s);
	else
		snprintf(a->name, sizeof(a->name), "arg%u", a->argn);
	return 0;
}

static int add_item(const char *s, size_t n, struct pc_sdtargs *out, char *why, size_t whylen)
{
	char item[ITEM_MAX + 1];

	if (n > ITEM_MAX)
		return bad(why, whylen, "an argument longer than %d bytes", ITEM_MAX);
	if (out->n == PC_SDTARGS_MAX) {
		snprintf(why, whylen, "more than %d arguments", PC_SDTARGS_MAX);
		return -E2BIG;
	}
	memcpy(item, s, n);
	item[n] = '\0';
	if (parse_item(item, &out->a[out->n], why, whylen))
		return -EINVAL;
	for (unsigned int i = 0; i < out->n; i++)
		if (!strcmp(out->a[i].name, out->a[out->n].name))
			return bad(why, whylen, "'%s' named twice", out->a[i].name);
	out->n++;
	return 0;
}

int pc_sdtargs_parse(const char *text, struct pc_sdtargs *out, char *why, size_t whylen)
{
	const char *p = text;
	int ret;

	out->n = 0;
	if (whylen)
		why[0] = '\0';
	for (;;) {
		size_t n;

		p += strspn(p, " \t");
		n = strcspn(p, " \t");
		if (!n)
			return 0;
		ret = add_item(p, n, out, why, whylen);
		if (ret)
			return ret;
		p += n;
	}
}

static void out_load(struct pc_out *o, int64_t off)
{
	pc_outf(o, "%c%" PRIu64 "(", off < 0 ? '-' : '+', off < 0 ? 0 - (uint64_t)off : (uint64_t)off);
}

int pc_sdtargs_format(const struct pc_sdtargs *s, char *buf, size_t len)
{
	struct pc_out o = { buf, len, 0, 0 };

	if (len)
		buf[0] = '\0';
	for (unsigned int i = 0; i < s->n; i++) {
		const struct pc_sdtarg *a = &s->a[i];

		pc_outf(&o, "%s%s=", i ? " " : "", a->name);
		for (unsigned int j = a->nload; j-- > 0;)
			out_load(&o, a->off[j]);
		pc_outf(&o, "arg%u%.*s", a->argn, (int)a->nload, "))))");
		if (a->type[0])
			pc_outf(&o, ":%s", a->type);
	}
	return o.err;
}

/* ---- applying to a note ---- */

/* The note's args, from its unnamed record args "argK=FETCH:TYPE ...". */
struct note {
	char text[PC_SDTARGS_LEN];
	const char *fetch[PC_SDTARGS_MAX + 1];	/* by K; NULL: no record form */
	const char *type[PC_SDTARGS_MAX + 1];
};

static int note_parse(const char *rec_args, struct note *nt)
{
	char *p = nt->text, *tok;

	memset(nt->fetch, 0, sizeof(nt->fetch));
	if (strlen(rec_args) >= sizeof(nt->text))
		return -ENOSPC;
	strcpy(nt->text, rec_args);
	while ((tok = strsep(&p, " "))) {
		const char *q = tok;
		char *colon = strrchr(tok, ':');
		unsigned int k;

		if (!*tok)
			continue;
		if (parse_argn(&q, &k) || *q != '=' || !colon || type_size(colon + 1) <= 0)
			return -EINVAL;
		*colon = '\0';
		nt->fetch[k] = q + 1;
		nt->type[k] = colon + 1;
	}
	return 0;
}

/* Does @x fit @bits-bit @type (x: either sign)? */
static bool fits(__int128 x, const char *type, int bits)
{
	__int128 lo = -((__int128)1 << (bits - 1)), hi = ((__int128)1 << bits) - 1;

	if (type[0] == 's')
		hi = ((__int128)1 << (bits - 1)) - 1;
	else if (type[0] == 'u')
		lo = 0;
	return x >= lo && x <= hi;
}

/*
 * Does constant @v fit @type, as written or as the note's @ntype holds it
 * (gas writes "4@$-1" for a uint32_t -1: 4294967295)?
 */
static bool imm_fits(int64_t v, const char *ntype, const char *type)
{
	int nbits = type_size(ntype) * 8, bits = type_size(type) * 8;
	uint64_t mask = nbits == 64 ? UINT64_MAX : (UINT64_C(1) << nbits) - 1;
	__int128 held = (uint64_t)v & mask;

	if (ntype[0] == 's' && held >> (nbits - 1))
		held -= (__int128)mask + 1;
	return fits(v, type, bits) || fits(held, type, bits);
}

/* Is @a's use of note arg @fetch:@ntype what the note holds? */
static int check_arg(const struct pc_sdtarg *a, const char *fetch, const char *ntype,
		     unsigned int wordsize, char *why, size_t whylen)
{
	int nsize = type_size(ntype), tsize = a->type[0] ? type_size(a->type) : nsize;

	if (a->nload || !tsize) {
		if ((unsigned int)nsize != wordsize)
			return bad(why, whylen, "%s: arg%u is %d bytes in the note (%s:%s), not "
				   "a %u-byte pointer", a->name, a->argn, nsize, fetch, ntype,
				   wordsize);
		return 0;
	}
	if (tsize == nsize)
		return 0;
	if (fetch[0] == '\\' && imm_fits(strtoll(fetch + 1, NULL, 0), ntype, a->type))
		return 0;
	return bad(why, whylen, "%s: arg%u is %d bytes in the note (%s:%s), %s reads %d",
		   a->name, a->argn, nsize, fetch, ntype, a->type, tsize);
}

/* Loads of @fetch itself: +OFF(...) and (B,I,S) one each, @+FILEOFF one. */
static unsigned int fetch_depth(const char *fetch)
{
	unsigned int n = strchr(fetch, '@') ? 1 : 0;

	for (; *fetch; fetch++)
		n += *fetch == '(';
	return n;
}

static int out_arg(struct pc_out *o, const struct pc_sdtarg *a, const char *fetch,
		   const char *ntype, char *why, size_t whylen)
{
	bool str = !strcmp(a->type, "string");
	unsigned int depth = fetch_depth(fetch) + a->nload + str;

	if (depth > PROBECACHE_MAX_DEREF)
		return bad(why, whylen, "%s: arg%u (%s) with %u more loads nests deeper than "
			   "the %d loads a record can", a->name, a->argn, fetch,
			   a->nload + str, PROBECACHE_MAX_DEREF);
	pc_outf(o, "%s%s=", o->pos ? " " : "", a->name);
	if (str)
		pc_outf(o, "+0(");
	for (unsigned int j = a->nload; j-- > 0;)
		out_load(o, a->off[j]);
	pc_outf(o, "%s%.*s", fetch, (int)(a->nload + str), "))))");
	pc_outf(o, ":%s", a->type[0] ? a->type : a->nload ? "u64" : ntype);
	return 0;
}

static int check_whole(const struct pc_sdtargs *s, unsigned int nargs, char *why, size_t whylen)
{
	for (unsigned int k = 1; k <= nargs; k++) {
		unsigned int i;

		for (i = 0; i < s->n && s->a[i].argn != k; i++)
			;
		if (i == s->n)
			return bad(why, whylen, "the note has %u args, arg%u has no name", nargs, k);
	}
	return 0;
}

/* Does @args form a record's args, in either machine's registers? */
static int record_ok(const char *args, char *why, size_t whylen)
{
	static const char head[] = "add p:g/e 00 /x:0x1 ";
	struct pc_command *cmd = malloc(sizeof(*cmd));
	struct pc_parse_error err = { 0 };
	char *line = malloc(sizeof(head) + strlen(args));
	int ret = -ENOMEM;

	if (cmd && line) {
		strcpy(line, head);
		strcat(line, args);
		ret = -EINVAL;
		for (int m = 0; ret && m < PC_NR_MACHS; m++)
			ret = pc_parse_command_mach(line, strlen(line), m, PROBECACHE_MAX_ARGS,
						    cmd, &err);
	}
	if (ret)
		bad(why, whylen, "the named args are no record's: %s: %s",
		    err.field ? err.field : "line", err.why ? err.why : "no memory");
	free(cmd);
	free(line);
	return ret;
}

int pc_sdtargs_apply(const struct pc_sdtargs *s, const char *rec_args, unsigned int nargs,
		     unsigned int wordsize, bool whole, char *out, size_t len,
		     char *why, size_t whylen)
{
	struct pc_out o = { out, len, 0, 0 };
	struct note *nt = malloc(sizeof(*nt));
	int ret = nt ? note_parse(rec_args, nt) : -ENOMEM;

	if (len)
		out[0] = '\0';
	if (ret)
		bad(why, whylen, "the note's record args do not parse");
	for (unsigned int i = 0; !ret && i < s->n; i++) {
		const struct pc_sdtarg *a = &s->a[i];

		if (a->argn > nargs)
			ret = bad(why, whylen, "%s: arg%u, but the note has %u args", a->name,
				  a->argn, nargs);
		else if (!nt->fetch[a->argn])
			ret = bad(why, whylen, "%s: arg%u has no record form", a->name, a->argn);
		else if (!(ret = check_arg(a, nt->fetch[a->argn], nt->type[a->argn], wordsize,
					   why, whylen)))
			ret = out_arg(&o, a, nt->fetch[a->argn], nt->type[a->argn], why, whylen);
	}
	if (!ret && whole)
		ret = check_whole(s, nargs, why, whylen);
	free(nt);
	if (!ret && o.err)
		return bad(why, whylen, "output buffer too small"), o.err;
	return ret || !o.pos ? ret : record_ok(out, why, whylen);
}
