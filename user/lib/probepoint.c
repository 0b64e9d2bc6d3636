// SPDX-License-Identifier: GPL-2.0
/*
 * perf probe-definition parser (syntax in probepoint.h). Pure C so the unit
 * tests can feed it anything; the meaning of every piece is decided later,
 * against debuginfo, in dwarf.c.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probepoint.h"

static int pp_error(char *err, size_t len, int ret, const char *fmt, ...)
{
	va_list ap;

	if (err && len) {
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return ret;
}

bool pc_pp_is_ident(const char *s)
{
	if (!s || !(isalpha((unsigned char)*s) || *s == '_'))
		return false;
	for (s++; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

/* [...] class at @pat (just after '['); advances *pat past ']'. */
static bool class_match(const char **pat, char c)
{
	const char *p = *pat;
	bool neg = false, hit = false;

	if (*p == '!' || *p == '^') {
		neg = true;
		p++;
	}
	while (*p && *p != ']') {
		if (p[1] == '-' && p[2] && p[2] != ']') {
			hit |= (c >= p[0] && c <= p[2]);
			p += 3;
		} else {
			hit |= (c == *p);
			p++;
		}
	}
	*pat = *p ? p + 1 : p;
	return hit != neg;
}

/* One non-'*' pattern element at *@p against @c; advances *@p past it. */
static bool one(const char **p, char c)
{
	if (**p == '?') {
		(*p)++;
		return true;
	}
	if (**p == '[') {
		(*p)++;
		return class_match(p, c);
	}
	if (**p == '\\' && (*p)[1])
		(*p)++;
	return *(*p)++ == c;
}

/* Iterative, one backtrack point: linear in |s| * |p|, whatever the stars. */
static bool glob(const char *s, const char *p, bool lazy)
{
	const char *star_p = NULL, *star_s = NULL;

	for (;;) {
		if (lazy) {
			while (isspace((unsigned char)*s))
				s++;
			while (isspace((unsigned char)*p))
				p++;
		}
		if (*p == '*') {
			while (*p == '*' || (lazy && isspace((unsigned char)*p)))
				p++;
			if (!*p)
				return true;
			star_p = p;
			star_s = s;
			continue;
		}
		if (*s && *p) {
			const char *np = p;

			if (one(&np, *s)) {
				p = np;
				s++;
				continue;
			}
		} else if (!*s && !*p) {
			return true;
		}
		if (!star_p || !*star_s)
			return false;
		s = ++star_s;
		p = star_p;
	}
}

bool pc_glob_match(const char *str, const char *pat)
{
	return glob(str, pat, false);
}

bool pc_lazy_match(const char *str, const char *pat)
{
	return glob(str, pat, true);
}

int pc_pp_default_group(const char *path, char *buf, size_t len)
{
	const char *base = strrchr(path, '/');
	size_t n = 0;

	base = base ? base + 1 : path;
	while (base[n] && (isalnum((unsigned char)base[n]) || base[n] == '_'))
		n++;
	if (!n || (size_t)snprintf(buf, len, "probe_%.*s", (int)n, base) >= len)
		return -ENAMETOOLONG;
	return 0;
}

