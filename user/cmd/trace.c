// SPDX-License-Identifier: GPL-2.0
/*
 * trace: read the per-probe trace events GROUP/EVENT that probecache.ko
 * creates for every defined probe, and print one line per hit.
 *
 * The events are enabled in a private tracefs instance
 * (instances/probecache-PID): its own ring buffer, enable files and
 * set_event_pid, so the global tracing state and other readers are never
 * touched and "restoring" is disabling and removing the instance. Enabling
 * an event is what arms the probe (the module registers the uprobe for its
 * first consumer), disabling it disarms it again unless someone else listens.
 * Probes the patterns select that are cached but not defined yet are defined
 * first and deleted again at the end. With -- CMD, the child is forked
 * first and held on a pipe until tracing is live, so its first hit is seen.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arm.h"
#include "armed.h"
#include "builtin.h"
#include "kload.h"
#include "opts.h"
#include "pattern.h"
#include "pc.h"

struct tracer {
	char root[256];		/* tracefs mount */
	char inst[512];		/* private instance directory */
	pid_t pid;		/* set_event_pid: 0 everyone */
	pid_t child;		/* -- CMD, until reaped */
	pid_t cmd_pid;		/* -- CMD, for naming its hits */
	int go_fd;		/* write end: lets the child exec */
	char child_comm[16];	/* what exec makes the child's comm */
	struct pc_strset want;	/* "GROUP:EVENT" to enable */
	struct pc_strset fresh;	/* defined by this run: deleted at the end */
	int enabled;		/* events enabled in the instance */
};

