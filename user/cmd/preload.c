// SPDX-License-Identifier: GPL-2.0
/*
 * preload: boot-time definitions from /etc/probecache (what
 * probecache-preload.service runs). Every config line is parsed before
 * anything is loaded or defined, so a typo changes nothing. Every entry is
 * defined (perf list shows it; no uprobe until someone listens); entries
 * marked "count" (the default, so configs written before trace events
 * existed keep their hit counts) are also counted, which arms them.
 * What this command did is remembered in RUNDIR/preloaded so that
 * `preload --stop` (the unit's ExecStop) undoes exactly that: "G:E" lines
 * it defined (del), "nocount G:E" lines it only started counting (nocount);
 * probes defined by hand or by trace stay.
 *
 * Config: "PATTERN [count|define]" per line (arm's PATTERN syntax), '#'
 * starts a comment.
 * Directories: $PROBECACHE_ETC (default /etc/probecache), $PROBECACHE_RUN
 * (default /run/probecache).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <glob.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/probecache.h>

#include "arm.h"
#include "builtin.h"
#include "kload.h"
#include "opts.h"
#include "pattern.h"
#include "pc.h"

struct conf {
	int n;
	char **pat;	/* pattern text */
	char **where;	/* "FILE:LINE" */
	bool *count;	/* marked "count" (or unmarked): hit counting, armed at boot */
};

static void conf_free(struct conf *c)
{
	for (int i = 0; i < c->n; i++) {
		free(c->pat[i]);
		free(c->where[i]);
	}
	free(c->pat);
	free(c->where);
	free(c->count);
	memset(c, 0, sizeof(*c));
}

static int conf_add(struct conf *c, const char *pat, bool count, const char *file,
		    unsigned int line)
{
	char **p = realloc(c->pat, (c->n + 1) * sizeof(*p));
	bool *cnt;
	char **w;

	if (!p)
		return -ENOMEM;
	c->pat = p;
	cnt = realloc(c->count, (c->n + 1) * sizeof(*cnt));
	if (!cnt)
		return -ENOMEM;
	c->count = cnt;
	c->count[c->n] = count;
	w = realloc(c->where, (c->n + 1) * sizeof(*w));
	if (!w)
		return -ENOMEM;
	c->where = w;
	c->pat[c->n] = strdup(pat);
	if (asprintf(&c->where[c->n], "%s:%u", file, line) < 0)
		c->where[c->n] = NULL;
	if (!c->pat[c->n] || !c->where[c->n]) {
		free(c->pat[c->n]);
		free(c->where[c->n]);
		return -ENOMEM;
	}
	c->n++;
	return 0;
}

/* "count" (default) or "define" after the PATTERN: 1 count, 0 define, -EINVAL. */
static int conf_marker(char *s, const char *file, unsigned int line)
{
	char *mark = strpbrk(s, " \t");

	if (!mark)
		return 1;
	*mark++ = '\0';
	mark += strspn(mark, " \t");
	if (!strcmp(mark, "count"))
		return 1;
	if (!strcmp(mark, "define"))
		return 0;
	pc_err("preload: %s:%u: '%s %s': want one PATTERN per line, optionally followed by "
	       "'count' or 'define'", file, line, s, mark);
	return -EINVAL;
}

/* One line: strip comment and blanks; PATTERN [count|define], the PATTERN must parse. */
static int conf_line(struct conf *c, char *s, const char *file, unsigned int line)
{
	struct pc_pattern pp;
	int ret, count;

	s = pc_conf_trim(s);
	if (!*s)
		return 0;
	count = conf_marker(s, file, line);
	if (count < 0)
		return count;
	ret = pc_pattern_parse(s, &pp);
	if (ret) {
		pc_err("preload: %s:%u: bad PATTERN '%s'", file, line, s);
		return ret;
	}
	pc_pattern_free(&pp);
	return conf_add(c, s, count, file, line);
}

#define CONF_LINE_MAX	4094

static int conf_read(struct conf *c, const char *file)
{
	char *buf, *pos, *s;
	unsigned int line = 0;
	size_t len;
	bool nl;
	int ret = pc_read_file(file, 0, PC_CONF_MAX, &buf, &len);

	if (ret) {
		pc_err("preload: %s: %s", file, pc_file_strerror(ret));
		return ret;
	}
	for (pos = buf; !ret && (s = pc_next_line(&pos, buf + len, &nl));) {
		line++;
		if (strlen(s) != (size_t)(pos - 1 - s)) {
			pc_err("preload: %s:%u: NUL byte in line", file, line);
			ret = -EINVAL;
		} else if (strlen(s) > CONF_LINE_MAX) {
			pc_err("preload: %s:%u: line longer than %u bytes", file, line,
			       CONF_LINE_MAX);
			ret = -EINVAL;
		} else {
			ret = conf_line(c, s, file, line);
		}
	}
	free(buf);
	return ret;
}

