// SPDX-License-Identifier: GPL-2.0
/*
 * Options of every command: the global ones accepted anywhere, one error
 * prefix, and the closest option offered for a mistyped one.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cache.h"
#include "opts.h"
#include "pc.h"

static const struct option global_long[] = {
	{ "verbose", no_argument, NULL, 'v' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "cache-dir", required_argument, NULL, 'C' },
};

#define NR_GLOBAL	(sizeof(global_long) / sizeof(global_long[0]))
#define MAX_LONG	48

/* The command's options and the global ones, built once per command. */
static struct {
	const struct option *of;
	const char *short_of;
	char shortopts[128];
	struct option longopts[MAX_LONG + NR_GLOBAL + 1];
	size_t nlong;
	bool colon;		/* the caller handles a missing argument */
} m;

static int merge(const char *shortopts, const struct option *longopts)
{
	bool plus = shortopts[0] == '+';
	const char *rest = shortopts + plus;
	size_t n = 0;

	m.colon = rest[0] == ':';
	rest += m.colon;
	if ((size_t)snprintf(m.shortopts, sizeof(m.shortopts), "%s:%svqC:", plus ? "+" : "",
			     rest) >= sizeof(m.shortopts))
		return -E2BIG;
	for (; longopts[n].name; n++) {
		if (n == MAX_LONG)
			return -E2BIG;
		m.longopts[n] = longopts[n];
	}
	for (size_t i = 0; i < NR_GLOBAL; i++)
		m.longopts[n++] = global_long[i];
	memset(&m.longopts[n], 0, sizeof(m.longopts[n]));
	m.nlong = n;
	m.of = longopts;
	m.short_of = shortopts;
	return 0;
}

int pc_global_opt(int c, const char *arg)
{
	switch (c) {
	case 'v':
		pc_verbose++;
		return 0;
	case 'q':
		pc_quiet = true;
		return 0;
	case 'C':
		if (!*arg) {
			pc_err("--cache-dir: empty directory name");
			return -EINVAL;
		}
		pc_cache_set_dir(arg);
		return 0;
	}
	return 1;
}

/* "--name" of a long option as typed, without "=VALUE". */
static void typed_long(const char *arg, char *buf, size_t size)
{
	size_t n = strcspn(arg, "=");

	snprintf(buf, size, "%.*s", (int)(n < size ? n : size - 1), arg);
}

/* The long option closest to @typed ("--jsno", or "-f": one of the same initial). */
static const char *closest_long(const char *typed)
{
	const char *names[MAX_LONG + NR_GLOBAL];

	for (size_t i = 0; i < m.nlong; i++)
		names[i] = m.longopts[i].name;
	if (typed[1] == '-')
		return pc_closest(typed + 2, names, m.nlong);
	for (size_t i = 0; i < m.nlong; i++)
		if (names[i][0] == typed[1])
			return names[i];
	return NULL;
}

static void say_unknown(const char *cmd, const char *typed)
{
	const char *near = closest_long(typed);

	if (near && strcmp(near, typed + 2))
		pc_err("%s: unknown option '%s'; did you mean --%s?", cmd, typed, near);
	else
		pc_err("%s: unknown option '%s'", cmd, typed);
}

/* What getopt_long could not take, said once: '?' (or ':' when the caller asked). */
static int bad_option(int c, char **argv)
{
	char typed[64];
	const char *arg = argv[optind - 1];

	if (!strncmp(arg, "--", 2))
		typed_long(arg, typed, sizeof(typed));
	else
		snprintf(typed, sizeof(typed), "-%c", optopt);
	if (c == ':' && m.colon)
		return ':';
	if (c == ':')
		pc_err("%s: option '%s' needs an argument", argv[0], typed);
	else
		say_unknown(argv[0], typed);
	return '?';
}

int pc_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts)
{
	int c;

	if ((m.of != longopts || m.short_of != shortopts) && merge(shortopts, longopts)) {
		pc_err("%s: too many options", argv[0]);
		return '?';
	}
	opterr = 0;
	for (;;) {
		c = getopt_long(argc, argv, m.shortopts, m.longopts, NULL);
		if (c == '?' || c == ':')
			return bad_option(c, argv);
		switch (pc_global_opt(c, optarg)) {
		case 0:
			continue;
		case 1:
			return c;
		default:
			return '?';
		}
	}
}
