// SPDX-License-Identifier: GPL-2.0
/*
 * Provider files (sdtdata.h): parsed line by line, every entry's ARGs with
 * sdtargs.c; the first bad line refuses the whole file.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/probecache.h>

#include "pc.h"
#include "sdtdata.h"

struct parse {
	struct pc_sdtdata *d;
	unsigned int line;
	bool magic, want_from;
	char *why;
	size_t whylen;
};

static int __attribute__((format(printf, 2, 3))) bad(struct parse *p, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(p->why, p->whylen, "line %u: ", p->line);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < p->whylen)
		vsnprintf(p->why + n, p->whylen - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int pc_sdtdata_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > PROBECACHE_NAME_MAX || (!isalpha((unsigned char)s[0]) && s[0] != '_'))
		return 0;
	for (size_t i = 1; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return 0;
	return 1;
}

static int add_source(struct parse *p, const char *val)
{
	struct pc_sdtdata *d = p->d;
	char **v = realloc(d->sources, (d->nsources + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	d->sources = v;
	v[d->nsources] = strdup(val);
	return v[d->nsources++] ? 0 : -ENOMEM;
}

static int add_switch(struct parse *p, char *val)
{
	struct pc_sdtdata *d = p->d;
	struct pc_sdtdata_switch *v;
	char *text = strchr(val, ' ');

	if (!text || !text[1 + strspn(text + 1, " ")])
		return bad(p, "'switch GLOB TEXT': no TEXT");
	*text++ = '\0';
	v = realloc(d->switches, (d->nswitches + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	d->switches = v;
	v[d->nswitches].glob = strdup(val);
	v[d->nswitches].text = strdup(text + strspn(text, " "));
	d->nswitches++;
	return v[d->nswitches - 1].glob && v[d->nswitches - 1].text ? 0 : -ENOMEM;
}

static int add_probe(struct parse *p, char *val)
{
	struct pc_sdtdata *d = p->d;
	struct pc_sdtdata_probe *e;
	char *args = val + strcspn(val, " "), why[200];

	if (*args)
		*args++ = '\0';
	if (!pc_sdtdata_name_ok(val))
		return bad(p, "'%s' is no probe name", val);
	if (pc_sdtdata_find(d, val))
		return bad(p, "probe %s given twice", val);
	if (d->nprobes == PC_SDTDATA_PROBES_MAX)
		return bad(p, "more than %u probes", PC_SDTDATA_PROBES_MAX);
	e = pc_grow(d->probes, &d->cap, d->nprobes, sizeof(*e), 64);
	if (!e)
		return -ENOMEM;
	d->probes = e;
	e += d->nprobes;
	memset(e, 0, sizeof(*e));
	if (pc_sdtargs_parse(args, &e->args, why, sizeof(why)))
		return bad(p, "probe %s: %s", val, why);
	e->line = p->line;
	e->name = strdup(val);
	e->text = strdup(args);
	d->nprobes++;
	p->want_from = true;
	return e->name && e->text ? 0 : -ENOMEM;
}

static int set_from(struct parse *p, const char *val)
{
	struct pc_sdtdata_probe *e;

	if (!p->want_from)
		return bad(p, "'from' without a probe before it");
	if (!*val)
		return bad(p, "'from' says nothing");
	p->want_from = false;
	e = &p->d->probes[p->d->nprobes - 1];
	e->from = strdup(val);
	return e->from ? 0 : -ENOMEM;
}

static int set_provider(struct parse *p, const char *val)
{
	if (p->d->provider || p->d->nprobes)
		return bad(p, "'provider' again, or after a probe");
	if (!pc_sdtdata_name_ok(val))
		return bad(p, "'%s' is no provider name", val);
	p->d->provider = strdup(val);
	return p->d->provider ? 0 : -ENOMEM;
}

static int keyword(struct parse *p, const char *kw, char *val)
{
	if (strcmp(kw, "from") && p->want_from)
		return bad(p, "probe %s has no 'from' line", p->d->probes[p->d->nprobes - 1].name);
	if (!strcmp(kw, "provider"))
		return set_provider(p, val);
	if (!strcmp(kw, "from"))
		return set_from(p, val);
	if (!p->d->provider)
		return bad(p, "'%s' before 'provider'", kw);
	if (!strcmp(kw, "source"))
		return *val ? add_source(p, val) : bad(p, "'source' says nothing");
	if (!strcmp(kw, "switch"))
		return add_switch(p, val);
	if (!strcmp(kw, "probe"))
		return add_probe(p, val);
	return bad(p, "unknown keyword '%s'", kw);
}

static int one_line(struct parse *p, char *s)
{
	char *val;

	s += strspn(s, " \t");
	if (!*s || *s == '#')
		return 0;
	if (!p->magic) {
		p->magic = true;
		return strcmp(s, PC_SDTDATA_MAGIC) ? bad(p, "not '" PC_SDTDATA_MAGIC "'") : 0;
	}
	val = s + strcspn(s, " ");
	if (*val)
		*val++ = '\0';
	return keyword(p, s, val + strspn(val, " "));
}

static int check_end(struct parse *p)
{
	if (!p->magic)
		return bad(p, "empty file");
	if (p->want_from)
		return bad(p, "probe %s has no 'from' line", p->d->probes[p->d->nprobes - 1].name);
	if (!p->d->provider || !p->d->nsources)
		return bad(p, "no 'provider' or no 'source'");
	return 0;
}

int pc_sdtdata_parse(const char *buf, size_t len, struct pc_sdtdata *out, char *why,
		     size_t whylen)
{
	struct parse p = { out, 0, false, false, why, whylen };
	const char *end = buf + len;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	while (!ret && buf < end) {
		const char *nl = memchr(buf, '\n', (size_t)(end - buf));
		size_t n = nl ? (size_t)(nl - buf) : (size_t)(end - buf);
		char *s = strndup(buf, n);

		p.line++;
		if (!s)
			ret = -ENOMEM;
		else if (strlen(s) != n || strchr(s, '\r'))
			ret = bad(&p, "NUL or CR byte");
		else
			ret = one_line(&p, s);
		free(s);
		buf += n + (nl != NULL);
	}
	if (!ret)
		ret = check_end(&p);
	if (ret)
		pc_sdtdata_free(out);
	return ret;
}

void pc_sdtdata_free(struct pc_sdtdata *d)
{
	for (size_t i = 0; i < d->nsources; i++)
		free(d->sources[i]);
	for (size_t i = 0; i < d->nprobes; i++) {
		free(d->probes[i].name);
		free(d->probes[i].text);
		free(d->probes[i].from);
	}
	for (size_t i = 0; i < d->nswitches; i++) {
		free(d->switches[i].glob);
		free(d->switches[i].text);
	}
	free(d->provider);
	free(d->sources);
	free(d->probes);
	free(d->switches);
	memset(d, 0, sizeof(*d));
}

const struct pc_sdtdata_probe *pc_sdtdata_find(const struct pc_sdtdata *d, const char *name)
{
	for (size_t i = 0; i < d->nprobes; i++)
		if (!strcmp(d->probes[i].name, name))
			return &d->probes[i];
	return NULL;
}

const char *pc_sdtdata_switch(const struct pc_sdtdata *d, const char *name)
{
	for (size_t i = 0; i < d->nswitches; i++)
		if (!fnmatch(d->switches[i].glob, name, 0))
			return d->switches[i].text;
	return NULL;
}
