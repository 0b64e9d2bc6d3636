// SPDX-License-Identifier: GPL-2.0
/* probecache-resolve: resolve probe points into verified records for probecache.ko. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <linux/probecache.h>

#include "builtin.h"
#include "cache.h"
#include "pc.h"

static int cmd_help(int argc, char **argv);

static const struct pc_cmd commands[] = {
	{ "scan", cmd_scan, "scan [-r] [--no-define] PATH...",
	  "read build-id and SDT notes into the cache (and define them if loaded)" },
	{ "list", cmd_list, "list [--format=text|uprobe|record] [--available] [--json] [--names] [PATTERN...]",
	  "list cached probes" },
	{ "add", cmd_add, "add [-x BIN] [-D] [-f] [--arm] [--no-define] [--from FILE] '[[GROUP:]EVENT=]PROBE-POINT [ARG...]'...",
	  "resolve a probe point with debuginfo and cache it under a name" },
	{ "del", cmd_del, "del PATTERN...", "delete cached probes" },
	{ "clear", cmd_clear, "clear", "delete the whole cache" },
	{ "define", cmd_define, "define [-p PID] [-q] PATTERN...",
	  "make cached probes trace events (perf, ftrace, BPF); arms nothing" },
	{ "arm", cmd_arm, "arm [-p PID] [-q] PATTERN...",
	  "define if needed and count hits (arms the probes)" },
	{ "disarm", cmd_disarm, "disarm [-k] [-q] PATTERN...",
	  "delete probes from the module (EBUSY while perf/ftrace use them)" },
	{ "status", cmd_status, "status [--stale] [--json]",
	  "the module's probes: state, consumers, counting, hits" },
	{ "sites", cmd_sites, "sites [--json] [--stats] [-p PID]... [BUILD-ID|PATH...]",
	  "the inodes processes map executable, by build-id (copies, deleted, other namespaces)" },
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

int pc_usage(const char *cmd)
{
	const struct pc_cmd *c = find_command(cmd);

	if (c)
		fprintf(stderr, "usage: %s %s\n", pc_prog, c->usage);
	return -EINVAL;
}

static void usage_all(FILE *f)
{
	fprintf(f, "usage: %s [--cache-dir DIR] [-v] COMMAND [ARGS]\n\ncommands:\n", pc_prog);
	for (size_t i = 0; i < NR_COMMANDS; i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\nRun '%s help COMMAND' for a command's options.\n", pc_prog);
}

static int cmd_help(int argc, char **argv)
{
	const struct pc_cmd *c;
	char *hargv[] = { NULL, "--help", NULL };

	if (argc < 2) {
		usage_all(stdout);
		return 0;
	}
	c = find_command(argv[1]);
	if (!c) {
		pc_err("help: unknown command '%s'", argv[1]);
		return -EINVAL;
	}
	if (c->fn == cmd_help) {
		printf("usage: %s %s\n", pc_prog, c->usage);
		return 0;
	}
	hargv[0] = argv[1];
	optind = 0;
	return c->fn(2, hargv);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cache-dir", required_argument, NULL, 'C' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{}
	};
	const struct pc_cmd *c;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "+C:vhV", opts, NULL)) != -1) {
		switch (opt) {
		case 'C':
			if (!*optarg) {
				pc_err("--cache-dir: empty directory name");
				return PC_EXIT_USAGE;
			}
			pc_cache_set_dir(optarg);
			break;
		case 'v':
			pc_verbose++;
			break;
		case 'h':
			usage_all(stdout);
			return PC_EXIT_OK;
		case 'V':
			printf("%s %s\n", pc_prog, PROBECACHE_VERSION);
			return PC_EXIT_OK;
		default:
			usage_all(stderr);
			return PC_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage_all(stderr);
		return PC_EXIT_USAGE;
	}
	c = find_command(argv[optind]);
	if (!c) {
		pc_err("unknown command '%s'", argv[optind]);
		usage_all(stderr);
		return PC_EXIT_USAGE;
	}
	argc -= optind;
	argv += optind;
	optind = 0;	/* each command runs its own getopt_long */
	ret = c->fn(argc, argv);
	if (ret == -EINVAL)
		return PC_EXIT_USAGE;
	if (ret < 0)
		return PC_EXIT_ERROR;
	return ret;
}