int pc_pp_arg_tvname(const struct pc_pp_arg *a, char *buf, size_t len)
{
	const char *base = a->name;
	int n;

	if (!base) {
		base = a->var;
		for (size_t i = 0; i < a->nfields; i++)
			if (a->fields[i].name)
				base = a->fields[i].name;
	}
	if (a->name || a->nfields || !a->type)
		n = snprintf(buf, len, "%s", base);
	else
		n = snprintf(buf, len, "%s_%s", base, a->type);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int parse_fields(struct pc_pp_arg *a, char *s, char *err, size_t el)
{
	while (*s) {
		struct pc_pp_field *f;
		char *end;

		if (a->nfields == PC_PP_MAX_FIELDS)
			return pp_error(err, el, -E2BIG, "%s: more than %d fields",
					a->var, PC_PP_MAX_FIELDS);
		f = &a->fields[a->nfields];
		if (*s == '[') {
			f->index = strtol(s + 1, &end, 0);
			if (end == s + 1 || *end != ']')
				return pp_error(err, el, -EINVAL,
						"%s: array index must be a number", a->var);
			f->ref = true;
			s = end + 1;
			a->nfields++;
			continue;
		}
		if (*s == '.') {
			s++;
		} else if (s[0] == '-' && s[1] == '>') {
			f->ref = true;
			s += 2;
		} else {
			return pp_error(err, el, -EINVAL, "%s: unexpected '%s'", a->var, s);
		}
		end = s + strcspn(s, "-.[");
		f->name = strndup(s, end - s);
		if (!f->name)
			return -ENOMEM;
		a->nfields++;
		if (!pc_pp_is_ident(f->name))
			return pp_error(err, el, -EINVAL, "%s: bad field name '%s'",
					a->var, f->name);
		s = end;
	}
	return 0;
}

static bool valid_type(const char *t)
{
	static const char *const ok[] = {
		"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
		"x8", "x16", "x32", "x64", "u", "s", "x", "string",
	};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (!strcmp(t, ok[i]))
			return true;
	return false;
}

static int parse_arg(struct pc_pp_arg *a, char *s, char *err, size_t el)
{
	char *p = strchr(s, '=');
	size_t vlen;

	if (p) {
		*p = '\0';
		if (!pc_pp_is_ident(s))
			return pp_error(err, el, -EINVAL, "argument name '%s' is not a C identifier", s);
		a->name = strdup(s);
		if (!a->name)
			return -ENOMEM;
		s = p + 1;
	}
	p = strchr(s, ':');
	if (p) {
		*p = '\0';
		if (!valid_type(p + 1))
			return pp_error(err, el, -EINVAL, "%s: unknown type '%s'", s, p + 1);
		a->type = strdup(p + 1);
		if (!a->type)
			return -ENOMEM;
	}
	if (!strcmp(s, "$params") || !strcmp(s, "$vars") || !strcmp(s, "$retval")) {
		a->kind = s[1] == 'p' ? PC_PP_PARAMS : s[1] == 'v' ? PC_PP_VARS : PC_PP_RETVAL;
		if (a->kind != PC_PP_RETVAL && (a->name || a->type))
			return pp_error(err, el, -EINVAL, "%s takes no name or type", s);
	} else if (s[0] == '%') {
		a->kind = PC_PP_REG;
		if (!pc_pp_is_ident(s + 1))
			return pp_error(err, el, -EINVAL, "bad register '%s'", s);
	} else {
		a->kind = PC_PP_VAR;
		vlen = strcspn(s, "-.[");
		if (vlen == 0)
			return pp_error(err, el, -EINVAL, "empty argument");
		a->var = strndup(s, vlen);
		if (!a->var)
			return -ENOMEM;
		if (!pc_pp_is_ident(a->var))
			return pp_error(err, el, -EINVAL, "'%s' is not a variable name", a->var);
		return parse_fields(a, s + vlen, err, el);
	}
	a->var = strdup(s);
	return a->var ? 0 : -ENOMEM;
}

static int parse_event_name(struct pc_probe_desc *pd, char *s, char *err, size_t el)
{
	char *colon = strchr(s, ':');

	if (colon) {
		*colon = '\0';
		if (!pc_pp_is_ident(s))
			return pp_error(err, el, -EINVAL, "group '%s' is not a C identifier", s);
		pd->group = strdup(s);
		if (!pd->group)
			return -ENOMEM;
		s = colon + 1;
	}
	if (!pc_pp_is_ident(s))
		return pp_error(err, el, -EINVAL, "event '%s' is not a C identifier", s);
	pd->event = strdup(s);
	return pd->event ? 0 : -ENOMEM;
}

static int parse_number(const char *s, const char *what, long *out, char *err, size_t el)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 0);
	if (!*s || *end || errno || *out < 0 || *out > 0x7fffffff)
		return pp_error(err, el, -EINVAL, "%s '%s' is not a number", what, s);
	return 0;
}

/* One ":RLN", "+OFFS", "@SRC" or "%return" piece; @c is its leading char. */
static int parse_point_part(struct pc_probe_desc *pd, char c, char *s, char *err, size_t el)
{
	long v;
	int ret = 0;

	switch (c) {
	case ':':
		ret = parse_number(s, "line", &v, err, el);
		pd->line = v;
		break;
	case '+':
		ret = parse_number(s, "offset", &v, err, el);
		pd->offset = v;
		break;
	case '@':
		if (pd->file)
			return pp_error(err, el, -EINVAL, "SRC@SRC is not allowed");
		pd->file = strdup(s);
		return pd->file ? 0 : -ENOMEM;
	case '%':
		if (strcmp(s, "return"))
			return pp_error(err, el, -EINVAL, "%%%s is not supported", s);
		pd->retprobe = true;
		break;
	}
	return ret;
}

