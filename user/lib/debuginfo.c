// SPDX-License-Identifier: GPL-2.0
/* Decompressed debuginfo copies by build-id (debuginfo.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache.h"
#include "debuginfo.h"
#include "pc.h"

#define DEBUG_MAX_MB_DEFAULT	2048

static int unlink_copy(const char *copy);

/* DIR/debug: libdwfl looks for DIR/debug/.build-id/XX/YYYY.debug there. */
static void debug_root(char *buf, size_t len)
{
	snprintf(buf, len, "%s/debug", pc_cache_dir());
}

char *pc_debugcache_search_path(void)
{
	static char path[PATH_MAX + 32];
	char root[PATH_MAX];

	debug_root(root, sizeof(root));
	/* libdwfl's default is ":.debug:/usr/lib/debug"; only absolute entries hold .build-id */
	snprintf(path, sizeof(path), "%s::.debug:/usr/lib/debug", root);
	return path;
}

static uint64_t max_bytes(void)
{
	const char *s = getenv("PROBECACHE_DEBUG_MAX_MB");
	char *end;
	unsigned long long mb;

	if (!s || !*s)
		return (uint64_t)DEBUG_MAX_MB_DEFAULT << 20;
	mb = strtoull(s, &end, 10);
	return *end ? (uint64_t)DEBUG_MAX_MB_DEFAULT << 20 : (uint64_t)mb << 20;
}

static int copy_path(const char *bid, char *buf, size_t len)
{
	char root[PATH_MAX];
	int n;

	if (!pc_build_id_valid(bid))
		return -EINVAL;
	debug_root(root, sizeof(root));
	n = snprintf(buf, len, "%s/.build-id/%.2s/%s.debug", root, bid, bid + 2);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int mkdirs(const char *path)
{
	char tmp[PATH_MAX];

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return mkdir(tmp, 0755) && errno != EEXIST ? -errno : 0;
}

/* Does @file have an SHF_COMPRESSED section? Section headers only, no data read. */
static bool has_compressed(const char *file)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	Elf *e = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	bool found = false;

	while (e && !found && (scn = elf_nextscn(e, scn)))
		found = gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_COMPRESSED);
	elf_end(e);
	if (fd >= 0)
		close(fd);
	return found;
}

static int copy_phdrs(Elf *in, Elf *out)
{
	size_t n;
	GElf_Phdr ph;

	if (elf_getphdrnum(in, &n) || !n)
		return 0;
	if (!gelf_newphdr(out, n))
		return -EIO;
	for (size_t i = 0; i < n; i++)
		if (!gelf_getphdr(in, i, &ph) || !gelf_update_phdr(out, i, &ph))
			return -EIO;
	return 0;
}

/*
 * Where the sections go, as eu-elfcompress lays a file out: allocated
 * sections (the build-id note the program headers point at) keep their
 * offsets, the others follow them in order, the section headers last.
 */
struct layout {
	uint64_t end;		/* first free byte */
};

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

static void layout_init(Elf *in, struct layout *l)
{
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	GElf_Shdr sh;

	gelf_getehdr(in, &eh);
	l->end = eh.e_phoff + (uint64_t)eh.e_phnum * eh.e_phentsize;
	if (l->end < eh.e_ehsize)
		l->end = eh.e_ehsize;
	while ((scn = elf_nextscn(in, scn)))
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC) &&
		    sh.sh_type != SHT_NOBITS && sh.sh_offset + sh.sh_size > l->end)
			l->end = sh.sh_offset + sh.sh_size;
}

/* One section, inflated if libdw has not done it yet. */
static int copy_scn(Elf_Scn *scn, Elf *out, struct layout *l)
{
	Elf_Scn *o = elf_newscn(out);
	Elf_Data *d, *od;
	GElf_Shdr sh;

	if (!o || !gelf_getshdr(scn, &sh))
		return -EIO;
	if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
		return -EIO;
	if (!gelf_getshdr(scn, &sh))
		return -EIO;
	if (!(sh.sh_flags & SHF_ALLOC)) {
		sh.sh_offset = align_up(l->end, sh.sh_addralign);
		if (sh.sh_type != SHT_NOBITS)
			l->end = sh.sh_offset + sh.sh_size;
	}
	if (!gelf_update_shdr(o, &sh))
		return -EIO;
	d = elf_getdata(scn, NULL);
	if (!d)
		return 0;
	od = elf_newdata(o);
	if (!od)
		return -EIO;
	*od = *d;	/* the buffer is the input's, alive until elf_update() is done */
	od->d_off = 0;
	return 0;
}

