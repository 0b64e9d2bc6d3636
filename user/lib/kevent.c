// SPDX-License-Identifier: GPL-2.0
/* The kernel's own uprobe events of probecache's probes: see kevent.h. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "armed.h"
#include "kevent.h"
#include "ksites.h"
#include "pc.h"
#include "sdt.h"
#include "uprobedef.h"

#define DEF_MAX	8192

/* The last line of tracefs error_log (5.4+), which says why a write failed. */
static void error_log(char *why, size_t whylen)
{
	char path[PATH_MAX], line[512], last[512] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/error_log", pc_tracefs_dir());
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "error:"))
			snprintf(last, sizeof(last), "%s", strstr(line, "error:") + 7);
	fclose(f);
	last[strcspn(last, "\n")] = '\0';
	if (last[0])
		snprintf(why, whylen, "%s", last);
}

/* One line to uprobe_events, appended: 0 or -errno. */
static int write_events(const char *line, char *why, size_t whylen)
{
	char path[PATH_MAX];
	size_t len = strlen(line);
	ssize_t n;
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/uprobe_events", pc_tracefs_dir());
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		return ret;
	}
	n = write(fd, line, len);
	if (n != (ssize_t)len) {
		ret = n < 0 ? -errno : -EIO;
		snprintf(why, whylen, "%s", strerror(-ret));
		error_log(why, whylen);
	}
	close(fd);
	return ret;
}

/* Does @path name the file open on @f->fd (the verified one)? */
static bool names_inode(const char *path, const struct pc_kevent_file *f)
{
	struct stat st, fst;

	return !stat(path, &st) && !fstat(f->fd, &fst) && st.st_dev == fst.st_dev &&
	       st.st_ino == fst.st_ino;
}

/* The verified file's program headers, for @+ args. */
static int read_phdrs(int fd, struct pc_elf_info *elf)
{
	unsigned char buf[PC_ELF_MAX_PHDRS * 64];
	const char *why;
	struct stat st;
	ssize_t n;

	if (fstat(fd, &st))
		return -errno;
	memset(elf, 0, sizeof(*elf));
	elf->file_size = st.st_size;
	n = pread(fd, buf, 64, 0);
	if (n < 0)
		return -errno;
	if (pc_elf_parse_ehdr(buf, n, elf, &why))
		return -ENOEXEC;
	n = pread(fd, buf, (size_t)elf->phnum * elf->phentsize, elf->phoff);
	if (n < 0)
		return -errno;
	return pc_elf_parse_phdrs(buf, n, elf, &why) ? -ENOEXEC : 0;
}

/* What the running kernel's uprobe events cannot fetch (PC_UPROBE_*). */
static unsigned int kernel_flags(void)
{
	struct utsname u;
	unsigned int major, minor;

	if (uname(&u) || sscanf(u.release, "%u.%u", &major, &minor) != 2)
		return 0;
	return major < 6 || (major == 6 && minor < 1) ? PC_UPROBE_NO_FILEOFF : 0;
}

/* @warn: name each arg left out (a copy's event leaves out what its probe's did: said once) */
static int define_at(const struct pc_record *rec, const struct pc_elf_info *elf,
		     const char *path, bool warn, char *why, size_t whylen)
{
	struct pc_uprobe_dropped drop;
	char *line = malloc(DEF_MAX);
	int ret;

	if (!line)
		return -ENOMEM;
	/*
	 * A definition of a name that exists on another inode is appended to
	 * that event (append_trace_uprobe()), which the kernel mishandles while
	 * the event is in use (design.md, "Event lifecycle"): never append.
	 */
	if (pc_kevent_exists(rec->group, rec->event)) {
		free(line);
		snprintf(why, whylen, "an event %s/%s exists already ('perf probe -d %s:%s' "
			 "removes it if it is not probecache's)", rec->group, rec->event,
			 rec->group, rec->event);
		return -EEXIST;
	}
	ret = pc_uprobe_def(rec, elf, kernel_flags(), path, line, DEF_MAX, &drop);
	if (ret == -ERANGE)
		snprintf(why, whylen, "%s: %s", drop.names[0], drop.why[0]);
	if (ret >= 0) {
		for (unsigned int i = 0; warn && i < drop.n; i++)
			pc_warn("%s:%s: arg %s not fetched: %s", rec->group, rec->event,
				drop.names[i], drop.why[i]);
		ret = write_events(line, why, whylen);
	}
	if (ret == -EEXIST)
		snprintf(why + strlen(why), whylen - strlen(why),
			 " (an event %s/%s is in uprobe_events already: 'perf probe -d %s:%s' removes it)",
			 rec->group, rec->event, rec->group, rec->event);
	free(line);
	return ret;
}

