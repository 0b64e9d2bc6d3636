// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD stand-in for probecache.ko's control file, for host tests (the
 * host cannot load modules). A write() to $PROBECACHE_SYSFS/control is
 * applied line by line as the module's ABI says, to the probe listing
 * $PROBECACHE_PROC/probecache_probes (one line a probe, the module's
 * format): add defines GROUP:EVENT (state defined), count/nocount arm and
 * disarm the hit counter (idempotent), del and clear refuse with EBUSY while
 * a consumer other than the counter holds the probe (a test plays perf by
 * raising the probe's consumers= in the listing), count fails with ESTALE
 * when $PROBECACHE_SYSFS/stale_on_count.GROUP:EVENT exists. Like the module
 * it stops at the first rejected line, returns the bytes of the lines before
 * it (or -1 and errno when it is the first), and words the reason in
 * last_error. Accepted lines are appended to the control file, so tests also
 * see what was sent. Listing lines it cannot read back are dropped.
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
#include <unistd.h>

#define MAX_PROBES	64

struct fprobe {
	char name[256], state[16], type[2], bid[128], path[PATH_MAX], args[4096];
	long consumers, hits, counting, pid, unlinked;
	unsigned long off, ref;
};

static ssize_t (*real_write)(int, const void *, size_t);
static struct fprobe tab[MAX_PROBES];
static int ntab;

static const char *root(void)
{
	return getenv("PROBECACHE_SYSFS");
}

static const char *listing(void)
{
	static char p[PATH_MAX];
	const char *t = getenv("PROBECACHE_PROC");

	snprintf(p, sizeof(p), "%s/probecache_probes", t ? t : "/nonexistent");
	return p;
}

static bool parse(const char *line, struct fprobe *p)
{
	int at = -1;

	memset(p, 0, sizeof(*p));
	sscanf(line, "%255s state=%15s consumers=%ld hits=%ld counting=%ld type=%1s pid=%ld "
	       "unlinked=%ld build_id=%127s offset=0x%lx ref_ctr_offset=0x%lx path=%4095s args=%n",
	       p->name, p->state, &p->consumers, &p->hits, &p->counting, p->type, &p->pid,
	       &p->unlinked, p->bid, &p->off, &p->ref, p->path, &at);
	if (at < 0)
		return false;
	snprintf(p->args, sizeof(p->args), "%s", line + at);
	return true;
}

static void load(void)
{
	char line[sizeof(struct fprobe)];
	FILE *f = fopen(listing(), "r");

	ntab = 0;
	while (f && ntab < MAX_PROBES && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		ntab += parse(line, &tab[ntab]);
	}
	if (f)
		fclose(f);
}

static void save(void)
{
	FILE *f = fopen(listing(), "w");

	for (int i = 0; f && i < ntab; i++) {
		const struct fprobe *p = &tab[i];

		fprintf(f, "%s state=%s consumers=%ld hits=%ld counting=%ld type=%s pid=%ld "
			"unlinked=%ld build_id=%s offset=0x%lx ref_ctr_offset=0x%lx path=%s args=%s\n",
			p->name, p->state, p->consumers, p->hits, p->counting, p->type, p->pid,
			p->unlinked, p->bid, p->off, p->ref, p->path, p->args);
	}
	if (f)
		fclose(f);
}

static struct fprobe *find(const char *name)
{
	for (int i = 0; i < ntab; i++)
		if (!strcmp(tab[i].name, name))
			return &tab[i];
	return NULL;
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
	p->consumers += on ? 1 : -1;
	snprintf(p->state, sizeof(p->state), "%s", p->consumers > 0 ? "armed" : "defined");
	return 0;
}

static int do_del(const char *name, char *why, size_t len)
{
	struct fprobe *p = find(name);

	if (!p)
		return snprintf(why, len, "%s: no such probe", name), -ENOENT;
	if (p->consumers - p->counting > 0)
		return snprintf(why, len, "%s: in use by %ld consumers", name,
				p->consumers - p->counting), -EBUSY;
	stale_marker(name, true);
	memmove(p, p + 1, (char *)&tab[--ntab] - (char *)p);
	set_counter("nr_probes", -1);
	return 0;
}

static int do_clear(char *why, size_t len)
{
	int ret = 0;

	for (int i = ntab - 1; i >= 0; i--)
		if (do_del(tab[i].name, why, len) == -EBUSY)
			ret = -EBUSY;
	return ret;
}

/* site GROUP:EVENT PATH: only the probe's existence is checked here. */
static int do_site(char *arg, char *why, size_t len)
{
	char *sp = strchr(arg, ' ');

	if (!sp || sp[1] != '/')
		return snprintf(why, len, "col 1: path: path must be absolute"), -EINVAL;
	*sp = '\0';
	if (!find(arg))
		return snprintf(why, len, "%s: no such probe", arg), -ENOENT;
	*sp = ' ';
	return 0;
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
	snprintf(why, len, "col 1: command: unknown");
	return -EINVAL;
}

static bool is_control(int fd)
{
	char link[64], target[PATH_MAX], want[PATH_MAX];
	ssize_t n;

	if (!root())
		return false;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = '\0';
	if (!realpath(root(), want))
		return false;
	strncat(want, "/control", sizeof(want) - strlen(want) - 1);
	return !strcmp(target, want);
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

ssize_t write(int fd, const void *buf, size_t count)
{
	const char *s = buf, *nl;
	char line[8192], why[512];
	size_t done = 0;
	unsigned int lineno = 0;
	int ret;

	if (!real_write)
		real_write = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	if (!is_control(fd))
		return real_write(fd, buf, count);
	load();
	while (done < count && (nl = memchr(s + done, '\n', count - done))) {
		size_t l = nl - (s + done);

		snprintf(line, sizeof(line), "%.*s", (int)l, s + done);
		lineno++;
		ret = apply(line, why, sizeof(why));
		if (ret) {
			save();
			last_error(lineno, why);
			if (done)
				return done;
			errno = -ret;
			return -1;
		}
		real_write(fd, s + done, l + 1);
		done += l + 1;
	}
	save();
	return done;
}
