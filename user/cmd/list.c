// SPDX-License-Identifier: GPL-2.0
/*
 * list: show cached probes.
 *   text    like 'perf probe --cache --list': "PATH (BUILD-ID):" then
 *           "GROUP:EVENT=SPEC" per entry (SPEC: the SDT name, or add's probe-desc)
 *   uprobe  one ftrace uprobe_events line per location, as 'perf probe -D' prints
 *   record  the RECORD payload of "add RECORD", checked with the module's parser
 * record uses the event name the probe is armed under (pattern.h), unique per
 * location. uprobe uses the name perf -D prints: every location of one SDT note
 * name or one add definition shares it, as uprobe_events (Linux >= 5.5) appends
 * further probes to an existing event.
 * --available lists every cached event as perf list would, marking the ones
 * defined in the module with their state.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "armed.h"
#include "builtin.h"
#include "kload.h"
#include "opts.h"
#include "pattern.h"
#include "pc.h"
#include "sdtnames.h"

enum list_format { FMT_TEXT, FMT_UPROBE, FMT_RECORD, FMT_NAMES };

struct list_ctx {
	enum list_format fmt;
	bool json, available;
	struct pc_pattern *pats;
	int npats;
	struct pc_snapshot snap;
	struct pc_kprobes armed;
	unsigned int shown, invalid;
	bool first;		/* JSON: no comma before the next element */
};

/* SPEC as perf lists it: an SDT note's name; add's desc without "EVENT=". */
static const char *shown_spec(const struct pc_entry *e)
{
	const char *c = strchr(e->spec, e->kind == PC_ENTRY_SDT ? ':' : '=');
	size_t n = c ? (size_t)(c - e->spec) : 0;

	if (e->kind == PC_ENTRY_SDT)
		return c ? c + 1 : e->spec;
	/* "EVENT=..." or "GROUP:EVENT=..." */
	if (c && ((n == strlen(e->event) && !strncmp(e->spec, e->event, n)) ||
		  (n == strlen(e->group) + 1 + strlen(e->event) &&
		   !strncmp(e->spec, e->group, strlen(e->group)) && e->spec[strlen(e->group)] == ':' &&
		   !strncmp(e->spec + strlen(e->group) + 1, e->event, strlen(e->event)))))
		return c + 1;
	return e->spec;
}

/*
 * The event name a consumer types: the module's, when it has this probe
 * defined (a name in use stays, pattern.h), else the cache's rule.
 */
static void shown_event(const struct list_ctx *c, const struct pc_binary *b,
			const struct pc_entry *e, char *buf, size_t size)
{
	const struct pc_kprobe *kp = pc_kprobes_find_entry(&c->armed, b, e);

	if (kp)
		snprintf(buf, size, "%s", kp->event);
	else
		pc_kernel_event(&c->snap, b, e, buf, size);
}

static void loc(FILE *f, const struct pc_entry *e)
{
	fprintf(f, "0x%" PRIx64, e->offset);
	if (e->ref_ctr)
		fprintf(f, "(0x%" PRIx64 ")", e->ref_ctr);
}

/*
 * The event name perf -D gives @e: an SDT note's own name; for an add
 * definition with several locations (EVENT, EVENT_1, ...) the first one's.
 */
static void uprobe_event(const struct pc_binary *b, const struct pc_entry *e,
			 char *ev, size_t size)
{
	const char *sfx;
	size_t n;

	if (pc_entry_sdt_name(e, ev, size))
		return;
	snprintf(ev, size, "%s", e->event);
	sfx = strrchr(e->event, '_');
	if (!sfx || !sfx[1] || strspn(sfx + 1, "0123456789") != strlen(sfx + 1))
		return;
	n = sfx - e->event;
	for (size_t i = 0; i < b->nentries; i++) {
		const struct pc_entry *o = &b->entries[i];

		if (o != e && !strcmp(o->spec, e->spec) && !strcmp(o->group, e->group) &&
		    strlen(o->event) == n && !strncmp(o->event, e->event, n)) {
			snprintf(ev, size, "%.*s", (int)n, e->event);
			return;
		}
	}
}

