// SPDX-License-Identifier: GPL-2.0
/* user/lib/cache.c: round trip, atomic replace, corrupt files, clear, validation. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cache.h"
#include "tap.h"

#define BID1 "289ee39f8c07bd4fa48102dfeeb7e6f9c76158b4"
#define BID2 "0123456789abcdef"

static char dir[64];

static struct pc_binary *sample(const char *bid, unsigned int nentries)
{
	struct pc_binary *b = pc_binary_new(bid);
	char ev[32];

	pc_binary_add_path(b, "/old/path");
	pc_binary_add_path(b, "/usr/lib/libx.so");
	for (unsigned int i = 0; i < nentries; i++) {
		struct pc_entry *e = pc_binary_add_entry(b);

		snprintf(ev, sizeof(ev), i ? "throw_%u" : "throw", i);
		e->kind = i % 2 ? PC_ENTRY_NAMED : PC_ENTRY_SDT;
		e->group = strdup("sdt_libstdcxx");
		e->event = strdup(ev);
		e->retprobe = i == 2;
		e->offset = 0xa90a1 + i;
		e->ref_ctr = i ? 0x67dd40 : 0;
		e->args = strdup("arg1=%di:u64 arg2=+8(%sp):s32");
		e->uprobe_args = strdup(i ? "arg1=%di:u64" : "");
		e->spec = strdup("libstdcxx:throw");
		e->debuginfo = i % 2 ? strdup(BID2) : NULL;
	}
	return b;
}

static bool same_entry(const struct pc_entry *a, const struct pc_entry *b)
{
	return a->kind == b->kind && !strcmp(a->group, b->group) && !strcmp(a->event, b->event) &&
	       a->retprobe == b->retprobe && a->offset == b->offset && a->ref_ctr == b->ref_ctr &&
	       !strcmp(a->args, b->args) && !strcmp(a->uprobe_args, b->uprobe_args) &&
	       !strcmp(a->spec, b->spec) &&
	       (a->debuginfo ? b->debuginfo && !strcmp(a->debuginfo, b->debuginfo) : !b->debuginfo);
}

static void test_roundtrip(void)
{
	struct pc_binary *b = sample(BID1, 3), *l = NULL;
	bool same;
	int ret;

	/* TAP_OK evaluates its condition twice: no side effects inside */
	ret = pc_cache_store(b);
	TAP_OK(ret == 0, "store a binary with 3 entries");
	ret = pc_cache_load(BID1, &l);
	TAP_OK(ret == 0 && l, "load it back");
	same = l && l->nentries == 3 && l->npaths == 2 &&
	       !strcmp(l->paths[0], "/usr/lib/libx.so") && !strcmp(l->paths[1], "/old/path");
	for (size_t i = 0; same && i < 3; i++)
		same = same_entry(&b->entries[i], &l->entries[i]);
	TAP_OK(same, "every field and the path order survive the round trip");
	pc_binary_free(l);
	pc_binary_add_path(b, "/old/path");
	TAP_OK(!strcmp(b->paths[0], "/old/path") && b->npaths == 2,
	       "adding a known path moves it to the front, no duplicate");
	pc_binary_del_entry(b, 0);
	TAP_OK(b->nentries == 2 && !strcmp(b->entries[0].event, "throw_1"),
	       "del_entry keeps the order of the rest");
	pc_binary_free(b);
	ret = pc_cache_load(BID2, &l);
	TAP_OK(ret == -ENOENT, "absent build-id: -ENOENT");
}

static int count_cb(struct pc_binary *b, void *ctx)
{
	(void)b;
	(*(int *)ctx)++;
	return 0;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	fputs(text, f);
	fclose(f);
}

