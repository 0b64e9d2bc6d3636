// SPDX-License-Identifier: GPL-2.0
/*
 * The map sweep (mapsweep.h): /proc/PID/maps of every process, executable
 * file mappings grouped by inode, one build-id read per distinct inode.
 * Cost is dominated by the kernel generating each maps file; the build-id
 * reads are few (distinct inodes), so nothing here is cached across sweeps.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "mapsweep.h"
#include "pc.h"
#include "sdt.h"

#define MAPS_MAX	(64u << 20)	/* a maps file past this is not read (bounds memory) */
#define DELETED_SUFFIX	" (deleted)"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Exited meanwhile: the normal race of a sweep, said nowhere. */
static bool gone(int err)
{
	return err == -ENOENT || err == -ESRCH;
}

static int denied_add(struct pc_sweep *s, pid_t pid, int err, const char *file)
{
	struct pc_sweep_denied *d;

	d = pc_grow(s->denied, &s->dcap, s->ndenied, sizeof(*d), 16);
	if (!d)
		return -ENOMEM;
	s->denied = d;
	d = &s->denied[s->ndenied++];
	d->pid = pid;
	d->err = err;
	snprintf(d->file, sizeof(d->file), "%s", file);
	return 0;
}

/* All of /proc/@name (relative to @procfd) into s->buf, NUL-terminated; -errno. */
static int read_proc(struct pc_sweep *s, int procfd, const char *name, size_t *len)
{
	int fd = openat(procfd, name, O_RDONLY | O_CLOEXEC);
	size_t n = 0;
	ssize_t r;

	if (fd < 0)
		return -errno;
	for (;;) {
		if (s->bufcap - n < 2) {
			size_t cap = s->bufcap ? 2 * s->bufcap : 65536;
			char *b = cap <= MAPS_MAX ? realloc(s->buf, cap) : NULL;

			if (!b) {
				close(fd);
				return cap <= MAPS_MAX ? -ENOMEM : -EFBIG;
			}
			s->buf = b;
			s->bufcap = cap;
		}
		r = read(fd, s->buf + n, s->bufcap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += r;
	}
	r = r < 0 ? -errno : 0;
	close(fd);
	s->buf[n] = '\0';
	*len = n;
	return r;
}

/*
 * A number in @base at *@pos followed by @sep, *@pos moved past it. strtoull
 * alone would take blanks and signs; the kernel writes neither here.
 */
static bool number(char **pos, int base, char sep, unsigned long long *v)
{
	char *end;

	if (!(base == 16 ? isxdigit((unsigned char)**pos) : isdigit((unsigned char)**pos)))
		return false;
	errno = 0;
	*v = strtoull(*pos, &end, base);
	if (errno || *end != sep)
		return false;
	*pos = end + 1;
	return true;
}

/* Anything malformed is skipped: the kernel wrote it, but a bound check costs nothing. */
bool pc_maps_line_parse(char *line, struct pc_maps_line *ml)
{
	unsigned long long start, end, off, maj, min, ino;
	char *pos = line, *perms;
	size_t len, suffix = strlen(DELETED_SUFFIX);

	if (!number(&pos, 16, '-', &start) || !number(&pos, 16, ' ', &end))
		return false;
	perms = pos;
	if (strnlen(perms, 5) < 5 || perms[4] != ' ' || perms[2] != 'x')
		return false;
	pos = perms + 5;
	if (!number(&pos, 16, ' ', &off) || !number(&pos, 16, ':', &maj) ||
	    !number(&pos, 16, ' ', &min) || !number(&pos, 10, ' ', &ino) || !ino)
		return false;
	pos += strspn(pos, " ");
	len = strlen(pos);
	if (!len)
		return false;
	ml->deleted = len > suffix && !strcmp(pos + len - suffix, DELETED_SUFFIX);
	if (ml->deleted)
		pos[len - suffix] = '\0';
	ml->start = start;
	ml->end = end;
	ml->dev = makedev(maj, min);
	ml->ino = ino;
	ml->path = pos;
	return true;
}

static size_t hash_of(dev_t dev, ino_t ino, size_t cap)
{
	uint64_t h = ((uint64_t)dev * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)ino * 0xff51afd7ed558ccdull);

	return (h ^ (h >> 29)) & (cap - 1);
}

static size_t *slot_of(const struct pc_sweep *s, dev_t dev, ino_t ino)
{
	size_t i = hash_of(dev, ino, s->hcap);

	for (;; i = (i + 1) & (s->hcap - 1)) {
		size_t v = s->hash[i];

		if (!v || (s->sites[v - 1].dev == dev && s->sites[v - 1].ino == ino))
			return &s->hash[i];
	}
}