/* preload.conf, then preload.d/ *.conf in glob(3) (sorted) order; at least one must exist. */
static int conf_collect(struct conf *c, const char *config)
{
	const char *etc = pc_etc_dir();
	char main_conf[PATH_MAX], dropins[PATH_MAX];
	glob_t g = { 0 };
	bool have_main;
	int ret = 0;

	if (config)
		return conf_read(c, config);
	snprintf(main_conf, sizeof(main_conf), "%s/preload.conf", etc);
	snprintf(dropins, sizeof(dropins), "%s/preload.d/*.conf", etc);
	have_main = access(main_conf, F_OK) == 0;
	if (have_main)
		ret = conf_read(c, main_conf);
	if (glob(dropins, 0, NULL, &g) == GLOB_NOMATCH && !have_main) {
		pc_err("preload: neither %s nor %s exists", main_conf, dropins);
		ret = -ENOENT;
	}
	for (size_t i = 0; !ret && i < g.gl_pathc; i++)
		ret = conf_read(c, g.gl_pathv[i]);
	globfree(&g);
	return ret;
}

enum dry_state { DRY_ARM, DRY_STALE, DRY_MISSING, DRY_UNREADABLE };

/* What arm would do with entry @e of @b: armable if any cached path holds this build-id. */
static enum dry_state dry_check(const struct pc_binary *b, const char **path, char now[41])
{
	enum dry_state worst = DRY_MISSING;

	*path = b->npaths ? b->paths[0] : "?";
	for (size_t i = 0; i < b->npaths; i++) {
		switch (pc_file_check(b->paths[i], b->build_id, now)) {
		case PC_FILE_SAME:
			*path = b->paths[i];
			return DRY_ARM;
		case PC_FILE_OTHER:
			*path = b->paths[i], worst = DRY_STALE;
			break;
		case PC_FILE_UNREADABLE:
			if (worst == DRY_MISSING)
				*path = b->paths[i], worst = DRY_UNREADABLE;
			break;
		default:
			break;
		}
	}
	return worst;
}

/* Another cached version of the same GROUP:EVENT that verifies replaces a stale one. */
static bool superseded(const struct pc_snapshot *s, const struct pc_pattern *p,
		       const struct pc_entry *e)
{
	const char *path;
	char now[41];

	for (size_t i = 0; i < s->n; i++)
		for (size_t j = 0; j < s->b[i]->nentries; j++) {
			const struct pc_entry *o = &s->b[i]->entries[j];

			if (o != e && !strcmp(o->group, e->group) && !strcmp(o->event, e->event) &&
			    pc_pattern_match(p, s->b[i], o) &&
			    dry_check(s->b[i], &path, now) == DRY_ARM)
				return true;
		}
	return false;
}

static unsigned int dry_entry(const struct pc_snapshot *s, const struct pc_pattern *p,
			      const struct pc_binary *b, const struct pc_entry *e, bool count)
{
	static const char *const why[] = { "", "stale: file now has build-id ",
		"missing: no such file", "unreadable: " };
	enum dry_state st;
	const char *path;
	char name[2 * PROBECACHE_NAME_MAX + 2], now[41] = "";

	pc_kernel_event(s, b, e, name, sizeof(name));
	st = dry_check(b, &path, now);
	if (st == DRY_ARM) {
		printf("would %s %s:%s (%s %s)\n", count ? "arm" : "define", e->group, name, path,
		       b->build_id);
		return 0;
	}
	if (superseded(s, p, e))
		return 0;
	printf("would skip %s:%s (%s %s): %s%s\n", e->group, name, path, b->build_id,
	       why[st], st == DRY_STALE || st == DRY_UNREADABLE ? now : "");
	return 1;
}