static void test_corrupt(void)
{
	static const char *bad[] = {
		"",
		"probecache-cache 2\nbuild-id " BID2 "\npath /x\n",
		"probecache-cache 1\nbuild-id ffff\npath /x\n",
		"probecache-cache 1\nbuild-id " BID2 "\n",
		"probecache-cache 1\nbuild-id " BID2 "\npath relative\n",
		"probecache-cache 1\nbuild-id " BID2 "\npath /x\nprobe sdt g e p 0x1 0x0\nspec a:b\n",
		"probecache-cache 1\nbuild-id " BID2 "\npath /x\nprobe sdt g e x 0x1 0x0\nspec a:b\nend\n",
		"probecache-cache 1\nbuild-id " BID2 "\npath /x\nprobe sdt g e p 12 0x0\nspec a:b\nend\n",
		"probecache-cache 1\nbuild-id " BID2 "\npath /x\nprobe sdt g e p 0x1 0x0\nend\n",
		"probecache-cache 1\nbuild-id " BID2 "\npath /x\nargs x\n",
		"probecache-cache 1\nbuild-id " BID2 "\npath /x\nbogus 1\n",
		"probecache-cache 1\nbuild-id " BID2 "\npath /x\nprobe sdt g e p 0x1 0x0 extra\n",
		"probecache-cache 1\nbuild-id " BID2 "\npath /x",
		"probecache-cache 1\nbuild-id " BID2 "\npath /x\npath /x\n",
		"probecache-cache 1\npath /x\n",
		"probecache-cache 1\nbuild-id " BID2 "\nbuild-id " BID2 "\npath /x\n",
		"probecache-cache 1\nbuild-id " BID2 "\npath /x\nprobe sdt g e p 0x1 0x0\nspec a:b\n"
		"end\nprobe sdt g e p 0x2 0x0\nspec a:b\nend\n",
	};
	char path[128], sub[96];
	struct pc_binary *l;
	int n, ok = 0, ret;

	snprintf(sub, sizeof(sub), "%s/01", dir);
	mkdir(sub, 0755);
	snprintf(path, sizeof(path), "%s/01/23456789abcdef.probes", dir);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_file(path, bad[i]);
		l = NULL;
		ok += pc_cache_load(BID2, &l) == -EBADMSG && !l;
	}
	TAP_OK(ok == (int)(sizeof(bad) / sizeof(bad[0])), "%d of %zu malformed files refused", ok,
	       sizeof(bad) / sizeof(bad[0]));
	n = 0;
	ret = pc_cache_foreach(count_cb, &n);
	TAP_OK(ret == 0 && n == 1, "foreach skips the corrupt file and still visits the good one");
	write_file(path, "probecache-cache 1\nbuild-id " BID2 "\npath /x\n");
	ret = pc_cache_load(BID2, &l);
	TAP_OK(ret == 0 && l->nentries == 0, "a binary without entries is valid");
	pc_binary_free(l);
}

/* A writer keeps what parses of a damaged file and moves the file aside. */
static void test_salvage(void)
{
	static const char damaged[] =
		"probecache-cache 1\nbuild-id " BID2 "\npath /x\npath relative\npath /y\n"
		"probe named probe_x keep p 0x10 0x0\nspec x:keep\ndebuginfo " BID2 "\nend\n"
		"probe sdt g bad p 12 0x0\nspec a:b\nend\n"
		"probe sdt g drop p 0x1 0x0\nbogus\nspec a:b\nend\n"
		"probe sdt g keep2 p 0x2 0x0\nspec a:c\nend\n"
		"probe sdt g keep2 p 0x3 0x0\nspec a:c\nend\n"
		"probe sdt g open p 0x4 0x0\n";
	char path[128], aside[160];
	struct pc_binary *l = NULL;
	struct stat st;
	int ret;

	snprintf(path, sizeof(path), "%s/01/23456789abcdef.probes", dir);
	snprintf(aside, sizeof(aside), "%s.corrupt", path);
	write_file(path, damaged);
	ret = pc_cache_load_update(BID2, &l);
	TAP_OK(ret == 0 && l, "load_update of a damaged file succeeds");
	TAP_OK(l && l->npaths == 2 && !strcmp(l->paths[0], "/x") && !strcmp(l->paths[1], "/y"),
	       "the good paths are kept in order, the bad one dropped");
	TAP_OK(l && l->nentries == 2 && !strcmp(l->entries[0].event, "keep") &&
	       l->entries[0].debuginfo && !strcmp(l->entries[1].event, "keep2") &&
	       l->entries[1].offset == 2,
	       "the named entry and the first of a duplicated block are kept, broken ones not");
	TAP_OK(!stat(aside, &st) && st.st_size == (off_t)strlen(damaged) && st.st_nlink == 2,
	       "the damaged file is kept whole as .corrupt (a link: in place until stored)");
	pc_binary_free(l);
	write_file(path, "probecache-cache 1\nbuild-id ffff\npath /x\n");
	l = NULL;
	ret = pc_cache_load_update(BID2, &l);
	snprintf(aside, sizeof(aside), "%s.corrupt.1", path);
	TAP_OK(ret == 0 && l && !l->npaths && !l->nentries && !stat(aside, &st),
	       "another build-id's file: nothing carried over, kept as .corrupt.1");
	pc_binary_free(l);
	unlink(path);
	l = NULL;
	ret = pc_cache_load_update(BID2, &l);
	TAP_OK(ret == 0 && l && !l->nentries, "no file: a new binary");
	pc_binary_free(l);
	write_file(path, "probecache-cache 1\nbuild-id " BID2 "\npath /x\n");	/* for the tests after */
}

