// SPDX-License-Identifier: GPL-2.0
/*
 * user/lib/followstats.c: the follower's counters file (issue 44) written
 * and read back whole; comments, blank lines and keys of a newer follower
 * skipped; every malformed file refused with its line and reason (a value
 * not a count, a pid out of range, a key twice, a key missing, a NUL, a
 * last line cut short, a file too large); the path under $PROBECACHE_RUN;
 * the running check on this very process (not a follower), a follower's
 * cmdline and a pid that is gone. pc_om_sample_double's text.
 */
#include <errno.h>
#include <signal.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "followstats.h"
#include "openmetrics.h"
#include "tap.h"

#define GOOD	"pid 42\nstart_time 1700000000\nmappings 10\nqueued 4\nsweeps 3\nfull 1\n" \
		"added 2\nrefused 1\nlost 5\nlast_ms 12.345\n"

static int parse(const char *text, struct pc_followstats *s, size_t *line, char *why)
{
	char *buf = strdup(text);
	int ret;

	if (!buf)
		return -ENOMEM;
	ret = pc_followstats_parse(buf, strlen(text), s, line, why, 256);
	free(buf);
	return ret;
}

static void good(void)
{
	struct pc_followstats s;
	char why[256] = "";
	size_t line;
	int ret = parse(GOOD, &s, &line, why);

	TAP_OK(!ret && s.pid == 42 && s.start == 1700000000 && s.st.mappings == 10 &&
	       s.st.queued == 4 && s.st.sweeps == 3 && s.st.full == 1 && s.st.added == 2 &&
	       s.st.refused == 1 && s.lost == 5 && s.st.last_ms == 12.345,
	       "a whole file: every field (ret %d %s)", ret, why);
	ret = parse("# a comment\n\n" GOOD "newer_key 7\n", &s, &line, why);
	TAP_OK(!ret && s.lost == 5, "a comment, a blank line, a newer follower's key: skipped (ret %d %s)",
	       ret, why);
	ret = parse("mappings 18446744073709551615\n" GOOD, &s, &line, why);
	TAP_OK(ret == -EBADMSG && line == 4 && !strcmp(why, "'mappings' again (first at line 1)"),
	       "a key twice: its second line, the first named (%zu: %s)", line, why);
}

static void bad(const char *text, size_t want_line, const char *want_why)
{
	struct pc_followstats s;
	char why[256] = "";
	size_t line = 99;
	int ret = parse(text, &s, &line, why);

	TAP_OK(ret == -EBADMSG && line == want_line && !strcmp(why, want_why),
	       "refused at line %zu: %s (ret %d, line %zu: %s)", want_line, want_why, ret, line, why);
}

static void bads(void)
{
	bad("pid 42\nsweeps x\n", 2, "'sweeps' is not a count: 'x'");
	bad("sweeps -1\n", 1, "'sweeps' is not a count: '-1'");
	bad("sweeps 18446744073709551616\n", 1, "'sweeps' is not a count: '18446744073709551616'");
	bad("sweeps 3x\n", 1, "'sweeps' is not a count: '3x'");
	bad("pid 0\n", 1, "'pid' is not a process id: '0'");
	bad("pid 2147483648\n", 1, "'pid' is not a process id: '2147483648'");
	bad("start_time 0\n", 1, "'start_time' is not a time in seconds: '0'");
	bad("last_ms nan\n", 1, "'last_ms' is not a number of milliseconds: 'nan'");
	bad("last_ms 0x10\n", 1, "'last_ms' is not a number of milliseconds: '0x10'");
	bad("last_ms 1e3\n", 1, "'last_ms' is not a number of milliseconds: '1e3'");
	bad("last_ms 1.2.3\n", 1, "'last_ms' is not a number of milliseconds: '1.2.3'");
	bad("pid\n", 1, "not 'KEY VALUE'");
	bad("pid 1 2\n", 1, "not 'KEY VALUE'");
	bad("", 0, "no 'pid' line");
	bad("pid 42\nstart_time 1\n", 0, "no 'mappings' line");
	bad(GOOD "lost", 11, "not 'KEY VALUE'");
	bad("pid 42\nstart_time 1700000000\nmappings 1\nqueued 4\nsweeps 3\nfull 1\n"
	    "added 2\nrefused 1\nlost 5\nlast_ms 12", 10, "the last line has no newline (cut short?)");
}

static void nul(void)
{
	static const char text[] = "pid 42\nsweeps 1\0junk\n";
	struct pc_followstats s;
	char buf[sizeof(text)], why[256] = "";
	size_t line;
	int ret;

	memcpy(buf, text, sizeof(text));
	ret = pc_followstats_parse(buf, sizeof(text) - 1, &s, &line, why, sizeof(why));
	TAP_OK(ret == -EBADMSG && line == 2 && !strcmp(why, "a NUL byte"),
	       "a NUL byte in a line: refused there (%d, %zu: %s)", ret, line, why);
}