static int define_rec(const struct pc_record *rec, const struct pc_kevent_file *f,
		      bool warn, char *why, size_t whylen)
{
	char path[PATH_MAX], fdpath[64];
	struct pc_elf_info elf;
	int ret;

	snprintf(path, sizeof(path), "%.*s", (int)rec->path_len, rec->path);
	ret = read_phdrs(f->fd, &elf);
	if (ret) {
		snprintf(why, whylen, "%s: cannot read its program headers: %s", path,
			 strerror(-ret));
		return ret;
	}
	if (names_inode(path, f)) {
		ret = define_at(rec, &elf, path, warn, why, whylen);
		/* Renamed over between the stat and the kernel's lookup: name the fd. */
		if (ret || names_inode(path, f))
			return ret;
		pc_kevent_remove(rec->group, rec->event, why, whylen);
	}
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", f->fd);
	return define_at(rec, &elf, fdpath, warn, why, whylen);
}

static int define_line(const char *record, const struct pc_kevent_file *f, bool warn,
		       char *why, size_t whylen)
{
	struct pc_command *cmd = malloc(sizeof(*cmd));
	struct pc_parse_error perr;
	int ret;

	if (!cmd)
		return -ENOMEM;
	ret = pc_parse_command(record, strlen(record), PROBECACHE_MAX_ARGS, cmd, &perr);
	if (ret)
		snprintf(why, whylen, "invalid record: %s: %s", perr.field, perr.why);
	else
		ret = define_rec(&cmd->rec, f, warn, why, whylen);
	free(cmd);
	return ret;
}

int pc_kevent_define(const char *record, const struct pc_kevent_file *f,
		     char *why, size_t whylen)
{
	return define_line(record, f, true, why, whylen);
}

#define PC_OVERLAYFS_MAGIC	0x794c7630

/* dev:ino of the mapping at @addr in /proc/self/maps. */
static int mapped_inode(const void *addr, dev_t *dev, ino_t *ino)
{
	unsigned long start, end, ino_l;
	unsigned int maj, min;
	char line[PATH_MAX + 128];
	int ret = -ENOENT;
	FILE *f = fopen("/proc/self/maps", "re");

	if (!f)
		return -errno;
	while (ret && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx %*s %*s %x:%x %lu", &start, &end, &maj, &min,
			   &ino_l) == 5 && (unsigned long)addr == start) {
			*dev = makedev(maj, min);
			*ino = ino_l;
			ret = 0;
		}
	fclose(f);
	return ret;
}

