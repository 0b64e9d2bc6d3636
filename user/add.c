// SPDX-License-Identifier: GPL-2.0
/*
 * add: resolve a perf probe-definition with debuginfo once and remember the
 * result in the cache under the binary's build-id, so that the probe can be
 * armed by name later where no debuginfo exists (perf probe --cache --add).
 *
 * Entries are PC_ENTRY_NAMED: group probe_<basename> unless given, event as
 * perf names it, several locations become EVENT, EVENT_1, ... in address
 * order of discovery; spec is the probe-definition, debuginfo the build-id
 * of the file the DWARF came from. Adding the same definition again
 * replaces its entries; any other name clash is refused.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/probecache.h>

#include "arm.h"
#include "armed.h"
#include "cache.h"
#include "dwarf.h"
#include "pc.h"
#include "probepoint.h"

struct add_opts {
	const char *bin;
	bool define, arm, force;
	char *desc;
};

static void print_definitions(const struct pc_dw_result *r)
{
	for (size_t i = 0; i < r->nlocs; i++) {
		const struct pc_dw_loc *l = &r->locs[i];

		printf("%c:%s/%s %s:0x%" PRIx64 "%s\n", l->retprobe ? 'r' : 'p', r->group,
		       l->event, r->path, l->offset, l->uprobe_args);
	}
}

/* EVENT, EVENT_1, ...: the k-th location carrying the same perf name. */
static int unique_event(const struct pc_dw_result *r, size_t i, char *buf, size_t len)
{
	unsigned int nth = 0;

	for (size_t j = 0; j < i; j++)
		nth += !strcmp(r->locs[j].event, r->locs[i].event);
	if (nth)
		snprintf(buf, len, "%s_%u", r->locs[i].event, nth);
	else
		snprintf(buf, len, "%s", r->locs[i].event);
	return strlen(buf) > PROBECACHE_NAME_MAX ? -ENAMETOOLONG : 0;
}

static int check_record(const struct pc_dw_result *r, const struct pc_dw_loc *l,
			const char *event)
{
	char *line, why[200];
	int ret;

	if (asprintf(&line, "add %c:%s/%s %s %s:0x%" PRIx64 "%s%s", l->retprobe ? 'r' : 'p',
		     r->group, event, r->build_id, r->path, l->offset, l->rec_args[0] ? " " : "",
		     l->rec_args) < 0)
		return -ENOMEM;
	ret = pc_record_check(line, strlen(line), why, sizeof(why));
	if (ret && ret != -ENOMEM)
		pc_err("%s: %s:%s: record rejected: %s: %s", r->path, r->group, event, why, line);
	free(line);
	return ret;
}

/* Drop our earlier entries for @spec; refuse clashes with anything else. */
static int make_room(struct pc_binary *b, const struct pc_dw_result *r, const char *spec)
{
	char ev[160];

	for (size_t i = b->nentries; i-- > 0;) {
		const struct pc_entry *e = &b->entries[i];

		if (e->kind == PC_ENTRY_NAMED && e->spec && !strcmp(e->spec, spec) &&
		    !strcmp(e->group, r->group))
			pc_binary_del_entry(b, i);
	}
	for (size_t i = 0; i < r->nlocs; i++) {
		unique_event(r, i, ev, sizeof(ev));
		for (size_t j = 0; j < b->nentries; j++)
			if (!strcmp(b->entries[j].group, r->group) &&
			    !strcmp(b->entries[j].event, ev)) {
				pc_err("%s: %s:%s is already cached (from '%s'); delete it first "
				       "or choose another EVENT=", r->path, r->group, ev,
				       b->entries[j].spec ? b->entries[j].spec : "?");
				return -EEXIST;
			}
	}
	return 0;
}

static int fill_entry(struct pc_entry *e, const struct pc_dw_result *r,
		      const struct pc_dw_loc *l, const char *event, const char *spec)
{
	e->kind = PC_ENTRY_NAMED;
	e->retprobe = l->retprobe;
	e->offset = l->offset;
	e->group = strdup(r->group);
	e->event = strdup(event);
	e->args = strdup(l->rec_args);
	e->uprobe_args = strdup(l->uprobe_args[0] == ' ' ? l->uprobe_args + 1 : l->uprobe_args);
	e->spec = strdup(spec);
	e->debuginfo = strdup(r->debuginfo_id);
	return e->group && e->event && e->args && e->uprobe_args && e->spec && e->debuginfo ?
	       0 : -ENOMEM;
}

static int store(const struct pc_dw_result *r, const char *spec)
{
	char ev[160];
	struct pc_binary *b = NULL;
	int ret;

	for (size_t i = 0; i < r->nlocs; i++) {
		ret = unique_event(r, i, ev, sizeof(ev));
		if (ret) {
			pc_err("%s: event name %s too long", r->path, ev);
			return ret;
		}
		ret = check_record(r, &r->locs[i], ev);
		if (ret)
			return ret;
	}
	ret = pc_cache_lock();
	if (ret)
		return ret;
	ret = pc_cache_load_update(r->build_id, &b);
	if (!ret)
		ret = pc_binary_add_path(b, r->path);
	if (!ret)
		ret = make_room(b, r, spec);
	for (size_t i = 0; !ret && i < r->nlocs; i++) {
		struct pc_entry *e = pc_binary_add_entry(b);

		unique_event(r, i, ev, sizeof(ev));
		ret = e ? fill_entry(e, r, &r->locs[i], ev, spec) : -ENOMEM;
	}
	if (!ret)
		ret = pc_cache_store(b);
	if (ret && ret != -EEXIST)
		pc_err("%s: cannot update the cache in %s: %s", r->path, pc_cache_dir(),
		       strerror(-ret));
	pc_binary_free(b);
	pc_cache_unlock();
	return ret;
}

