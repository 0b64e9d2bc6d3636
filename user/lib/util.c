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
