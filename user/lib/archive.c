// SPDX-License-Identifier: GPL-2.0
/*
 * Archive reader for import: everything is validated before anything is
 * returned, so a malformed archive changes nothing. Errors name the line
 * and the field. Format: comment at the top of export.c.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "armed.h"
#include "archive.h"
#include "record.h"

#define MAX_FIELDS	12
#define ENTRY_FIELDS	11	/* "entry" + 10 */

struct parser {
	struct pc_archive *ar;
	struct pc_binary *cur;
	unsigned int line;
	char *err;
	size_t errlen;
};

uint32_t pc_crc32(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	crc = ~crc;
	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & -(crc & 1));
	}
	return ~crc;
}

static int fail(struct parser *p, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(p->err, p->errlen, "line %u: ", p->line);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < p->errlen)
		vsnprintf(p->err + n, p->errlen - n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Undo the export escapes in place. */
static int unescape(struct parser *p, char *s, unsigned int field)
{
	char *w = s;

	for (; *s; s++) {
		if (*s != '\\') {
			*w++ = *s;
			continue;
		}
		switch (*++s) {
		case '\\': *w++ = '\\'; break;
		case 't': *w++ = '\t'; break;
		case 'n': *w++ = '\n'; break;
		case 'r': *w++ = '\r'; break;
		case '\0':
			return fail(p, "field %u: trailing backslash", field);
		default:
			return fail(p, "field %u: bad escape '\\%c'", field, *s);
		}
	}
	*w = '\0';
	return 0;
}

/* Split @line at TABs into @f, unescaped. Returns the number of fields or -EINVAL. */
static int split(struct parser *p, char *line, char **f)
{
	int n = 0;

	for (char *s = line; ; n++) {
		char *tab = strchr(s, '\t');

		if (n == MAX_FIELDS)
			return fail(p, "too many fields");
		f[n] = s;
		if (!tab)
			break;
		*tab = '\0';
		s = tab + 1;
	}
	for (int i = 0; i <= n; i++) {
		if (unescape(p, f[i], i + 1))
			return -EINVAL;
		if (strpbrk(f[i], "\n\r"))	/* a cache file holds one value per line */
			return fail(p, "field %d: line break, which the cache cannot store", i + 1);
	}
	return n + 1;
}

static bool is_hex_id(const char *s)
{
	size_t n = strlen(s);

	if (n < 2 || n > 2 * PROBECACHE_BUILD_ID_MAX || n % 2)
		return false;
	for (; *s; s++)
		if (!isxdigit((unsigned char)*s))
			return false;
	return true;
}

static bool is_name(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > PROBECACHE_NAME_MAX || isdigit((unsigned char)*s))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

static int parse_off(struct parser *p, const char *s, const char *what, uint64_t *v)
{
	char *end;

	if (strncmp(s, "0x", 2) || !isxdigit((unsigned char)s[2]) || strlen(s) > 18)
		return fail(p, "%s: '%s' is not a 0x hex offset", what, s);
	errno = 0;
	*v = strtoull(s + 2, &end, 16);
	if (*end || errno)
		return fail(p, "%s: '%s' is not a 0x hex offset", what, s);
	return 0;
}

static int check_header(struct parser *p, char **f, int n)
{
	if (n != 2 || strcmp(f[0], "probecache-archive"))
		return fail(p, "not a probecache archive (want 'probecache-archive<TAB>1')");
	if (strcmp(f[1], "1"))
		return fail(p, "archive version '%s' is not supported (this reader knows 1)", f[1]);
	return 0;
}

static int finish_binary(struct parser *p)
{
	if (!p->cur)
		return 0;
	if (!p->cur->npaths)
		return fail(p, "binary %s has no path line", p->cur->build_id);
	if (!p->cur->nentries)
		return fail(p, "binary %s has no entry line", p->cur->build_id);
	return 0;
}

static int add_binary(struct parser *p, char **f, int n)
{
	struct pc_archive *ar = p->ar;
	struct pc_binary **nb;

	for (char *c = f[1]; n == 2 && *c; c++)
		*c = tolower((unsigned char)*c);
	if (n != 2 || !pc_build_id_valid(f[1]))
		return fail(p, "binary: want 'binary<TAB>BUILD-ID' with 4..40 hex digits");
	if (finish_binary(p))
		return -EINVAL;
	for (size_t i = 0; i < ar->nbinaries; i++)
		if (!strcasecmp(ar->binaries[i]->build_id, f[1]))
			return fail(p, "binary %s appears twice", f[1]);
	nb = realloc(ar->binaries, (ar->nbinaries + 1) * sizeof(*nb));
	if (!nb)
		return -ENOMEM;
	ar->binaries = nb;
	p->cur = pc_binary_new(f[1]);
	if (!p->cur)
		return -ENOMEM;
	ar->binaries[ar->nbinaries++] = p->cur;
	return 0;
}

static int add_path(struct parser *p, char **f, int n)
{
	if (!p->cur)
		return fail(p, "path before any binary line");
	if (n != 2 || f[1][0] != '/')
		return fail(p, "path: want 'path<TAB>/absolute/path'");
	for (size_t i = 0; i < p->cur->npaths; i++)
		if (!strcmp(p->cur->paths[i], f[1]))
			return fail(p, "path %s appears twice for binary %s", f[1], p->cur->build_id);
	return pc_binary_add_path(p->cur, f[1]) ? -ENOMEM : 0;
}

/* ARGS must be what the module accepts: run its own parser on a whole record. */
static int check_args(struct parser *p, char **f, uint64_t off, uint64_t ref)
{
	struct pc_parse_error perr = { 0 };
	struct pc_command *cmd;
	char line[PROBECACHE_LINE_MAX];
	char refs[32] = "";
	int n, ret;

	if (ref)
		snprintf(refs, sizeof(refs), "(0x%" PRIx64 ")", ref);
	n = snprintf(line, sizeof(line), "add %s:%s/%s %s /archive:0x%" PRIx64 "%s%s%s",
		     f[4], f[2], f[3], p->cur->build_id, off, refs, *f[7] ? " " : "", f[7]);
	if (n < 0 || (size_t)n >= sizeof(line))
		return fail(p, "entry %s:%s: record longer than %d bytes", f[2], f[3],
			    PROBECACHE_LINE_MAX);
	cmd = calloc(1, sizeof(*cmd));
	if (!cmd)
		return -ENOMEM;
	ret = pc_parse_any_machine(line, n, cmd, &perr);
	free(cmd);
	if (ret)
		return fail(p, "entry %s:%s: %s: %s", f[2], f[3],
			    perr.field ? perr.field : "record", perr.why ? perr.why : strerror(-ret));
	return 0;
}

static int check_entry(struct parser *p, char **f, int n, uint64_t *off, uint64_t *ref)
{
	if (!p->cur)
		return fail(p, "entry before any binary line");
	if (n != ENTRY_FIELDS)
		return fail(p, "entry: %d fields, want %d", n, ENTRY_FIELDS);
	if (strcmp(f[1], "sdt") && strcmp(f[1], "named"))
		return fail(p, "entry: kind '%s' is neither sdt nor named", f[1]);
	if (!is_name(f[2]) || !is_name(f[3]))
		return fail(p, "entry: '%s:%s' is not GROUP:EVENT ([A-Za-z_][A-Za-z0-9_]*, <= %d)",
			    f[2], f[3], PROBECACHE_NAME_MAX);
	if (strcmp(f[4], "p") && strcmp(f[4], "r"))
		return fail(p, "entry %s:%s: probe type '%s' is neither p nor r", f[2], f[3], f[4]);
	if (parse_off(p, f[5], "offset", off) || parse_off(p, f[6], "refctr", ref))
		return -EINVAL;
	if (strcmp(f[10], "-") && !is_hex_id(f[10]))
		return fail(p, "entry %s:%s: debuginfo '%s' is not a build-id or '-'",
			    f[2], f[3], f[10]);
	for (size_t i = 0; i < p->cur->nentries; i++)
		if (!strcmp(p->cur->entries[i].group, f[2]) &&
		    !strcmp(p->cur->entries[i].event, f[3]))
			return fail(p, "entry %s:%s appears twice for binary %s",
				    f[2], f[3], p->cur->build_id);
	return check_args(p, f, *off, *ref);
}

static int add_entry(struct parser *p, char **f, int n)
{
	struct pc_entry *e;
	uint64_t off, ref;
	int ret = check_entry(p, f, n, &off, &ref);

	if (ret)
		return ret;
	e = pc_binary_add_entry(p->cur);
	if (!e)
		return -ENOMEM;
	e->kind = strcmp(f[1], "named") ? PC_ENTRY_SDT : PC_ENTRY_NAMED;
	e->retprobe = f[4][0] == 'r';
	e->offset = off;
	e->ref_ctr = ref;
	e->group = strdup(f[2]);
	e->event = strdup(f[3]);
	e->args = strdup(f[7]);
	e->uprobe_args = strdup(f[8]);
	e->spec = strdup(f[9]);
	e->debuginfo = strcmp(f[10], "-") ? strdup(f[10]) : NULL;
	if (!e->group || !e->event || !e->args || !e->uprobe_args || !e->spec ||
	    (strcmp(f[10], "-") && !e->debuginfo))
		return -ENOMEM;
	p->ar->nentries++;
	return 0;
}

/* A decimal count; strtoul would saturate silently or take "-1". */
static int parse_count(struct parser *p, const char *s, const char *what, unsigned long *v)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return fail(p, "end: %s '%.32s' is not a decimal count", what, s);
	errno = 0;
	*v = strtoul(s, &end, 10);
	if (*end)
		return fail(p, "end: %s '%.32s' is not a decimal count", what, s);
	if (errno == ERANGE || *v > UINT32_MAX)
		return fail(p, "end: %s '%.32s' is out of range", what, s);
	return 0;
}