/* Keeps the table at most half full: every probe then ends at a free slot. */
static int hash_grow(struct pc_sweep *s)
{
	size_t *old = s->hash, ocap = s->hcap;

	if (2 * (s->nsites + 1) <= s->hcap)
		return 0;
	s->hcap = ocap ? 2 * ocap : 256;
	s->hash = calloc(s->hcap, sizeof(*s->hash));
	if (!s->hash) {
		s->hash = old;
		s->hcap = ocap;
		return -ENOMEM;
	}
	for (size_t i = 0; i < ocap; i++)
		if (old[i])
			*slot_of(s, s->sites[old[i] - 1].dev, s->sites[old[i] - 1].ino) = old[i];
	free(old);
	return 0;
}

/* The site of @ml's inode, created when new; NULL on -ENOMEM. */
static struct pc_site *site_get(struct pc_sweep *s, const struct pc_maps_line *ml)
{
	struct pc_site *site;
	size_t *slot;

	if (hash_grow(s))
		return NULL;
	slot = slot_of(s, ml->dev, ml->ino);
	if (*slot)
		return &s->sites[*slot - 1];
	site = pc_grow(s->sites, &s->cap, s->nsites, sizeof(*site), 64);
	if (!site)
		return NULL;
	s->sites = site;
	site = &s->sites[s->nsites];
	memset(site, 0, sizeof(*site));
	site->path = strdup(ml->path);
	if (!site->path)
		return NULL;
	site->dev = ml->dev;
	site->ino = ml->ino;
	site->deleted = ml->deleted;
	*slot = ++s->nsites;
	return site;
}

/* A library is mapped in several executable pieces at times: the pid once. */
static int site_add_pid(struct pc_site *site, pid_t pid, uint64_t mntns)
{
	struct pc_site_pid *p;

	if (site->npids && site->pids[site->npids - 1].pid == pid)
		return 0;
	p = pc_grow(site->pids, &site->cap, site->npids, sizeof(*p), 4);
	if (!p)
		return -ENOMEM;
	site->pids = p;
	site->pids[site->npids++] = (struct pc_site_pid){ pid, mntns };
	return 0;
}

/*
 * Build-id through @fd, an opened copy of the site. A non-ELF file mapped
 * executable (a JIT's memfd) is no error worth a message: -ENOEXEC, quietly.
 */
static void site_read(struct pc_site *site, int fd, const char *name, const struct stat *st)
{
	unsigned char magic[4];

	site->deleted = site->deleted || st->st_nlink == 0;
	if (pread(fd, magic, sizeof(magic), 0) != sizeof(magic) || memcmp(magic, "\177ELF", 4))
		site->err = -ENOEXEC;
	else
		site->err = pc_read_build_id_fd(fd, name, site->build_id);
}

/* Through its path, if that names the very inode in our mount namespace. */
static bool try_path(struct pc_sweep *s, struct pc_site *site)
{
	struct stat st;
	int fd;

	if (site->path_tried || site->deleted || site->path[0] != '/')
		return false;
	site->path_tried = true;	/* the same path for every mapper: one try */
	fd = pc_open_regular(site->path, 0, &st);
	if (fd < 0)
		return false;
	if (st.st_dev == site->dev && st.st_ino == site->ino) {
		s->stats.reads++;
		site->how = PC_SITE_PATH;
		site_read(site, fd, site->path, &st);
	}
	close(fd);
	return site->how == PC_SITE_PATH;
}

/* Through /proc/PID/map_files/START-END: deleted, other namespaces, overlayfs. */
static int try_map_files(struct pc_sweep *s, struct pc_site *site, pid_t pid,
			 const struct pc_maps_line *ml, uint64_t mntns)
{
	char name[64];
	struct stat st;
	int fd;

	snprintf(name, sizeof(name), "/proc/%d/map_files/%lx-%lx", (int)pid, ml->start, ml->end);
	fd = pc_open_regular(name, 0, &st);
	if (gone(fd))
		return 0;	/* unmapped or exited meanwhile: the next mapper may tell */
	if (fd == -EPERM || fd == -EACCES) {
		site->err = fd;
		return denied_add(s, pid, fd, name);
	}
	s->stats.reads++;
	site->how = PC_SITE_MAP_FILES;
	site->via_pid = pid;
	snprintf(site->via, sizeof(site->via), "%s", name);
	site->mntns = mntns;
	if (fd < 0)
		site->err = fd;
	else if (st.st_ino != site->ino)
		site->err = -ESTALE;	/* the range was remapped to another file meanwhile */
	else
		site_read(site, fd, name, &st);
	if (fd >= 0)
		close(fd);
	return 0;
}

