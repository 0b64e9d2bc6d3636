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
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/probecache.h>

#include "arm.h"
#include "armed.h"
#include "builtin.h"
#include "cache.h"
#include "dwarf.h"
#include "opts.h"
#include "pc.h"
#include "probepoint.h"
#include "scan.h"

struct add_opts {
	const char *bin;
	bool define, arm, force;
	bool add;		/* -a DEF given */
	bool no_define;		/* --no-define: cache only, even with the module loaded */
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

static bool replaced(const struct pc_entry *e, const struct pc_dw_result *r,
		     const char *spec)
{
	return e->kind == PC_ENTRY_NAMED && e->spec && !strcmp(e->spec, spec) &&
	       !strcmp(e->group, r->group);
}

/*
 * Drop our earlier entries for @spec; refuse clashes with anything else,
 * before dropping anything, so that a refused definition of a batch leaves
 * @b as it was for the next one.
 */
static int make_room(struct pc_binary *b, const struct pc_dw_result *r, const char *spec)
{
	char ev[160];

	for (size_t i = 0; i < r->nlocs; i++) {
		unique_event(r, i, ev, sizeof(ev));
		for (size_t j = 0; j < b->nentries; j++)
			if (!replaced(&b->entries[j], r, spec) &&
			    !strcmp(b->entries[j].group, r->group) &&
			    !strcmp(b->entries[j].event, ev)) {
				pc_err("%s: %s:%s is already cached (from '%s'); delete it first "
				       "or choose another EVENT=", r->path, r->group, ev,
				       b->entries[j].spec ? b->entries[j].spec : "?");
				return -EEXIST;
			}
	}
	for (size_t i = b->nentries; i-- > 0;)
		if (replaced(&b->entries[i], r, spec))
			pc_binary_del_entry(b, i);
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

/* One resolved definition: where it came from (for messages), its result. */
struct add_def {
	const char *src;	/* "FILE" or "argument" */
	unsigned int line;	/* line of FILE, or argument number */
	bool from_file;
	char *text;		/* the probe-definition, also the entries' spec */
	struct pc_dw_result *r;	/* while its chunk is handled (~8 KiB each) */
	int ret;		/* 0: resolved (and stored, unless -D) */
};

struct add_batch {
	size_t n, cap;
	struct add_def *defs;
};

static int check_def(const struct add_def *d)
{
	const struct pc_dw_result *r = d->r;
	char ev[160];
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
	return 0;
}

/* Put @d's entries into @b; a refusal (-EEXIST, bad record) leaves @b unchanged. */
static int apply_def(struct pc_binary *b, const struct add_def *d)
{
	const struct pc_dw_result *r = d->r;
	char ev[160];
	int ret = check_def(d);

	if (!ret)
		ret = make_room(b, r, d->text);
	for (size_t i = 0; !ret && i < r->nlocs; i++) {
		struct pc_entry *e = pc_binary_add_entry(b);

		unique_event(r, i, ev, sizeof(ev));
		ret = e ? fill_entry(e, r, &r->locs[i], ev, d->text) : -ENOMEM;
	}
	return ret;
}

/* "FILE:LINE" or "argument N": where the user wrote @d. */
static const char *def_where(const struct add_def *d, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%u", d->src, d->from_file ? ":" : " ", d->line);
	return buf;
}

static void def_failed(struct add_def *d, int ret)
{
	char w[PATH_MAX + 16];

	d->ret = ret;
	pc_err("%s: '%s': not added", def_where(d, w, sizeof(w)), d->text);
}

/*
 * All resolved definitions of one binary in one read-modify-write of its
 * cache file: the same entries as one add per definition in this order,
 * written once. A refused definition is reported and the others stored.
 */
static int store_all(struct add_batch *bt, const char *build_id, const char *path)
{
	struct pc_binary *b = NULL;
	int ret = pc_cache_lock();

	if (ret)
		return ret;
	ret = pc_cache_load_update(build_id, &b);
	if (!ret)
		ret = pc_binary_add_path(b, path);
	for (size_t i = 0; !ret && i < bt->n; i++) {
		struct add_def *d = &bt->defs[i];

		if (d->ret)
			continue;
		d->ret = apply_def(b, d);
		if (d->ret == -ENOMEM)
			ret = d->ret;
		else if (d->ret)
			def_failed(d, d->ret);
	}
	if (!ret)
		ret = pc_cache_store(b);
	if (ret)
		pc_err("%s: cannot update the cache in %s: %s", path, pc_cache_dir(),
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
}

/* "GROUP:EVENT@BUILD-ID" of each of @r's locations, appended to @pats. */
static int added_patterns(const struct pc_dw_result *r, char **pats, size_t *n)
{
	char ev[160];

	for (size_t i = 0; i < r->nlocs; i++) {
		unique_event(r, i, ev, sizeof(ev));
		if (asprintf(&pats[*n], "%s:%s@%s", r->group, ev, r->build_id) < 0)
			return -ENOMEM;
		(*n)++;
	}
	return 0;
}

static size_t nr_added(const struct add_batch *bt)
{
	size_t n = 0;

	for (size_t i = 0; i < bt->n; i++)
		n += bt->defs[i].ret ? 0 : bt->defs[i].r->nlocs;
	return n;
}

/*
 * With the module loaded: define what was just stored (--arm: and count it),
 * every definition's probes in one go, so that its report is said once.
 */
static int arm_added(const struct add_batch *bt, bool count, bool quiet)
{
	size_t n = 0, max = nr_added(bt);
	char **pats = calloc(max ? max : 1, sizeof(*pats));
	int ret = pats ? 0 : -ENOMEM;

	for (size_t i = 0; !ret && i < bt->n; i++)
		if (!bt->defs[i].ret)
			ret = added_patterns(bt->defs[i].r, pats, &n);
	if (!ret && n)
		ret = pc_define_cached("add", pats, (int)n, count, quiet);
	for (size_t i = 0; pats && i < n; i++)
		free(pats[i]);
	free(pats);
	return ret;
}

static int add_help(void)
{
	printf("usage: %s add -x BIN [-a DEF]... [-D DEF]... [--force] [--arm] [--no-define] [--from FILE] [DEF WORDS...]\n\n"
	       "Resolve probe points of BIN with its debuginfo (the binary itself,\n"
	       ".gnu_debuglink, /usr/lib/debug/.build-id, debuginfod if DEBUGINFOD_URLS\n"
	       "is set) and cache them by name under BIN's build-id. As perf probe does,\n"
	       "the words after the options are one definition ('add -x app malloc bytes');\n"
	       "right after -a DEF or -D DEF they continue it. The debuginfo is loaded\n"
	       "once for all definitions.\n\n"
	       "  DEF          [[GROUP:]EVENT=]PROBE-POINT [ARG...]\n"
	       "  PROBE-POINT  FUNC[@SRC][:RLN|+OFFS|%%return|;PTN] | SRC:ALN | SRC;PTN\n"
	       "  ARG          [NAME=]VAR[->FIELD|.FIELD|[N]]...[:TYPE] | $params | $vars |\n"
	       "               $retval | %%REG;  TYPE u8..u64 s8..s64 x8..x64 string\n\n"
	       "  -x, --exec BIN      the binary or shared object to probe (required)\n"
	       "      --from FILE     more definitions, one a line ('-': stdin); blank\n"
	       "                      lines and lines starting with # are skipped\n"
	       "  -a, --add DEF       one more definition (repeat for several)\n"
	       "  -D, --definition DEF  print the uprobe_events definitions, store nothing;\n"
	       "                      -D before another option is a flag (-D --force DEF)\n"
	       "  -f, --force         leave out arguments that cannot be fetched at a\n"
	       "                      location instead of failing, and do not prove that\n"
	       "                      FUNC+OFFS is an instruction boundary (disassembled)\n"
	       "      --arm           also count the new probes' hits in the module, which\n"
	       "                      arms them (loads nothing: the module must be loaded)\n"
	       "      --no-define     only cache; without it, when probecache.ko is loaded\n"
	       "                      the new probes are defined there as trace events\n\n"
	       "A DEF whose PROBE-POINT is an SDT probe, sdt_PROVIDER:NAME (or %%sdt_...,\n"
	       "%%PROVIDER:NAME), gives its notes your names instead: BIN is scanned as\n"
	       "'scan -a DEF BIN' does (no debuginfo needed). Its ARGs are\n"
	       "[NAME=]argN|+OFF(EXPR)[:TYPE], checked against each note.\n\n"
	       "A definition that fails is reported as FILE:LINE (or argument N) and\n"
	       "the others are still resolved and stored.\n"
	       "Exit: 0 ok, 1 not resolved or not cached, 2 usage.\n"
	       "      3 some definitions failed, the others were done.\n", pc_prog);
	return 0;
}

static int add_def_push(struct add_batch *bt, const char *src, bool from_file,
			unsigned int line, const char *text)
{
	struct add_def *d;

	d = pc_grow(bt->defs, &bt->cap, bt->n, sizeof(*d), 16);
	if (!d)
		return -ENOMEM;
	bt->defs = d;
	d = &bt->defs[bt->n];
	memset(d, 0, sizeof(*d));
	d->src = src;
	d->from_file = from_file;
	d->line = line;
	d->text = strdup(text);
	if (!d->text)
		return -ENOMEM;
	bt->n++;
	return 0;
}

/* Blanks around a line do not belong to the definition; # starts a comment line. */
static char *def_line(char *s)
{
	size_t n;

	s += strspn(s, " \t");
	n = strlen(s);
	while (n && strchr(" \t\r\n", s[n - 1]))
		s[--n] = '\0';
	return *s && *s != '#' ? s : NULL;
}

static int read_defs(struct add_batch *bt, const char *from)
{
	FILE *fp = strcmp(from, "-") ? fopen(from, "r") : stdin;
	const char *src = fp == stdin ? "<stdin>" : from;
	unsigned int lineno = 0;
	char *buf = NULL, *def;
	size_t cap = 0;
	int ret = 0;

	if (!fp) {
		ret = -errno;
		pc_err("add: --from %s: %s", from, strerror(-ret));
		return ret;
	}
	while (!ret && getline(&buf, &cap, fp) >= 0) {
		lineno++;
		def = def_line(buf);
		if (def)
			ret = add_def_push(bt, src, true, lineno, def);
	}
	if (!ret && ferror(fp)) {
		ret = -EIO;
		pc_err("add: --from %s: read error after line %u", src, lineno);
	}
	free(buf);
	if (fp != stdin)
		fclose(fp);
	return ret;
}

/* @n words joined with one blank each, as perf probe joins its arguments. */
static char *join_words(char *const *w, int n)
{
	size_t len = 1;
	char *s, *p;

	for (int i = 0; i < n; i++)
		len += strlen(w[i]) + 1;
	s = p = malloc(len);
	for (int i = 0; s && i < n; i++)
		p += sprintf(p, "%s%s", i ? " " : "", w[i]);
	return s;
}

/* @d's definition, then a blank and @more. */
static int def_append(struct add_def *d, const char *more)
{
	char *t;

	if (asprintf(&t, "%s %s", d->text, more) < 0)
		return -ENOMEM;
	free(d->text);
	d->text = t;
	return 0;
}

/*
 * The words after the options are one definition (perf probe joins them);
 * right after -a DEF or -D DEF they continue it: "-D malloc bytes".
 */
static int words_def(struct add_batch *bt, char *const *w, int n, bool continues)
{
	char *text = join_words(w, n);
	int ret;

	if (!text)
		return -ENOMEM;
	if (continues)
		ret = def_append(&bt->defs[bt->n - 1], text);
	else
		ret = add_def_push(bt, "argument", false, bt->n + 1, text);
	free(text);
	return ret;
}

/*
 * -D DEF (print) or -a DEF (add): one definition each, perf's options. -D
 * alone, before another option or at the end, is the older flag form
 * ("-D --force DEF"): the definitions are then the words after the options.
 * Returns 1 when a definition was taken (the words may continue it).
 */
static int opt_def(char **argv, int c, struct add_opts *o, struct add_batch *bt)
{
	bool flag = c == ':' || (optarg[0] == '-' && optarg == argv[optind - 1]);
	int ret;

	if (c == 'D' || (c == ':' && optopt == 'D'))
		o->define = true;
	else if (c == ':') {
		pc_err("add: -%c needs a probe definition", optopt);
		return pc_usage("add");
	} else
		o->add = true;
	if (o->define && o->add) {
		pc_err("add: -a adds, -D only prints: give one of them");
		return pc_usage("add");
	}
	if (flag) {
		optind -= c != ':';
		return 0;
	}
	ret = add_def_push(bt, "argument", false, bt->n + 1, optarg);
	return ret ? ret : 1;
}

static int parse_add_opts(int argc, char **argv, struct add_opts *o, struct add_batch *bt)
{
	static const struct option opts[] = {
		{ "exec", required_argument, NULL, 'x' },
		{ "definition", required_argument, NULL, 'D' },
		{ "add", required_argument, NULL, 'a' },
		{ "force", no_argument, NULL, 'f' },
		{ "arm", no_argument, NULL, 'A' },
		{ "no-define", no_argument, NULL, 'N' },
		{ "from", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	const char *from = NULL;
	int c, ret, open_def = 0;

	while ((c = pc_getopt(argc, argv, "+:x:D:a:fh", opts)) != -1) {
		ret = 0;
		switch (c) {
		case 'x':
			o->bin = optarg;
			break;
		case 'D':
		case 'a':
		case ':':
			if (c == ':' && optopt != 'D' && optopt != 'a') {
				pc_err("add: option '%s' needs an argument", argv[optind - 1]);
				return pc_usage("add");
			}
			ret = opt_def(argv, c, o, bt);
			if (ret < 0)
				return ret;
			break;
		case 'f':
			o->force = true;
			break;
		case 'A':
			o->arm = true;
			break;
		case 'N':
			o->no_define = true;
			break;
		case 'F':
			if (from) {
				pc_err("add: one --from FILE per run");
				return pc_usage("add");
			}
			from = optarg;
			break;
		case 'h':
			return 1;
		default:	/* said by pc_getopt() */
			return pc_usage("add");
		}
		open_def = ret;
	}
	if (optind >= argc && !from && !bt->n) {
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
	if (o->no_define && o->arm) {
		pc_err("add: --arm defines the probes, --no-define must not");
		return pc_usage("add");
	}
	ret = optind < argc ? words_def(bt, argv + optind, argc - optind, open_def) : 0;
	if (!ret && from)
		ret = read_defs(bt, from);
	return ret;
}

/* Parse and resolve @d against the loaded debuginfo; failures are reported. */
static int resolve_def(struct pc_dw_file *f, const struct add_opts *o, struct add_def *d,
		       bool single)
{
	struct pc_probe_desc pd;
	char err[256], w[PATH_MAX + 16];
	int ret = pc_pp_parse(d->text, &pd, err, sizeof(err));

	if (ret) {
		pc_err("%s: '%s': %s", def_where(d, w, sizeof(w)), d->text, err);
		/* alone on the command line, a malformed definition is a usage error */
		d->ret = ret == -ENOMEM || single ? ret : -ENOENT;
		return ret == -ENOMEM ? ret : 0;
	}
	d->r = calloc(1, sizeof(*d->r));
	ret = d->r ? pc_dw_resolve_in(f, &pd, o->force, d->r) : -ENOMEM;
	if (!ret && !o->define && !d->r->build_id[0]) {
		pc_err("%s: has no GNU build-id: the cache and the module key on it", d->r->path);
		ret = -ENOENT;
	}
	if (ret)
		def_failed(d, ret == -EINVAL ? -ENOENT : ret);
	pc_pp_free(&pd);
	return ret == -ENOMEM ? ret : 0;
}

/* 0 all done, PC_EXIT_PARTIAL some, else the (only or first) failure. */
static int batch_outcome(const struct add_batch *bt)
{
	size_t ok = 0;
	int first = 0;

	for (size_t i = 0; i < bt->n; i++) {
		ok += !bt->defs[i].ret;
		if (bt->defs[i].ret && !first)
			first = bt->defs[i].ret;
	}
	if (ok == bt->n)
		return 0;
	if (bt->n > 1)
		pc_err("add: %zu of %zu definitions failed", bt->n - ok, bt->n);
	return ok ? PC_EXIT_PARTIAL : first;
}

static const struct pc_dw_result *first_resolved(const struct add_batch *bt)
{
	for (size_t i = 0; i < bt->n; i++)
		if (!bt->defs[i].ret)
			return bt->defs[i].r;
	return NULL;
}

/* Every definition of one run reads the same debuginfo: said once. */
static void report_debuginfo(const struct add_batch *bt, bool *said)
{
	const struct pc_dw_result *r = first_resolved(bt);

	if (r && !*said)
		printf("debuginfo %s (%s)\n", r->debuginfo_id, r->debuginfo_path);
	*said = *said || r;
}

static int finish(const struct add_opts *o, struct add_batch *bt, bool *said_debuginfo)
{
	const struct pc_dw_result *r = first_resolved(bt);
	int ret = 0;

	if (r && !o->define)
		ret = store_all(bt, r->build_id, r->path);
	for (size_t i = 0; !ret && i < bt->n; i++) {
		const struct add_def *d = &bt->defs[i];

		if (d->ret)
			continue;
		if (o->define)
			print_definitions(d->r);
		else if (!pc_quiet)
			report_added(d->r);
	}
	if (!ret && !o->define && !pc_quiet)
		report_debuginfo(bt, said_debuginfo);
	/* every stored probe is said above, even if defining one fails below */
	if (!ret && !o->define && !o->no_define)
		ret = arm_added(bt, o->arm, pc_quiet);
	return ret;
}

static void free_results(struct add_batch *bt)
{
	for (size_t i = 0; i < bt->n; i++) {
		if (bt->defs[i].r)
			pc_dw_result_free(bt->defs[i].r);
		free(bt->defs[i].r);
		bt->defs[i].r = NULL;
	}
}

/*
 * A chunk at a time: resolved, stored (one cache write), reported, freed,
 * so that a --from of any length holds only ADD_CHUNK results. In order, so
 * the cache ends as one add per definition would leave it.
 */
#define ADD_CHUNK	1024

static int run_all(const struct add_opts *o, struct add_batch *bt)
{
	struct pc_dw_file *f;
	bool said_debuginfo = false;
	int ret = pc_dw_open(o->bin, &f);

	for (size_t off = 0; !ret && off < bt->n; off += ADD_CHUNK) {
		struct add_batch part = {
			.n = bt->n - off < ADD_CHUNK ? bt->n - off : ADD_CHUNK,
			.defs = bt->defs + off,
		};

		for (size_t i = 0; !ret && i < part.n; i++)
			ret = resolve_def(f, o, &part.defs[i], bt->n == 1);
		if (!ret)
			ret = finish(o, &part, &said_debuginfo);
		free_results(&part);
	}
	pc_dw_close(f);
	return ret;
}

static void batch_free(struct add_batch *bt)
{
	free_results(bt);
	for (size_t i = 0; i < bt->n; i++)
		free(bt->defs[i].text);
	free(bt->defs);
}

/* Move the DEFs that name an SDT probe (sdt_PROVIDER:NAME ARG...) from @bt to @users. */
static int take_sdt_defs(struct add_batch *bt, struct pc_sdtuser **users, size_t *nusers)
{
	char why[300], w[PATH_MAX + 16];
	size_t keep = 0;
	int ret = 0;

	for (size_t i = 0; i < bt->n; i++) {
		struct pc_sdtuser *u = realloc(*users, (*nusers + 1) * sizeof(*u));
		int r = u ? pc_sdtuser_parse(bt->defs[i].text, &u[*nusers], why, sizeof(why)) : -ENOMEM;

		if (u)
			*users = u;
		if (r < 0 && !ret)
			ret = r;
		if (r == -EINVAL)
			pc_err("%s: '%s': %s", def_where(&bt->defs[i], w, sizeof(w)),
			       bt->defs[i].text, why);
		if (r == 0)
			bt->defs[keep++] = bt->defs[i];
		else
			free(bt->defs[i].text);
		*nusers += r == 1;
	}
	bt->n = keep;
	return ret;
}

/* The SDT DEFs: BIN scanned with them (scan.h), defined or armed as add would. */
static int add_sdt(const struct add_opts *o, struct pc_sdtuser *users, size_t n)
{
	char *bin = (char *)o->bin;

	if (o->define) {
		pc_err("add: -D with sdt_PROVIDER:NAME: 'show -x BIN --sdt --json' shows its args");
		return pc_usage("add");
	}
	return pc_scan_paths(&bin, 1, users, n, false,
			     o->arm ? PC_SCAN_ARM : o->no_define ? PC_SCAN_CACHE : PC_SCAN_DEFINE);
}

int cmd_add(int argc, char **argv)
{
	struct add_opts o = { 0 };
	struct add_batch bt = { 0 };
	struct pc_sdtuser *users = NULL;
	size_t nusers = 0;
	int ret = parse_add_opts(argc, argv, &o, &bt), sret = 0;

	if (!ret)
		ret = take_sdt_defs(&bt, &users, &nusers);
	if (!ret && nusers)
		sret = add_sdt(&o, users, nusers);
	if (ret > 0)
		ret = add_help();
	else if (!ret && !bt.n && !nusers) {
		pc_err("add: no probe definition in --from input");
		ret = -ENOENT;
	} else if (!ret && bt.n) {
		ret = run_all(&o, &bt);
		if (!ret)
			ret = batch_outcome(&bt);
	}
	batch_free(&bt);
	free(users);
	return ret ? ret : sret;
}