static int check_end(struct parser *p, char **f, int n, const char *buf, size_t body)
{
	unsigned long nb, ne;
	unsigned int crc;
	char c;

	if (finish_binary(p))
		return -EINVAL;
	if (n != 4 || sscanf(f[3], "crc32=%8x%c", &crc, &c) != 1 || strlen(f[3]) != 14)
		return fail(p, "end: want 'end<TAB>NBINARIES<TAB>NENTRIES<TAB>crc32=XXXXXXXX'");
	if (parse_count(p, f[1], "NBINARIES", &nb) || parse_count(p, f[2], "NENTRIES", &ne))
		return -EINVAL;
	if (nb != p->ar->nbinaries || ne != p->ar->nentries)
		return fail(p, "end: archive says %lu binaries / %lu entries, found %zu / %zu",
			    nb, ne, p->ar->nbinaries, p->ar->nentries);
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
	crc = pc_crc32(0, buf, body);	/* let the fuzzer reach what lies behind the checksum */
#endif
	if (crc != pc_crc32(0, buf, body))
		return fail(p, "end: checksum mismatch (crc32=%08x, content has %08x): "
			    "archive corrupted or edited", crc, pc_crc32(0, buf, body));
	return 0;
}

static int parse_line(struct parser *p, char *line, const char *buf, size_t off, bool *end)
{
	char *f[MAX_FIELDS];
	int n = split(p, line, f);

	if (n < 0)
		return n;
	if (p->line == 1)
		return check_header(p, f, n);
	if (!strcmp(f[0], "binary"))
		return add_binary(p, f, n);
	if (!strcmp(f[0], "path"))
		return add_path(p, f, n);
	if (!strcmp(f[0], "entry"))
		return add_entry(p, f, n);
	if (!strcmp(f[0], "end")) {
		*end = true;
		return check_end(p, f, n, buf, off);
	}
	return fail(p, "unknown record '%.32s'", f[0]);
}