int pc_kevent_real_inode(int fd, dev_t *dev, ino_t *ino)
{
	struct statfs sfs;
	struct stat st;
	void *map;
	int ret;

	if (fstat(fd, &st) || fstatfs(fd, &sfs))
		return -errno;
	*dev = st.st_dev;
	*ino = st.st_ino;
	if ((unsigned long)sfs.f_type != PC_OVERLAYFS_MAGIC)
		return 0;
	map = mmap(NULL, 1, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		return -errno;
	ret = mapped_inode(map, dev, ino);
	munmap(map, 1);
	return ret;
}

bool pc_kevent_overlay_same(int fd, const char *name, const char *build_id)
{
	char bid[41];
	struct statfs sfs;

	return !fstatfs(fd, &sfs) && (unsigned long)sfs.f_type == PC_OVERLAYFS_MAGIC &&
	       !pc_read_build_id_fd(fd, name, bid) && !strcasecmp(bid, build_id);
}

bool pc_kevent_same_file(int fd, const char *name, dev_t dev, ino_t ino,
			 const char *build_id)
{
	dev_t d;
	ino_t i;

	if (fd < 0)
		return false;
	if (!pc_kevent_real_inode(fd, &d, &i) && d == dev && i == ino)
		return true;
	return pc_kevent_overlay_same(fd, name, build_id);
}

int pc_kevent_lock(void)
{
	char path[PATH_MAX];
	int fd, ret;

	snprintf(path, sizeof(path), "%s/uprobe_events", pc_tracefs_dir());
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (flock(fd, LOCK_EX))
		if (errno != EINTR) {
			ret = -errno;
			close(fd);
			return ret;
		}
	return fd;
}

void pc_kevent_unlock(int fd)
{
	if (fd >= 0)
		close(fd);	/* drops the flock */
}

bool pc_kevent_exists(const char *group, const char *event)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/events/%s/%s", pc_tracefs_dir(), group, event);
	return access(path, F_OK) == 0;
}

int pc_kevent_remove(const char *group, const char *event, char *why, size_t whylen)
{
	char line[2 * PROBECACHE_NAME_MAX + 8];
	int ret;

	pc_uprobe_undef(group, event, line, sizeof(line));
	ret = write_events(line, why, whylen);
	if (ret == -ENOENT)
		return 0;
	if (ret == -EBUSY)
		snprintf(why, whylen, "%s:%s is in use by ftrace, perf or BPF; stop tracing it first",
			 group, event);
	return ret;
}

/*
 * A copy's event name: EVENT_copyN, EVENT cut so that the name fits the
 * kernel's (and the grammar's) 63 characters.
 */
static void copy_name(const char *event, unsigned long n, char *buf, size_t size)
{
	char sfx[32];
	size_t keep;

	snprintf(sfx, sizeof(sfx), "_copy%lu", n);
	keep = PROBECACHE_NAME_MAX - strlen(sfx);
	snprintf(buf, size, "%.*s%s", (int)keep, event, sfx);
}

/* N of "EVENT_copyN" (copy_name()), or 0 if @name is no copy of @event. */
static unsigned long copy_number(const char *name, const char *event)
{
	char want[PROBECACHE_NAME_MAX + 1];
	const char *cp = strstr(name, "_copy");
	char *end;
	unsigned long v;

	for (const char *p = cp; p; p = strstr(p + 1, "_copy"))
		cp = p;		/* the last "_copy" */
	if (!cp || !cp[5])
		return 0;
	v = strtoul(cp + 5, &end, 10);
	if (*end || !v)
		return 0;
	copy_name(event, v, want, sizeof(want));
	return strcmp(want, name) ? 0 : v;
}

/* Calls @fn for each EVENT_copyN of GROUP that tracefs lists; stops at its error. */
static int each_copy(const char *group, const char *event,
		     int (*fn)(const char *group, const char *name, void *arg), void *arg)
{
	char path[PATH_MAX];
	struct dirent *d;
	DIR *dir;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/events/%s", pc_tracefs_dir(), group);
	dir = opendir(path);
	if (!dir)
		return errno == ENOENT ? 0 : -errno;
	while (!ret && (d = readdir(dir)))
		if (copy_number(d->d_name, event))
			ret = fn(group, d->d_name, arg);
	closedir(dir);
	return ret;
}

struct used_ctx {
	const char *event;
	unsigned char used[128];	/* N < 1024 */
};

