// SPDX-License-Identifier: GPL-2.0
/* load / unload: probecache.ko through libkmod (loading itself is kload.c). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <libkmod.h>

#include "arm.h"
#include "builtin.h"
#include "kload.h"
#include "opts.h"
#include "pc.h"

/* Join PARAM=VALUE words into one options string, checking their shape. */
static int join_params(int argc, char **argv, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		int n;

		if (!eq || eq == argv[i] || strpbrk(argv[i], " \t\n")) {
			pc_err("load: '%s': expected PARAM=VALUE (e.g. max_probes=1024)", argv[i]);
			return -EINVAL;
		}
		n = snprintf(buf + used, len - used, "%s%s", used ? " " : "", argv[i]);
		if (n < 0 || (size_t)n >= len - used) {
			pc_err("load: module parameters too long");
			return -E2BIG;
		}
		used += n;
	}
	return 0;
}

static void load_help(void)
{
	printf("usage: %s load [--module FILE.ko] [PARAM=VALUE...]\n\n"
	       "Load probecache.ko: the installed one (modules.dep) or FILE.ko.\n"
	       "  -m, --module FILE.ko   load this file instead of the installed module\n"
	       "  -h, --help             show this help\n"
	       "Parameters: max_probes=N max_args=N max_line=N. Already loaded: exit 0.\n",
	       pc_prog);
}

int cmd_load(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "module", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	const char *path = NULL;
	char options[1024];
	int opt, ret;

	while ((opt = pc_getopt(argc, argv, "m:h", opts)) != -1) {
		switch (opt) {
		case 'm':
			path = optarg;
			break;
		case 'h':
			load_help();
			return 0;
		default:
			return pc_usage("load");
		}
	}
	ret = join_params(argc - optind, argv + optind, options, sizeof(options));
	if (ret)
		return ret == -EINVAL ? pc_usage("load") : ret;
	ret = pc_module_load(path, options[0] ? options : NULL);
	if (ret == -EEXIST) {
		printf("probecache already loaded\n");
		if (options[0])
			pc_warn("load: parameters '%s' not applied: unload first", options);
		return 0;
	}
	if (ret == 0)
		printf("probecache loaded\n");
	return ret;
}

/* Disarm everything, then remove the module; the kernel refuses while it is in use. */
static int unload(void)
{
	struct kmod_module *mod = NULL;
	struct kmod_ctx *ctx;
	char why[512] = "";
	int ret;

	ret = pc_probes_clear(why, sizeof(why));
	if (ret == -EBUSY) {
		pc_err("unload: %s", why);
		pc_err("unload: nothing unloaded, every probe still defined; the events of those "
		       "before it are removed ('%s define' makes them again)", pc_prog);
		return ret;
	} else if (ret) {
		pc_err("unload: %s", why[0] ? why : strerror(-ret));
		return ret;
	}
	ctx = kmod_new(NULL, NULL);
	if (!ctx) {
		pc_err("unload: cannot initialise libkmod");
		return -ENOMEM;
	}
	ret = kmod_module_new_from_name(ctx, PC_MODNAME, &mod);
	if (ret == 0) {
		ret = kmod_module_remove_module(mod, 0);
		kmod_module_unref(mod);
	}
	kmod_unref(ctx);
	if (ret == -EBUSY || ret == -EAGAIN)
		pc_err("unload: %s: in use (another module or an open file holds it)", PC_MODNAME);
	else if (ret < 0)
		pc_err("unload: %s: %s", PC_MODNAME, strerror(-ret));
	return ret;
}

int cmd_unload(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	int opt, ret;

	while ((opt = pc_getopt(argc, argv, "h", opts)) != -1) {
		if (opt != 'h')
			return pc_usage("unload");
		printf("usage: %s unload\n\n"
		       "Disarm every probe (control \"clear\") and unload probecache.ko.\n"
		       "  -h, --help   show this help\n"
		       "Not loaded: exit 0.\n", pc_prog);
		return 0;
	}
	if (optind < argc)
		return pc_usage("unload");
	if (!pc_module_loaded()) {
		printf("probecache not loaded\n");
		return 0;
	}
	ret = unload();
	if (ret == 0)
		printf("probecache unloaded\n");
	return ret;
}