static char *uprobe_line(const struct list_ctx *c, const struct pc_binary *b,
			 const struct pc_entry *e)
{
	char ev[PROBECACHE_NAME_MAX + 1], *s = NULL;
	size_t n;
	FILE *f = open_memstream(&s, &n);

	(void)c;
	if (!f)
		return NULL;
	uprobe_event(b, e, ev, sizeof(ev));
	fprintf(f, "%c:%s/%s %s:", e->retprobe ? 'r' : 'p', e->group, ev, b->paths[0]);
	loc(f, e);
	if (e->uprobe_args && e->uprobe_args[0])
		fprintf(f, " %s", e->uprobe_args);
	fclose(f);
	return s;
}

static char *record_line(const struct list_ctx *c, const struct pc_binary *b,
			 const struct pc_entry *e)
{
	char ev[PROBECACHE_NAME_MAX + 1], *s = NULL;
	size_t n;
	FILE *f = open_memstream(&s, &n);

	if (!f)
		return NULL;
	pc_kernel_event(&c->snap, b, e, ev, sizeof(ev));
	fprintf(f, "add %c:%s/%s %s %s:", e->retprobe ? 'r' : 'p', e->group, ev, b->build_id,
		b->paths[0]);
	loc(f, e);
	if (e->args && e->args[0])
		fprintf(f, " %s", e->args);
	fclose(f);
	return s;
}

/* The record without "add ", or NULL (reported) if the module would refuse it. */
static char *checked_record(struct list_ctx *c, const struct pc_binary *b,
			    const struct pc_entry *e)
{
	char *line = record_line(c, b, e), why[200];

	if (!line)
		return NULL;
	if (pc_record_check(line, strlen(line), why, sizeof(why))) {
		pc_err("%s:%s (%s): cached record is invalid: %s", e->group, e->event,
		       b->paths[0], why);
		c->invalid++;
		free(line);
		return NULL;
	}
	memmove(line, line + 4, strlen(line + 4) + 1);
	return line;
}

static void json_u64(const char *key, uint64_t v)
{
	printf(",\"%s\":%" PRIu64, key, v);
}

static void json_kv(const char *key, const char *v, bool comma)
{
	printf("%s\"%s\":", comma ? "," : "", key);
	if (v)
		pc_json_str(stdout, v);
	else
		fputs("null", stdout);
}

/* "  # needs SWITCH" of an SDT entry whose provider file names one, else "". */
static void needs(const struct pc_entry *e, char *buf, size_t size)
{
	const char *sw = e->kind == PC_ENTRY_SDT ? pc_sdtnames_switch_spec(e->spec) : NULL;

	snprintf(buf, size, "%s%s", sw ? "  # needs " : "", sw ? sw : "");
}

static void json_args(const char *key, const char *args)
{
	printf(",\"%s\":", key);
	pc_json_args(stdout, args);
}

/* What the module has of @e: defined (a trace event), armed (someone listens), its name. */
static void json_kernel(const struct list_ctx *c, const struct pc_binary *b,
			const struct pc_entry *e)
{
	const struct pc_kprobe *kp = pc_kprobes_find_entry(&c->armed, b, e);

	printf(",\"defined\":%s,\"armed\":%s", kp ? "true" : "false",
	       kp && !strcmp(kp->state, "armed") ? "true" : "false");
	json_kv("state", kp ? kp->state : NULL, true);
	json_kv("armed_as", kp ? kp->name : NULL, true);
}

/*
 * One cached probe, the same object in list --json (under its binary) and
 * list --json --available (flat): Documentation/probecache-resolve.schema.json,
 * $defs/probe.
 */
static void json_entry(struct list_ctx *c, const struct pc_binary *b, const struct pc_entry *e)
{
	char ev[PROBECACHE_NAME_MAX + 1], *up = uprobe_line(c, b, e), *rec = checked_record(c, b, e);
	const char *sw = e->kind == PC_ENTRY_SDT ? pc_sdtnames_switch_spec(e->spec) : NULL;

	shown_event(c, b, e, ev, sizeof(ev));
	printf("%s{", c->first ? "" : ",");
	c->first = false;
	json_kv("kind", e->kind == PC_ENTRY_SDT ? "sdt" : "named", false);
	json_kv("group", e->group, true);
	json_kv("event", e->event, true);
	json_kv("kernel_event", ev, true);
	json_kv("spec", e->spec, true);
	printf(",\"retprobe\":%s", e->retprobe ? "true" : "false");
	json_kv("path", b->paths[0], true);
	json_kv("build_id", b->build_id, true);
	json_u64("offset", e->offset);
	json_u64("ref_ctr", e->ref_ctr);
	printf(",\"semaphore\":%s", e->ref_ctr ? "true" : "false");
	json_kv("needs", sw, true);
	json_args("args", e->args);
	json_args("uprobe_args", e->uprobe_args);
	json_kv("debuginfo", e->debuginfo, true);
	json_kv("uprobe", up, true);
	json_kv("record", rec, true);
	json_kernel(c, b, e);
	putchar('}');
	free(up);
	free(rec);
}