static int mark_used(const char *group, const char *name, void *arg)
{
	struct used_ctx *c = arg;
	unsigned long n = copy_number(name, c->event);

	(void)group;
	if (n < 1024)
		c->used[n / 8] |= 1 << (n % 8);
	return 0;
}

int pc_kevent_define_copy(const struct pc_kprobe *kp, const char *name,
			  const struct pc_kevent_file *f, char *why, size_t whylen)
{
	struct used_ctx c = { .event = kp->event };
	char ref[32] = "", ev[PROBECACHE_NAME_MAX + 1], *rec = NULL;
	unsigned long n;
	int ret;

	ret = each_copy(kp->group, kp->event, mark_used, &c);
	for (n = 1; !ret && n < 1024 && (c.used[n / 8] & (1 << (n % 8))); n++)
		;
	if (!ret && n == 1024)
		ret = -ENOSPC;
	if (kp->ref_ctr)
		snprintf(ref, sizeof(ref), "(0x%" PRIx64 ")", kp->ref_ctr);
	copy_name(kp->event, n, ev, sizeof(ev));
	if (!ret && asprintf(&rec, "add %c:%s/%s %s %s:0x%" PRIx64 "%s%s%s",
			     kp->retprobe ? 'r' : 'p', kp->group, ev, kp->build_id,
			     name, kp->offset, ref, kp->args[0] ? " " : "", kp->args) < 0)
		ret = -ENOMEM;
	if (ret) {
		snprintf(why, whylen, "no name for a copy's event of %s: %s", kp->name,
			 strerror(-ret));
		return ret;
	}
	ret = define_line(rec, f, false, why, whylen);
	free(rec);
	return ret;
}

struct remove_ctx {
	char *why;
	size_t whylen;
};

static int remove_one(const char *group, const char *name, void *arg)
{
	struct remove_ctx *c = arg;

	return pc_kevent_remove(group, name, c->why, c->whylen);
}

int pc_kevent_remove_all(const char *group, const char *event, char *why, size_t whylen)
{
	struct remove_ctx c = { why, whylen };

	return each_copy(group, event, remove_one, &c) ?:
	       pc_kevent_remove(group, event, why, whylen);
}

/* Is @path a site of the probe GROUP:EVENT (@name) in @k? */
static bool is_site(const struct pc_ksites *k, const char *name, const char *path)
{
	for (size_t i = 0; i < k->n; i++)
		if (!strcmp(k->s[i].name, name) && !strcmp(k->s[i].path, path))
			return true;
	return false;
}

/* The probe of @k whose copy event GROUP/@event is, as "GROUP:EVENT" in @name. */
static bool copy_of(const struct pc_ksites *k, const char *group, const char *event,
		    char *name, size_t nlen)
{
	size_t glen = strlen(group);

	for (size_t i = 0; i < k->n; i++) {
		const char *n = k->s[i].name;

		if (k->s[i].site || strncmp(n, group, glen) || n[glen] != ':' ||
		    !copy_number(event, n + glen + 1))
			continue;
		snprintf(name, nlen, "%s", n);
		return true;
	}
	return false;
}

/*
 * One uprobe_events line, "p:GROUP/EVENT PATH:0xOFF...": its group, event
 * and path, cut in place; false for a line of another shape.
 */
static bool event_line(char *line, char **group, char **event, char **path)
{
	char *slash, *sp, *colon, *end;

	if ((line[0] != 'p' && line[0] != 'r') || line[1] != ':')
		return false;
	slash = strchr(line, '/');
	sp = strchr(line, ' ');
	if (!slash || !sp || slash > sp)
		return false;
	/* PATH:0xOFF[(0xREF)] ends at the first blank: the args' types have colons too */
	end = strchr(sp + 1, ' ');
	if (end)
		*end = '\0';
	colon = strrchr(sp + 1, ':');
	if (!colon)
		return false;
	*slash = *sp = *colon = '\0';
	*group = line + 2;
	*event = slash + 1;
	*path = sp + 1;
	return true;
}