static int write_elf(Elf *in, int fd)
{
	Elf *out = elf_begin(fd, ELF_C_WRITE, NULL);
	Elf_Scn *scn = NULL;
	struct layout l;
	GElf_Ehdr eh;
	int ret = 0;

	if (!out || !gelf_getehdr(in, &eh) || !gelf_newehdr(out, gelf_getclass(in)))
		ret = -EIO;
	if (!ret)
		ret = copy_phdrs(in, out);
	layout_init(in, &l);
	while (!ret && (scn = elf_nextscn(in, scn)))
		ret = copy_scn(scn, out, &l);
	eh.e_shoff = align_up(l.end, 8);
	if (!ret && !gelf_update_ehdr(out, &eh))
		ret = -EIO;
	if (!ret && !elf_flagelf(out, ELF_C_SET, ELF_F_LAYOUT))
		ret = -EIO;
	if (!ret && elf_update(out, ELF_C_WRITE) < 0)
		ret = -EIO;
	if (ret)
		pc_info("writing a debuginfo copy: %s", elf_errmsg(-1));
	elf_end(out);
	return ret;
}

struct copy { char path[PATH_MAX + 300]; off_t size; struct timespec used; };

static int cmp_used(const void *a, const void *b)
{
	const struct copy *x = a, *y = b;

	if (x->used.tv_sec != y->used.tv_sec)
		return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
	return (x->used.tv_nsec > y->used.tv_nsec) - (x->used.tv_nsec < y->used.tv_nsec);
}

/* Every copy with its size and last use (mtime: set on each use). */
static int list_copies(struct copy **out, size_t *n)
{
	char root[PATH_MAX], dir[PATH_MAX + 16];
	struct dirent *d, *e;
	struct copy *v = NULL, *t;
	DIR *top, *sub;
	struct stat st;

	*n = 0;
	debug_root(root, sizeof(root));
	snprintf(dir, sizeof(dir), "%s/.build-id", root);
	top = opendir(dir);
	while (top && (d = readdir(top))) {
		if (d->d_name[0] == '.' || strlen(d->d_name) != 2)
			continue;
		snprintf(dir, sizeof(dir), "%s/.build-id/%s", root, d->d_name);
		sub = opendir(dir);
		while (sub && (e = readdir(sub))) {
			size_t len = strlen(e->d_name);

			if (e->d_name[0] == '.' || len < 7 || strcmp(e->d_name + len - 6, ".debug"))
				continue;
			t = realloc(v, (*n + 1) * sizeof(*v));
			if (!t)
				break;
			v = t;
			snprintf(v[*n].path, sizeof(v[*n].path), "%s/%s", dir, e->d_name);
			if (lstat(v[*n].path, &st) || !S_ISREG(st.st_mode))
				continue;
			v[*n].size = st.st_size;
			v[(*n)++].used = st.st_mtim;
		}
		if (sub)
			closedir(sub);
	}
	if (top)
		closedir(top);
	*out = v;
	return 0;
}

/* Least recently used copies go until @incoming more bytes fit; false if they never can. */
static bool make_room(uint64_t incoming)
{
	uint64_t cap = max_bytes(), total = 0;
	struct copy *v;
	size_t n, i;

	if (incoming > cap)
		return false;
	list_copies(&v, &n);
	for (i = 0; i < n; i++)
		total += v[i].size;
	qsort(v, n, sizeof(*v), cmp_used);
	for (i = 0; i < n && total + incoming > cap; i++) {
		pc_info("%s: removed, the debuginfo copies exceed %llu MB", v[i].path,
			(unsigned long long)(cap >> 20));
		if (!unlink_copy(v[i].path))
			total -= v[i].size;
	}
	free(v);
	return total + incoming <= cap;
}

static uint64_t elf_bytes(Elf *e)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	uint64_t n = 4096;

	while ((scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS)
			n += (sh.sh_flags & SHF_COMPRESSED) ? 4 * sh.sh_size : sh.sh_size;
	return n;
}

static int write_copy(const char *file, Elf *in)
{
	char dir[PATH_MAX], tmp[PATH_MAX + 16];
	int fd, ret;

	snprintf(dir, sizeof(dir), "%s", file);
	*strrchr(dir, '/') = '\0';
	ret = mkdirs(dir);
	if (ret)
		return ret;
	snprintf(tmp, sizeof(tmp), "%s/.tmp.XXXXXX", dir);
	fd = mkstemp(tmp);
	if (fd < 0)
		return -errno;
	ret = write_elf(in, fd);
	if (!ret && (fchmod(fd, 0644) || fsync(fd)))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, file))
		ret = -errno;
	if (ret)
		unlink(tmp);
	return ret;
}

