// SPDX-License-Identifier: GPL-2.0
/*
 * One line of /proc/probecache_probes, probecache.ko's listing of its
 * probes (one line a probe, these fields one space apart, in this order):
 *
 *   GROUP:EVENT state=STATE consumers=N hits=N counting=0|1 type=p|r pid=PID
 *   unlinked=0|1 build_id=HEX offset=0xHEX ref_ctr_offset=0xHEX path=PATH args=ARGS
 *
 * ARGS is the rest of the line: it may be empty and may hold spaces and '='.
 * Kept apart from armed.c (which reads the file) so the unit tests can link it.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "armed.h"

static const char nomem[] = "out of memory";

/* The next token at *@pos, NUL-terminated in place; "" at the end of the line. */
static char *next_token(char **pos)
{
	char *t = *pos, *sp = strchr(t, ' ');

	if (sp) {
		*sp = '\0';
		*pos = sp + 1;
	} else {
		*pos = t + strlen(t);
	}
	return t;
}

/* @v as a number: decimal digits (@base 10), or 0x and hex digits (@base 16). */
static const char *parse_u64(const char *v, int base, uint64_t *out)
{
	const char *want = base == 16 ? "want 0x and hex digits" : "want a decimal number";
	size_t n;

	if (base == 16 && strncmp(v, "0x", 2))
		return want;
	v += base == 16 ? 2 : 0;
	n = strspn(v, base == 16 ? "0123456789abcdefABCDEF" : "0123456789");
	if (!n || v[n])
		return want;
	errno = 0;
	*out = strtoull(v, NULL, base);
	return errno ? "out of range" : NULL;
}

static const char *parse_long(const char *v, long *out)
{
	uint64_t u;
	const char *err = parse_u64(v, 10, &u);

	if (!err && u > LONG_MAX)
		err = "out of range";
	if (!err)
		*out = (long)u;
	return err;
}

static const char *parse_bool(const char *v, bool *out)
{
	if ((v[0] != '0' && v[0] != '1') || v[1])
		return "want 0 or 1";
	*out = v[0] == '1';
	return NULL;
}

static const char *set_state(struct pc_kprobe *p, const char *v)
{
	size_t n = strspn(v, "abcdefghijklmnopqrstuvwxyz");

	if (!n || v[n] || n >= sizeof(p->state))
		return "want a lower-case word";
	memcpy(p->state, v, n + 1);
	return NULL;
}

static const char *set_type(struct pc_kprobe *p, const char *v)
{
	if (strcmp(v, "p") && strcmp(v, "r"))
		return "want p or r";
	p->retprobe = v[0] == 'r';
	return NULL;
}

static const char *set_build_id(struct pc_kprobe *p, const char *v)
{
	size_t n = strspn(v, "0123456789abcdefABCDEF");

	if (v[n] || n < 2 || n % 2 || n >= sizeof(p->build_id))
		return "want an even number of hex digits, 2 to 40";
	for (size_t i = 0; i <= n; i++)
		p->build_id[i] = (char)tolower((unsigned char)v[i]);
	return NULL;
}

static const char *set_path(struct pc_kprobe *p, const char *v)
{
	if (!*v)
		return "empty";
	p->path = strdup(v);
	return p->path ? NULL : nomem;
}

enum field_kind { F_STATE, F_LONG, F_U64, F_BOOL, F_TYPE, F_BUILD_ID, F_HEX, F_PATH };

/*
 * The fields after GROUP:EVENT and before args=, in the module's order.
 * consumers= only from modules that had trace events of their own: -1 when
 * absent.
 */
static const struct {
	const char *key;
	enum field_kind kind;
	size_t off;	/* of the member of struct pc_kprobe it sets */
	bool optional;
} fields[] = {
	{ "state", F_STATE, 0, false },
	{ "consumers", F_LONG, offsetof(struct pc_kprobe, consumers), true },
	{ "hits", F_U64, offsetof(struct pc_kprobe, hits), false },
	{ "counting", F_BOOL, offsetof(struct pc_kprobe, counting), false },
	{ "type", F_TYPE, 0, false },
	{ "pid", F_LONG, offsetof(struct pc_kprobe, pid), false },
	{ "unlinked", F_BOOL, offsetof(struct pc_kprobe, unlinked), false },
	{ "build_id", F_BUILD_ID, 0, false },
	{ "offset", F_HEX, offsetof(struct pc_kprobe, offset), false },
	{ "ref_ctr_offset", F_HEX, offsetof(struct pc_kprobe, ref_ctr), false },
	{ "path", F_PATH, 0, false },
};

/* Field @i of the table from its value @v; NULL or why not. */
static const char *set_field(struct pc_kprobe *p, size_t i, const char *v)
{
	void *m = (char *)p + fields[i].off;

	switch (fields[i].kind) {
	case F_STATE: return set_state(p, v);
	case F_LONG: return parse_long(v, m);
	case F_U64: return parse_u64(v, 10, m);
	case F_BOOL: return parse_bool(v, m);
	case F_TYPE: return set_type(p, v);
	case F_BUILD_ID: return set_build_id(p, v);
	case F_HEX: return parse_u64(v, 16, m);
	case F_PATH: return set_path(p, v);
	}
	return "unknown field";
}

static const char *set_name(struct pc_kprobe *p, const char *v)
{
	const char *colon = strchr(v, ':');
	size_t glen = colon ? (size_t)(colon - v) : 0;
	size_t elen = colon ? strlen(colon + 1) : 0;

	if (!glen || !elen || glen > PROBECACHE_NAME_MAX || elen > PROBECACHE_NAME_MAX ||
	    strchr(colon + 1, ':'))
		return "want GROUP:EVENT, each 1 to 63 characters";
	memcpy(p->group, v, glen);
	memcpy(p->event, colon + 1, elen + 1);
	memcpy(p->name, v, glen + 1 + elen + 1);
	return NULL;
}

/* "FIELD: WHY: 'TOKEN'" into @why (@rest: the line after TOKEN); -EINVAL. */
static int bad(char *why, size_t len, const char *field, const char *err, const char *tok,
	       const char *rest)
{
	if (!*tok && !*rest)
		snprintf(why, len, "%s: missing (the line ends before it)", field);
	else if (!*tok)
		snprintf(why, len, "%s: empty (two spaces in a row)", field);
	else
		snprintf(why, len, "%s: %s: '%.64s%s'", field, err, tok,
			 strlen(tok) > 64 ? "..." : "");
	return -EINVAL;
}

int pc_kprobe_parse(char *line, struct pc_kprobe *p, char *why, size_t len)
{
	char *pos = line, *tok = next_token(&pos);
	const char *err;

	memset(p, 0, sizeof(*p));
	err = set_name(p, tok);
	if (err)
		return bad(why, len, "GROUP:EVENT", err, tok, pos);
	p->consumers = -1;
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		size_t kl = strlen(fields[i].key);
		if (fields[i].optional && (strncmp(pos, fields[i].key, kl) || pos[kl] != '='))
			continue;
		tok = next_token(&pos);
		if (strncmp(tok, fields[i].key, kl) || tok[kl] != '=')
			err = "expected here";
		else
			err = set_field(p, i, tok + kl + 1);
		if (err == nomem)
			return -ENOMEM;
		if (err)
			return bad(why, len, fields[i].key, err, tok, pos);
	}
	if (strncmp(pos, "args=", 5))
		return bad(why, len, "args", "expected here", pos, pos);
	p->args = strdup(pos + 5);
	return p->args ? 0 : -ENOMEM;
}