/* --dry-run: which probes each line selects and whether they verify now; nothing changes. */
static int dry_run(const struct conf *c)
{
	struct pc_snapshot s;
	unsigned int skipped = 0;
	int ret = pc_snapshot_load(&s);

	if (ret)
		return ret;
	for (int i = 0; i < c->n && !ret; i++) {
		struct pc_pattern p;
		unsigned int matched = 0;

		ret = pc_pattern_parse(c->pat[i], &p);
		for (size_t k = 0; !ret && k < s.n; k++)
			for (size_t j = 0; j < s.b[k]->nentries; j++) {
				if (!pc_pattern_match(&p, s.b[k], &s.b[k]->entries[j]))
					continue;
				matched++;
				skipped += dry_entry(&s, &p, s.b[k], &s.b[k]->entries[j],
						     c->count[i]);
			}
		if (!ret && !matched) {
			printf("would skip %s (%s): matches no cached probe\n", c->pat[i], c->where[i]);
			skipped++;
		}
		if (!ret)
			pc_pattern_free(&p);
	}
	pc_snapshot_free(&s);
	if (ret)
		return ret;
	return skipped ? PC_EXIT_PARTIAL : 0;
}

/* State lines: "G:E" preload defined it (--stop: del), "nocount G:E" it only counted it. */
static void on_done(const char *group, const char *event, unsigned int what, void *ctx)
{
	char name[2 * PROBECACHE_NAME_MAX + 16];

	snprintf(name, sizeof(name), "%s%s:%s", what & PC_DID_DEFINE ? "" : "nocount ", group,
		 event);
	if (pc_strset_add(ctx, name))
		pc_warn("preload: out of memory: %s will not be undone by --stop", name);
}

static void state_path(char *buf, size_t len)
{
	snprintf(buf, len, "%s/preloaded", pc_run_dir());
}

/* Names from an earlier preload (a restart adds to them). Missing file: none. */
static int state_read(struct pc_strset *a)
{
	char path[PATH_MAX], *buf, *pos, *s;
	size_t len;
	bool nl;
	int ret;

	state_path(path, sizeof(path));
	ret = pc_read_file(path, PC_RD_NOFOLLOW, PC_CONF_MAX, &buf, &len);
	if (ret)
		return ret == -ENOENT ? 0 : ret;
	for (pos = buf; !ret && (s = pc_next_line(&pos, buf + len, &nl));)
		if (s[0])
			ret = pc_strset_add(a, s);
	free(buf);
	return ret;
}

