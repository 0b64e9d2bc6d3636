// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD stand-in for probecache.ko's control file, for host tests (the
 * host cannot load modules). A write() to $PROBECACHE_SYSFS/control is
 * applied line by line to the fake tree as the module's ABI says: add
 * defines probes/GROUP:EVENT (state defined), count/nocount arm and disarm
 * the hit counter (idempotent), del and clear refuse with EBUSY while a consumer other
 * than the counter holds the probe (a test plays perf by raising the
 * probe's consumers file), count fails with ESTALE when the probe dir holds
 * a file named stale_on_count. Like the module it stops at the first
 * rejected line, returns the bytes of the lines before it (or -1 and errno
 * when it is the first), and words the reason in last_error. Accepted lines
 * are appended to the control file, so tests also see what was sent.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static ssize_t (*real_write)(int, const void *, size_t);

static const char *root(void)
{
	return getenv("PROBECACHE_SYSFS");
}

static void put(const char *name, const char *file, const char *fmt, long v)
{
	char p[PATH_MAX];
	FILE *f;

	snprintf(p, sizeof(p), "%s/probes/%s/%s", root(), name, file);
	f = fopen(p, "w");
	if (!f)
		return;
	fprintf(f, fmt, v);
	fputc('\n', f);
	fclose(f);
}

static void put_str(const char *name, const char *file, const char *s)
{
	char p[PATH_MAX];
	FILE *f;

	snprintf(p, sizeof(p), "%s/probes/%s/%s", root(), name, file);
	f = fopen(p, "w");
	if (f) {
		fprintf(f, "%s\n", s);
		fclose(f);
	}
}

static long get(const char *name, const char *file)
{
	char p[PATH_MAX], buf[64] = "";
	FILE *f;

	snprintf(p, sizeof(p), "%s/probes/%s/%s", root(), name, file);
	f = fopen(p, "r");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return strtol(buf, NULL, 0);
}

static bool exists(const char *name, const char *file)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/probes/%s%s%s", root(), name, file ? "/" : "", file ? file : "");
	return access(p, F_OK) == 0;
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

static void state_update(const char *name)
{
	put_str(name, "state", get(name, "consumers") > 0 ? "armed" : "defined");
}

/* "add p:G/E BUILDID PATH:0xOFF[(0xREF)] [pid=N] ARGS" */
static int do_add(char *rec, char *why, size_t len)
{
	char name[256], dir[PATH_MAX], *slash, *bid, *loc, *off, *pid;

	if (strlen(rec) < 3 || rec[1] != ':' || !(slash = strchr(rec, '/')))
		return snprintf(why, len, "col 5: type: bad"), -EINVAL;
	bid = strchr(rec, ' ');
	loc = bid ? strchr(bid + 1, ' ') : NULL;
	if (!loc)
		return snprintf(why, len, "col 5: build-id: missing"), -EINVAL;
	*bid++ = '\0';
	*loc++ = '\0';
	snprintf(name, sizeof(name), "%.*s:%s", (int)(slash - rec - 2), rec + 2, slash + 1);
	if (exists(name, NULL))
		return snprintf(why, len, "event: %s already exists", name), -EEXIST;
	snprintf(dir, sizeof(dir), "%s/probes", root());
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/probes/%s", root(), name);
	if (mkdir(dir, 0755))
		return snprintf(why, len, "%s: %s", dir, strerror(errno)), -errno;
	off = strstr(loc, ":0x");
	pid = strstr(loc, " pid=");
	put_str(name, "build_id", bid);
	*strchrnul(loc, ':') = '\0';
	put_str(name, "path", loc);
	put(name, "offset", "0x%lx", off ? strtol(off + 1, NULL, 16) : 0);
	put(name, "ref_ctr_offset", "%ld", 0);
	put(name, "pid", "%ld", pid ? strtol(pid + 5, NULL, 10) : 0);
	put(name, "consumers", "%ld", 0);
	put(name, "counting", "%ld", 0);
	put(name, "hits", "%ld", 0);
	put_str(name, "args", "");
	put_str(name, "state", "defined");
	set_counter("nr_probes", 1);
	return 0;
}

static int do_count(const char *name, int on, char *why, size_t len)
{
	if (!exists(name, NULL))
		return snprintf(why, len, "%s: no such probe", name), -ENOENT;
	if (get(name, "counting") == on)
		return 0;	/* idempotent, as in the module */
	if (on && exists(name, "stale_on_count"))
		return snprintf(why, len, "%s: build-id changed since add", name), -ESTALE;
	put(name, "counting", "%ld", on);
	put(name, "consumers", "%ld", get(name, "consumers") + (on ? 1 : -1));
	state_update(name);
	return 0;
}

static void rm_probe(const char *name)
{
	char dir[PATH_MAX], p[PATH_MAX + 256];
	struct dirent *d;
	DIR *dp;

	snprintf(dir, sizeof(dir), "%s/probes/%s", root(), name);
	dp = opendir(dir);
	while (dp && (d = readdir(dp)))
		if (strcmp(d->d_name, ".") && strcmp(d->d_name, ".."))
			snprintf(p, sizeof(p), "%s/%s", dir, d->d_name), unlink(p);
	if (dp)
		closedir(dp);
	rmdir(dir);
	set_counter("nr_probes", -1);
}

static int do_del(const char *name, char *why, size_t len)
{
	if (!exists(name, NULL))
		return snprintf(why, len, "%s: no such probe", name), -ENOENT;
	if (get(name, "consumers") - get(name, "counting") > 0)
		return snprintf(why, len, "%s: in use by %ld consumers", name,
				get(name, "consumers") - get(name, "counting")), -EBUSY;
	rm_probe(name);
	return 0;
}

static int do_clear(char *why, size_t len)
{
	char dir[PATH_MAX];
	struct dirent *d;
	DIR *dp;
	int ret = 0;

	snprintf(dir, sizeof(dir), "%s/probes", root());
	dp = opendir(dir);
	while (dp && (d = readdir(dp)))
		if (d->d_name[0] != '.' && do_del(d->d_name, why, len) == -EBUSY)
			ret = -EBUSY;
	if (dp)
		closedir(dp);
	return ret;
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
	while (done < count && (nl = memchr(s + done, '\n', count - done))) {
		size_t l = nl - (s + done);

		snprintf(line, sizeof(line), "%.*s", (int)l, s + done);
		lineno++;
		ret = apply(line, why, sizeof(why));
		if (ret) {
			last_error(lineno, why);
			if (done)
				return done;
			errno = -ret;
			return -1;
		}
		real_write(fd, s + done, l + 1);
		done += l + 1;
	}
	return done;
}
