// SPDX-License-Identifier: GPL-2.0
/*
 * follow: keep every defined probe on every copy of its binary that a
 * process maps from now on (lib/follower.h): a process started, a library
 * dlopen'ed or a container's copy after the define. define/arm follow the
 * copies mapped at that time; this daemon (probecache-follow.service) the
 * later ones. It runs until SIGTERM or SIGINT, publishing its counters
 * for status --format=openmetrics (lib/followstats.h).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"
#include "follower.h"
#include "followstats.h"
#include "mmapwatch.h"
#include "pc.h"

#define RING_PAGES	64	/* per CPU: 256 KiB, ~2000 records between two reads */
#define DRAIN_MS	100	/* the rings read: a later copy followed within */
#define REFRESH_MS	1000	/* probes and sites re-read: a new probe followed within */
#define PUBLISH_MS	1000	/* the counters' file rewritten at most this often */

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The counters as last published in RUNDIR/follower.stats, for status --format=openmetrics. */
struct publish {
	char path[PATH_MAX];
	struct pc_followstats last;	/* as written */
	double at;			/* when last tried */
	bool warned;
};

static bool same_counts(const struct pc_followstats *a, const struct pc_followstats *b)
{
	const struct pc_follower_stats *x = &a->st, *y = &b->st;

	return x->mappings == y->mappings && x->queued == y->queued && x->sweeps == y->sweeps &&
	       x->full == y->full && x->added == y->added && x->refused == y->refused &&
	       x->last_ms == y->last_ms && a->lost == b->lost;
}

/*
 * Write the counters when they changed and PUBLISH_MS passed since the
 * last try (every mapping changes them: a busy host would have them
 * written at every drain), or at once when @force. A failure is said once:
 * the follower's work goes on without its counters.
 */
static void publish(struct publish *p, const struct pc_follower *f, uint64_t lost, bool force)
{
	struct pc_followstats s = p->last;
	int ret;

	s.st = *pc_follower_stats(f);
	s.lost = lost;
	if (!force && (now_ms() < p->at + PUBLISH_MS || same_counts(&s, &p->last)))
		return;
	p->at = now_ms();
	ret = p->path[0] ? pc_followstats_write(p->path, &s) : -ENAMETOOLONG;
	if (!ret) {
		p->last = s;
		return;
	}
	if (!p->warned)
		pc_warn("follow: %s: %s; its counters are not published (said once)",
			p->path[0] ? p->path : pc_run_dir(), strerror(-ret));
	p->warned = true;
}

static void publish_init(struct publish *p)
{
	memset(p, 0, sizeof(*p));
	if (pc_followstats_path(p->path, sizeof(p->path)))
		p->path[0] = '\0';
	p->last.pid = getpid();
	p->last.start = time(NULL);
}

static int follow_help(void)
{
	printf("usage: %s follow [-q] [--once]\n\n"
	       "Keep every probe the module defines on every copy of its binary that a\n"
	       "process maps from now on: a process started, a library dlopen'ed, a\n"
	       "container's own copy, deleted or in another mount namespace. Each\n"
	       "executable mapping is read from the kernel as perf reads it (a system-wide\n"
	       "PERF_RECORD_MMAP2 watch); an inode not seen before has its build-id read\n"
	       "once, and a copy carrying a defined probe's build-id is handed to the\n"
	       "module (\"site GROUP:EVENT PATH\"), which verifies it before arming it.\n"
	       "Each copy followed is printed; SIGTERM or SIGINT ends it, printing counts.\n"
	       "A copy's site goes once no process maps it (its event first), so that\n"
	       "nobody's exited copies hold a probe's sites; a copy refused for the moment\n"
	       "(EIO, EINTR, ETXTBSY, EACCES, ...) is tried again after 1, 2, 4 ... 60 s,\n"
	       "one refused for a proof (ESTALE, ENOEXEC, ERANGE, EREMOTE, ...) is not.\n"
	       "$PROBECACHE_ETC/follow.conf (default /etc/probecache) says whose copies\n"
	       "are followed: 'owners all' (the default) or 'owners USER|UID...'.\n"
	       "Its counters are written to $PROBECACHE_RUN/follower.stats (default\n"
	       "/run/probecache) at most once a second, for status --format=openmetrics.\n\n"
	       "  -q, --quiet  print only problems and the counts at the end\n"
	       "      --once   sweep every process once and exit (no watch, no counters file)\n"
	       "  -h, --help   this help\n\n"
	       "Needs CAP_PERFMON (the watch, the module's control), CAP_SYS_PTRACE (every\n"
	       "process's maps) and CAP_CHECKPOINT_RESTORE or CAP_SYS_ADMIN (map_files);\n"
	       "CAP_SYS_ADMIN for the watch where kernel.perf_event_paranoid is 3 (Debian's).\n",
	       pc_prog);
	return 0;
}

