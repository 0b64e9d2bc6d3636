// SPDX-License-Identifier: GPL-2.0
/*
 * scan: read build-id and SDT notes of binaries into the cache (lib/sdtscan.h).
 *
 * With probecache.ko loaded, the probes of the binaries this run cached are
 * then defined in it (trace events, nothing armed), so `perf record -e
 * sdt_P:N` works right after a scan; --no-define only caches. --args gives
 * a note the user's names, which later scans keep.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "arm.h"
#include "builtin.h"
#include "cache.h"
#include "opts.h"
#include "pc.h"
#include "scan.h"
#include "sdtscan.h"

static int scan_help(void)
{
	printf("usage: %s scan [-r] [--no-define] [-a 'sdt_PROVIDER:NAME ARG...']... PATH...\n\n"
	       "Read the build-id and SDT notes (.note.stapsdt) of each PATH into the cache\n"
	       "(%s) and print 'PATH (BUILD-ID): N events' per binary.\n"
	       "Paths are canonicalized (symlinks resolved). When probecache.ko is loaded,\n"
	       "the probes of the binaries just cached are then defined in it as trace\n"
	       "events (as 'define' does; nothing is armed), so 'perf record -e GROUP:EVENT'\n"
	       "works at once.\n\n"
	       "Each note's args are named and typed by its provider's file in\n"
	       "%s when that agrees with the note, else arg1..argN.\n\n"
	       "  -r, --recursive  scan directories; files that are not ELF are skipped\n"
	       "      --no-define  only cache, even with the module loaded\n"
	       "  -a, --args DEF   your names for the notes PROVIDER:NAME, kept by later\n"
	       "                   scans ('sdt_app:req path=arg1:string len=arg2:u32'; no\n"
	       "                   ARG: drop them). ARG: [NAME=]argN|+OFF(EXPR)[:TYPE]\n"
	       "  -h, --help       this help\n\n"
	       "Exit: 0 ok, 1 nothing could be cached, 2 usage, 3 some paths failed (a\n"
	       "file whose notes disagree with --args too), some --args named no note,\n"
	       "or some probes could not be defined.\n",
	       pc_prog, pc_cache_dir(), pc_sdtnames_dir());
	return 0;
}

static void summary(struct pc_scan_stats *st)
{
	pc_scan_progress_done(st);
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

/* "*@BUILD-ID" for every binary this run cached: define (@count: arm) exactly those versions. */
static int define_scanned(struct pc_scan_stats *st, bool count)
{
	char **pats = calloc(st->cached.n ? st->cached.n : 1, sizeof(*pats));
	int ret = pats ? 0 : -ENOMEM;

	for (int i = 0; !ret && i < st->cached.n; i++)
		if (asprintf(&pats[i], "*@%s", st->cached.v[i]) < 0)
			pats[i] = NULL, ret = -ENOMEM;
	if (!ret)
		ret = pc_define_cached("scan", pats, st->cached.n, count, true);
	for (int i = 0; pats && i < st->cached.n; i++)
		free(pats[i]);
	free(pats);
	return ret;
}

int pc_scan_paths(char *const *paths, int n, struct pc_sdtuser *users, size_t nusers,
		  bool recursive, enum pc_scan_then then)
{
	struct pc_scan_stats st = { .recursive = recursive, .users = users, .nusers = nusers };
	int ret;

	st.progress = isatty(STDERR_FILENO);
	clock_gettime(CLOCK_MONOTONIC, &st.start);
	for (int i = 0; i < n; i++)
		pc_scan_arg(paths[i], &st);
	pc_scan_finish(&st);
	summary(&st);
	ret = then != PC_SCAN_CACHE ? define_scanned(&st, then == PC_SCAN_ARM) : 0;
	pc_strset_free(&st.cached);
	if (ret == -ENOMEM)
		return ret;
	if (!st.failed)
		return ret ? PC_EXIT_PARTIAL : 0;
	return st.with_notes || st.without_notes ? PC_EXIT_PARTIAL : -EIO;
}

/* --args 'sdt_PROVIDER:NAME ARG...': one more of @users. */
static int opt_args(const char *def, struct pc_sdtuser **users, size_t *n)
{
	struct pc_sdtuser *u = realloc(*users, (*n + 1) * sizeof(*u));
	char why[300];
	int ret;

	if (!u)
		return -ENOMEM;
	*users = u;
	ret = pc_sdtuser_parse(def, &u[*n], why, sizeof(why));
	if (ret == 1 && pc_sdtuser_find(u, *n, u[*n].spec))
		snprintf(why, sizeof(why), "%s named twice", u[*n].spec);
	else if (ret == 0)
		snprintf(why, sizeof(why), "expected sdt_PROVIDER:NAME and ARGs");
	if (ret != 1 || pc_sdtuser_find(u, *n, u[*n].spec)) {
		pc_err("scan: --args '%s': %s", def, why);
		return -EINVAL;
	}
	(*n)++;
	return 0;
}

int cmd_scan(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "recursive", no_argument, NULL, 'r' },
		{ "no-define", no_argument, NULL, 'n' },
		{ "args", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct pc_sdtuser *users = NULL;
	enum pc_scan_then then = PC_SCAN_DEFINE;
	bool recursive = false, help = false;
	size_t nusers = 0;
	int opt, ret = 0;

	while (!ret && !help && (opt = pc_getopt(argc, argv, "ra:h", lopts)) != -1) {
		if (opt == 'r')
			recursive = true;
		else if (opt == 'n')
			then = PC_SCAN_CACHE;
		else if (opt == 'a')
			ret = opt_args(optarg, &users, &nusers);
		else if (opt == 'h')
			help = true;
		else
			ret = -EINVAL;
	}
	if (help)
		ret = scan_help();
	else if (ret || optind >= argc)
		ret = ret == -ENOMEM ? ret : pc_usage("scan");
	else
		ret = pc_scan_paths(argv + optind, argc - optind, users, nusers, recursive, then);
	free(users);
	return ret;
}