static int map_line(struct pc_sweep *s, pid_t pid, uint64_t mntns, const struct pc_maps_line *ml)
{
	struct pc_site *site = site_get(s, ml);

	if (!site)
		return -ENOMEM;
	s->stats.mappings++;
	if (site_add_pid(site, pid, mntns))
		return -ENOMEM;
	if (site->how != PC_SITE_UNREAD)
		return 0;
	if (try_path(s, site)) {
		site->mntns = mntns;
		return 0;
	}
	return try_map_files(s, site, pid, ml, mntns);
}

int pc_mntns_of(pid_t pid, uint64_t *mntns)
{
	char name[32], link[64];
	ssize_t n;
	char *b;

	*mntns = 0;
	snprintf(name, sizeof(name), "/proc/%d/ns/mnt", (int)pid);
	n = readlink(name, link, sizeof(link) - 1);
	if (n < 0)
		return -errno;
	link[n] = '\0';
	b = strchr(link, '[');
	if (!b)
		return -EINVAL;
	*mntns = strtoull(b + 1, NULL, 10);
	return 0;
}

static int sweep_pid(struct pc_sweep *s, int procfd, pid_t pid)
{
	char name[32], *pos, *end, *line;
	struct pc_maps_line ml;
	uint64_t mntns;
	size_t len = 0;
	bool nl;
	int ret;

	snprintf(name, sizeof(name), "%d/maps", (int)pid);
	ret = read_proc(s, procfd, name, &len);
	if (gone(ret)) {
		s->stats.gone++;
		return 0;
	}
	if (ret == -ENOMEM)
		return ret;
	if (ret) {
		snprintf(name, sizeof(name), "/proc/%d/maps", (int)pid);
		return denied_add(s, pid, ret, name);
	}
	s->stats.procs++;
	pc_mntns_of(pid, &mntns);	/* 0 when unreadable: exited, no ptrace right */
	pos = s->buf;
	end = s->buf + len;
	while ((line = pc_next_line(&pos, end, &nl)))
		if (nl && pc_maps_line_parse(line, &ml) && (ret = map_line(s, pid, mntns, &ml)))
			return ret;
	return 0;
}

/* Every numeric entry of /proc: the processes (thread-group leaders). */
static int sweep_all(struct pc_sweep *s, int procfd)
{
	int dfd = dup(procfd), ret = 0;
	struct dirent *de;
	DIR *d;

	if (dfd < 0 || !(d = fdopendir(dfd))) {
		ret = -errno;
		if (dfd >= 0)
			close(dfd);
		return ret;
	}
	while (!ret && (de = readdir(d))) {
		char *e;
		long pid = strtol(de->d_name, &e, 10);

		if (*e || pid <= 0 || de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		ret = sweep_pid(s, procfd, (pid_t)pid);
	}
	closedir(d);
	return ret;
}

int pc_sweep_run(struct pc_sweep *s, const pid_t *pids, size_t npids)
{
	double t0 = now_ms();
	int procfd, ret = 0;

	memset(s, 0, sizeof(*s));
	procfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (procfd < 0) {
		ret = -errno;
		pc_err("/proc: %s", strerror(errno));
		return ret;
	}
	if (!npids)
		ret = sweep_all(s, procfd);
	for (size_t i = 0; !ret && i < npids; i++)
		ret = sweep_pid(s, procfd, pids[i]);
	close(procfd);
	s->stats.ms = now_ms() - t0;
	if (ret)
		pc_err("map sweep: %s", strerror(-ret));
	return ret;
}

void pc_sweep_free(struct pc_sweep *s)
{
	for (size_t i = 0; i < s->nsites; i++) {
		free(s->sites[i].path);
		free(s->sites[i].pids);
	}
	free(s->sites);
	free(s->hash);
	free(s->denied);
	free(s->buf);
	memset(s, 0, sizeof(*s));
}

const struct pc_site *pc_sweep_next(const struct pc_sweep *s, const char *build_id, size_t *pos)
{
	while (*pos < s->nsites) {
		const struct pc_site *site = &s->sites[(*pos)++];

		if (site->build_id[0] && !strcmp(site->build_id, build_id))
			return site;
	}
	return NULL;
}

const char *pc_site_how_str(enum pc_site_how how)
{
	return how == PC_SITE_PATH ? "path" : how == PC_SITE_MAP_FILES ? "map_files" : "unread";
}
