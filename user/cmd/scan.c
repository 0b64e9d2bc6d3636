// SPDX-License-Identifier: GPL-2.0
/*
 * scan: read build-id and SDT notes of binaries into the cache.
 *
 * Paths are canonicalized with realpath(3), as perf's build-id cache does,
 * so a library found through its soname link is cached under its real file.
 * SDT notes become entries of group sdt_PROVIDER; several notes with one name
 * become NAME, NAME_1, NAME_2... in note order, the names perf gives them
 * when it adds them one after the other. A rescan replaces the binary's SDT
 * entries and keeps its named ones (from 'add').
 *
 * With probecache.ko loaded, the probes of the binaries this run cached are
 * then defined in it (trace events, nothing armed), so `perf record -e
 * sdt_P:N` works right after a scan; --no-define only caches.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/probecache.h>

#include "arm.h"
#include "builtin.h"
#include "cache.h"
#include "canon.h"
#include "opts.h"
#include "pc.h"
#include "sdt.h"
#include "sdtnames.h"

struct scan_stats {
	unsigned int elf, with_notes, without_notes, no_build_id, non_elf, failed;
	unsigned long events;
	bool recursive;
	bool progress;		/* stderr is a terminal */
	struct pc_strset cached;	/* build-ids this run cached SDT entries for */
	struct timespec start, last;
};

static struct scan_stats *cur_stats;	/* for the nftw callback */

/* 1 if @path starts with the ELF magic, 0 if not, -errno if it cannot be read. */
static int is_elf(const char *path)
{
	unsigned char magic[4];
	struct stat st;
	int fd = pc_open_regular(path, 0, &st);
	ssize_t n;

	if (fd < 0)
		return fd;
	n = read(fd, magic, sizeof(magic));
	close(fd);
	return n == 4 && !memcmp(magic, "\177ELF", 4);
}

/* NAME, NAME_1, NAME_2...: NAME_n for the note with n earlier ones of its name. */
static int sdt_event_name(const struct pc_binary *b, const char *spec, const char *name,
			  char *buf, size_t size)
{
	unsigned int nth = 0;

	for (size_t i = 0; i < b->nentries; i++)
		if (b->entries[i].kind == PC_ENTRY_SDT && !strcmp(b->entries[i].spec, spec))
			nth++;
	if (nth)
		snprintf(buf, size, "%s_%u", name, nth);
	else
		snprintf(buf, size, "%s", name);
	return strlen(buf) > PROBECACHE_NAME_MAX ? -ENAMETOOLONG : 0;
}

/* The note's record args, named by its provider file when that agrees with the note. */
static int note_args(const char *path, const struct pc_sdt_file *f, const struct pc_sdt_note *n,
		     char **out)
{
	char why[300];
	int ret = pc_sdtnames_args(path, f, n, NULL, out, why, sizeof(why));

	if (!ret && !*out)
		*out = strdup(n->rec_args ? n->rec_args : "");
	return ret ? ret : *out ? 0 : -ENOMEM;
}

static int add_note(struct pc_binary *b, const char *path, const struct pc_sdt_file *f,
		    const struct pc_sdt_note *n)
{
	char group[PROBECACHE_NAME_MAX + 8], event[PROBECACHE_NAME_MAX + 16], *spec;
	struct pc_entry *e;
	int ret;

	if (asprintf(&spec, "%s:%s", n->provider, n->name) < 0)
		return -ENOMEM;
	snprintf(group, sizeof(group), "sdt_%s", n->provider);
	ret = sdt_event_name(b, spec, n->name, event, sizeof(event));
	if (!ret && strlen(group) > PROBECACHE_NAME_MAX)
		ret = -ENAMETOOLONG;
	e = ret ? NULL : pc_binary_add_entry(b);
	if (!e) {
		free(spec);
		return ret ? ret : -ENOMEM;
	}
	e->kind = PC_ENTRY_SDT;
	e->offset = n->pc_off;
	e->ref_ctr = n->sem_off;
	e->spec = spec;
	e->group = strdup(group);
	e->event = strdup(event);
	e->uprobe_args = strdup(n->uprobe_args ? n->uprobe_args : "");
	if (!e->group || !e->event || !e->uprobe_args)
		return -ENOMEM;
	return note_args(path, f, n, &e->args);
}

static size_t count_sdt(const struct pc_binary *b)
{
	size_t n = 0;

	for (size_t i = 0; i < b->nentries; i++)
		n += b->entries[i].kind == PC_ENTRY_SDT;
	return n;
}

/*
 * A damaged copy of a binary (same build-id, some notes unreadable) must not
 * replace the entries a clean copy gave: it keeps the cache as it is and is
 * not recorded as a path of the build-id.
 */
