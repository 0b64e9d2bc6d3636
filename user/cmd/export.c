// SPDX-License-Identifier: GPL-2.0
/*
 * export / import: a portable text archive of chosen cache entries, so one
 * build host with debuginfo resolves and every production host verifies by
 * build-id (the kernel re-checks every record against the file anyway).
 *
 * Format, version 1: UTF-8/bytes text, one record per line, fields separated
 * by one TAB; inside fields backslash, TAB, CR and LF are written as \\ \t
 * \r \n. Lines:
 *
 *   probecache-archive	1
 *   binary	BUILD-ID
 *   path	/abs/path                     (one or more per binary, newest first)
 *   entry	KIND	GROUP	EVENT	p|r	0xOFFSET	0xREFCTR	ARGS	UPROBE-ARGS	SPEC	DEBUGINFO
 *   ...
 *   end	NBINARIES	NENTRIES	crc32=XXXXXXXX
 *
 * KIND is sdt or named; ARGS is record syntax (checked with the module's
 * own parser on import), DEBUGINFO a build-id or "-". The CRC-32 (IEEE, as
 * zlib's crc32) covers every byte before the end line; it catches
 * truncation and corruption in transit, it is not an authentication.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "archive.h"
#include "builtin.h"
#include "cache.h"
#include "opts.h"
#include "pattern.h"
#include "pc.h"

#define ARCHIVE_MAGIC	"probecache-archive"
#define ARCHIVE_VERSION	1

static void put_field(FILE *f, const char *s)
{
	fputc('\t', f);
	for (; s && *s; s++) {
		switch (*s) {
		case '\\': fputs("\\\\", f); break;
		case '\t': fputs("\\t", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		default: fputc(*s, f);
		}
	}
}

struct export_ctx {
	struct pc_pattern *patterns;
	int npatterns;
	FILE *out;
	unsigned int nbin, nent;
};

static void put_entry(FILE *f, const struct pc_entry *e)
{
	char num[32];

	fputs("entry", f);
	put_field(f, e->kind == PC_ENTRY_NAMED ? "named" : "sdt");
	put_field(f, e->group);
	put_field(f, e->event);
	put_field(f, e->retprobe ? "r" : "p");
	snprintf(num, sizeof(num), "0x%llx", (unsigned long long)e->offset);
	put_field(f, num);
	snprintf(num, sizeof(num), "0x%llx", (unsigned long long)e->ref_ctr);
	put_field(f, num);
	put_field(f, e->args);
	put_field(f, e->uprobe_args);
	put_field(f, e->spec);
	put_field(f, e->debuginfo && *e->debuginfo ? e->debuginfo : "-");
	fputc('\n', f);
}

static void export_binary(const struct pc_binary *b, struct export_ctx *x)
{
	bool any = false;

	for (size_t i = 0; i < b->nentries; i++) {
		if (!pc_patterns_match(x->patterns, x->npatterns, b, &b->entries[i]))
			continue;
		if (!any) {
			fputs("binary", x->out);
			put_field(x->out, b->build_id);
			fputc('\n', x->out);
			for (size_t p = 0; p < b->npaths; p++) {
				fputs("path", x->out);
				put_field(x->out, b->paths[p]);
				fputc('\n', x->out);
			}
			x->nbin++;
			any = true;
		}
		put_entry(x->out, &b->entries[i]);
		x->nent++;
	}
}

/* Write @body plus its end line to @file atomically (temp + rename), or stdout. */
static int write_archive(const char *file, const char *body, size_t len, unsigned int nbin,
			 unsigned int nent)
{
	char tmp[PATH_MAX];
	FILE *f = stdout;
	int ret = 0;

	if (file && strcmp(file, "-")) {
		if (snprintf(tmp, sizeof(tmp), "%s.tmpXXXXXX", file) >= (int)sizeof(tmp))
			return -ENAMETOOLONG;
		int fd = mkstemp(tmp);

		if (fd < 0 || !(f = fdopen(fd, "w"))) {
			ret = -errno;
			pc_err("export: %s: %s", file, strerror(errno));
			if (fd >= 0)
				close(fd), unlink(tmp);
			return ret;
		}
	}
	fwrite(body, 1, len, f);
	fprintf(f, "end\t%u\t%u\tcrc32=%08x\n", nbin, nent, pc_crc32(0, body, len));
	if (fflush(f) || ferror(f) || (f != stdout && fsync(fileno(f))))
		ret = errno ? -errno : -EIO;
	if (f == stdout)
		return ret;
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, file))
		ret = -errno;
	if (ret) {
		pc_err("export: %s: %s", file, strerror(-ret));
		unlink(tmp);
	}
	return ret;
}

