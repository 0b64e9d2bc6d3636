// SPDX-License-Identifier: GPL-2.0
/*
 * show: discovery in a binary, without touching the cache, in perf probe's
 * words: -F functions (perf probe -F), -V POINT the variables a probe at
 * POINT can fetch (perf probe -V), -L FUNC the lines of FUNC a probe can go
 * on (perf probe -L), --sdt its SDT probes (bpftrace -l 'usdt:BIN:*').
 * Debuginfo is found as add finds it (dwarf.h); what is shown comes from the
 * same readers add and scan use, so what show lists, add and scan accept.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "canon.h"
#include "dwarf.h"
#include "opts.h"
#include "pc.h"
#include "probepoint.h"
#include "sdt.h"
#include "sdtnames.h"

enum show_mode { SHOW_NONE, SHOW_FUNCS, SHOW_VARS, SHOW_LINES, SHOW_SDT };

struct show_opts {
	enum show_mode mode;
	const char *bin;
	const char *what;	/* -V POINT, -L FUNC */
	const char *glob;	/* -F and --sdt: the names shown, NULL for all */
	bool json;
};

static void json_kv(const char *key, const char *v, bool comma)
{
	printf("%s\"%s\":", comma ? "," : "", key);
	if (v)
		pc_json_str(stdout, v);
	else
		fputs("null", stdout);
}

/* The binary and its DWARF, first keys of every DWARF document. */
static void json_head(const struct pc_dw_result *m)
{
	json_kv("path", m->path, false);
	json_kv("build_id", m->build_id[0] ? m->build_id : NULL, true);
	json_kv("debuginfo", m->debuginfo_id, true);
	json_kv("debuginfo_path", m->debuginfo_path, true);
}

/* ---- -F ---- */

static int show_funcs(struct pc_dw_file *f, const struct show_opts *o)
{
	struct pc_dw_func *v;
	size_t n;
	int ret = pc_dw_functions(f, o->glob, &v, &n);

	if (ret)
		return ret;
	if (!n && o->glob)
		pc_err("%s: no function matches '%s'", pc_dw_file_meta(f)->path, o->glob);
	if (o->json) {
		putchar('{');
		json_head(pc_dw_file_meta(f));
		printf(",\"functions\":[");
	}
	for (size_t i = 0; i < n; i++) {
		if (o->json) {
			printf("%s{", i ? "," : "");
			json_kv("name", v[i].name, false);
			json_kv("file", v[i].file, true);
			printf(",\"line\":%d}", v[i].line);
		} else if (!i || strcmp(v[i - 1].name, v[i].name)) {
			puts(v[i].name);	/* perf -F: one name a line */
		}
	}
	if (o->json)
		printf("]}\n");
	free(v);
	return n || !o->glob ? 0 : -ENOENT;
}

/* ---- -V ---- */

/*
 * "POINT $vars": perf -V shows what $vars would fetch there; at a return
 * probe, where no local is live, the one thing there is: $retval.
 */
static int vars_desc(const struct show_opts *o, struct pc_probe_desc *pd)
{
	char def[1024], err[256];
	bool ret_probe;
	int ret;

	if (strpbrk(o->what, " \t") || strchr(o->what, '=')) {
		pc_err("show: -V takes a probe point (FUNC[@SRC][:RLN|+OFF|%%return], SRC:LINE), "
		       "not '%s'", o->what);
		return -EINVAL;
	}
	ret = pc_pp_parse(o->what, pd, err, sizeof(err));
	ret_probe = !ret && pd->retprobe;
	if (!ret)
		pc_pp_free(pd);
	snprintf(def, sizeof(def), "%s %s", o->what, ret_probe ? "$retval" : "$vars");
	if (!ret)
		ret = pc_pp_parse(def, pd, err, sizeof(err));
	if (ret)
		pc_err("show: -V '%s': %s", o->what, err);
	return ret;
}

/* One "NAME=FETCH[:TYPE]" of rec_args as perf -V's "TYPE NAME", then where it is. */
static void var_text(const char *a, size_t n)
{
	const char *eq = memchr(a, '=', n), *loc = eq ? eq + 1 : a;
	const char *ty = memrchr(loc, ':', a + n - loc), *end = ty ?: a + n;

	printf("\t\t%-6.*s %-16.*s %.*s\n", ty ? (int)(a + n - ty - 1) : 3, ty ? ty + 1 : "u64",
	       eq ? (int)(eq - a) : 1, eq ? a : "-", (int)(end - loc), loc);
}

