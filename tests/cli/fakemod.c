// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD stand-in for probecache.ko's control file and for the kernel's
 * tracefs uprobe_events, for host tests (the host cannot load modules, and
 * the suite must not define uprobe events on the host).
 *
 * A write() to $PROBECACHE_SYSFS/control is applied line by line as the
 * module's ABI says (include/uapi/linux/probecache.h), to the probe listing
 * $PROBECACHE_PROC/probecache_probes and the sites listing
 * $PROBECACHE_PROC/probecache_sites (the module's formats; no consumers=:
 * the module has no trace events of its own). add defines GROUP:EVENT
 * (state defined) with site 0 on the inode stat() finds at the record's
 * path; site GROUP:EVENT PATH adds a site (EEXIST for an inode the probe
 * has, ENOSPC past 64 sites a probe, EDQUOT when the file's owner, not root,
 * owns $PROBECACHE_SYSFS/max_sites_per_owner (default 16) of the probe's
 * other sites already; $PROBECACHE_SYSFS/fail_site.BASENAME holding
 * "ERRNO-NAME [N]" refuses a site of that base name with that errno, N
 * times (decremented) or always: EREMOTE for a FUSE copy, EIO, ESTALE...).
 * Sites are listed with mapped= and uid= (the file's owner): mapped=1
 * when added, kept as the listing says (a test sets mapped=0 there: the
 * copy's processes exited). unsite GROUP:EVENT MAJ:MIN INO drops a site:
 * ENOENT no such probe or site, EINVAL site 0, EBUSY while listed mapped=1
 * or when $PROBECACHE_SYSFS/mapped_on_unsite.GROUP:EVENT exists (removed,
 * the site then listed mapped=1: a process mapped it meanwhile).
 * count/nocount arm and disarm the hit counter (idempotent; state
 * armed only while counting); del and clear delete definitions and never
 * refuse (the module's del does not look at the kernel's events). count
 * fails with ESTALE when $PROBECACHE_SYSFS/stale_on_count.GROUP:EVENT
 * exists. $PROBECACHE_SYSFS/replace_before_add.GROUP:EVENT (or
 * replace_after_add.) holding a PATH: add renames PATH over the record's
 * path before verifying it (the file replaced between the CLI's open and
 * the module's), or after (replaced once verified). Like the module it stops
 * at the first rejected line, returns the bytes of the lines before it (or
 * -1 and errno when it is the first), and words the reason in last_error.
 * Accepted lines are appended to the control file (whatever the writer's
 * offset), so tests also see what was sent. Listing lines it cannot read
 * back are dropped; sites of probes no longer listed too.
 *
 * A write() to $PROBECACHE_TRACEFS/uprobe_events is applied as the kernel
 * applies it, line by line: "p:GROUP/EVENT PATH:0xOFF[(0xREF)] [ARGS]" (or
 * r:) creates the directory events/GROUP/EVENT with an enable file (EEXIST
 * if it exists, ENOENT if PATH does not, EINVAL for a name or argument the
 * kernel's parser refuses, e.g. an index register); "-:GROUP/EVENT" removes
 * it: ENOENT if absent, EBUSY if events/GROUP/EVENT/in_use exists (a test
 * plays perf, ftrace or BPF holding the event by creating it). A refusal is
 * logged to $PROBECACHE_TRACEFS/error_log in the kernel's format. The file
 * itself reads as the kernel's does: one line an event, in the order
 * defined, as trace_uprobe.c prints it (the offset as 0x%016lx).
 *
 * With $PROBECACHE_SYSFS/lock_log present, each unsite line and each
 * "-:" line is appended there followed by "locked" or "unlocked": whether
 * the writer held the events lock (flock on uprobe_events) meanwhile.
 *
 * With $PROBECACHE_FAKEMOD_LOG set, every line written to either file is
 * also appended there in the order applied, as "control LINE" or
 * "uprobe_events LINE", followed by " -> ERRNO-NAME" when refused: what was
 * written, and the order of the two files' writes (an event removed before
 * the module's del), are checked there.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define MAX_PROBES	64
#define MAX_SITES	256

struct fprobe {
	char name[256], state[16], type[2], bid[128], path[PATH_MAX], args[4096];
	long hits, counting, pid, unlinked;
	unsigned long off, ref;
};

struct fsite {
	char name[256], path[PATH_MAX];
	unsigned long hits, ino;
	unsigned int maj, min;
	int error, unlinked, mapped;
	long uid;
};

#define SITES_PER_PROBE	64

static ssize_t (*real_write)(int, const void *, size_t);
static struct fprobe tab[MAX_PROBES];
static int ntab;
static struct fsite sites[MAX_SITES];
static int nsites;

static const char *root(void)
{
	return getenv("PROBECACHE_SYSFS");
}

static const char *proc_file(const char *name)
{
	static char p[2][PATH_MAX];
	static int k;
	const char *t = getenv("PROBECACHE_PROC");

	k ^= 1;
	snprintf(p[k], sizeof(p[k]), "%s/%s", t ? t : "/nonexistent", name);
	return p[k];
}

static const char *tracefs(void)
{
	const char *t = getenv("PROBECACHE_TRACEFS");

	return t && *t ? t : "/nonexistent";
}

static const char *errname(int err)
{
	const char *n = strerrorname_np(err);

	return n ? n : "E?";
}

/* "EIO" to EIO; 0 for a name no errno has */
static int errnum(const char *name)
{
	for (int e = 1; e < 4096; e++)
		if (strerrorname_np(e) && !strcmp(strerrorname_np(e), name))
			return e;
	return 0;
}

/* $PROBECACHE_FAKEMOD_LOG: "FILE LINE[ -> ERRNO]", in the order applied */
static void journal(const char *file, const char *line, int err)
{
	const char *p = getenv("PROBECACHE_FAKEMOD_LOG");
	FILE *f = p && *p ? fopen(p, "a") : NULL;

	if (!f)
		return;
	fprintf(f, "%s %s%s%s\n", file, line, err ? " -> " : "", err ? errname(err) : "");
	fclose(f);
}

static const char *listing_path(void);

/* $PROBECACHE_SYSFS/lock_log: "LINE locked|unlocked", the events lock held by someone or not */
static void lock_log(const char *line)
{
	char p[PATH_MAX];
	bool held;
	FILE *f;
	int fd;

	snprintf(p, sizeof(p), "%s/lock_log", root() ? root() : "/nonexistent");
	if (access(p, F_OK))
		return;
	fd = open(listing_path(), O_RDONLY | O_CLOEXEC);
	held = fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) && errno == EWOULDBLOCK;
	if (fd >= 0)
		close(fd);	/* drops the lock it took if nobody held it */
	f = fopen(p, "a");
	if (f) {
		fprintf(f, "%s %s\n", line, held ? "locked" : "unlocked");
		fclose(f);
	}
}

/* ---- the module: probes and sites ---- */

static bool parse(const char *line, struct fprobe *p)
{
	char buf[sizeof(struct fprobe)], *c, *sp;
	int at = -1;

	/* modules with trace events of their own printed consumers=N: skip it */
	snprintf(buf, sizeof(buf), "%s", line);
	c = strstr(buf, " consumers=");
	if (c && (sp = strchr(c + 1, ' ')))
		memmove(c, sp, strlen(sp) + 1);
	memset(p, 0, sizeof(*p));
	sscanf(buf, "%255s state=%15s hits=%ld counting=%ld type=%1s pid=%ld "
	       "unlinked=%ld build_id=%127s offset=0x%lx ref_ctr_offset=0x%lx path=%4095s args=%n",
	       p->name, p->state, &p->hits, &p->counting, p->type, &p->pid,
	       &p->unlinked, p->bid, &p->off, &p->ref, p->path, &at);
	if (at < 0)
		return false;
	snprintf(p->args, sizeof(p->args), "%s", buf + at);
	return true;
}

static struct fprobe *find(const char *name)
{
	for (int i = 0; i < ntab; i++)
		if (!strcmp(tab[i].name, name))
			return &tab[i];
	return NULL;
}

/* A sites line, mapped= and uid= optional (a test's own lines, as old modules') */
static bool parse_site(const char *line, struct fsite *s)
{
	char state[16];
	const char *p;
	unsigned int n;
	int at = -1, rest = -1;

	memset(s, 0, sizeof(*s));
	s->mapped = 1;
	s->uid = -1;
	sscanf(line, "%255s site=%u state=%15s hits=%lu error=%d unlinked=%d %n",
	       s->name, &n, state, &s->hits, &s->error, &s->unlinked, &rest);
	if (rest < 0)
		return false;
	p = line + rest;
	if (sscanf(p, "mapped=%d uid=%ld %n", &s->mapped, &s->uid, &at) == 2 && at > 0)
		p += at;
	at = -1;
	sscanf(p, "dev=%u:%u ino=%lu path=%n", &s->maj, &s->min, &s->ino, &at);
	if (at < 0 || p[at] != '/')
		return false;
	snprintf(s->path, sizeof(s->path), "%s", p + at);
	return true;
}

static void load(void)
{
	char line[sizeof(struct fprobe)];
	FILE *f = fopen(proc_file("probecache_probes"), "r");

	ntab = 0;
	while (f && ntab < MAX_PROBES && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		ntab += parse(line, &tab[ntab]);
	}
	if (f)
		fclose(f);
	nsites = 0;
	f = fopen(proc_file("probecache_sites"), "r");
	while (f && nsites < MAX_SITES && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		/* a listing reset by a test leaves no sites of what it removed */
		if (parse_site(line, &sites[nsites]) && find(sites[nsites].name))
			nsites++;
	}
	if (f)
		fclose(f);
}

static void save(void)
{
	FILE *f = fopen(proc_file("probecache_probes"), "w");

	for (int i = 0; f && i < ntab; i++) {
		const struct fprobe *p = &tab[i];

		fprintf(f, "%s state=%s hits=%ld counting=%ld type=%s pid=%ld "
			"unlinked=%ld build_id=%s offset=0x%lx ref_ctr_offset=0x%lx path=%s args=%s\n",
			p->name, p->state, p->hits, p->counting, p->type, p->pid,
			p->unlinked, p->bid, p->off, p->ref, p->path, p->args);
	}
	if (f)
		fclose(f);
	/* by probe, in the listing's order, site 0 first */
	f = fopen(proc_file("probecache_sites"), "w");
	for (int i = 0; f && i < ntab; i++) {
		unsigned int n = 0;

		for (int j = 0; j < nsites; j++) {
			const struct fsite *s = &sites[j];

			if (strcmp(s->name, tab[i].name))
				continue;
			fprintf(f, "%s site=%u state=%s hits=%lu error=%d unlinked=%d mapped=%d "
				"uid=%ld dev=%u:%u ino=%lu path=%s\n", s->name, n, n ? (tab[i].counting ?
				"armed" : "defined") : tab[i].state, s->hits, s->error, s->unlinked,
				s->mapped, s->uid, s->maj, s->min, s->ino, s->path);
			n++;
		}
	}
	if (f)
		fclose(f);
}

static void drop_sites(const char *name)
{
	int m = 0;

	for (int i = 0; i < nsites; i++)
		if (strcmp(sites[i].name, name))
			sites[m++] = sites[i];
	nsites = m;
}

/* The number in $PROBECACHE_SYSFS/@file, else @def */
static long sys_long(const char *file, long def)
{
	char p[PATH_MAX], buf[32];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root(), file);
	f = fopen(p, "r");
	if (!f)
		return def;
	if (fgets(buf, sizeof(buf), f))
		def = strtol(buf, NULL, 10);
	fclose(f);
	return def;
}

/* The module's bounds: 64 sites a probe, max_sites_per_owner of its other sites for a uid but 0 */
static int room(const char *name, const char *path, uid_t uid, char *why, size_t len)
{
	long max = sys_long("max_sites_per_owner", 16), n = 0, owned = 0;

	for (int i = 0; i < nsites; i++)
		if (!strcmp(sites[i].name, name)) {
			owned += n && sites[i].uid == (long)uid;	/* site 0 aside */
			n++;
		}
	if (n >= SITES_PER_PROBE)
		return snprintf(why, len, "path: %s: %s has %d sites", path, name,
				SITES_PER_PROBE), -ENOSPC;
	if (uid && owned >= max)
		return snprintf(why, len, "path: %s: uid %u owns %ld of %s's sites "
				"(max_sites_per_owner)", path, uid, owned, name), -EDQUOT;
	return 0;
}

/* A new site of @name at @path, on the inode stat() finds there. */
static int add_site(const char *name, const char *path, char *why, size_t len)
{
	struct fsite *s = &sites[nsites];
	struct stat st;
	int ret;

	if (stat(path, &st))
		return snprintf(why, len, "path: %s: %s", path, strerror(errno)), -errno;
	for (int i = 0; i < nsites; i++)
		if (!strcmp(sites[i].name, name) && sites[i].ino == st.st_ino &&
		    sites[i].maj == major(st.st_dev) && sites[i].min == minor(st.st_dev))
			return snprintf(why, len, "path: %s is already a site of %s (as %s)", path,
					name, sites[i].path), -EEXIST;
	if (nsites == MAX_SITES)
		return snprintf(why, len, "fakemod: more than %d sites", MAX_SITES), -ENOSPC;
	ret = room(name, path, st.st_uid, why, len);
	if (ret)
		return ret;
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	snprintf(s->path, sizeof(s->path), "%s", path);
	s->maj = major(st.st_dev);
	s->min = minor(st.st_dev);
	s->ino = st.st_ino;
	s->uid = st.st_uid;
	s->mapped = 1;
	nsites++;
	return 0;
}

static void set_counter(const char *file, int delta)
{
	char p[PATH_MAX], buf[32] = "0";
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root(), file);
	f = fopen(p, "r");
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '0';
		fclose(f);
	}
	f = fopen(p, "w");
	if (f) {
		fprintf(f, "%ld\n", strtol(buf, NULL, 10) + delta);
		fclose(f);
	}
}