static void test_validation(void)
{
	struct pc_binary *b = sample(BID2, 1);
	int ret;

	free(b->entries[0].args);
	b->entries[0].args = strdup("a=%di\nadd evil");
	ret = pc_cache_store(b);
	TAP_OK(ret == -EINVAL, "a newline in a field is refused");
	free(b->entries[0].args);
	b->entries[0].args = strdup("");
	free(b->entries[0].event);
	b->entries[0].event = strdup("bad name");
	ret = pc_cache_store(b);
	TAP_OK(ret == -EINVAL, "an event name with a space is refused");
	pc_binary_free(b);
	b = pc_binary_new(BID2);
	ret = pc_binary_add_path(b, "rel/path");
	TAP_OK(ret == -EINVAL, "relative origin paths are refused");
	pc_binary_free(b);
	TAP_OK(!pc_build_id_valid("ABCD") && !pc_build_id_valid("abc") &&
	       !pc_build_id_valid("zz00") && pc_build_id_valid(BID1),
	       "build-id names: lower-case hex, even length, 4..40");
	b = pc_binary_new("../../etc");
	pc_binary_add_path(b, "/x");
	ret = pc_cache_store(b);
	TAP_OK(ret == -EINVAL, "a build-id that is not hex cannot name a file");
	pc_binary_free(b);
}

/* Leftover temp files in the bucket of @bid (there must be none). */
static int temp_files(const char *bid)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "ls -A '%s/%.2s' 2>/dev/null | grep -q '^\\.tmp\\.'", dir, bid);
	return system(cmd) == 0;
}

static void test_store_many(void)
{
	struct pc_binary *b[3] = { sample("aa01", 2), sample("aa02", 3), sample("bb03", 1) };
	struct pc_binary *l = NULL;
	size_t stored = 99;
	bool same = true;
	int ret;

	ret = pc_cache_store_many(b, 3, &stored);
	TAP_OK(ret == 0 && stored == 3, "store_many: three binaries, two in one bucket");
	for (size_t i = 0; i < 3 && same; i++) {
		same = !pc_cache_load(b[i]->build_id, &l) && l->nentries == b[i]->nentries;
		for (size_t j = 0; same && j < l->nentries; j++)
			same = same_entry(&b[i]->entries[j], &l->entries[j]);
		pc_binary_free(l);
		l = NULL;
	}
	TAP_OK(same, "store_many: each loads back whole");
	free(b[1]->entries[0].event);
	b[1]->entries[0].event = strdup("bad name");
	ret = pc_cache_store_many(b, 3, &stored);
	TAP_OK(ret == -EINVAL && stored == 0, "store_many: an invalid binary: nothing replaced");
	TAP_OK(!temp_files("aa01") && !temp_files("bb03"), "store_many: no temp file left behind");
	ret = pc_cache_load("aa02", &l);
	TAP_OK(ret == 0 && l->nentries == 3 && !strcmp(l->entries[0].event, "throw"),
	       "store_many: the refused binary's file is the old one");
	pc_binary_free(l);
	for (size_t i = 0; i < 3; i++) {
		pc_cache_remove(b[i]->build_id);
		pc_binary_free(b[i]);
	}
}

/* Many processes rewriting one file: every read sees a whole, valid file. */
static void test_concurrent(void)
{
	struct pc_binary *l;
	int status, good = 1;

	for (int p = 0; p < 4; p++) {
		if (fork() == 0) {
			for (int i = 0; i < 50; i++) {
				struct pc_binary *b = sample(BID1, 1 + (i + p) % 5);

				if (pc_cache_store(b))
					_exit(1);
				pc_binary_free(b);
			}
			_exit(0);
		}
	}
	for (int i = 0; i < 200; i++) {
		if (pc_cache_load(BID1, &l))
			good = 0;
		else
			pc_binary_free(l);
	}
	for (int p = 0; p < 4; p++) {
		wait(&status);
		good &= WIFEXITED(status) && !WEXITSTATUS(status);
	}
	TAP_OK(good, "4 writers x 50 stores while reading: never a partial file");
}

static void test_lock_and_clear(void)
{
	unsigned int removed = 0;
	struct pc_binary *l;
	int r1, r2;

	r1 = pc_cache_lock();
	r2 = pc_cache_lock();
	TAP_OK(r1 == 0 && r2 == 0, "the lock nests");
	pc_cache_unlock();
	pc_cache_unlock();
	r1 = pc_cache_remove(BID2);
	r2 = pc_cache_load(BID2, &l);
	TAP_OK(r1 == 0 && r2 == -ENOENT, "remove deletes one build-id");
	r1 = pc_cache_clear(&removed);
	TAP_OK(r1 == 0 && removed == 1, "clear removes what is left (%u)", removed);
	r1 = pc_cache_load(BID1, &l);
	TAP_OK(r1 == -ENOENT, "nothing left after clear");
}

int main(void)
{
	char cmd[128];

	setvbuf(stdout, NULL, _IOLBF, 0);	/* children fork: no shared buffer */
	snprintf(dir, sizeof(dir), "/tmp/pc-test-cache.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	pc_cache_set_dir(dir);
	test_roundtrip();
	test_corrupt();
	test_salvage();
	test_validation();
	test_store_many();
	test_concurrent();
	test_lock_and_clear();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		return 1;
	return tap_done();
}