static int check_worse(const char *path, const struct pc_sdt_file *f, const struct pc_binary *b)
{
	size_t cached = count_sdt(b);

	if (!f->nskipped || f->nnotes >= cached)
		return 0;
	pc_err("%s: %u SDT notes unreadable, %zu read; build-id %s keeps the %zu entries "
	       "cached from %s, this copy is not recorded", path, f->nskipped, f->nnotes,
	       f->build_id, cached, b->npaths ? b->paths[0] : "an earlier scan");
	return -EBADMSG;
}

/* The cached binary to update, minus its SDT entries. */
static int base_binary(const char *path, const struct pc_sdt_file *f, struct pc_binary **out)
{
	struct pc_binary *b;
	int ret = pc_cache_load_update(f->build_id, &b);

	if (ret)
		return ret;
	ret = check_worse(path, f, b);
	if (ret) {
		pc_binary_free(b);
		return ret;
	}
	for (size_t i = b->nentries; i-- > 0;)
		if (b->entries[i].kind == PC_ENTRY_SDT)
			pc_binary_del_entry(b, i);
	*out = b;
	return 0;
}

/* Records @f, read from canonical @path, in the cache under its lock. */
static int cache_file(const char *path, const struct pc_sdt_file *f)
{
	struct pc_binary *b = NULL;
	int ret = pc_cache_lock();

	if (ret)
		return ret;
	ret = base_binary(path, f, &b);
	if (!ret)
		ret = pc_binary_add_path(b, path);
	for (size_t i = 0; !ret && i < f->nnotes; i++) {
		ret = add_note(b, path, f, &f->notes[i]);
		if (ret == -ENAMETOOLONG) {
			pc_warn("%s: SDT note %s:%s: event name too long, not cached", path,
				f->notes[i].provider, f->notes[i].name);
			ret = 0;
		}
	}
	if (!ret)
		ret = pc_cache_store(b);
	pc_binary_free(b);
	pc_cache_unlock();
	return ret;
}