static void export_help(void)
{
	printf("usage: %s export [-o FILE] PATTERN...\n\n"
	       "Write the cache entries PATTERN selects to one archive (stdout or FILE).\n"
	       "PATTERN: glob over GROUP:EVENT (or EVENT), optionally @/path or @BUILDID.\n"
	       "  -o, --output FILE   write the archive to FILE (atomically) instead of stdout\n"
	       "  -h, --help          show this help\n", pc_prog);
}

/* The archive without its end line, in memory: it is checksummed before writing. */
static int build_body(struct export_ctx *x, char **body, size_t *len)
{
	struct pc_snapshot snap;
	int ret;

	x->out = open_memstream(body, len);
	if (!x->out)
		return -ENOMEM;
	fprintf(x->out, "%s\t%d\n", ARCHIVE_MAGIC, ARCHIVE_VERSION);
	ret = pc_snapshot_load(&snap);	/* sorted: the same cache gives the same archive */
	for (size_t i = 0; !ret && i < snap.n; i++)
		export_binary(snap.b[i], x);
	if (!ret)
		pc_snapshot_free(&snap);
	if (fclose(x->out) && !ret)
		ret = -ENOMEM;
	if (!ret && !x->nent) {
		char dym[512];

		pc_patterns_suggest(x->patterns, x->npatterns, dym, sizeof(dym));
		pc_err("export: no cached entry matches the patterns in %s%s", pc_cache_dir(), dym);
		ret = -ENOENT;
	}
	return ret;
}

int cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct export_ctx x = { 0 };
	const char *file = NULL;
	char *body = NULL;
	size_t len = 0;
	int opt, ret;

	while ((opt = pc_getopt(argc, argv, "o:h", opts)) != -1) {
		if (opt == 'o')
			file = optarg;
		else if (opt == 'h')
			return export_help(), 0;
		else
			return pc_usage("export");
	}
	if (optind >= argc)
		return pc_usage("export");
	ret = pc_patterns_parse(argv + optind, argc - optind, &x.patterns);
	if (ret)
		return ret;
	x.npatterns = argc - optind;
	ret = build_body(&x, &body, &len);
	if (!ret)
		ret = write_archive(file, body, len, x.nbin, x.nent);
	if (!ret)
		pc_info("export: %u entries of %u binaries", x.nent, x.nbin);
	free(body);
	pc_patterns_free(x.patterns, x.npatterns);
	return ret;
}

/* FILE, or stdin for "-": a regular file (or a pipe on stdin), at most PC_ARCHIVE_MAX bytes. */
static int read_all(const char *file, char **buf, size_t *len)
{
	if (strcmp(file, "-"))
		return pc_read_file(file, 0, PC_ARCHIVE_MAX, buf, len);
	return pc_read_fd(STDIN_FILENO, PC_ARCHIVE_MAX, buf, len);
}

static struct pc_entry *find_entry(struct pc_binary *b, const char *group, const char *event)
{
	for (size_t i = 0; i < b->nentries; i++)
		if (!strcmp(b->entries[i].group, group) && !strcmp(b->entries[i].event, event))
			return &b->entries[i];
	return NULL;
}

static bool same_entry(const struct pc_entry *a, const struct pc_entry *b)
{
	return a->kind == b->kind && a->retprobe == b->retprobe && a->offset == b->offset &&
	       a->ref_ctr == b->ref_ctr && !strcmp(a->args ? a->args : "", b->args);
}

/* Move the strings of @from into @to (an entry of the cached binary). */
static void take_entry(struct pc_entry *to, struct pc_entry *from)
{
	struct pc_entry old = *to;

	*to = *from;
	memset(from, 0, sizeof(*from));
	from->group = old.group, from->event = old.event, from->args = old.args;
	from->uprobe_args = old.uprobe_args, from->spec = old.spec;
	from->debuginfo = old.debuginfo;
}

struct import_stats {
	unsigned int added, replaced, same;
};