/* $PROBECACHE_SYSFS/stale_on_count.NAME: exists? (@rm: remove it) */
static bool stale_marker(const char *name, bool rm)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/stale_on_count.%s", root(), name);
	return rm ? unlink(p) == 0 : access(p, F_OK) == 0;
}

/* $PROBECACHE_SYSFS/replace_WHEN_add.NAME: rename the file it names over @path, once */
static void replace_marker(const char *when, const char *name, const char *path)
{
	char p[PATH_MAX], from[PATH_MAX] = "";
	FILE *f;

	snprintf(p, sizeof(p), "%s/replace_%s_add.%s", root(), when, name);
	f = fopen(p, "r");
	if (!f)
		return;
	if (fgets(from, sizeof(from), f))
		from[strcspn(from, "\n")] = '\0';
	fclose(f);
	unlink(p);
	if (from[0])
		rename(from, path);
}

/* "PATH:0xOFF[(0xREF)] [pid=N] [ARGS]" into @p */
static void add_location(struct fprobe *p, char *loc)
{
	char *rest = strchr(loc, ' '), *off = strstr(loc, ":0x"), *ref;

	if (rest)
		*rest++ = '\0';
	ref = strchr(loc, '(');
	p->off = off ? strtoul(off + 1, NULL, 16) : 0;
	p->ref = ref ? strtoul(ref + 1, NULL, 16) : 0;
	*strchrnul(loc, ':') = '\0';
	snprintf(p->path, sizeof(p->path), "%s", loc);
	if (rest && !strncmp(rest, "pid=", 4)) {
		p->pid = strtol(rest + 4, &rest, 10);
		rest += *rest == ' ';
	}
	snprintf(p->args, sizeof(p->args), "%s", rest ? rest : "");
}

