// SPDX-License-Identifier: GPL-2.0
/* The follower's counters in a file: see followstats.h. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "followstats.h"
#include "pc.h"

enum kind { K_COUNT, K_PID, K_TIME, K_MS };

/* The file's keys, in the order the follower writes them. */
static const struct key {
	const char *name;
	size_t off;
	enum kind kind;
} keys[] = {
	{ "pid", offsetof(struct pc_followstats, pid), K_PID },
	{ "start_time", offsetof(struct pc_followstats, start), K_TIME },
	{ "mappings", offsetof(struct pc_followstats, st.mappings), K_COUNT },
	{ "queued", offsetof(struct pc_followstats, st.queued), K_COUNT },
	{ "sweeps", offsetof(struct pc_followstats, st.sweeps), K_COUNT },
	{ "full", offsetof(struct pc_followstats, st.full), K_COUNT },
	{ "added", offsetof(struct pc_followstats, st.added), K_COUNT },
	{ "refused", offsetof(struct pc_followstats, st.refused), K_COUNT },
	{ "lost", offsetof(struct pc_followstats, lost), K_COUNT },
	{ "last_ms", offsetof(struct pc_followstats, st.last_ms), K_MS },
};

#define NR_KEYS	(sizeof(keys) / sizeof(keys[0]))

int pc_followstats_path(char *buf, size_t len)
{
	if ((size_t)snprintf(buf, len, "%s/%s", pc_run_dir(), PC_FOLLOWSTATS_FILE) >= len)
		return -ENAMETOOLONG;
	return 0;
}

/* ---- writing ---- */

static void key_print(FILE *f, const struct key *k, const struct pc_followstats *s)
{
	const char *p = (const char *)s + k->off;

	switch (k->kind) {
	case K_PID:
		fprintf(f, "%s %d\n", k->name, (int)*(const pid_t *)p);
		break;
	case K_TIME:
		fprintf(f, "%s %" PRId64 "\n", k->name, *(const int64_t *)p);
		break;
	case K_COUNT:
		fprintf(f, "%s %" PRIu64 "\n", k->name, *(const uint64_t *)p);
		break;
	case K_MS:
		fprintf(f, "%s %.3f\n", k->name, *(const double *)p);
		break;
	}
}

/* A temporary file beside @path, its name in @tmp; the directory made once if missing. */
static FILE *tmp_open(const char *path, char *tmp, size_t len)
{
	char dir[PATH_MAX], *slash;
	FILE *f = pc_file_tmp(path, tmp, len);

	if (f || errno != ENOENT)
		return f;
	/* /run is a tmpfs: after a reboot only the unit's RuntimeDirectory= made it */
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return NULL;
	*slash = '\0';
	if (mkdir(dir, 0755) && errno != EEXIST)
		return NULL;
	return pc_file_tmp(path, tmp, len);
}

int pc_followstats_write(const char *path, const struct pc_followstats *s)
{
	char tmp[PATH_MAX];
	FILE *f = tmp_open(path, tmp, sizeof(tmp));

	if (!f)
		return -errno;
	fputs("# probecache-resolve follow's counters (status --format=openmetrics reads them)\n",
	      f);
	for (size_t i = 0; i < NR_KEYS; i++)
		key_print(f, &keys[i], s);
	/* status may run as another user: readable by all, like the metrics it feeds */
	return pc_file_commit(f, tmp, path, 0644);
}

/* ---- reading ---- */

/* @v as a whole decimal number from @min to @max into *@out; false if it is not. */
static bool whole(const char *v, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;

	if (*v < '0' || *v > '9')
		return false;	/* strtoull would take blanks, a sign */
	errno = 0;
	*out = strtoull(v, &end, 10);
	return !errno && !*end && *out >= min && *out <= max;
}