static int check_point(const struct pc_probe_desc *pd, char *err, size_t el)
{
	if (pd->lazy && pd->line)
		return pp_error(err, el, -EINVAL, "lazy pattern can't be used with a line number");
	if (pd->lazy && pd->offset)
		return pp_error(err, el, -EINVAL, "lazy pattern can't be used with an offset");
	if (pd->line && pd->offset)
		return pp_error(err, el, -EINVAL, "offset can't be used with a line number");
	if (!pd->function && !pd->file)
		return pp_error(err, el, -EINVAL, "no function or source file given");
	if (!pd->function && !pd->line && !pd->lazy)
		return pp_error(err, el, -EINVAL, "a source file needs a line number or a lazy pattern");
	if (pd->offset && !pd->function)
		return pp_error(err, el, -EINVAL, "an offset needs a function");
	if (pd->retprobe && (pd->offset || pd->line || pd->lazy))
		return pp_error(err, el, -EINVAL,
				"offset/line/lazy pattern can't be used with %%return");
	return 0;
}

static int parse_point(struct pc_probe_desc *pd, char *s, char *err, size_t el)
{
	char *p = strpbrk(s, ";=@+%"), *sep, c;
	bool file_spec = false;
	int ret;

	if (p && *p == '=') {
		*p = '\0';
		ret = parse_event_name(pd, s, err, el);
		if (ret)
			return ret;
		s = p + 1;
	}
	/* perf: a file spec has no "+@%" and a '.' before its ':' or ';' */
	p = strpbrk(s, ";:");
	if (!memchr(s, '+', p ? (size_t)(p - s) : strlen(s)) &&
	    !strpbrk(s, "@%") && p)
		file_spec = memchr(s, '.', p - s);
	sep = strpbrk(s, ";:+@%");
	c = sep ? *sep : 0;
	if (sep)
		*sep++ = '\0';
	if (*s) {
		if (file_spec)
			pd->file = strdup(s);
		else if (pc_pp_is_ident(s) || strpbrk(s, "*?["))
			pd->function = strdup(s);
		else
			return pp_error(err, el, -EINVAL, "'%s' is not a function name", s);
		if (!pd->file && !pd->function)
			return -ENOMEM;
	}
	while (sep) {
		char *part = sep, cur = c;

		if (cur == ';') {
			if (!*part)
				return pp_error(err, el, -EINVAL, "empty lazy pattern");
			pd->lazy = strdup(part);
			if (!pd->lazy)
				return -ENOMEM;
			break;
		}
		sep = strpbrk(part, ";:+@%");
		c = sep ? *sep : 0;
		if (sep)
			*sep++ = '\0';
		ret = parse_point_part(pd, cur, part, err, el);
		if (ret)
			return ret;
	}
	return check_point(pd, err, el);
}

static int parse_args(struct pc_probe_desc *pd, char *save, char *err, size_t el)
{
	char *tok;
	int ret;

	while ((tok = strtok_r(NULL, " \t\n", &save))) {
		struct pc_pp_arg *a;

		if (pd->nargs == PC_PP_MAX_ARGS)
			return pp_error(err, el, -E2BIG, "more than %d arguments", PC_PP_MAX_ARGS);
		a = &pd->args[pd->nargs++];
		ret = parse_arg(a, tok, err, el);
		if (ret)
			return ret;
		if (pd->retprobe && (a->kind == PC_PP_VAR || a->kind == PC_PP_PARAMS ||
				     a->kind == PC_PP_VARS))
			return pp_error(err, el, -EINVAL,
					"%s: local variables can't be fetched by a return probe",
					tok);
		if (!pd->retprobe && a->kind == PC_PP_RETVAL)
			return pp_error(err, el, -EINVAL, "$retval needs a %%return probe");
	}
	return 0;
}

int pc_pp_parse(const char *desc, struct pc_probe_desc *pd, char *err, size_t errlen)
{
	char *copy, *save = NULL, *tok;
	int ret;

	memset(pd, 0, sizeof(*pd));
	copy = strdup(desc);
	if (!copy)
		return -ENOMEM;
	tok = strtok_r(copy, " \t\n", &save);
	if (!tok)
		ret = pp_error(err, errlen, -EINVAL, "empty probe definition");
	else
		ret = parse_point(pd, tok, err, errlen);
	if (!ret)
		ret = parse_args(pd, save, err, errlen);
	free(copy);
	if (!ret && !pd->event && pd->function && pd->line && !pc_pp_is_ident(pd->function))
		ret = pp_error(err, errlen, -EINVAL, "a glob function needs an event name");
	if (ret)
		pc_pp_free(pd);
	return ret;
}

void pc_pp_free(struct pc_probe_desc *pd)
{
	free(pd->group);
	free(pd->event);
	free(pd->function);
	free(pd->file);
	free(pd->lazy);
	for (size_t i = 0; i < pd->nargs; i++) {
		struct pc_pp_arg *a = &pd->args[i];

		free(a->name);
		free(a->var);
		free(a->type);
		for (size_t j = 0; j < a->nfields; j++)
			free(a->fields[j].name);
	}
	memset(pd, 0, sizeof(*pd));
}