static void text_entry(struct list_ctx *c, const struct pc_binary *b, const struct pc_entry *e)
{
	char ev[PROBECACHE_NAME_MAX + 1], gate[300], *s;

	switch (c->fmt) {
	case FMT_TEXT:
		shown_event(c, b, e, ev, sizeof(ev));
		needs(e, gate, sizeof(gate));
		printf("%s:%s=%s%s\n", e->group, ev, shown_spec(e), gate);
		break;
	case FMT_NAMES:
		shown_event(c, b, e, ev, sizeof(ev));
		printf("%s:%s\n", e->group, ev);
		break;
	case FMT_UPROBE:
		s = uprobe_line(c, b, e);
		if (s)
			puts(s);
		free(s);
		break;
	case FMT_RECORD:
		s = checked_record(c, b, e);
		if (s)
			puts(s);
		free(s);
		break;
	}
}

static void list_binary(struct list_ctx *c, const struct pc_binary *b)
{
	bool header = false;

	for (size_t i = 0; i < b->nentries; i++) {
		const struct pc_entry *e = &b->entries[i];

		if (!pc_patterns_match(c->pats, c->npats, b, e))
			continue;
		c->shown++;
		if (c->json) {
			json_entry(c, b, e);
			continue;
		}
		if (!header && c->fmt == FMT_TEXT && !c->json)
			printf("%s (%s):\n", b->paths[0], b->build_id);
		header = true;
		text_entry(c, b, e);
	}
}

static bool binary_matches(const struct list_ctx *c, const struct pc_binary *b)
{
	for (size_t j = 0; j < b->nentries; j++)
		if (pc_patterns_match(c->pats, c->npats, b, &b->entries[j]))
			return true;
	return false;
}

static void json_binaries(struct list_ctx *c)
{
	bool firstb = true;

	printf("{\"cache_dir\":");
	pc_json_str(stdout, pc_cache_dir());
	printf(",\"binaries\":[");
	for (size_t i = 0; i < c->snap.n; i++) {
		const struct pc_binary *b = c->snap.b[i];

		if (!binary_matches(c, b))
			continue;
		printf("%s{\"build_id\":\"%s\",\"paths\":[", firstb ? "" : ",", b->build_id);
		firstb = false;
		for (size_t j = 0; j < b->npaths; j++) {
			printf("%s", j ? "," : "");
			pc_json_str(stdout, b->paths[j]);
		}
		printf("],\"probes\":[");
		c->first = true;
		list_binary(c, b);
		printf("]}");
	}
	printf("]}\n");
}

/* ---- --available ---- */

static void available_entry(struct list_ctx *c, const struct pc_binary *b,
			    const struct pc_entry *e)
{
	const struct pc_kprobe *kp = pc_kprobes_find_entry(&c->armed, b, e);
	char name[2 * PROBECACHE_NAME_MAX + 2], kind[200], gate[300];

	c->shown++;
	if (c->json) {
		json_entry(c, b, e);
		return;
	}
	snprintf(name, sizeof(name), "%s:%s", e->group, e->event);
	snprintf(kind, sizeof(kind), "%s event%s%s%s%s%s", e->kind == PC_ENTRY_SDT ? "SDT" : "Cached",
		 e->ref_ctr ? ", semaphore" : "", kp ? ", " : "", kp ? kp->state : "",
		 kp && strcmp(kp->name, name) ? " as " : "",
		 kp && strcmp(kp->name, name) ? kp->name : "");
	needs(e, gate, sizeof(gate));
	printf("  %-44s [%s]  %s%s\n", name, kind, b->paths[0], gate);
}