/* Fold archive binary @a into cached @b; both stay valid for pc_binary_free. */
static int merge(struct pc_binary *b, struct pc_binary *a, struct import_stats *st)
{
	for (size_t i = a->npaths; i-- > 0; ) {
		bool have = false;

		for (size_t j = 0; j < b->npaths; j++)
			have |= !strcmp(b->paths[j], a->paths[i]);
		if (!have && pc_binary_add_path(b, a->paths[i]))
			return -ENOMEM;
	}
	for (size_t i = 0; i < a->nentries; i++) {
		struct pc_entry *e = find_entry(b, a->entries[i].group, a->entries[i].event);

		if (e && same_entry(e, &a->entries[i])) {
			st->same++;
			continue;
		}
		if (!e) {
			e = pc_binary_add_entry(b);
			if (!e)
				return -ENOMEM;
			st->added++;
		} else {
			pc_warn("import: %s:%s of %s: replaced by the archive's version",
				e->group, e->event, b->build_id);
			st->replaced++;
		}
		take_entry(e, &a->entries[i]);
	}
	return 0;
}

/* Load every cached counterpart and merge in memory first: a failure here writes nothing. */
static int prepare(struct pc_archive *ar, struct pc_binary **merged, struct import_stats *st)
{
	for (size_t i = 0; i < ar->nbinaries; i++) {
		struct pc_binary *a = ar->binaries[i];
		int ret = pc_cache_load(a->build_id, &merged[i]);

		if (ret == -ENOENT) {
			merged[i] = a;
			ar->binaries[i] = NULL;
			st->added += a->nentries;
			continue;
		}
		if (ret) {
			pc_err("import: cache entry %s in %s is unreadable: %s; nothing imported",
			       a->build_id, pc_cache_dir(), strerror(-ret));
			return ret;
		}
		ret = merge(merged[i], a, st);
		if (ret)
			return ret;
	}
	return 0;
}

static int import_archive(const char *file, struct pc_archive *ar)
{
	struct pc_binary **merged = calloc(ar->nbinaries, sizeof(*merged));
	struct import_stats st = { 0 };
	int ret;

	if (!merged)
		return -ENOMEM;
	ret = pc_cache_lock();	/* read-modify-write: no scan/del/gc in between */
	if (ret) {
		free(merged);
		return ret;
	}
	ret = prepare(ar, merged, &st);
	if (!ret) {
		size_t done;

		ret = pc_cache_store_many(merged, ar->nbinaries, &done);
		if (ret)
			pc_err("import: %s: storing in %s failed: %s (%zu of %zu binaries stored)",
			       file, pc_cache_dir(), strerror(-ret), done, ar->nbinaries);
	}
	pc_cache_unlock();
	if (!ret && !pc_quiet)
		printf("imported %s: %zu binaries, %u entries added, %u replaced, %u unchanged\n",
		       file, ar->nbinaries, st.added, st.replaced, st.same);
	for (size_t i = 0; i < ar->nbinaries; i++)
		if (merged[i])
			pc_binary_free(merged[i]);
	free(merged);
	return ret;
}

int cmd_import(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct pc_archive ar;
	char err[512], *buf = NULL;
	size_t len = 0;
	int opt, ret;

	while ((opt = pc_getopt(argc, argv, "h", opts)) != -1) {
		if (opt != 'h')
			return pc_usage("import");
		printf("usage: %s import FILE\n\n"
		       "Validate the whole archive FILE (- for stdin), then add its entries to\n"
		       "the cache; a malformed archive is refused and changes nothing.\n"
		       "  -h, --help   show this help\n", pc_prog);
		return 0;
	}
	if (argc - optind != 1)
		return pc_usage("import");
	ret = read_all(argv[optind], &buf, &len);
	if (ret) {
		pc_err("import: %s: %s%s; nothing imported", argv[optind], pc_file_strerror(ret),
		       ret == -EFBIG ? " (limit 256 MiB)" : "");
		return ret;
	}
	ret = pc_archive_parse(buf, len, &ar, err, sizeof(err));
	free(buf);
	if (ret) {
		pc_err("import: %s: %s; nothing imported", argv[optind], err);
		return ret == -EINVAL ? -EBADMSG : ret;
	}
	ret = import_archive(argv[optind], &ar);
	pc_archive_free(&ar);
	return ret;
}
