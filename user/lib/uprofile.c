// SPDX-License-Identifier: GPL-2.0
/* Reading tracefs's uprobe_profile: see uprofile.h. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "armed.h"
#include "pc.h"
#include "uprofile.h"

#define UPROFILE	"uprobe_profile"

/* "  FILE EVENT HITS" into @r, pointing into @line; -EINVAL if it is not that. */
static int row_parse(char *line, struct pc_uprofile_row *r)
{
	char *f[4], *save = NULL, *end;
	size_t n = 0;

	for (char *t = strtok_r(line, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
		if (n < 4)
			f[n++] = t;
		else
			return -EINVAL;
	if (n != 3 || *f[2] < '0' || *f[2] > '9')
		return -EINVAL;
	errno = 0;
	r->hits = strtoull(f[2], &end, 10);
	if (errno || *end)
		return -EINVAL;
	r->file = f[0];
	r->event = f[1];
	return 0;
}

/* Is @line blanks only? */
static bool blank(const char *line)
{
	return !line[strspn(line, " \t")];
}

int pc_uprofile_parse(char *buf, size_t len, struct pc_uprofile *out, size_t *lineno)
{
	char *pos = buf, *line;
	bool newline;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	out->buf = buf;
	*lineno = 0;
	out->r = calloc(pc_count_lines(buf, len) + 1, sizeof(*out->r));
	if (!out->r)
		ret = -ENOMEM;
	while (!ret && (line = pc_next_line(&pos, buf + len, &newline))) {
		++*lineno;
		if (blank(line))
			continue;
		ret = row_parse(line, &out->r[out->n]);
		if (!ret)
			out->n++;
	}
	if (ret)
		pc_uprofile_free(out);
	return ret;
}

int pc_uprofile_read(struct pc_uprofile *out)
{
	char path[PATH_MAX], *buf;
	size_t len, lineno;
	int ret;

	memset(out, 0, sizeof(*out));
	snprintf(path, sizeof(path), "%s/%s", pc_tracefs_dir(), UPROFILE);
	ret = pc_read_file(path, 0, PC_LISTING_MAX, &buf, &len);
	if (ret == -ENOENT)
		return 0;
	if (ret) {
		pc_err("%s: %s", path, pc_file_strerror(ret));
		return ret;
	}
	ret = pc_uprofile_parse(buf, len, out, &lineno);
	if (ret == -EINVAL) {
		pc_err("%s:%zu: not a line of FILE EVENT HITS", path, lineno);
		ret = -EBADMSG;
	}
	return ret;
}

void pc_uprofile_free(struct pc_uprofile *u)
{
	free(u->r);
	free(u->buf);
	memset(u, 0, sizeof(*u));
}