/* "add p:G/E BUILDID PATH:0xOFF[(0xREF)] [pid=N] ARGS" */
static int do_add(char *rec, char *why, size_t len)
{
	char *slash, *bid, *loc;
	struct fprobe *p = &tab[ntab];
	int ret;

	if (strlen(rec) < 3 || rec[1] != ':' || !(slash = strchr(rec, '/')))
		return snprintf(why, len, "col 5: type: bad"), -EINVAL;
	bid = strchr(rec, ' ');
	loc = bid ? strchr(bid + 1, ' ') : NULL;
	if (!loc)
		return snprintf(why, len, "col 5: build-id: missing"), -EINVAL;
	if (ntab == MAX_PROBES)
		return snprintf(why, len, "fakemod: more than %d probes", MAX_PROBES), -ENOSPC;
	*bid++ = '\0';
	*loc++ = '\0';
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%.*s:%s", (int)(slash - rec - 2), rec + 2, slash + 1);
	if (find(p->name))
		return snprintf(why, len, "event: %s already exists", p->name), -EEXIST;
	p->type[0] = rec[0];
	snprintf(p->bid, sizeof(p->bid), "%s", bid);
	add_location(p, loc);
	snprintf(p->state, sizeof(p->state), "defined");
	replace_marker("before", p->name, p->path);
	drop_sites(p->name);	/* none: a listing a test reset may have left some */
	ret = add_site(p->name, p->path, why, len);
	if (ret)
		return ret;
	replace_marker("after", p->name, p->path);
	ntab++;
	set_counter("nr_probes", 1);
	return 0;
}

