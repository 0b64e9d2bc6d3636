// SPDX-License-Identifier: GPL-2.0
/*
 * trace: arm what is not armed yet, read probecache:probecache_hit and print one line
 * per hit, like `perf script`, then disarm only what this run armed.
 *
 * The tracepoint is enabled in a private tracefs instance
 * (instances/probecache-trace-PID): its own ring buffer, enable and filter,
 * so the global tracing state and other readers are never touched and
 * "restoring" is removing the instance. With -- CMD, the child is forked
 * first and held on a pipe until tracing is live, so its first hit is seen.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
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
#include "kload.h"
#include "pattern.h"
#include "pc.h"

#define HIT_EVENT	"events/probecache/probecache_hit"

struct tracer {
	char inst[512];		/* instance directory */
	char namefield[64];	/* string field of hit that holds GROUP:EVENT */
	char pidfield[64];	/* thread-group field, else common_pid */
	pid_t pid;		/* filter: 0 everyone */
	pid_t arm_pid;		/* pid= of the records trace arms (-p only, see spawn) */
	pid_t child;		/* -- CMD */
	int go_fd;		/* write end: lets the child exec */
	char child_comm[16];	/* what exec makes the child's comm */
	struct pc_strset armed, want;	/* "GROUP:EVENT" names */
};

static const char *tracefs(void)
{
	const char *e = getenv("PROBECACHE_TRACEFS");

	if (e && *e)
		return e;
	if (access("/sys/kernel/tracing/" HIT_EVENT, F_OK) == 0)
		return "/sys/kernel/tracing";
	return "/sys/kernel/debug/tracing";
}