static unsigned int prune_copies(const struct pc_ksites *k)
{
	char path[PATH_MAX], line[PATH_MAX + 512], name[2 * PROBECACHE_NAME_MAX + 2], why[256];
	char *group, *event, *file;
	unsigned int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/uprobe_events", pc_tracefs_dir());
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!event_line(line, &group, &event, &file) ||
		    !copy_of(k, group, event, name, sizeof(name)) || is_site(k, name, file))
			continue;
		n += !pc_kevent_remove(group, event, why, sizeof(why));
	}
	fclose(f);
	return n;
}

unsigned int pc_kevent_prune_copies(void)
{
	struct pc_ksites k = { 0 };
	unsigned int n = 0;
	int lock = pc_kevent_lock();

	/* The sites as they are now: another definer's new copy is a site already. */
	if (lock >= 0 && !pc_ksites_read(&k))
		n = prune_copies(&k);
	pc_ksites_free(&k);
	pc_kevent_unlock(lock);
	return n;
}

/* Is GROUP/@event of uprobe_events a copy's event of the probe @name (GROUP:EVENT)? */
static bool copy_of_probe(const char *name, const char *group, const char *event)
{
	size_t glen = strlen(group);

	return !strncmp(name, group, glen) && name[glen] == ':' &&
	       copy_number(event, name + glen + 1);
}

/*
 * Does an event's @file name the site listed as @path on @dev:@ino? By the
 * same string (what the copy's event was defined at), or by its inode; a
 * /proc/self/ name was the definer's own fd and means nothing here.
 */
static bool names_site(const char *file, const char *path, dev_t dev, ino_t ino)
{
	struct stat st;

	if (!strcmp(file, path))
		return true;
	return strncmp(file, "/proc/self/", 11) && !stat(file, &st) && st.st_dev == dev &&
	       st.st_ino == ino;
}

#define SITE_EVENTS_MAX	8

/*
 * The copy events of the probe @name on the site @path (@dev:@ino) into
 * @ev, as "GROUP/EVENT": read whole first, so that removing them rewrites
 * no file being read. How many (at most SITE_EVENTS_MAX).
 */
static size_t site_events(const char *name, const char *path, dev_t dev, ino_t ino,
			  char (*ev)[2 * PROBECACHE_NAME_MAX + 2])
{
	char fpath[PATH_MAX], line[PATH_MAX + 512], *group, *event, *file;
	size_t n = 0;
	FILE *f;

	snprintf(fpath, sizeof(fpath), "%s/uprobe_events", pc_tracefs_dir());
	f = fopen(fpath, "re");
	if (!f)
		return 0;
	while (n < SITE_EVENTS_MAX && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (event_line(line, &group, &event, &file) && copy_of_probe(name, group, event) &&
		    names_site(file, path, dev, ino))
			snprintf(ev[n++], sizeof(*ev), "%s/%s", group, event);
	}
	fclose(f);
	return n;
}

bool pc_kevent_site_has_event(const char *name, const char *path, dev_t dev, ino_t ino)
{
	char ev[SITE_EVENTS_MAX][2 * PROBECACHE_NAME_MAX + 2];

	return site_events(name, path, dev, ino, ev) > 0;
}

int pc_kevent_remove_site(const char *name, const char *path, dev_t dev, ino_t ino,
			  char *why, size_t whylen)
{
	char ev[SITE_EVENTS_MAX][2 * PROBECACHE_NAME_MAX + 2], *slash;
	size_t n = site_events(name, path, dev, ino, ev);
	int ret = 0;

	for (size_t i = 0; !ret && i < n; i++) {
		slash = strchr(ev[i], '/');
		*slash = '\0';
		ret = pc_kevent_remove(ev[i], slash + 1, why, whylen);
	}
	return ret;
}