static int do_count(const char *name, int on, char *why, size_t len)
{
	struct fprobe *p = find(name);

	if (!p)
		return snprintf(why, len, "%s: no such probe", name), -ENOENT;
	if (p->counting == on)
		return 0;	/* idempotent, as in the module */
	if (on && stale_marker(name, false))
		return snprintf(why, len, "%s: build-id changed since add", name), -ESTALE;
	p->counting = on;
	snprintf(p->state, sizeof(p->state), "%s", on ? "armed" : "defined");
	return 0;
}

/* The module's del looks at no trace event: it never refuses one it has. */
static int do_del(const char *name, char *why, size_t len)
{
	struct fprobe *p = find(name);

	if (!p)
		return snprintf(why, len, "%s: no such probe", name), -ENOENT;
	stale_marker(name, true);
	drop_sites(name);
	memmove(p, p + 1, (char *)&tab[--ntab] - (char *)p);
	set_counter("nr_probes", -1);
	return 0;
}

static int do_clear(char *why, size_t len)
{
	while (ntab)
		do_del(tab[ntab - 1].name, why, len);
	return 0;
}

/*
 * $PROBECACHE_SYSFS/fail_site.BASENAME: "ERRNO-NAME [N]", the site refused with
 * that errno, N more times (the count rewritten) or, without N, always.
 */