bool pc_debugcache_note(const char *debug_file, const char *bid, Elf *dw_elf)
{
	char file[PATH_MAX], root[PATH_MAX];
	int ret;

	if (!debug_file || copy_path(bid, file, sizeof(file)) || !max_bytes())
		return false;
	debug_root(root, sizeof(root));
	if (!strncmp(debug_file, root, strlen(root)) && debug_file[strlen(root)] == '/') {
		utimensat(AT_FDCWD, debug_file, NULL, 0);	/* used: last to be evicted */
		return true;
	}
	if (!has_compressed(debug_file))
		return false;	/* libdw maps an uncompressed file as it is: a copy gains nothing */
	if (!make_room(elf_bytes(dw_elf))) {
		pc_info("%s: no uncompressed copy: above PROBECACHE_DEBUG_MAX_MB", debug_file);
		return false;
	}
	ret = write_copy(file, dw_elf);
	if (ret)
		pc_info("%s: no uncompressed copy in %s: %s", debug_file, file, strerror(-ret));
	else
		pc_info("%s: uncompressed copy kept as %s", debug_file, file);
	return !ret;
}

/* DIR/debug/.build-id/XX/YYYY.funcs */
static int funcs_path(const char *bid, char *buf, size_t len)
{
	int ret = copy_path(bid, buf, len);

	if (ret)
		return ret;
	if (strlen(buf) + 1 > len)
		return -ENAMETOOLONG;
	strcpy(buf + strlen(buf) - strlen(".debug"), ".funcs");
	return 0;
}

/* A copy goes with its function index. */
static int unlink_copy(const char *copy)
{
	char funcs[PATH_MAX + 300];
	int ret = unlink(copy) ? -errno : 0;

	snprintf(funcs, sizeof(funcs), "%.*s.funcs", (int)(strlen(copy) - 6), copy);
	unlink(funcs);
	return ret;
}

int pc_debugcache_funcs_read(const char *bid, uint64_t info_size, char **buf, size_t *len)
{
	char file[PATH_MAX], want[64];
	size_t n;
	int ret = funcs_path(bid, file, sizeof(file));

	if (!ret)
		ret = pc_read_file(file, PC_RD_NOFOLLOW, 256u << 20, buf, len);
	if (ret)
		return -ENOENT;
	n = snprintf(want, sizeof(want), "probecache-funcs 1\ndebug_info %llu\n",
		     (unsigned long long)info_size);
	if (*len < n + 4 || memcmp(*buf, want, n) || memcmp(*buf + *len - 4, "end\n", 4)) {
		free(*buf);
		*buf = NULL;
		return -ENOENT;
	}
	*len -= n + 4;	/* the name lines only */
	memmove(*buf, *buf + n, *len);
	(*buf)[*len] = '\0';
	return 0;
}

int pc_debugcache_funcs_write(const char *bid, uint64_t info_size, const char *lines, size_t len)
{
	char file[PATH_MAX], tmp[PATH_MAX + 16];
	FILE *f;
	int fd, ret = funcs_path(bid, file, sizeof(file));

	if (ret)
		return ret;
	snprintf(tmp, sizeof(tmp), "%.*s/.tmp.XXXXXX", (int)(strrchr(file, '/') - file), file);
	fd = mkstemp(tmp);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		ret = -errno;
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		return ret;
	}
	fprintf(f, "probecache-funcs 1\ndebug_info %llu\n", (unsigned long long)info_size);
	fwrite(lines, 1, len, f);
	fputs("end\n", f);
	return pc_file_commit(f, tmp, file, 0644);
}

int pc_debugcache_gc(bool (*keep)(const char *bid, void *ctx), void *ctx, bool dry,
		     unsigned int *removed)
{
	struct copy *v;
	size_t n;
	int ret = 0;

	*removed = 0;
	list_copies(&v, &n);
	for (size_t i = 0; i < n; i++) {
		/* .../.build-id/XX/YYYY.debug -> XXYYYY */
		char *name = strrchr(v[i].path, '/'), bid[48];

		snprintf(bid, sizeof(bid), "%.2s%.*s", name - 2, (int)(strlen(name + 1) - 6),
			 name + 1);
		if (keep(bid, ctx))
			continue;
		printf("%s debuginfo copy %s (%lld MB): no cached probe uses it\n",
		       dry ? "would remove" : "removed", v[i].path,
		       (long long)(v[i].size >> 20));
		if (!dry && !ret)
			ret = unlink_copy(v[i].path);
		(*removed)++;
	}
	free(v);
	return ret;
}