static void vars_loc(const struct pc_dw_loc *l, bool json, bool comma)
{
	if (json) {
		printf("%s{", comma ? "," : "");
		json_kv("function", l->func, false);
		printf(",\"function_offset\":%" PRIu64 ",\"address\":%" PRIu64
		       ",\"offset\":%" PRIu64 ",\"variables\":", l->func_off, l->addr, l->offset);
		pc_json_args(stdout, l->rec_args);
		putchar('}');
		return;
	}
	printf("\t@<%s+%" PRIu64 "> (file offset 0x%" PRIx64 ")\n", l->func, l->func_off,
	       l->offset);
	for (const char *a = l->rec_args; a && *a;) {
		size_t n = strcspn(a, " ");

		var_text(a, n);
		a += n + strspn(a + n, " ");
	}
}

static int show_vars(struct pc_dw_file *f, const struct show_opts *o)
{
	struct pc_probe_desc pd;
	struct pc_dw_result r;
	int ret = vars_desc(o, &pd);

	if (ret)
		return ret;
	/* force: a variable with no location at the point is left out, as perf -V does */
	ret = pc_dw_resolve_in(f, &pd, true, &r);
	pc_pp_free(&pd);
	if (ret)
		return ret;
	if (o->json) {
		putchar('{');
		json_head(&r);
		json_kv("point", o->what, true);
		printf(",\"locations\":[");
	} else {
		printf("Available variables at %s\n", o->what);
	}
	for (size_t i = 0; i < r.nlocs; i++)
		vars_loc(&r.locs[i], o->json, i);
	if (o->json)
		printf("]}\n");
	pc_dw_result_free(&r);
	return 0;
}

/* ---- -L ---- */

/* Line @ln of @src (read whole), without its newline, or NULL. */
static const char *src_line(const char *src, size_t len, int ln, size_t *n)
{
	const char *p = src, *end = src + len;

	for (int i = 1; p && p < end && i < ln; i++) {
		p = memchr(p, '\n', end - p);
		p = p ? p + 1 : NULL;
	}
	if (!p || p >= end)
		return NULL;
	*n = (const char *)(memchr(p, '\n', end - p) ?: end) - p;
	return p;
}

static bool has_line(const struct pc_dw_lines *l, int ln)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->line[i] == ln)
			return true;
	return false;
}

/* perf -L: the source from the declaration on, probe-able lines numbered FUNC-relative. */
static void lines_text(const struct pc_dw_lines *l)
{
	char *src = NULL;
	size_t len = 0, n;
	int last = l->n ? l->line[l->n - 1] : l->decl_line;

	printf("<%s@%s:0>\n", l->func, l->file);
	if (pc_read_file(l->file, 0, 64 << 20, &src, &len))
		pc_info("%s: source not readable: only the line numbers", l->file);
	for (int ln = l->decl_line; ln <= last; ln++) {
		const char *s = src ? src_line(src, len, ln, &n) : NULL;

		if (!s && !has_line(l, ln))
			continue;
		if (has_line(l, ln))
			printf("%7d  ", ln - l->decl_line);
		else
			printf("         ");
		if (s)
			printf("%.*s\n", (int)n, s);
		else
			printf("(%s:%d)\n", l->file, ln);
	}
	free(src);
}

static void lines_json(const struct pc_dw_file *f, const struct pc_dw_lines *l)
{
	putchar('{');
	json_head(pc_dw_file_meta(f));
	json_kv("function", l->func, true);
	json_kv("file", l->file, true);
	printf(",\"decl_line\":%d,\"lines\":[", l->decl_line);
	for (size_t i = 0; i < l->n; i++)
		printf("%s{\"line\":%d,\"abs_line\":%d}", i ? "," : "", l->line[i] - l->decl_line,
		       l->line[i]);
	printf("]}\n");
}