static int fail_marker(const char *path, char *why, size_t len)
{
	char p[PATH_MAX], name[64] = "";
	const char *base = strrchr(path, '/') + 1;
	long times = -1;
	FILE *f;
	int err;

	snprintf(p, sizeof(p), "%s/fail_site.%s", root(), base);
	f = fopen(p, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%63s %ld", name, &times) < 1)
		name[0] = '\0';
	fclose(f);
	err = errnum(name);
	if (!err || !times)
		return 0;
	if (times > 0 && (f = fopen(p, "w"))) {
		fprintf(f, "%s %ld\n", name, times - 1);
		fclose(f);
	}
	return snprintf(why, len, "path: %s: fakemod: %s (fail_site.%s)", path, name, base), -err;
}

/* site GROUP:EVENT PATH */
static int do_site(char *arg, char *why, size_t len)
{
	char *sp = strchr(arg, ' ');
	int ret;

	if (!sp || sp[1] != '/')
		return snprintf(why, len, "col 1: path: path must be absolute"), -EINVAL;
	*sp = '\0';
	if (!find(arg))
		return snprintf(why, len, "%s: no such probe", arg), -ENOENT;
	ret = fail_marker(sp + 1, why, len);
	return ret ? ret : add_site(arg, sp + 1, why, len);
}

/* $PROBECACHE_SYSFS/mapped_on_unsite.NAME: exists? (removed if so) */
static bool mapped_marker(const char *name)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/mapped_on_unsite.%s", root(), name);
	return unlink(p) == 0;
}