static int state_write(const struct pc_strset *a)
{
	const char *dir = pc_run_dir();
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	FILE *f;

	if (mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	state_path(path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return -errno;
	for (int i = 0; i < a->n; i++)
		fprintf(f, "%s\n", a->v[i]);
	return pc_file_commit(f, tmp, path, 0);
}

struct totals {
	unsigned int armed, already, skipped, failed;	/* "count" entries, and all skips */
	unsigned int defined, defined_before;		/* "define" entries */
};

static int arm_line(const struct conf *c, int i, struct pc_strset *names, struct totals *t)
{
	struct pc_arm_opts opts = { .count = c->count[i], .done = on_done, .ctx = names };
	struct pc_arm_result r = { 0 };
	int ret = pc_arm(&c->pat[i], 1, &opts, &r);

	if (!r.matched) {
		pc_warn("preload: %s: '%s' matches no cached probe (scan the binary first)",
			c->where[i], c->pat[i]);
		t->skipped++;
	}
	*(c->count[i] ? &t->armed : &t->defined) += r.armed;
	*(c->count[i] ? &t->already : &t->defined_before) += r.already;
	t->skipped += r.skipped;
	t->failed += r.failed;
	if (ret && !r.failed)
		t->failed++;	/* failed before reaching the kernel: still an error */
	return ret == -ENOMEM ? ret : 0;
}

static int preload(const struct conf *c)
{
	struct pc_strset names = { 0 };
	struct totals t = { 0 };
	int ret;

	ret = pc_module_load(NULL, NULL);
	if (ret && ret != -EEXIST)
		return ret;
	ret = state_read(&names);
	for (int i = 0; !ret && i < c->n; i++)
		ret = arm_line(c, i, &names, &t);
	if (!ret && names.n)
		ret = state_write(&names);
	if (ret)
		pc_err("preload: %s/preloaded: %s", pc_run_dir(),
		       pc_file_strerror(ret));
	pc_strset_free(&names);
	/* the summary line the unit's log always had; define-only entries said apart */
	if (t.defined || t.defined_before)
		printf("preload: %u defined only (armed while perf, ftrace or BPF listen), "
		       "%u already defined\n", t.defined, t.defined_before);
	printf("preload: %u armed, %u already armed, %u skipped, %u failed\n",
	       t.armed, t.already, t.skipped, t.failed);
	if (ret || t.failed)
		return ret ? ret : -EIO;
	return t.skipped ? PC_EXIT_PARTIAL : 0;
}

/* Split state lines into names to delete and names to stop counting. */
static int state_split(const struct pc_strset *all, struct pc_strset *del, struct pc_strset *nocount)
{
	int ret = 0;

	for (int i = 0; !ret && i < all->n; i++)
		if (!strncmp(all->v[i], "nocount ", 8))
			ret = pc_strset_add(nocount, all->v[i] + 8);
		else
			ret = pc_strset_add(del, all->v[i]);
	return ret;
}

/* --stop with the module loaded: undo; 0, -EBUSY (some in use, reported) or -errno. */
static int undo(const struct pc_strset *del, const struct pc_strset *nocount, unsigned int *n)
{
	struct pc_disarm_result d = { 0 }, c = { 0 };
	int ret = 0, ret2 = 0;

	if (del->n)
		ret = pc_disarm(del->v, del->n, false, true, &d);
	if (nocount->n)
		ret2 = pc_disarm(nocount->v, nocount->n, true, true, &c);
	*n = d.done + c.done;
	return ret ? ret : ret2;
}

/* ExecStop: undo what preload defined or counted; leave everything else. */
static int preload_stop(void)
{
	struct pc_strset names = { 0 }, del = { 0 }, nocount = { 0 };
	unsigned int n = 0;
	char path[PATH_MAX];
	int ret = state_read(&names);

	state_path(path, sizeof(path));
	if (ret) {
		pc_err("preload: %s: %s", path, pc_file_strerror(ret));
		return ret;
	}
	ret = state_split(&names, &del, &nocount);
	if (!ret && names.n && pc_module_loaded())
		ret = undo(&del, &nocount, &n);
	else if (!ret)
		n = names.n;	/* no module: they went with it (apt remove's order) */
	/* probes still in use stay listed: a later --stop retries them */
	if (!ret && unlink(path) && errno != ENOENT)
		ret = -errno;
	if (!ret)
		printf("preload: stopped, %u preloaded probes disarmed\n", n);
	else if (ret == -EBUSY)
		pc_err("preload: --stop: some preloaded probes are in use, %s kept", path);
	pc_strset_free(&names);
	pc_strset_free(&del);
	pc_strset_free(&nocount);
	return ret;
}

static void preload_help(void)
{
	printf("usage: %s preload [--dry-run] [--config FILE] [--stop]\n\n"
	       "Load probecache.ko if needed and define every PATTERN listed in\n"
	       "$PROBECACHE_ETC/preload.conf and preload.d/*.conf (default /etc/probecache),\n"
	       "so perf list shows them. A line is 'PATTERN [count|define]': 'count' (the\n"
	       "default) also counts hits, which arms the probe now; 'define' leaves it\n"
	       "unarmed until perf, ftrace or BPF enable its event.\n"
	       "  -n, --dry-run      show what would be armed, defined or skipped; change nothing\n"
	       "  -c, --config FILE  read only FILE\n"
	       "      --stop         undo what earlier preload runs defined or counted\n"
	       "  -h, --help         show this help\n"
	       "Exit: 0 all done, 3 some skipped (stale or missing), 1 error or some in use\n"
	       "at --stop.\n", pc_prog);
}

int cmd_preload(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dry-run", no_argument, NULL, 'n' },
		{ "config", required_argument, NULL, 'c' },
		{ "stop", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	const char *config = NULL;
	bool dry = false, stop = false;
	struct conf c = { 0 };
	int opt, ret;

	while ((opt = pc_getopt(argc, argv, "nc:h", opts)) != -1) {
		switch (opt) {
		case 'n': dry = true; break;
		case 'c': config = optarg; break;
		case 's': stop = true; break;
		case 'h': preload_help(); return 0;
		default: return pc_usage("preload");
		}
	}
	if (optind < argc || (stop && (dry || config)))
		return pc_usage("preload");
	if (stop)
		return preload_stop();
	ret = conf_collect(&c, config);
	if (ret)
		ret = ret == -EINVAL ? -EBADMSG : ret;	/* a config error is not a usage error */
	else if (dry)
		ret = dry_run(&c);
	else
		ret = preload(&c);
	conf_free(&c);
	return ret;
}