static void report_added(const struct pc_dw_result *r)
{
	char ev[160];

	for (size_t i = 0; i < r->nlocs; i++) {
		unique_event(r, i, ev, sizeof(ev));
		printf("added %s:%s %s:0x%" PRIx64 "%s%s\n", r->group, ev, r->path,
		       r->locs[i].offset, r->locs[i].uprobe_args,
		       r->locs[i].ndropped ? " (some args left out)" : "");
	}
	printf("debuginfo %s (%s)\n", r->debuginfo_id, r->debuginfo_path);
}

static int arm_added(const struct pc_dw_result *r)
{
	char ev[160];
	char **pats = calloc(r->nlocs, sizeof(*pats));
	struct pc_arm_opts o = { 0 };
	struct pc_arm_result res = { 0 };
	int ret = pats ? 0 : -ENOMEM;

	for (size_t i = 0; !ret && i < r->nlocs; i++) {
		unique_event(r, i, ev, sizeof(ev));
		if (asprintf(&pats[i], "%s:%s@%s", r->group, ev, r->build_id) < 0) {
			pats[i] = NULL;
			ret = -ENOMEM;
		}
	}
	if (!ret)
		ret = pc_arm(pats, r->nlocs, &o, &res);
	for (size_t i = 0; pats && i < r->nlocs; i++)
		free(pats[i]);
	free(pats);
	return ret;
}

static int add_help(void)
{
	printf("usage: %s add [-x BIN] [-D] [-f] [--arm] '[[GROUP:]EVENT=]PROBE-POINT [ARG...]'\n\n"
	       "Resolve a probe point of BIN with its debuginfo (the binary itself,\n"
	       ".gnu_debuglink, /usr/lib/debug/.build-id, debuginfod if DEBUGINFOD_URLS\n"
	       "is set) and cache it by name under BIN's build-id.\n\n"
	       "  PROBE-POINT  FUNC[@SRC][:RLN|+OFFS|%%return|;PTN] | SRC:ALN | SRC;PTN\n"
	       "  ARG          [NAME=]VAR[->FIELD|.FIELD|[N]]...[:TYPE] | $params | $vars |\n"
	       "               $retval | %%REG;  TYPE u8..u64 s8..s64 x8..x64 string\n\n"
	       "  -x, --exec BIN      the binary or shared object to probe (required)\n"
	       "  -D, --definition    print the uprobe_events definition(s), store nothing\n"
	       "  -f, --force         leave out arguments that cannot be fetched at a\n"
	       "                      location instead of failing, and do not prove that\n"
	       "                      FUNC+OFFS is an instruction boundary (disassembled)\n"
	       "      --arm           arm the new probes right away\n\n"
	       "Exit: 0 ok, 1 not resolved or not cached, 2 usage.\n", pc_prog);
	return 0;
}

static int join_args(int argc, char **argv, char **out)
{
	size_t len = 1;
	char *s;

	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = calloc(1, len);
	if (!s)
		return -ENOMEM;
	for (int i = 0; i < argc; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	*out = s;
	return 0;
}

static int parse_add_opts(int argc, char **argv, struct add_opts *o)
{
	static const struct option opts[] = {
		{ "exec", required_argument, NULL, 'x' },
		{ "definition", no_argument, NULL, 'D' },
		{ "force", no_argument, NULL, 'f' },
		{ "arm", no_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	int c;

	while ((c = getopt_long(argc, argv, "+x:Dfh", opts, NULL)) != -1) {
		switch (c) {
		case 'x':
			o->bin = optarg;
			break;
		case 'D':
			o->define = true;
			break;
		case 'f':
			o->force = true;
			break;
		case 'A':
			o->arm = true;
			break;
		case 'h':
			return 1;
		default:
			return pc_usage("add");
		}
	}
	if (optind >= argc) {
		pc_err("add: no probe definition given");
		return pc_usage("add");
	}
	if (!o->bin) {
		pc_err("add: -x BIN is required (only user-space probes are cached)");
		return pc_usage("add");
	}
	if (o->define && o->arm) {
		pc_err("add: --definition stores nothing, so there is nothing to --arm");
		return pc_usage("add");
	}
	return join_args(argc - optind, argv + optind, &o->desc);
}

int cmd_add(int argc, char **argv)
{
	struct add_opts o = { 0 };
	struct pc_probe_desc pd;
	struct pc_dw_result r;
	char err[256];
	int ret = parse_add_opts(argc, argv, &o);

	if (ret)
		return ret > 0 ? add_help() : ret;
	ret = pc_pp_parse(o.desc, &pd, err, sizeof(err));
	if (ret) {
		pc_err("add: '%s': %s", o.desc, err);
		free(o.desc);
		return ret == -ENOMEM ? ret : -EINVAL;
	}
	ret = pc_dw_resolve(o.bin, &pd, o.force, &r);
	if (!ret && o.define)
		print_definitions(&r);
	else if (!ret && !r.build_id[0]) {
		pc_err("%s: has no GNU build-id: the cache and the module key on it", r.path);
		ret = -ENOENT;
	} else if (!ret) {
		ret = store(&r, o.desc);
		if (!ret)
			report_added(&r);
		if (!ret && o.arm)
			ret = arm_added(&r);
	}
	pc_dw_result_free(&r);
	pc_pp_free(&pd);
	free(o.desc);
	return ret == -EINVAL ? -ENOENT : ret;
}