/* unsite GROUP:EVENT MAJ:MIN INO */
static int do_unsite(char *arg, char *why, size_t len)
{
	char name[256];
	unsigned int maj, min, n = 0;
	unsigned long ino;

	if (sscanf(arg, "%255s %u:%u %lu", name, &maj, &min, &ino) != 4)
		return snprintf(why, len, "col 8: site: want GROUP:EVENT MAJ:MIN INO"), -EINVAL;
	if (!find(name))
		return snprintf(why, len, "%s: no such probe", name), -ENOENT;
	for (int i = 0; i < nsites; i++) {
		struct fsite *s = &sites[i];

		if (strcmp(s->name, name))
			continue;
		if (s->maj != maj || s->min != min || s->ino != ino) {
			n++;
			continue;
		}
		if (!n)
			return snprintf(why, len, "site: %u:%u %lu is %s's own file", maj, min, ino,
					name), -EINVAL;
		if (mapped_marker(name))
			s->mapped = 1;
		if (s->mapped)
			return snprintf(why, len, "site: %s: a process maps it", s->path), -EBUSY;
		memmove(s, s + 1, (char *)&sites[--nsites] - (char *)s);
		return 0;
	}
	return snprintf(why, len, "site: %s has no site %u:%u %lu", name, maj, min, ino), -ENOENT;
}

static int apply(char *line, char *why, size_t len)
{
	if (!strncmp(line, "add ", 4))
		return do_add(line + 4, why, len);
	if (!strncmp(line, "count ", 6))
		return do_count(line + 6, 1, why, len);
	if (!strncmp(line, "nocount ", 8))
		return do_count(line + 8, 0, why, len);
	if (!strncmp(line, "del ", 4))
		return do_del(line + 4, why, len);
	if (!strcmp(line, "clear"))
		return do_clear(why, len);
	if (!strncmp(line, "site ", 5))
		return do_site(line + 5, why, len);
	if (!strncmp(line, "unsite ", 7)) {
		lock_log(line);
		return do_unsite(line + 7, why, len);
	}
	snprintf(why, len, "col 1: command: unknown");
	return -EINVAL;
}

static void last_error(unsigned int line, const char *why)
{
	char p[PATH_MAX];
	FILE *f;

	snprintf(p, sizeof(p), "%s/last_error", root());
	f = fopen(p, "w");
	if (f) {
		fprintf(f, "line %u col 1: %s\n", line, why);
		fclose(f);
	}
}

/*
 * An accepted line, appended to the control file whatever the writer's file
 * offset: sysfs has none (each write is its own command), and a second open
 * of control (a copy handed to the module) must not overwrite the first's.
 */
static void sent(const char *line, size_t len)
{
	char p[PATH_MAX];
	FILE *f;

	snprintf(p, sizeof(p), "%s/control", root());
	f = fopen(p, "a");
	if (f) {
		fwrite(line, 1, len, f);
		fclose(f);
	}
}

/* ---- the kernel: tracefs uprobe_events ---- */

static void error_log(const char *cmd, const char *why)
{
	char p[PATH_MAX];
	FILE *f;

	snprintf(p, sizeof(p), "%s/error_log", tracefs());
	f = fopen(p, "a");
	if (f) {
		fprintf(f, "[    1.000000] trace_uprobe: error: %s\n  Command: %s\n             ^\n",
			why, cmd);
		fclose(f);
	}
}

/* A C identifier of 1 to 63 characters, as trace_probe.c wants GROUP and EVENT */
static bool good_name(const char *s, size_t n)
{
	if (!n || n > 63 || !(s[0] == '_' || ((s[0] | 0x20) >= 'a' && (s[0] | 0x20) <= 'z')))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!(s[i] == '_' || (s[i] >= '0' && s[i] <= '9') ||
		      ((s[i] | 0x20) >= 'a' && (s[i] | 0x20) <= 'z')))
			return false;
	return true;
}

/* "GROUP/EVENT" at @s (to a blank or the end) into events/GROUP/EVENT */
static int event_dir(const char *s, char *dir, size_t len, char *group, size_t glen,
		     const char **why)
{
	size_t n = strcspn(s, " \t"), g;
	const char *slash = memchr(s, '/', n);

	if (!slash)
		return *why = "fakemod: no GROUP/ (the suite's CLI always gives one)", -EINVAL;
	g = slash - s;
	if (!good_name(s, g))
		return *why = "Group name must follow the same rules as C identifiers", -EINVAL;
	if (!good_name(slash + 1, n - g - 1))
		return *why = "Event name must follow the same rules as C identifiers", -EINVAL;
	snprintf(group, glen, "%s/events/%.*s", tracefs(), (int)g, s);
	snprintf(dir, len, "%s/events/%.*s", tracefs(), (int)n, s);
	return 0;
}