static int parse_all(struct parser *p, const char *buf, size_t len)
{
	const char *nul = memchr(buf, '\0', len);
	bool end = false;
	size_t off = 0;
	int ret = 0;

	if (nul) {
		p->line = 1;
		for (const char *c = buf; c < nul; c++)
			p->line += *c == '\n';
		return fail(p, "NUL byte: not a text archive");
	}
	while (off < len && !ret) {
		const char *nl = memchr(buf + off, '\n', len - off);
		char *line;

		p->line++;
		if (end)
			return fail(p, "data after the end line");
		if (!nl)
			return fail(p, "truncated: last line has no newline");
		line = strndup(buf + off, nl - (buf + off));
		if (!line)
			return -ENOMEM;
		ret = parse_line(p, line, buf, off, &end);
		free(line);
		off = nl + 1 - buf;
	}
	if (!ret && !end)
		return p->line++, fail(p, "truncated: no end line");
	return ret;
}

int pc_archive_parse(const char *buf, size_t len, struct pc_archive *ar, char *err, size_t errlen)
{
	struct parser p = { .ar = ar, .err = err, .errlen = errlen };
	int ret;

	memset(ar, 0, sizeof(*ar));
	if (!len) {
		snprintf(err, errlen, "line 1: empty file");
		return -EINVAL;
	}
	ret = parse_all(&p, buf, len);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "line %u: out of memory", p.line);
	if (ret)
		pc_archive_free(ar);
	return ret;
}

void pc_archive_free(struct pc_archive *ar)
{
	for (size_t i = 0; i < ar->nbinaries; i++)
		if (ar->binaries[i])	/* import may have taken it */
			pc_binary_free(ar->binaries[i]);
	free(ar->binaries);
	memset(ar, 0, sizeof(*ar));
}