static void print_counts(const struct pc_follower *f, uint64_t lost)
{
	const struct pc_follower_stats *s = pc_follower_stats(f);

	printf("follow: %" PRIu64 " mappings, %" PRIu64 " queued a sweep, %" PRIu64
	       " sweeps (%" PRIu64 " of every process), %" PRIu64 " copies followed, %"
	       PRIu64 " refused, %" PRIu64 " records lost\n", s->mappings, s->queued,
	       s->sweeps, s->full, s->added, s->refused, lost);
}

/*
 * The watch is open only while the module defines a probe: with none, no
 * mapping costs the kernel a record. Opening it is followed by a sweep of
 * every process, which covers what was mapped while it was closed.
 */
static int watch_set(struct pc_mmapwatch *w, struct pollfd **pfd, bool want)
{
	int ret;

	if (want == (w->n > 0))
		return 0;
	free(*pfd);
	*pfd = NULL;
	if (!want) {
		pc_mmapwatch_close(w);
		printf("follow: no probe defined: not watching\n");
		return 0;
	}
	ret = pc_mmapwatch_open(w, RING_PAGES);
	if (ret) {
		pc_err("follow: watching executable mappings (perf_event_open): %s%s",
		       strerror(-ret), ret == -EACCES || ret == -EPERM ?
		       " (needs CAP_PERFMON, or CAP_SYS_ADMIN where"
		       " kernel.perf_event_paranoid is 3)" : "");
		return ret;
	}
	*pfd = calloc(w->n, sizeof(**pfd));
	if (!*pfd)
		return -ENOMEM;
	for (int i = 0; i < w->n; i++)
		(*pfd)[i] = (struct pollfd){ .fd = w->fds[i], .events = POLLIN };
	printf("follow: watching executable mappings on %d CPUs\n", w->n);
	return 1;
}

/* Until a signal: watch, sweep what the mappings queued, refresh each second. */
static int loop(struct pc_mmapwatch *w, struct pc_follower *f, uint64_t *lost,
		struct publish *pub)
{
	double next = now_ms() + REFRESH_MS;
	struct pollfd *pfd = NULL;
	int ret = 0, all;

	while (!stop && ret >= 0) {
		ret = all = watch_set(w, &pfd, pc_follower_probes(f) > 0);
		if (ret < 0)
			break;
		if (poll(pfd, w->n, DRAIN_MS) < 0 && errno != EINTR) {
			ret = -errno;
			break;
		}
		pc_mmapwatch_drain(w, pc_follower_mapped, f);
		if (w->lost) {
			*lost += w->lost;	/* records dropped: what they told, a sweep finds */
			w->lost = 0;
			all = 1;
		}
		if (now_ms() >= next) {
			next = now_ms() + REFRESH_MS;
			ret = pc_follower_refresh(f);
			all |= ret > 0;
		}
		if (ret >= 0)
			ret = pc_follower_run(f, all);
		publish(pub, f, *lost, false);
	}
	free(pfd);
	return ret < 0 ? ret : 0;
}

/* The policy of $PROBECACHE_ETC/follow.conf: a bad line is no usage error (exit 1). */
static int policy_load(struct pc_follow_policy *p)
{
	char path[PATH_MAX];
	int ret;

	pc_follow_policy_path(path, sizeof(path));
	ret = pc_follow_policy_read(p, path);
	if (ret)
		pc_err("follow: not started: %s must be fixed first", path);
	return ret == -EINVAL ? -EBADMSG : ret;
}

static int run(bool once)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct pc_mmapwatch w = { 0 };
	struct pc_follow_policy policy;
	struct pc_follower *f;
	struct publish pub;
	uint64_t lost = 0;
	int ret = policy_load(&policy);

	if (ret)
		return ret;
	f = pc_follower_new(pc_quiet, &policy);
	ret = f ? pc_follower_refresh(f) : -ENOMEM;

	/* --once publishes nothing: it would overwrite a running daemon's counters */
	if (ret >= 0 && once)
		ret = pc_follower_run(f, true);
	else if (ret >= 0) {
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGINT, &sa, NULL);
		publish_init(&pub);
		publish(&pub, f, lost, true);
		ret = loop(&w, f, &lost, &pub);
		publish(&pub, f, lost, true);
		print_counts(f, lost);
	}
	pc_mmapwatch_close(&w);
	pc_follower_free(f);
	pc_follow_policy_free(&policy);
	return ret < 0 ? ret : 0;
}

int cmd_follow(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "quiet", no_argument, NULL, 'q' },
		{ "once", no_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	bool once = false;
	int opt;

	while ((opt = getopt_long(argc, argv, "qh", lopts, NULL)) != -1) {
		switch (opt) {
		case 'q':
			pc_quiet = true;
			break;
		case 'o':
			once = true;
			break;
		case 'h':
			return follow_help();
		default:
			return pc_usage("follow");
		}
	}
	if (optind < argc)
		return pc_usage("follow");
	setvbuf(stdout, NULL, _IOLBF, 0);	/* a line at a time to the journal */
	return run(once);
}