/* NAME=FETCH[:TYPE] ...: what trace_probe.c would not parse */
static int check_args(char *args, const char **why)
{
	for (char *a = strtok(args, " \t"); a; a = strtok(NULL, " \t")) {
		char *eq = strchr(a, '=');

		if (!eq || !good_name(a, eq - a))
			return *why = "Invalid argument name", -EINVAL;
		if (strchr(eq, ','))
			return *why = "Invalid fetch argument", -EINVAL;
	}
	return 0;
}

/* The events' listing: uprobe_events as the kernel prints it */
static const char *listing_path(void)
{
	static char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/uprobe_events", tracefs());
	return p;
}

/* "c:G/E FILE:0x%016lx[(0x%lx)] NAME=ARG..." (trace_uprobe.c, probes_seq_show()) */
static void listing_add(const char *line, const char *file, unsigned long off, const char *ref,
			char *args)
{
	FILE *f = fopen(listing_path(), "a");

	if (!f)
		return;
	fprintf(f, "%.*s %s:0x%016lx%s", (int)strcspn(line, " \t"), line, file, off, ref);
	for (char *a = strtok(args, " \t"); a; a = strtok(NULL, " \t"))
		fprintf(f, " %s", a);
	fputc('\n', f);
	fclose(f);
}

/* Every line but GROUP/EVENT's; in place (the writer may hold the file open) */
static void listing_del(const char *ge, size_t n)
{
	char *buf = NULL, *line, *next;
	size_t len = 0;
	FILE *f = fopen(listing_path(), "r"), *out;

	if (!f)
		return;
	out = open_memstream(&buf, &len);
	for (int c; out && (c = fgetc(f)) != EOF;)
		fputc(c, out);
	fclose(f);
	if (!out || fclose(out) || !(f = fopen(listing_path(), "w"))) {
		free(buf);
		return;
	}
	for (line = buf; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (strlen(line) < 2 + n || strncmp(line + 2, ge, n) || line[2 + n] != ' ')
			fprintf(f, "%s\n", line);
	}
	fclose(f);
	free(buf);
}

static int uprobe_define(const char *line, const char **why)
{
	char dir[PATH_MAX], group[PATH_MAX], file[PATH_MAX + 16], args[4096] = "", *colon;
	char ref[32] = "", *paren;
	const char *loc = strchr(line, ' ');
	unsigned long off;
	struct stat st;
	int ret, fd;

	if (!loc)
		return *why = "Probe point is not specified", -EINVAL;
	loc += strspn(loc, " \t");
	snprintf(file, sizeof(file), "%.*s", (int)strcspn(loc, " \t"), loc);
	if (loc[strlen(file)])
		snprintf(args, sizeof(args), "%s", loc + strlen(file) + 1);
	colon = strrchr(file, ':');
	if (!colon || strncmp(colon, ":0x", 3))
		return *why = "Failed to parse address or file.", -EINVAL;
	*colon = '\0';
	off = strtoul(colon + 1, &paren, 16);
	if (*paren == '(')
		snprintf(ref, sizeof(ref), "(0x%lx)", strtoul(paren + 1, NULL, 16));
	if (stat(file, &st))
		return *why = "Failed to find the given file", -ENOENT;
	if (!S_ISREG(st.st_mode))
		return *why = "Not a regular file", -EINVAL;
	snprintf(dir, sizeof(dir), "%s", args);	/* strtok()'s */
	ret = check_args(dir, why);
	if (ret)
		return ret;
	ret = event_dir(line + 2, dir, sizeof(dir), group, sizeof(group), why);
	if (ret)
		return ret;
	if (access(dir, F_OK) == 0)
		return *why = "fakemod: the event exists (the kernel appends a probe of the same "
			"args to it, or says why not)", -EEXIST;
	snprintf(file, sizeof(file), "%s/events", tracefs());
	mkdir(file, 0755);
	mkdir(group, 0755);
	if (mkdir(dir, 0755))
		return *why = "fakemod: cannot create the event directory", -errno;
	snprintf(file, sizeof(file), "%s/enable", dir);
	fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
	snprintf(file, sizeof(file), "%.*s", (int)strcspn(loc, " \t"), loc);
	*strrchr(file, ':') = '\0';
	listing_add(line, file, off, ref, args);
	return 0;
}