static int write_file(const char *dir, const char *rel, const char *s)
{
	char p[1024];
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

/* Find the hit event's GROUP:EVENT string field and its thread-group pid field. */
static int read_format(struct tracer *t)
{
	char p[1024], line[512], type[128], name[64];
	FILE *f;

	snprintf(p, sizeof(p), "%s/" HIT_EVENT "/format", tracefs());
	f = fopen(p, "r");
	if (!f) {
		pc_err("trace: %s: %s (is probecache.ko loaded, tracefs mounted?)", p, strerror(errno));
		return -ENOENT;
	}
	strcpy(t->pidfield, "common_pid");
	while (fgets(line, sizeof(line), f)) {
		char *fld = strstr(line, "field:");

		if (!fld || sscanf(fld, "field:%127[^;];", type) != 1)
			continue;
		char *sp = strrchr(type, ' ');

		if (!sp || sscanf(sp + 1, "%63[A-Za-z0-9_]", name) != 1 || !strncmp(name, "common_", 7))
			continue;
		if (!t->namefield[0] && strstr(type, "char") && (strchr(sp, '[') || strstr(type, "__data_loc")))
			snprintf(t->namefield, sizeof(t->namefield), "%s", name);
		else if (!strcmp(name, "tgid") || !strcmp(name, "pid"))
			snprintf(t->pidfield, sizeof(t->pidfield), "%s", name);
	}
	fclose(f);
	return 0;
}

/* name == "a" || ... and the pid; the names part is dropped if too long (userspace filters). */
static void build_filter(const struct tracer *t, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	if (t->want.n && t->namefield[0]) {
		used += snprintf(buf, len, "(");
		for (int i = 0; i < t->want.n && used < len; i++)
			used += snprintf(buf + used, len - used, "%s%s == \"%s\"", i ? " || " : "",
					 t->namefield, t->want.v[i]);
		if (used + 2 >= len / 2)
			used = 0, buf[0] = '\0';
		else
			used += snprintf(buf + used, len - used, ")");
	}
	if (t->pid && used < len)
		snprintf(buf + used, len - used, "%s%s == %d", used ? " && " : "",
			 t->pidfield, (int)t->pid);
}

static int start_instance(struct tracer *t)
{
	char filter[3072];
	int ret;

	snprintf(t->inst, sizeof(t->inst), "%s/instances/probecache-trace-%d", tracefs(),
		 (int)getpid());
	if (mkdir(t->inst, 0700)) {
		ret = -errno;
		pc_err("trace: %s: %s", t->inst, strerror(errno));
		t->inst[0] = '\0';
		return ret;
	}
	build_filter(t, filter, sizeof(filter));
	if (filter[0]) {
		ret = write_file(t->inst, HIT_EVENT "/filter", filter);
		if (ret) {
			pc_err("trace: %s/" HIT_EVENT "/filter: '%s': %s", t->inst, filter, strerror(-ret));
			return ret;
		}
	}
	ret = write_file(t->inst, HIT_EVENT "/enable", "1");
	if (ret)
		pc_err("trace: %s/" HIT_EVENT "/enable: %s", t->inst, strerror(-ret));
	return ret;
}

static void stop_instance(struct tracer *t)
{
	if (!t->inst[0])
		return;
	write_file(t->inst, HIT_EVENT "/enable", "0");
	if (rmdir(t->inst))
		pc_warn("trace: %s: %s (remove it by hand)", t->inst, strerror(errno));
}

/*
 * ftrace prints "<...>" for a task whose comm it has not recorded yet, as
 * for a command that exec'd, hit and exited between two context switches.
 */
static char *comm_of(const struct tracer *t, pid_t pid, char *buf, size_t len, char *dflt)
{
	char p[64];
	FILE *f;

	if (pid == t->pid && t->child_comm[0]) {
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

/* "  comm-pid  [cpu] flags  ts: hit: PAYLOAD" -> perf-script-like line. */
static void print_hit(const struct tracer *t, char *line)
{
	char *cpu = strstr(line, " ["), *ts, *colon, *payload, *tok, *save = NULL;
	char *event = NULL, *dash, rest[4096] = "", comm[32];
	size_t used = 0, nl = strlen(t->namefield);

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
	line += strspn(line, " ");
	dash = strrchr(line, '-');
	if (!dash)
		return;
	*dash = '\0';
	dash[1 + strcspn(dash + 1, " ")] = '\0';	/* pid is padded to a column */
	for (tok = strtok_r(payload + 2, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
		if (nl && !strncmp(tok, t->namefield, nl) && tok[nl] == '=')
			event = tok + nl + 1;
		else if (!event && !strchr(tok, '='))
			event = tok;
		else if (strncmp(tok, "pid=", 4) && strncmp(tok, "tgid=", 5) && used < sizeof(rest))
			used += snprintf(rest + used, sizeof(rest) - used, " %s", tok);
	}
	if (!event || (t->want.n && !pc_strset_has(&t->want, event)))
		return;
	if (!strcmp(line, "<...>"))
		line = comm_of(t, atoi(dash + 1), comm, sizeof(comm), line);
	printf("%16s %7s [%s] %s: %s%s\n", line, dash + 1, cpu + 2, ts, event, rest);
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
	char path[1100], buf[16384];
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

static void on_armed(const char *group, const char *event, void *ctx)
{
	char name[2 * PROBECACHE_NAME_MAX + 2];

	snprintf(name, sizeof(name), "%s:%s", group, event);
	if (pc_strset_add(ctx, name))
		pc_warn("trace: out of memory: %s stays armed after trace", name);
}

/* Kernel names of every armed probe the patterns select (armed now or before). */
static int collect_wanted(struct tracer *t, char *const *pats, int npats)
{
	struct pc_pattern *pp = NULL;
	struct pc_snapshot s = { 0 };
	struct pc_kprobes k = { 0 };
	int ret = pc_patterns_parse(pats, npats, &pp);

	if (!ret)
		ret = pc_snapshot_load(&s);
	if (!ret)
		ret = pc_kprobes_read(&k);
	for (size_t i = 0; !ret && i < s.n; i++)
		for (size_t j = 0; !ret && j < s.b[i]->nentries; j++) {
			const struct pc_entry *e = &s.b[i]->entries[j];
			const struct pc_kprobe *kp;

			if (!pc_patterns_match(pp, npats, s.b[i], e))
				continue;
			kp = pc_kprobes_find(&k, s.b[i]->build_id, e->offset);
			if (kp)
				ret = pc_strset_add(&t->want, kp->name);
		}
	for (int i = 0; !ret && i < t->armed.n; i++)
		ret = pc_strset_add(&t->want, t->armed.v[i]);
	pc_kprobes_free(&k);
	pc_snapshot_free(&s);
	if (pp)
		pc_patterns_free(pp, npats);
	return ret;
}

static int arm_patterns(struct tracer *t, char *const *pats, int npats)
{
	struct pc_arm_opts opts = { .pid = t->arm_pid, .quiet = true, .armed = on_armed,
				    .ctx = &t->armed };
	struct pc_arm_result r = { 0 };
	int ret;

	if (!npats)
		return 0;	/* no PATTERN: every probe that is armed already */
	ret = pc_arm(pats, npats, &opts, &r);
	if (ret && !r.armed && !r.already) {
		pc_err("trace: nothing could be armed");
		return ret;
	}
	if (!r.armed && !r.already) {
		pc_err("trace: no cached probe matches the patterns that verifies now");
		return -ENOENT;
	}
	ret = collect_wanted(t, pats, npats);
	if (!ret && !t->want.n)
		ret = -ENOENT, pc_err("trace: matched probes are not armed in %s", pc_sysfs_dir());
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
	/*
	 * Filter on the child, but arm for everyone: a record's pid= binds the
	 * probe to the address space the process has now, which exec replaces.
	 */
	t->pid = t->child;
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

/* pc_disarm reports on stdout, which carries only hits here: silence it. */
static int disarm_quietly(struct tracer *t)
{
	struct pc_arm_result r = { 0 };
	int saved, null, ret;

	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (saved >= 0 && null >= 0)
		dup2(null, STDOUT_FILENO);
	ret = pc_disarm(t->armed.v, t->armed.n, &r);
	fflush(stdout);
	if (saved >= 0 && null >= 0)
		dup2(saved, STDOUT_FILENO);
	if (saved >= 0)
		close(saved);
	if (null >= 0)
		close(null);
	return ret;
}

static void cleanup(struct tracer *t)
{

	if (t->go_fd >= 0)
		close(t->go_fd);	/* the held child exits without running */
	if (t->child > 0)
		waitpid(t->child, NULL, 0);
	stop_instance(t);
	if (t->armed.n && disarm_quietly(t))
		pc_warn("trace: some probes this run armed could not be disarmed");
	pc_strset_free(&t->armed);
	pc_strset_free(&t->want);
}

static int run(struct tracer *t, char *const *pats, int npats, char **cmd)
{
	sigset_t set, old;
	int sfd, ret;

	sigemptyset(&set);
	sigaddset(&set, SIGINT), sigaddset(&set, SIGTERM), sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, &old);
	sfd = signalfd(-1, &set, SFD_CLOEXEC);
	if (sfd < 0)
		return -errno;
	ret = cmd ? spawn(t, cmd, &old) : 0;
	if (!ret)
		ret = read_format(t);
	if (!ret)
		ret = arm_patterns(t, pats, npats);
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
	       "Arm the cached probes PATTERN selects that are not armed yet, print one line\n"
	       "per probecache:probecache_hit (comm, pid, [cpu], time, GROUP:EVENT, args) until CMD exits\n"
	       "or SIGINT/SIGTERM, then disarm only what this run armed. Without PATTERN,\n"
	       "every probe armed already is traced.\n"
	       "  -p, --pid PID   only hits in process PID (and arm new probes for it only)\n"
	       "  -h, --help      show this help\n"
	       "With -- CMD, only CMD's process is traced.\n", pc_prog);
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

	while ((opt = getopt_long(argc, argv, "+p:h", opts, NULL)) != -1) {
		if (opt == 'h')
			return trace_help(), 0;
		if (opt != 'p')
			return pc_usage("trace");
		t.pid = t.arm_pid = strtol(optarg, &end, 10);
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
	if (cmd && (!*cmd || t.pid))
		return pc_usage("trace");	/* -- needs a CMD; CMD and -p exclude each other */
	if (!pc_module_loaded()) {
		ret = pc_module_load(NULL, NULL);
		if (ret && ret != -EEXIST)
			return ret;
	}
	ret = run(&t, argv + optind, npats, cmd);
	return ret;
}
