// SPDX-License-Identifier: GPL-2.0
/* probecache-resolve: resolve probe points into verified records for probecache.ko. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <linux/probecache.h>

#include "builtin.h"
#include "cache.h"
#include "opts.h"
#include "pc.h"

static int cmd_help(int argc, char **argv);

static const struct pc_cmd commands[] = {
	{ "scan", cmd_scan, "scan [-r] [--no-define] [-a DEF]... PATH...",
	  "read build-id and SDT notes into the cache (and define them if loaded)" },
	{ "list", cmd_list, "list [--format=text|uprobe|record] [--available] [--json] [--names] [PATTERN...]",
	  "list cached probes" },
	{ "add", cmd_add, "add -x BIN [-a DEF]... [-D DEF]... [--force] [--arm] [--no-define] [--from FILE] [DEF WORDS...]",
	  "resolve a probe point with debuginfo and cache it under a name" },
	{ "show", cmd_show, "show -x BIN -F [GLOB] | -V POINT | -L FUNC | --sdt [GLOB] [--json]",
	  "functions, variables at a point, lines, SDT probes of a binary (cache untouched)" },
	{ "del", cmd_del, "del PATTERN...", "delete cached probes" },
	{ "clear", cmd_clear, "clear", "delete the whole cache" },
	{ "define", cmd_define, "define [-p PID] [--path PATH] [-q] PATTERN...",
	  "make cached probes trace events (perf, ftrace, BPF); arms nothing" },
	{ "arm", cmd_arm, "arm [-p PID] [--path PATH] [-q] PATTERN...",
	  "define if needed and count hits (arms the probes)" },
	{ "disarm", cmd_disarm, "disarm [-k] [-q] PATTERN...",
	  "delete probes from the module (EBUSY while perf/ftrace use them)" },
	{ "status", cmd_status, "status [--stale] [--format=text|json|openmetrics] [-o FILE] [--json]",
	  "the module's probes: state, consumers, counting, hits" },
	{ "sites", cmd_sites, "sites [--json] [--stats] [-p PID]... [BUILD-ID|PATH...]",
	  "the inodes processes map executable, by build-id (copies, deleted, other namespaces)" },
	{ "follow", cmd_follow, "follow [-q] [--once]",
	  "keep defined probes on every copy of their binaries mapped from now on" },
	{ "gc", cmd_gc, "gc [--dry-run]", "remove cache entries whose binary is gone or changed" },
	{ "load", cmd_load, "load [--module FILE.ko] [PARAM=VALUE...]", "load probecache.ko" },
	{ "unload", cmd_unload, "unload", "disarm everything and unload probecache.ko" },
	{ "preload", cmd_preload, "preload [--dry-run] [--config FILE] [--stop]",
	  "load the module, define the probes listed in /etc/probecache, count the marked" },
	{ "trace", cmd_trace, "trace [-p PID] [PATTERN...] [-- CMD ARGS...]",
	  "print the probes' trace events until CMD exits or SIGINT" },
	{ "export", cmd_export, "export [-o FILE] PATTERN...", "write chosen cache entries to an archive" },
	{ "import", cmd_import, "import FILE", "add an archive's entries to the cache" },
	{ "help", cmd_help, "help [COMMAND]", "show help for a command" },
};

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct pc_cmd *find_command(const char *name)
{
	for (size_t i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* "unknown command 'lsit'; did you mean list?" and where the list is: two lines. */
static void unknown_command(const char *what, const char *name)
{
	const char *names[NR_COMMANDS];
	const char *near;

	for (size_t i = 0; i < NR_COMMANDS; i++)
		names[i] = commands[i].name;
	near = pc_closest(name, names, NR_COMMANDS);
	if (near)
		pc_err("%sunknown command '%s'; did you mean %s?", what, name, near);
	else
		pc_err("%sunknown command '%s'", what, name);
	fprintf(stderr, "Run '%s help' for the list of commands.\n", pc_prog);
}

int pc_usage(const char *cmd)
{
	const struct pc_cmd *c = find_command(cmd);

	if (c)
		fprintf(stderr, "usage: %s %s\n", pc_prog, c->usage);
	return -EINVAL;
}

static void usage_all(FILE *f)
{
	fprintf(f, "usage: %s [-C DIR] [-v|-vv] [-q] COMMAND [ARGS]\n\ncommands:\n", pc_prog);
	for (size_t i = 0; i < NR_COMMANDS; i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\nglobal options, before or after COMMAND:\n"
		"  -C, --cache-dir DIR  the cache (default $PROBECACHE_DIR, else\n"
		"                       /var/cache/probecache)\n"
		"  -v, --verbose        say what is done; -vv also every cache file and\n"
		"                       module control line\n"
		"  -q, --quiet          print only problems\n"
		"\nRun '%s help COMMAND' for a command's options.\n", pc_prog);
}

static int help_of(const struct pc_cmd *c)
{
	char *hargv[] = { (char *)c->name, "--help", NULL };

	if (c->fn == cmd_help) {
		printf("usage: %s %s\n\nShow a command's usage and options, or with no COMMAND "
		       "the list of commands.\n", pc_prog, c->usage);
		return 0;
	}
	optind = 0;
	return c->fn(2, hargv);
}

static int cmd_help(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	const struct pc_cmd *c;
	int opt;

	while ((opt = pc_getopt(argc, argv, "+h", opts)) != -1)
		if (opt == 'h')
			return help_of(find_command("help"));
		else
			return pc_usage("help");
	if (optind >= argc) {
		usage_all(stdout);
		return 0;
	}
	c = find_command(argv[optind]);
	if (!c) {
		unknown_command("help: ", argv[optind]);
		return -EINVAL;
	}
	return help_of(c);
}

/* The options before COMMAND: 0 go on, -1 done (exit 0), else the exit status. */
static int main_opts(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cache-dir", required_argument, NULL, 'C' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{}
	};
	int opt;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:C:vqhV", opts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			usage_all(stdout);
			return -1;
		case 'V':
			printf("%s %s\n", pc_prog, PROBECACHE_VERSION);
			return -1;
		case ':':
			pc_err("option '%s' needs an argument", argv[optind - 1]);
			return PC_EXIT_USAGE;
		case '?':
			if (optopt)
				pc_err("unknown option '-%c' (before the command)", optopt);
			else
				pc_err("unknown option '%s' (before the command)", argv[optind - 1]);
			fprintf(stderr, "Run '%s help' for the options.\n", pc_prog);
			return PC_EXIT_USAGE;
		default:
			if (pc_global_opt(opt, optarg))
				return PC_EXIT_USAGE;
		}
	}
	if (optind < argc)
		return 0;
	pc_err("no command given");
	fprintf(stderr, "Run '%s help' for the list of commands.\n", pc_prog);
	return PC_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	const struct pc_cmd *c;
	int ret = main_opts(argc, argv);

	if (ret)
		return ret < 0 ? PC_EXIT_OK : ret;
	c = find_command(argv[optind]);
	if (!c) {
		unknown_command("", argv[optind]);
		return PC_EXIT_USAGE;
	}
	argc -= optind;
	argv += optind;
	optind = 0;	/* each command runs its own getopt (pc_getopt) */
	ret = c->fn(argc, argv);
	if (ret == -EINVAL)
		return PC_EXIT_USAGE;
	if (ret < 0)
		return PC_EXIT_ERROR;
	return ret;
}