static int uprobe_remove(const char *line, const char **why)
{
	char dir[PATH_MAX], group[PATH_MAX], file[PATH_MAX + 16];
	int ret = event_dir(line + 2, dir, sizeof(dir), group, sizeof(group), why);

	if (ret)
		return ret;
	if (access(dir, F_OK))
		return *why = "", -ENOENT;
	snprintf(file, sizeof(file), "%s/in_use", dir);
	if (access(file, F_OK) == 0)
		return *why = "", -EBUSY;
	snprintf(file, sizeof(file), "%s/enable", dir);
	unlink(file);
	if (rmdir(dir))
		return *why = "fakemod: cannot remove the event directory", -errno;
	rmdir(group);	/* the kernel removes a group left without events */
	listing_del(line + 2, strcspn(line + 2, " \t"));
	return 0;
}

static int uprobe_line(const char *line, const char **why)
{
	*why = "";
	if ((line[0] == 'p' || line[0] == 'r') && line[1] == ':')
		return uprobe_define(line, why);
	if (line[0] == '-' && line[1] == ':') {
		lock_log(line);
		return uprobe_remove(line, why);
	}
	return *why = "fakemod: a command the suite's CLI does not write", -EINVAL;
}

/* ---- write() ---- */

/* Is @fd the file @name of the directory $@env? */
static bool is_file(int fd, const char *env, const char *name)
{
	char link[64], target[PATH_MAX], want[PATH_MAX];
	const char *dir = getenv(env);
	ssize_t n;

	if (!dir || !*dir)
		return false;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = '\0';
	if (!realpath(dir, want))
		return false;
	strncat(want, "/", sizeof(want) - strlen(want) - 1);
	strncat(want, name, sizeof(want) - strlen(want) - 1);
	return !strcmp(target, want);
}

/* Each line as the kernel's probes_write() does: the first refused ends the write. */
static ssize_t write_uprobe_events(const char *s, size_t count)
{
	char line[8192];
	const char *why;
	size_t done = 0;
	int ret;

	while (done < count) {
		const char *nl = memchr(s + done, '\n', count - done);
		size_t l = nl ? (size_t)(nl - (s + done)) : count - done;

		snprintf(line, sizeof(line), "%.*s", (int)l, s + done);
		if (line[strspn(line, " \t")]) {
			ret = uprobe_line(line, &why);
			journal("uprobe_events", line, -ret);
			if (ret) {
				if (why[0])
					error_log(line, why);
				errno = -ret;
				return -1;
			}
		}
		done += l + (nl != NULL);
	}
	return count;
}

ssize_t write(int fd, const void *buf, size_t count)
{
	const char *s = buf, *nl;
	char line[8192], orig[8192], why[512];
	size_t done = 0;
	unsigned int lineno = 0;
	int ret;

	if (!real_write)
		real_write = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	if (is_file(fd, "PROBECACHE_TRACEFS", "uprobe_events"))
		return write_uprobe_events(buf, count);
	if (!root() || !is_file(fd, "PROBECACHE_SYSFS", "control"))
		return real_write(fd, buf, count);
	load();
	while (done < count && (nl = memchr(s + done, '\n', count - done))) {
		size_t l = nl - (s + done);

		snprintf(line, sizeof(line), "%.*s", (int)l, s + done);
		snprintf(orig, sizeof(orig), "%s", line);
		lineno++;
		ret = apply(line, why, sizeof(why));
		journal("control", orig, -ret);
		if (ret) {
			save();
			last_error(lineno, why);
			if (done)
				return done;
			errno = -ret;
			return -1;
		}
		sent(s + done, l + 1);
		done += l + 1;
	}
	save();
	return done;
}
