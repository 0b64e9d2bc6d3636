// SPDX-License-Identifier: GPL-2.0
/* Messages and small helpers shared by every command. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/probecache.h>

#include "pc.h"

int pc_verbose;
bool pc_quiet;
const char *pc_prog = "probecache-resolve";

static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: %s", pc_prog, prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void pc_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void pc_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

void pc_info(const char *fmt, ...)
{
	va_list ap;

	if (!pc_verbose)
		return;
	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void pc_debug(const char *fmt, ...)
{
	va_list ap;

	if (pc_verbose < 2)
		return;
	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

size_t pc_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), *row, prev, best;

	row = malloc((lb + 1) * sizeof(*row));
	if (!row)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t sub = prev + (a[i - 1] != b[j - 1]), cur = row[j];

			best = row[j] + 1 < row[j - 1] + 1 ? row[j] + 1 : row[j - 1] + 1;
			row[j] = sub < best ? sub : best;
			prev = cur;
		}
	}
	best = row[lb];
	free(row);
	return best;
}

const char *pc_closest(const char *word, const char *const *cands, size_t n)
{
	size_t len = strlen(word), best = SIZE_MAX, d;
	const char *pick = NULL;

	for (size_t i = 0; i < n; i++) {
		d = pc_edit_distance(word, cands[i]);
		if (len && !strncmp(cands[i], word, len))
			d = d < 1 ? d : 1;	/* a prefix of it: as good as one typo */
		if (d < best) {
			best = d;
			pick = cands[i];
		}
	}
	return best <= 2 || best <= len / 3 ? pick : NULL;
}

const char *pc_sysfs_dir(void)
{
	const char *d = getenv("PROBECACHE_SYSFS");

	return d && *d ? d : PROBECACHE_SYSFS_DIR;
}

/* Where probecache.ko lists its probes: $PROBECACHE_PROC (tests), else /proc. */
const char *pc_proc_dir(void)
{
	const char *d = getenv("PROBECACHE_PROC");

	return d && *d ? d : "/proc";
}

const char *pc_etc_dir(void)
{
	const char *d = getenv("PROBECACHE_ETC");

	return d && *d ? d : "/etc/probecache";
}

const char *pc_run_dir(void)
{
	const char *d = getenv("PROBECACHE_RUN");

	return d && *d ? d : "/run/probecache";
}

const char *pc_tracefs_dir(void)
{
	const char *e = getenv("PROBECACHE_TRACEFS");

	if (e && *e)
		return e;
	if (access("/sys/kernel/tracing/instances", F_OK) == 0)
		return "/sys/kernel/tracing";
	return "/sys/kernel/debug/tracing";
}

void pc_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* JSON string of the @n bytes at @s. */
static void json_strn(FILE *f, const char *s, size_t n)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "%.*s", (int)(n < sizeof(buf) ? n : sizeof(buf) - 1), s);
	pc_json_str(f, buf);
}

/*
 * One "NAME=FETCHARG[:TYPE]" as {"name","location","type"}. FETCHARG has no
 * ':' in either syntax (record or uprobe_events), so the last one starts TYPE.
 */
static void json_arg(FILE *f, const char *a, size_t n)
{
	const char *eq = memchr(a, '=', n), *loc = eq ? eq + 1 : a, *colon = NULL;

	for (const char *p = loc; p < a + n; p++)
		if (*p == ':')
			colon = p;
	fputs("{\"name\":", f);
	if (eq)
		json_strn(f, a, eq - a);
	else
		fputs("null", f);
	fputs(",\"location\":", f);
	json_strn(f, loc, (colon ? colon : a + n) - loc);
	fputs(",\"type\":", f);
	if (colon)
		json_strn(f, colon + 1, a + n - colon - 1);
	else
		fputs("\"u64\"", f);	/* the record syntax's default */
	fputc('}', f);
}

void pc_json_args(FILE *f, const char *args)
{
	bool first = true;

	fputc('[', f);
	while (args && *args) {
		size_t n;

		args += strspn(args, " ");
		n = strcspn(args, " ");
		if (!n)
			break;
		fputs(first ? "" : ",", f);
		first = false;
		json_arg(f, args, n);
		args += n;
	}
	fputc(']', f);
}

bool pc_strset_has(const struct pc_strset *s, const char *str)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], str))
			return true;
	return false;
}

int pc_strset_add(struct pc_strset *s, const char *str)
{
	char **v;

	if (pc_strset_has(s, str))
		return 0;
	v = realloc(s->v, (s->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	s->v = v;
	s->v[s->n] = strdup(str);
	if (!s->v[s->n])
		return -ENOMEM;
	s->n++;
	return 0;
}

void pc_strset_free(struct pc_strset *s)
{
	for (int i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

char *pc_conf_trim(char *s)
{
	char *end;

	s[strcspn(s, "#\n")] = '\0';
	s += strspn(s, " \t");
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		*--end = '\0';
	return s;
}
