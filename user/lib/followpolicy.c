// SPDX-License-Identifier: GPL-2.0
/* Whose copies the follower hands the module: see followpolicy.h. */
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "followpolicy.h"
#include "mapsweep.h"
#include "pc.h"

void pc_follow_policy_path(char *buf, size_t size)
{
	snprintf(buf, size, "%s/follow.conf", pc_etc_dir());
}

/* A user name or a uid: 0, or -EINVAL with the reason in @why. */
static int owner_uid(const char *w, uid_t *uid, const char **why)
{
	struct passwd *pw;
	char *end;
	unsigned long v;

	if (w[0] >= '0' && w[0] <= '9') {
		errno = 0;
		v = strtoul(w, &end, 10);
		if (*end || errno || v >= (uid_t)-1)
			return *why = "not a uid (0 to 4294967294) nor a user name", -EINVAL;
		*uid = v;
		return 0;
	}
	pw = getpwnam(w);
	if (!pw)
		return *why = "no such user (getpwnam)", -EINVAL;
	*uid = pw->pw_uid;
	return 0;
}

static int owner_add(struct pc_follow_policy *p, uid_t uid)
{
	uid_t *u = realloc(p->uids, (p->n + 1) * sizeof(*u));

	if (!u)
		return -ENOMEM;
	p->uids = u;
	p->uids[p->n++] = uid;
	return 0;
}

/* "owners all" or "owners USER|UID..."; @s cut in place. */
static int owners_line(struct pc_follow_policy *p, char *s, const char *where, bool *seen_all)
{
	const char *why = NULL;
	char *w, *save;
	uid_t uid;
	int ret = 0, n = 0;

	for (w = strtok_r(s, " \t", &save); !ret && w; w = strtok_r(NULL, " \t", &save), n++) {
		if (!strcmp(w, "all")) {
			*seen_all = true;
			continue;
		}
		ret = owner_uid(w, &uid, &why);
		if (ret)
			pc_err("%s: owner '%s': %s", where, w, why);
		else
			ret = owner_add(p, uid);
	}
	if (!ret && !n) {
		pc_err("%s: 'owners' without an owner: want 'owners all' or "
		       "'owners USER|UID...'", where);
		ret = -EINVAL;
	}
	if (!ret && *seen_all && p->n) {
		pc_err("%s: 'all' with owners listed: 'all' stands alone", where);
		ret = -EINVAL;
	}
	return ret;
}

static int policy_line(struct pc_follow_policy *p, char *s, const char *where, bool *seen_all)
{
	s = pc_conf_trim(s);
	if (!*s)
		return 0;
	if (!strncmp(s, "owners", 6) && (!s[6] || s[6] == ' ' || s[6] == '\t'))
		return owners_line(p, s + 6, where, seen_all);
	pc_err("%s: '%s': unknown setting; want 'owners all' or 'owners USER|UID...'",
	       where, s);
	return -EINVAL;
}

static int cmp_uid(const void *a, const void *b)
{
	uid_t x = *(const uid_t *)a, y = *(const uid_t *)b;

	return x < y ? -1 : x > y;
}

int pc_follow_policy_read(struct pc_follow_policy *p, const char *file)
{
	char *buf, *pos, *s, where[PATH_MAX + 16];
	unsigned int line = 0;
	bool nl, seen_all = false;
	size_t len;
	int ret = pc_read_file(file, 0, PC_CONF_MAX, &buf, &len);

	memset(p, 0, sizeof(*p));
	p->all = true;
	if (ret == -ENOENT)
		return 0;
	if (ret) {
		pc_err("%s: %s", file, pc_file_strerror(ret));
		return ret;
	}
	for (pos = buf; !ret && (s = pc_next_line(&pos, buf + len, &nl));) {
		snprintf(where, sizeof(where), "%s:%u", file, ++line);
		if (strlen(s) != (size_t)(pos - 1 - s)) {
			pc_err("%s: NUL byte in line", where);
			ret = -EINVAL;
		} else {
			ret = policy_line(p, s, where, &seen_all);
		}
	}
	free(buf);
	p->all = !p->n;		/* "all", or no owners line */
	if (p->n)
		qsort(p->uids, p->n, sizeof(*p->uids), cmp_uid);
	if (ret)
		pc_follow_policy_free(p);
	return ret;
}

void pc_follow_policy_free(struct pc_follow_policy *p)
{
	free(p->uids);
	memset(p, 0, sizeof(*p));
	p->all = true;
}

bool pc_follow_policy_allows(const struct pc_follow_policy *p, uid_t uid)
{
	return p->all || (p->n && bsearch(&uid, p->uids, p->n, sizeof(uid), cmp_uid));
}

bool pc_follow_policy_site(const struct pc_follow_policy *p, const struct pc_site *st)
{
	struct stat sb;

	if (p->all)
		return true;
	if (stat(st->how == PC_SITE_MAP_FILES ? st->via : st->path, &sb))
		return false;
	return pc_follow_policy_allows(p, sb.st_uid);
}