/* @v into @k's field of @s; false, with @why, if it is no value of that kind. */
static bool key_parse(const struct key *k, const char *v, struct pc_followstats *s, char *why,
		      size_t whylen)
{
	char *p = (char *)s + k->off, *end;
	uint64_t u;
	double d;

	switch (k->kind) {
	case K_PID:
		if (whole(v, 1, INT_MAX, &u)) {
			*(pid_t *)p = u;
			return true;
		}
		snprintf(why, whylen, "'%s' is not a process id: '%s'", k->name, v);
		return false;
	case K_TIME:
		if (whole(v, 1, INT64_MAX, &u)) {
			*(int64_t *)p = u;
			return true;
		}
		snprintf(why, whylen, "'%s' is not a time in seconds: '%s'", k->name, v);
		return false;
	case K_COUNT:
		if (whole(v, 0, UINT64_MAX, (uint64_t *)p))
			return true;
		snprintf(why, whylen, "'%s' is not a count: '%s'", k->name, v);
		return false;
	case K_MS:
		errno = 0;
		d = strtod(v, &end);
		/* digits and a point only: strtod would take hex, inf, nan, exponents */
		if (*v >= '0' && *v <= '9' && !v[strspn(v, "0123456789.")] && !errno && !*end &&
		    isfinite(d)) {
			*(double *)p = d;
			return true;
		}
		snprintf(why, whylen, "'%s' is not a number of milliseconds: '%s'", k->name, v);
		return false;
	}
	return false;
}

static const struct key *key_find(const char *name)
{
	for (size_t i = 0; i < NR_KEYS; i++)
		if (!strcmp(keys[i].name, name))
			return &keys[i];
	return NULL;
}

/* One line of @len bytes (a NUL among them: refused); @seen: each key's line number. */
static int line_parse(char *line, size_t len, struct pc_followstats *out, size_t lineno,
		      size_t *seen, char *why, size_t whylen)
{
	char *name, *v, *rest, *save = NULL;
	const struct key *k;

	if (strlen(line) != len) {
		snprintf(why, whylen, "a NUL byte");
		return -EBADMSG;
	}
	name = strtok_r(line, " \t", &save);
	if (!name || name[0] == '#')
		return 0;	/* blank, or a comment */
	v = strtok_r(NULL, " \t", &save);
	rest = strtok_r(NULL, " \t", &save);
	if (!v || rest) {
		snprintf(why, whylen, "not 'KEY VALUE'");
		return -EBADMSG;
	}
	k = key_find(name);
	if (!k)
		return 0;	/* a newer follower's */
	if (seen[k - keys]) {
		snprintf(why, whylen, "'%s' again (first at line %zu)", k->name, seen[k - keys]);
		return -EBADMSG;
	}
	seen[k - keys] = lineno;
	return key_parse(k, v, out, why, whylen) ? 0 : -EBADMSG;
}

int pc_followstats_parse(char *buf, size_t len, struct pc_followstats *out, size_t *lineno,
			 char *why, size_t whylen)
{
	size_t seen[NR_KEYS] = { 0 };
	char *pos = buf, *line;
	bool newline = true;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	*lineno = 0;
	while (!ret && (line = pc_next_line(&pos, buf + len, &newline))) {
		++*lineno;
		/* pc_next_line() put the line's NUL one byte before *pos */
		ret = line_parse(line, pos - 1 - line, out, *lineno, seen, why, whylen);
		if (!ret && !newline) {
			/* renamed into place whole: a cut line is another writer's */
			snprintf(why, whylen, "the last line has no newline (cut short?)");
			ret = -EBADMSG;
		}
	}
	for (size_t i = 0; !ret && i < NR_KEYS; i++)
		if (!seen[i]) {
			*lineno = 0;
			snprintf(why, whylen, "no '%s' line", keys[i].name);
			ret = -EBADMSG;
		}
	return ret;
}

int pc_followstats_read(const char *path, struct pc_followstats *out, size_t *lineno,
			char *why, size_t whylen)
{
	char *buf;
	size_t len;
	int ret;

	*lineno = 0;
	ret = pc_read_file(path, PC_RD_NOFOLLOW, PC_FOLLOWSTATS_MAX, &buf, &len);
	if (ret) {
		snprintf(why, whylen, "%s", pc_file_strerror(ret));
		return ret;
	}
	ret = pc_followstats_parse(buf, len, out, lineno, why, whylen);
	free(buf);
	return ret;
}

bool pc_followstats_running(pid_t pid)
{
	char path[64], *buf;
	size_t len;
	bool yes = false;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	/* a zombie's is empty; a process of another PID namespace is not there */
	if (pc_read_file(path, 0, PC_CONF_MAX, &buf, &len))
		return false;
	for (size_t i = 0; i < len && !yes; i += strlen(buf + i) + 1)
		yes = !strcmp(buf + i, "follow");
	free(buf);
	return yes;
}