static int show_lines(struct pc_dw_file *f, const struct show_opts *o)
{
	struct pc_dw_lines l;
	int ret = pc_dw_func_lines(f, o->what, &l);

	if (ret)
		return ret;
	if (o->json)
		lines_json(f, &l);
	else
		lines_text(&l);
	pc_dw_lines_free(&l);
	return 0;
}

/* ---- --sdt ---- */

static bool sdt_wanted(const struct show_opts *o, const struct pc_sdt_note *n)
{
	char pn[2 * 64 + 2];

	snprintf(pn, sizeof(pn), "%s:%s", n->provider, n->name);
	return !o->glob || pc_glob_match(pn, o->glob) || pc_glob_match(n->name, o->glob);
}

/* The note's args as scan caches them: named by its provider file where that agrees. */
static void sdt_json(const char *path, const struct pc_sdt_file *s, const struct pc_sdt_note *n,
		     bool comma)
{
	char group[80], why[300], *named = NULL;

	snprintf(group, sizeof(group), "sdt_%s", n->provider);
	pc_sdtnames_args(path, s, n, NULL, &named, why, sizeof(why));
	printf("%s{", comma ? "," : "");
	json_kv("provider", n->provider, false);
	json_kv("name", n->name, true);
	json_kv("group", group, true);
	printf(",\"offset\":%" PRIu64 ",\"ref_ctr\":%" PRIu64 ",\"semaphore\":%s", n->pc_off,
	       n->sem_off, n->sem_off ? "true" : "false");
	json_kv("needs", pc_sdtnames_switch(n->provider, n->name), true);
	printf(",\"args\":");
	pc_json_args(stdout, named ? named : n->rec_args);
	printf(",\"note_args\":");
	pc_json_args(stdout, n->rec_args);
	putchar('}');
	free(named);
}

/*
 * bpftrace -l's line, once per PROVIDER:NAME however many notes share it,
 * then "  # semaphore; needs SWITCH" where either applies (to any of them).
 */
static void sdt_text(const char *path, const struct pc_sdt_file *s, size_t i)
{
	char spec[2 * 64 + 2], gate[300];
	uint64_t sem = 0;

	for (size_t j = 0; j < s->nnotes; j++) {
		if (strcmp(s->notes[j].provider, s->notes[i].provider) ||
		    strcmp(s->notes[j].name, s->notes[i].name))
			continue;
		if (j < i)
			return;
		sem |= s->notes[j].sem_off;
	}
	snprintf(spec, sizeof(spec), "%s:%s", s->notes[i].provider, s->notes[i].name);
	pc_sdtnames_gating(spec, sem, gate, sizeof(gate));
	printf("usdt:%s:%s%s%s\n", path, spec, gate[0] ? "  # " : "", gate);
}

static int show_sdt(const struct show_opts *o)
{
	struct pc_sdt_file s;
	char path[PATH_MAX];
	size_t shown = 0;
	int ret = pc_canonical_path(o->bin, path);

	if (ret) {
		pc_err("%s: %s", o->bin, strerror(-ret));
		return ret;
	}
	ret = pc_sdt_read(path, &s);
	if (ret)
		return ret;	/* said, naming the file */
	if (o->json) {
		printf("{");
		json_kv("path", path, false);
		json_kv("build_id", s.build_id[0] ? s.build_id : NULL, true);
		printf(",\"probes\":[");
	}
	for (size_t i = 0; i < s.nnotes; i++) {
		if (!sdt_wanted(o, &s.notes[i]))
			continue;
		if (o->json)
			sdt_json(path, &s, &s.notes[i], shown);
		else
			sdt_text(path, &s, i);
		shown++;
	}
	if (o->json)
		printf("]}\n");
	if (!shown)
		pc_err("%s: no SDT probe%s%s%s", path, o->glob ? " matches '" : "",
		       o->glob ?: "", o->glob ? "'" : " (no .note.stapsdt)");
	pc_sdt_free(&s);
	return shown ? 0 : -ENOENT;
}

/* ---- command ---- */