/* Written by pc_followstats_write, read back by pc_followstats_read: the same. */
static void roundtrip(const char *dir)
{
	struct pc_followstats w = { .pid = 7, .start = 1718000000, .lost = 3,
		.st = { 1, 2, 3, 4, 5, 6, 0.125 } }, r;
	char path[PATH_MAX], why[256] = "", big[PC_FOLLOWSTATS_MAX + 2];
	struct stat st;
	size_t line;
	int ret;
	FILE *f;

	snprintf(path, sizeof(path), "%s/run/%s", dir, PC_FOLLOWSTATS_FILE);
	ret = pc_followstats_write(path, &w);
	TAP_OK(!ret && !stat(path, &st) && (st.st_mode & 0777) == 0644,
	       "written into a directory it made, mode 0644 (ret %d)", ret);
	ret = pc_followstats_read(path, &r, &line, why, sizeof(why));
	TAP_OK(!ret && r.pid == 7 && r.start == 1718000000 && r.lost == 3 && r.st.mappings == 1 &&
	       r.st.refused == 6 && r.st.last_ms == 0.125, "read back the same (ret %d %s)", ret, why);
	snprintf(path, sizeof(path), "%s/none", dir);
	TAP_OK(pc_followstats_read(path, &r, &line, why, sizeof(why)) == -ENOENT,
	       "no file: -ENOENT");
	snprintf(path, sizeof(path), "%s/nodir/deeper/%s", dir, PC_FOLLOWSTATS_FILE);
	TAP_OK(pc_followstats_write(path, &w) == -ENOENT, "only the last directory is made");
	snprintf(path, sizeof(path), "%s/big", dir);
	f = fopen(path, "w");
	memset(big, '#', sizeof(big));
	fwrite(big, 1, sizeof(big), f);
	fclose(f);
	ret = pc_followstats_read(path, &r, &line, why, sizeof(why));
	TAP_OK(ret == -EFBIG && !line && !strcmp(why, "file too large"),
	       "a file too large: -EFBIG, said (%d %s)", ret, why);
}

static void path(void)
{
	char buf[PATH_MAX];

	setenv("PROBECACHE_RUN", "/tmp/x", 1);
	TAP_OK(!pc_followstats_path(buf, sizeof(buf)) && !strcmp(buf, "/tmp/x/follower.stats"),
	       "$PROBECACHE_RUN/follower.stats (%s)", buf);
	unsetenv("PROBECACHE_RUN");
	TAP_OK(!pc_followstats_path(buf, sizeof(buf)) &&
	       !strcmp(buf, "/run/probecache/follower.stats"), "default /run/probecache (%s)", buf);
	TAP_OK(pc_followstats_path(buf, 10) == -ENAMETOOLONG, "too long: -ENAMETOOLONG");
}

static void running(void)
{
	pid_t p = fork();
	int st;

	if (!p) {
		/* a shell that stays (no exec of its one command), "follow" its $1 */
		execlp("sh", "sh", "-c", "while :; do sleep 0.1; done", "sh", "follow", (char *)NULL);
		_exit(127);
	}
	TAP_OK(!pc_followstats_running(getpid()), "this test is no follower");
	for (int i = 0; i < 100 && !pc_followstats_running(p); i++)
		usleep(10000);	/* until the exec */
	TAP_OK(pc_followstats_running(p), "a process with the argument 'follow' is one");
	kill(p, SIGKILL);
	usleep(50000);
	TAP_OK(!pc_followstats_running(p), "  a zombie is not");
	waitpid(p, &st, 0);
	TAP_OK(!pc_followstats_running(p), "  nor a pid that is gone");
}

static void sample_double(void)
{
	char out[256] = "";
	FILE *f = fmemopen(out, sizeof(out), "w");

	pc_om_sample_double(f, "g_seconds", NULL, 0, 0.012345);
	pc_om_sample_double(f, "g_seconds", NULL, 0, 0);
	pc_om_sample_double(f, "g_seconds", NULL, 0, 12345678.5);
	fclose(f);
	for (char *nl = strchr(out, '\n'); nl; nl = strchr(nl, '\n'))
		*nl = '|';	/* one line of TAP */
	TAP_OK(!strcmp(out, "g_seconds 0.012345|g_seconds 0|g_seconds 12345678.5|"),
	       "pc_om_sample_double: '%s'", out);
}

int main(void)
{
	char dir[] = "/tmp/pc-followstats.XXXXXX";
	char cmd[64];

	if (!mkdtemp(dir)) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	good();
	bads();
	nul();
	roundtrip(dir);
	path();
	running();
	sample_double();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		printf("# could not remove %s\n", dir);
	return tap_done();
}