static int write_file(const char *dir, const char *rel, const char *s)
{
	char p[PATH_MAX];
	int fd, ret = 0;

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	fd = open(p, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* "GROUP:EVENT" -> "events/GROUP/EVENT/FILE" */
static void event_file(const char *name, const char *file, char *buf, size_t len)
{
	const char *colon = strchr(name, ':');

	snprintf(buf, len, "events/%.*s/%s/%s", (int)(colon - name), name, colon + 1, file);
}

static void on_done(const char *group, const char *event, unsigned int what, void *ctx)
{
	char name[2 * PROBECACHE_NAME_MAX + 2];

	snprintf(name, sizeof(name), "%s:%s", group, event);
	if ((what & PC_DID_DEFINE) && pc_strset_add(ctx, name))
		pc_warn("trace: out of memory: %s stays defined after trace", name);
}

/* Define what the patterns select and is not defined yet (quietly: stdout is for hits). */
static int define_patterns(struct tracer *t, char *const *pats, int npats)
{
	struct pc_arm_opts opts = { .quiet = true, .done = on_done, .ctx = &t->fresh };
	struct pc_arm_result r = { 0 };
	int ret;

	if (!npats)
		return 0;	/* no PATTERN: every probe defined already */
	ret = pc_arm(pats, npats, &opts, &r);
	/* refusals are reported; select_probes() says if nothing is left to trace */
	return ret == -EINVAL || ret == -ENOMEM ? ret : 0;
}

/* The module's probes the patterns select (all without PATTERN) into t->want. */
static int select_probes(struct tracer *t, char *const *pats, int npats)
{
	struct pc_pattern *pp = NULL;
	struct pc_snapshot s = { 0 };
	struct pc_kprobes k = { 0 };
	int ret = pc_kprobes_read(&k);

	if (!ret && npats)
		ret = pc_patterns_parse(pats, npats, &pp);
	if (!ret && npats && pc_snapshot_load(&s))
		memset(&s, 0, sizeof(s));	/* kernel names alone still select */
	for (size_t i = 0; !ret && i < k.n; i++)
		if (!npats || pc_kprobe_selected(pp, npats, &k.p[i], &s))
			ret = pc_strset_add(&t->want, k.p[i].name);
	if (!ret && !t->want.n) {
		pc_err("trace: no probe %s in %s (see '%s list' and '%s define')",
		       npats ? "the patterns select is defined" : "is defined", pc_sysfs_dir(),
		       pc_prog, pc_prog);
		ret = -ENOENT;
	}
	pc_kprobes_free(&k);
	pc_snapshot_free(&s);
	if (pp)
		pc_patterns_free(pp, npats);
	return ret;
}

/*
 * Every defined probe has the kernel's uprobe event, unless root removed it
 * (perf probe -d, a -: line): say which of the two is missing.
 */
static int check_events(const struct tracer *t)
{
	char p[PATH_MAX + 300], rel[PATH_MAX];

	snprintf(p, sizeof(p), "%s/events", t->root);
	if (access(p, F_OK)) {
		pc_err("trace: %s: %s (is tracefs mounted? mount -t tracefs nodev "
		       "/sys/kernel/tracing)", p, strerror(errno));
		return -ENOENT;
	}
	event_file(t->want.v[0], "enable", rel, sizeof(rel));
	snprintf(p, sizeof(p), "%s/%s", t->root, rel);
	if (access(p, F_OK) == 0)
		return 0;
	pc_err("trace: %s is defined in probecache.ko but %s does not exist: its uprobe "
	       "event was removed (perf probe -d, or a -: line in uprobe_events); "
	       "'%s define %s' makes it again", t->want.v[0], p, pc_prog, t->want.v[0]);
	return -EOPNOTSUPP;
}

/* Enable one event in the instance; a refusal (file changed: ESTALE) names the probe. */
static void enable_one(struct tracer *t, const char *name)
{
	char rel[PATH_MAX], why[256] = "";
	int ret;

	event_file(name, "enable", rel, sizeof(rel));
	ret = write_file(t->inst, rel, "1");
	if (!ret) {
		t->enabled++;
		return;
	}
	pc_sysfs_read("last_error", why, sizeof(why));
	pc_err("trace: %s: cannot enable %s/%s: %s%s%s", name, t->inst, rel, strerror(-ret),
	       why[0] ? "; module: " : "", why);
}

static int start_instance(struct tracer *t)
{
	char pid[32];
	int ret;

	snprintf(t->inst, sizeof(t->inst), "%s/instances/probecache-%d", t->root, (int)getpid());
	if (mkdir(t->inst, 0700)) {
		ret = -errno;
		pc_err("trace: %s: %s", t->inst, strerror(errno));
		t->inst[0] = '\0';
		return ret;
	}
	if (t->pid) {
		snprintf(pid, sizeof(pid), "%d", (int)t->pid);
		ret = write_file(t->inst, "set_event_pid", pid);
		if (ret) {
			pc_err("trace: %s/set_event_pid: %s", t->inst, strerror(-ret));
			return ret;
		}
		/* CMD's own children are part of what it does */
		if (t->child)
			write_file(t->inst, "options/event-fork", "1");
	}
	for (int i = 0; i < t->want.n; i++)
		enable_one(t, t->want.v[i]);
	if (!t->enabled) {
		pc_err("trace: no event could be enabled");
		return -EIO;
	}
	return 0;
}

static void stop_instance(struct tracer *t)
{
	char rel[PATH_MAX];

	if (!t->inst[0])
		return;
	/* disabling disarms what only we used; rmdir alone would too, but say why it fails */
	for (int i = 0; i < t->want.n; i++) {
		event_file(t->want.v[i], "enable", rel, sizeof(rel));
		write_file(t->inst, rel, "0");
	}
	if (rmdir(t->inst))
		pc_warn("trace: %s: %s (remove it by hand)", t->inst, strerror(errno));
	t->inst[0] = '\0';
}

/*
 * ftrace prints "<...>" for a task whose comm it has not recorded yet, as
 * for a command that exec'd, hit and exited between two context switches.
 */
static char *comm_of(const struct tracer *t, pid_t pid, char *buf, size_t len, char *dflt)
{
	char p[64];
	FILE *f;

	if (pid == t->cmd_pid && t->child_comm[0]) {
		snprintf(buf, len, "%s", t->child_comm);
		return buf;
	}
	snprintf(p, sizeof(p), "/proc/%d/comm", (int)pid);
	f = fopen(p, "r");
	if (!f)
		return dflt;
	if (!fgets(buf, len, f))
		snprintf(buf, len, "%s", dflt);
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/* ftrace prints the EVENT only: its GROUP:EVENT when one selected probe has that EVENT. */
static const char *full_name(const struct tracer *t, const char *event)
{
	const char *found = NULL;

	for (int i = 0; i < t->want.n; i++) {
		const char *e = strchr(t->want.v[i], ':') + 1;

		if (strcmp(e, event))
			continue;
		if (found)
			return event;	/* two groups: ambiguous, as ftrace printed it */
		found = t->want.v[i];
	}
	return found ? found : event;
}

/*
 * "  comm-pid  [cpu] flags  ts: EVENT: (0xIP) ARGS" ->
 * "comm pid [cpu] ts: GROUP:EVENT: (0xIP) ARGS", perf script's layout.
 */
static void print_hit(const struct tracer *t, char *line)
{
	char *cpu = strstr(line, " ["), *ts, *colon, *payload, *dash, comm[32];

	if (!cpu || !(colon = strstr(cpu, ": ")) || !(payload = strstr(colon + 2, ": ")))
		return;
	*cpu = '\0';
	ts = strchr(cpu + 2, ']');
	if (!ts)
		return;
	*ts++ = '\0';
	ts += strspn(ts, " ");
	ts += strcspn(ts, " ");	/* irq/preempt flags */
	ts += strspn(ts, " ");
	*colon = '\0';
	*payload = '\0';
	line += strspn(line, " ");
	dash = strrchr(line, '-');
	if (!dash)
		return;
	*dash = '\0';
	dash[1 + strcspn(dash + 1, " ")] = '\0';	/* pid is padded to a column */
	if (!strcmp(line, "<...>"))
		line = comm_of(t, atoi(dash + 1), comm, sizeof(comm), line);
	printf("%16s %7s [%s] %s: %s: %s\n", line, dash + 1, cpu + 2, ts,
	       full_name(t, colon + 2), payload + 2);
	fflush(stdout);
}

/* Print every complete line in the pipe; keeps a partial line for the next read. */
static int drain(const struct tracer *t, int fd, char *buf, size_t size, size_t *have)
{
	for (;;) {
		ssize_t n = read(fd, buf + *have, size - 1 - *have);
		char *s, *nl;

		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -errno;
		if (n == 0)
			return 0;
		*have += n;
		buf[*have] = '\0';
		for (s = buf; (nl = strchr(s, '\n')); s = nl + 1) {
			*nl = '\0';
			print_hit(t, s);
		}
		*have = strlen(s);
		memmove(buf, s, *have + 1);
		if (*have == size - 1)
			*have = 0;	/* a line longer than the buffer: drop it */
	}
}

/* Read hits until SIGINT/SIGTERM or the child exits. 0 or -errno. */
static int read_loop(struct tracer *t, int sfd)
{
	char path[PATH_MAX], buf[16384];
	size_t have = 0;
	int fd, status = 0, ret = 0;
	bool done = false;

	snprintf(path, sizeof(path), "%s/trace_pipe", t->inst);
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		pc_err("trace: %s: %s", path, strerror(errno));
		return -errno;
	}
	while (!done && !ret) {
		struct pollfd p[2] = { { fd, POLLIN, 0 }, { sfd, POLLIN, 0 } };
		struct signalfd_siginfo si;

		if (poll(p, 2, 100) < 0 && errno != EINTR)
			ret = -errno;
		if (!ret)
			ret = drain(t, fd, buf, sizeof(buf), &have);
		if (!(p[1].revents & POLLIN) || read(sfd, &si, sizeof(si)) != sizeof(si))
			continue;
		if (si.ssi_signo != SIGCHLD)
			done = true;
		else if (t->child && waitpid(t->child, &status, WNOHANG) == t->child)
			done = true, t->child = 0;
	}
	usleep(200000);		/* hits of the last instructions may still be in flight */
	if (!ret)
		ret = drain(t, fd, buf, sizeof(buf), &have);
	close(fd);
	if (ret)
		pc_err("trace: %s: %s", path, strerror(-ret));
	else if (status && WIFEXITED(status))
		pc_warn("trace: command exited with status %d", WEXITSTATUS(status));
	else if (status && WIFSIGNALED(status))
		pc_warn("trace: command killed by signal %d", WTERMSIG(status));
	return ret;
}

/* Fork CMD held on a pipe; it execs once tracing is live (release_child). */
static int spawn(struct tracer *t, char **cmd, const sigset_t *old)
{
	int go[2];
	char c;

	if (pipe2(go, O_CLOEXEC))
		return -errno;
	t->child = fork();
	if (t->child < 0) {
		close(go[0]), close(go[1]);
		return -errno;
	}
	if (t->child == 0) {
		close(go[1]);
		sigprocmask(SIG_SETMASK, old, NULL);
		if (read(go[0], &c, 1) != 1)
			_exit(127);	/* trace gave up before starting */
		execvp(cmd[0], cmd);
		pc_err("trace: %s: %s", cmd[0], strerror(errno));
		_exit(127);
	}
	close(go[0]);
	t->go_fd = go[1];
	t->pid = t->cmd_pid = t->child;
	snprintf(t->child_comm, sizeof(t->child_comm), "%s",
		 strrchr(cmd[0], '/') ? strrchr(cmd[0], '/') + 1 : cmd[0]);
	return 0;
}

static void release_child(struct tracer *t)
{
	if (t->go_fd >= 0 && write(t->go_fd, "g", 1) != 1)
		pc_warn("trace: could not start the command: %s", strerror(errno));
	if (t->go_fd >= 0)
		close(t->go_fd);
	t->go_fd = -1;
}

/* Delete what this run defined; one someone else started using meanwhile stays. */
static void undefine(struct tracer *t)
{
	struct pc_disarm_result r;
	int ret;

	if (!t->fresh.n)
		return;
	ret = pc_disarm(t->fresh.v, t->fresh.n, false, true, &r);
	if (ret == -EBUSY)
		pc_warn("trace: %u probes this run defined are in use now and stay defined",
			r.busy);
	else if (ret)
		pc_warn("trace: some probes this run defined could not be deleted");
}

static void cleanup(struct tracer *t)
{
	if (t->go_fd >= 0)
		close(t->go_fd);	/* the held child exits without running */
	if (t->child > 0)
		waitpid(t->child, NULL, 0);
	stop_instance(t);
	undefine(t);
	pc_strset_free(&t->want);
	pc_strset_free(&t->fresh);
}

static int run(struct tracer *t, char *const *pats, int npats, char **cmd)
{
	sigset_t set, old;
	int sfd, ret;

	sigemptyset(&set);
	sigaddset(&set, SIGINT), sigaddset(&set, SIGTERM), sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGHUP);	/* a closed terminal must not leave the instance behind */
	sigprocmask(SIG_BLOCK, &set, &old);
	sfd = signalfd(-1, &set, SFD_CLOEXEC);
	if (sfd < 0)
		return -errno;
	snprintf(t->root, sizeof(t->root), "%s", pc_tracefs_dir());
	ret = define_patterns(t, pats, npats);
	if (!ret)
		ret = select_probes(t, pats, npats);
	if (!ret)
		ret = check_events(t);
	if (!ret && cmd)
		ret = spawn(t, cmd, &old);
	if (!ret)
		ret = start_instance(t);
	if (!ret) {
		release_child(t);
		ret = read_loop(t, sfd);
	}
	cleanup(t);
	close(sfd);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ret;
}

static void trace_help(void)
{
	printf("usage: %s trace [-p PID] [PATTERN...] [-- CMD ARGS...]\n\n"
	       "Enable the trace events of the probes PATTERN selects in a private tracefs\n"
	       "instance (which arms them) and print one line per hit:\n"
	       "  COMM PID [CPU] TIME: GROUP:EVENT: (0xADDRESS) NAME=VALUE...\n"
	       "the event's own fields as ftrace formats them, until CMD exits or\n"
	       "SIGINT/SIGTERM; then disable them and remove the instance. Cached probes\n"
	       "not defined in probecache.ko yet are defined first and deleted again at\n"
	       "the end. Without PATTERN, every probe defined in the module is traced.\n"
	       "The module must be loaded ('%s load'): trace loads nothing.\n"
	       "  -p, --pid PID   only hits in process PID (set_event_pid)\n"
	       "  -h, --help      show this help\n"
	       "With -- CMD, only CMD's process (and its children) is traced.\n", pc_prog, pc_prog);
}

/* -- needs a CMD; -p PID and -- CMD exclude each other. */
static int check_cmd(char **cmd, pid_t pid)
{
	if (cmd && !*cmd)
		pc_err("trace: '--' needs a command after it");
	else if (cmd && pid)
		pc_err("trace: -p %d and -- %s: give one; -- CMD traces CMD's own process, "
		       "-p PID a running one", (int)pid, cmd[0]);
	else
		return 0;
	return pc_usage("trace");
}

int cmd_trace(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct tracer t = { .go_fd = -1 };
	char **cmd = NULL, *end;
	int opt, npats, ret;

	while ((opt = pc_getopt(argc, argv, "+p:h", opts)) != -1) {
		if (opt == 'h')
			return trace_help(), 0;
		if (opt != 'p')
			return pc_usage("trace");
		t.pid = strtol(optarg, &end, 10);
		if (*end || t.pid <= 0)
			return pc_err("trace: -p '%s': not a process id", optarg), pc_usage("trace");
	}
	npats = 0;
	if (optind > 0 && !strcmp(argv[optind - 1], "--"))
		cmd = argv + optind;	/* getopt ate the "--" */
	while (!cmd && optind + npats < argc) {
		if (!strcmp(argv[optind + npats], "--"))
			cmd = argv + optind + npats + 1;
		else
			npats++;
	}
	ret = check_cmd(cmd, t.pid);
	if (!ret && !pc_module_loaded()) {
		pc_err("trace: %s/control: probecache.ko is not loaded; trace loads nothing: run "
		       "'%s load' first", pc_sysfs_dir(), pc_prog);
		ret = -ENOENT;
	}
	return ret ? ret : run(&t, argv + optind, npats, cmd);
}