static void list_available(struct list_ctx *c)
{
	if (c->json) {
		printf("{\"cache_dir\":");
		pc_json_str(stdout, pc_cache_dir());
		printf(",\"events\":[");
	}
	c->first = true;
	for (size_t i = 0; i < c->snap.n; i++) {
		const struct pc_binary *b = c->snap.b[i];

		for (size_t j = 0; j < b->nentries; j++)
			if (pc_patterns_match(c->pats, c->npats, b, &b->entries[j]))
				available_entry(c, b, &b->entries[j]);
	}
	if (c->json)
		printf("]}\n");
}

/* ---- command ---- */

static int list_help(void)
{
	printf("usage: %s list [--format=text|uprobe|record] [--available] [--json] [--names] [PATTERN...]\n\n"
	       "List cached probes, each under the event name perf, ftrace and bpftrace use\n"
	       "(the module's, for a defined probe). PATTERN is a glob over GROUP:EVENT (a bare glob matches\n"
	       "EVENT in any group, or a GROUP), optionally @/path or @BUILDID-PREFIX;\n"
	       "GROUP/EVENT, PROVIDER:NAME, usdt:PATH:PROVIDER:NAME and PATH work too.\n\n"
	       "      --format=FMT  text: grouped by binary, like 'perf probe --cache --list'\n"
	       "                    uprobe: ftrace uprobe_events lines, like 'perf probe -D'\n"
	       "                    record: RECORD lines probecache.ko accepts after 'add '\n"
	       "      --available   every cached event as an available event, defined ones marked\n"
	       "                    with their state (defined, armed, stale)\n"
	       "  -j, --json        JSON (every format's fields)\n"
	       "      --names       only the event names a consumer types, GROUP:EVENT, one a line\n"
	       "  -h, --help        this help\n\n"
	       "Exit: 0 ok, 1 a PATTERN matched nothing or a cached record is invalid, 2 usage.\n",
	       pc_prog);
	return 0;
}

static int parse_format(const char *s, enum list_format *fmt)
{
	if (!strcmp(s, "text"))
		*fmt = FMT_TEXT;
	else if (!strcmp(s, "uprobe"))
		*fmt = FMT_UPROBE;
	else if (!strcmp(s, "record"))
		*fmt = FMT_RECORD;
	else {
		pc_err("list: unknown format '%s' (text, uprobe, record)", s);
		return -EINVAL;
	}
	return 0;
}

static int list_opts(int argc, char **argv, struct list_ctx *c)
{
	static const struct option lopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "available", no_argument, NULL, 'a' },
		{ "json", no_argument, NULL, 'j' },
		{ "names", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	int opt;

	while ((opt = pc_getopt(argc, argv, "jh", lopts)) != -1) {
		switch (opt) {
		case 'f':
			if (parse_format(optarg, &c->fmt))
				return pc_usage("list");
			break;
		case 'a':
			c->available = true;
			break;
		case 'j':
			c->json = true;
			break;
		case 'N':
			c->fmt = FMT_NAMES;
			break;
		case 'h':
			list_help();
			return 1;
		default:
			return pc_usage("list");
		}
	}
	return 0;
}

int cmd_list(int argc, char **argv)
{
	struct list_ctx c = { .fmt = FMT_TEXT };
	int ret = list_opts(argc, argv, &c);

	if (ret)
		return ret > 0 ? 0 : ret;
	c.npats = argc - optind;
	ret = pc_patterns_parse(argv + optind, c.npats, &c.pats);
	if (ret)
		return ret;
	ret = pc_snapshot_load(&c.snap);
	/* a module that is not loaded just means nothing is defined */
	if (!ret && pc_module_loaded())
		pc_kprobes_read(&c.armed);
	if (!ret && c.available)
		list_available(&c);
	else if (!ret && c.json)
		json_binaries(&c);
	else
		for (size_t i = 0; !ret && i < c.snap.n; i++)
			list_binary(&c, c.snap.b[i]);
	if (!ret && c.npats && !c.shown) {
		char dym[512];

		pc_patterns_suggest(c.pats, c.npats, dym, sizeof(dym));
		pc_err("list: no cached probe matches in %s%s", pc_cache_dir(), dym);
		ret = -ENOENT;
	}
	if (!ret && c.invalid)
		ret = -EBADMSG;
	pc_kprobes_free(&c.armed);
	pc_snapshot_free(&c.snap);
	pc_patterns_free(c.pats, c.npats);
	return ret;
}