static void progress(struct scan_stats *st, bool done)
{
	struct timespec now;
	long ms;

	if (!st->progress)
		return;
	if (done) {
		if (st->last.tv_sec)
			fputs("\r\033[K", stderr);
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (now.tv_sec - st->start.tv_sec) * 1000 + (now.tv_nsec - st->start.tv_nsec) / 1000000;
	if (ms < 1000)	/* short scans stay quiet */
		return;
	ms = (now.tv_sec - st->last.tv_sec) * 1000 + (now.tv_nsec - st->last.tv_nsec) / 1000000;
	if (st->last.tv_sec && ms < 200)
		return;
	st->last = now;
	fprintf(stderr, "\rscanning: %u ELF files, %u with SDT notes, %lu events", st->elf,
		st->with_notes, st->events);
}

/* Caches what pc_sdt_read() found in canonical @real and says so. */
static int record_file(const char *real, const struct pc_sdt_file *f, struct scan_stats *st,
		       bool explicit)
{
	int ret;

	if (!f->build_id[0]) {
		st->no_build_id++;
		if (!explicit) {	/* -r counts them in the summary */
			if (pc_verbose)
				pc_warn("%s: no GNU build-id, cannot be cached", real);
			return 0;
		}
		pc_err("%s: no GNU build-id, cannot be cached", real);
		st->failed++;
		return -ENOENT;
	}
	if (!f->nnotes) {
		st->without_notes++;
		if (explicit && !pc_quiet)
			printf("%s (%s): 0 events\n", real, f->build_id);
		return 0;
	}
	ret = cache_file(real, f);
	if (ret) {
		st->failed++;
		return ret;
	}
	st->with_notes++;
	st->events += f->nnotes;
	if (pc_strset_add(&st->cached, f->build_id))
		return -ENOMEM;
	if (st->progress && st->last.tv_sec)
		fputs("\r\033[K", stderr);
	if (!pc_quiet)
		printf("%s (%s): %zu events\n", real, f->build_id, f->nnotes);
	return 0;
}

static int scan_fail(const char *arg, int err, struct scan_stats *st)
{
	pc_err("%s: %s", arg, pc_file_strerror(err));
	st->failed++;
	return err;
}

/* One file. @explicit: named on the command line (non-ELF is an error then). */
static int scan_one(const char *arg, struct scan_stats *st, bool explicit)
{
	struct pc_sdt_file f = { 0 };
	char real[PATH_MAX];
	int ret;

	ret = pc_canonical_path(arg, real);
	if (ret)
		return scan_fail(arg, ret, st);
	ret = is_elf(real);
	if (ret < 0)
		return scan_fail(arg, ret, st);
	if (!ret) {
		st->non_elf++;
		if (!explicit)
			return 0;
		pc_err("%s: not an ELF file", arg);
		st->failed++;
		return -ENOEXEC;
	}
	st->elf++;
	progress(st, false);
	ret = pc_sdt_read(real, &f);
	if (ret) {
		st->failed++;
		return ret;
	}
	ret = record_file(real, &f, st, explicit);
	pc_sdt_free(&f);
	return ret;
}

static int walk_fn(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	if (type == FTW_DNR) {
		pc_warn("%s: cannot read directory, skipped", path);
		cur_stats->failed++;
	} else if (type == FTW_F && S_ISREG(sb->st_mode)) {
		scan_one(path, cur_stats, false);
	}
	return 0;
}

static int scan_arg(const char *arg, struct scan_stats *st)
{
	char real[PATH_MAX];
	struct stat sb;
	int ret;

	if (stat(arg, &sb))
		return scan_fail(arg, -errno, st);
	if (S_ISREG(sb.st_mode))
		return scan_one(arg, st, true);
	if (!S_ISDIR(sb.st_mode))
		return scan_fail(arg, -ENODEV, st);
	if (!st->recursive) {
		pc_err("%s: is a directory (use -r)", arg);
		st->failed++;
		return -EISDIR;
	}
	/* FTW_PHYS keeps the walk inside the tree, but /lib -> usr/lib must be entered. */
	ret = pc_canonical_path(arg, real);
	if (ret)
		return scan_fail(arg, ret, st);
	cur_stats = st;
	if (nftw(real, walk_fn, 16, FTW_PHYS))
		return scan_fail(arg, -errno, st);
	return 0;
}

static int scan_help(void)
{
	printf("usage: %s scan [-r] [--no-define] PATH...\n\n"
	       "Read the build-id and SDT notes (.note.stapsdt) of each PATH into the cache\n"
	       "(%s) and print 'PATH (BUILD-ID): N events' per binary.\n"
	       "Paths are canonicalized (symlinks resolved). When probecache.ko is loaded,\n"
	       "the probes of the binaries just cached are then defined in it as trace\n"
	       "events (as 'define' does; nothing is armed), so 'perf record -e GROUP:EVENT'\n"
	       "works at once.\n\n"
	       "  -r, --recursive  scan directories; files that are not ELF are skipped\n"
	       "      --no-define  only cache, even with the module loaded\n"
	       "  -h, --help       this help\n\n"
	       "Exit: 0 ok, 1 nothing could be scanned, 2 usage, 3 some paths failed or\n"
	       "some probes could not be defined.\n",
	       pc_prog, pc_cache_dir());
	return 0;
}

static void summary(const struct scan_stats *st)
{
	progress((struct scan_stats *)st, true);
	if ((!st->recursive && !pc_verbose) || pc_quiet)
		return;
	printf("%u ELF files: %u with SDT notes (%lu events), %u without notes", st->elf,
	       st->with_notes, st->events, st->without_notes);
	if (st->no_build_id)
		printf(", %u without build-id", st->no_build_id);
	printf("; %u other files skipped", st->non_elf);
	if (st->failed)
		printf("; %u failed", st->failed);
	putchar('\n');
}

/* "*@BUILD-ID" for every binary this run cached: define exactly those versions. */
static int define_scanned(struct scan_stats *st)
{
	char **pats = calloc(st->cached.n ? st->cached.n : 1, sizeof(*pats));
	int ret = pats ? 0 : -ENOMEM;

	for (int i = 0; !ret && i < st->cached.n; i++)
		if (asprintf(&pats[i], "*@%s", st->cached.v[i]) < 0)
			pats[i] = NULL, ret = -ENOMEM;
	if (!ret)
		ret = pc_define_cached("scan", pats, st->cached.n, false, true);
	for (int i = 0; pats && i < st->cached.n; i++)
		free(pats[i]);
	free(pats);
	return ret;
}

int cmd_scan(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "recursive", no_argument, NULL, 'r' },
		{ "no-define", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct scan_stats st = { 0 };
	bool define = true;
	int opt, ret;

	while ((opt = pc_getopt(argc, argv, "rh", lopts)) != -1) {
		if (opt == 'r')
			st.recursive = true;
		else if (opt == 'n')
			define = false;
		else if (opt == 'h')
			return scan_help();
		else
			return pc_usage("scan");
	}
	if (optind >= argc)
		return pc_usage("scan");
	st.progress = isatty(STDERR_FILENO);
	clock_gettime(CLOCK_MONOTONIC, &st.start);
	for (int i = optind; i < argc; i++)
		scan_arg(argv[i], &st);
	summary(&st);
	ret = define ? define_scanned(&st) : 0;
	pc_strset_free(&st.cached);
	if (ret == -ENOMEM)
		return ret;
	if (!st.failed)
		return ret ? PC_EXIT_PARTIAL : 0;
	return st.with_notes || st.without_notes ? PC_EXIT_PARTIAL : -EIO;
}