static int show_help(void)
{
	printf("usage: %s show -x BIN -F [GLOB] | -V POINT | -L FUNC | --sdt [GLOB] [--json]\n\n"
	       "Discovery in BIN, as perf probe and bpftrace -l do it; the cache is not\n"
	       "touched. Debuginfo is found as add finds it (the binary, .gnu_debuglink,\n"
	       "/usr/lib/debug/.build-id, debuginfod with DEBUGINFOD_URLS).\n\n"
	       "  -x, --exec BIN     the binary or library\n"
	       "  -F, --funcs        functions a probe can name (perf probe -F), GLOB\n"
	       "                     filtering them\n"
	       "  -V, --vars POINT   variables a probe at POINT can fetch, per location\n"
	       "                     (perf probe -V): FUNC, FUNC:RLN, FUNC+OFF, SRC:LINE\n"
	       "  -L, --line FUNC    FUNC's source, the lines a probe can go on numbered\n"
	       "                     as FUNC:RLN counts them (perf probe -L)\n"
	       "  -S, --sdt          SDT probes of BIN, GLOB on PROVIDER:NAME or NAME\n"
	       "                     (bpftrace -l 'usdt:BIN:*')\n"
	       "  -j, --json         JSON (Documentation/probecache-resolve.schema.json)\n"
	       "  -h, --help         this help\n\n"
	       "Exit: 0 shown, 1 nothing matches or BIN unreadable or without debuginfo,\n"
	       "2 usage.\n", pc_prog);
	return 1;
}

static int set_mode(struct show_opts *o, enum show_mode m, const char *arg)
{
	if (o->mode) {
		pc_err("show: one of -F, -V, -L, --sdt at a time");
		return -EINVAL;
	}
	o->mode = m;
	o->what = arg;
	return 0;
}

static int show_opts(int argc, char **argv, struct show_opts *o)
{
	static const struct option lopts[] = {
		{ "exec", required_argument, NULL, 'x' },
		{ "funcs", no_argument, NULL, 'F' },
		{ "vars", required_argument, NULL, 'V' },
		{ "line", required_argument, NULL, 'L' },
		{ "sdt", no_argument, NULL, 'S' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	int opt, ret = 0;

	while (!ret && (opt = pc_getopt(argc, argv, "x:FV:L:Sjh", lopts)) != -1) {
		switch (opt) {
		case 'x':
			o->bin = optarg;
			break;
		case 'F':
			ret = set_mode(o, SHOW_FUNCS, NULL);
			break;
		case 'V':
			ret = set_mode(o, SHOW_VARS, optarg);
			break;
		case 'L':
			ret = set_mode(o, SHOW_LINES, optarg);
			break;
		case 'S':
			ret = set_mode(o, SHOW_SDT, NULL);
			break;
		case 'j':
			o->json = true;
			break;
		case 'h':
			return show_help();
		default:
			return -EINVAL;
		}
	}
	return ret;
}

/* Operands and the mode agree: -x always, a GLOB only after -F or --sdt. */
static int show_check(int argc, char **argv, struct show_opts *o)
{
	if (!o->mode)
		pc_err("show: say what to show: -F, -V POINT, -L FUNC or --sdt");
	else if (!o->bin)
		pc_err("show: -x BIN is required");
	else if (argc - optind > 1 ||
		 (argc > optind && o->mode != SHOW_FUNCS && o->mode != SHOW_SDT))
		pc_err("show: unexpected '%s'", argv[argc - 1]);
	else {
		o->glob = argc > optind ? argv[optind] : NULL;
		return 0;
	}
	return -EINVAL;
}

static int show_dwarf(const struct show_opts *o)
{
	struct pc_dw_file *f;
	int ret = pc_dw_open_readonly(o->bin, &f);	/* discovery writes no cache */

	if (ret)
		return ret;	/* said, naming the file */
	if (o->mode == SHOW_FUNCS)
		ret = show_funcs(f, o);
	else if (o->mode == SHOW_VARS)
		ret = show_vars(f, o);
	else
		ret = show_lines(f, o);
	pc_dw_close(f);
	return ret;
}

int cmd_show(int argc, char **argv)
{
	struct show_opts o = { 0 };
	int ret = show_opts(argc, argv, &o);

	if (ret > 0)
		return 0;
	if (!ret)
		ret = show_check(argc, argv, &o);
	if (ret)
		return ret == -EINVAL ? pc_usage("show") : ret;
	return o.mode == SHOW_SDT ? show_sdt(&o) : show_dwarf(&o);
}
