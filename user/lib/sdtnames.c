// SPDX-License-Identifier: GPL-2.0
/*
 * Names and types for SDT notes (sdtnames.h): the provider files found and
 * loaded once per run, their entries (or a user's ARGs) applied to a note.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pc.h"
#include "sdtnames.h"

#define MAX_PROVIDERS	64	/* distinct providers looked up in one run */

struct loaded {
	char name[PROBECACHE_NAME_MAX + 1];
	struct pc_sdtdata data;
	bool have;		/* a file was there and parsed */
};

static struct loaded loaded[MAX_PROVIDERS];
static size_t nloaded;

const char *pc_sdtnames_dir(void)
{
	static char dir[PATH_MAX + 32];
	const char *env = getenv("PROBECACHE_SDT_DIR");
	char exe[PATH_MAX], *slash;
	ssize_t n;

	if (env && *env)
		return env;
	if (dir[0])
		return dir;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	snprintf(dir, sizeof(dir), "%s/../share/probecache/sdt", slash ? exe : "/usr/bin");
	return dir;
}

static void load(struct loaded *l)
{
	char path[PATH_MAX + 64], why[300], *buf;
	size_t len;
	int ret;

	snprintf(path, sizeof(path), "%s/%s.args", pc_sdtnames_dir(), l->name);
	ret = pc_read_file(path, 0, PC_SDTDATA_FILE_MAX, &buf, &len);
	if (ret) {
		if (ret != -ENOENT)
			pc_warn("%s: %s: its names are not used", path, pc_file_strerror(ret));
		return;
	}
	ret = pc_sdtdata_parse(buf, len, &l->data, why, sizeof(why));
	free(buf);
	if (ret) {
		pc_warn("%s: %s: its names are not used", path,
			ret == -EINVAL ? why : strerror(-ret));
	} else if (strcmp(l->data.provider, l->name)) {
		pc_warn("%s: is for provider %s: its names are not used", path, l->data.provider);
		pc_sdtdata_free(&l->data);
	} else {
		l->have = true;
		pc_debug("%s: %zu probes", path, l->data.nprobes);
	}
}

const struct pc_sdtdata *pc_sdtnames_provider(const char *provider)
{
	struct loaded *l;

	if (!pc_sdtdata_name_ok(provider))
		return NULL;
	for (size_t i = 0; i < nloaded; i++)
		if (!strcmp(loaded[i].name, provider))
			return loaded[i].have ? &loaded[i].data : NULL;
	if (nloaded == MAX_PROVIDERS)
		return NULL;
	l = &loaded[nloaded++];
	snprintf(l->name, sizeof(l->name), "%s", provider);
	load(l);
	return l->have ? &l->data : NULL;
}

const char *pc_sdtnames_switch(const char *provider, const char *name)
{
	const struct pc_sdtdata *d = pc_sdtnames_provider(provider);

	return d ? pc_sdtdata_switch(d, name) : NULL;
}

const char *pc_sdtnames_switch_spec(const char *spec)
{
	char prov[PROBECACHE_NAME_MAX + 1], name[PROBECACHE_NAME_MAX + 1];

	if (sscanf(spec, "%63[^:]:%63[^ ]", prov, name) != 2)
		return NULL;
	return pc_sdtnames_switch(prov, name);
}

void pc_sdtnames_gating(const char *spec, uint64_t ref_ctr, char *buf, size_t size)
{
	const char *sw = pc_sdtnames_switch_spec(spec);

	snprintf(buf, size, "%s%s%s%s", ref_ctr ? "semaphore" : "", ref_ctr && sw ? "; " : "",
		 sw ? "needs " : "", sw ? sw : "");
}

static int apply(const struct pc_sdt_file *f, const struct pc_sdt_note *n,
		 const struct pc_sdtargs *s, bool whole, char **out, char *why, size_t whylen)
{
	char *buf = malloc(PC_SDTARGS_LEN);
	int ret;

	if (!buf)
		return -ENOMEM;
	ret = pc_sdtargs_apply(s, n->rec_args ? n->rec_args : "", n->nargs, f->is64 ? 8 : 4,
			       whole, buf, PC_SDTARGS_LEN, why, whylen);
	if (ret)
		free(buf);
	else
		*out = buf;
	return ret;
}

int pc_sdtnames_args(const char *path, const struct pc_sdt_file *f, const struct pc_sdt_note *n,
		     const struct pc_sdtargs *user, char **out, char *why, size_t whylen)
{
	const struct pc_sdtdata *d;
	const struct pc_sdtdata_probe *e;
	char ewhy[300];
	int ret;

	*out = NULL;
	if (user)
		return apply(f, n, user, false, out, why, whylen);
	d = pc_sdtnames_provider(n->provider);
	e = d ? pc_sdtdata_find(d, n->name) : NULL;
	if (!e)
		return 0;
	ret = apply(f, n, &e->args, true, out, ewhy, sizeof(ewhy));
	if (ret == -EINVAL)
		pc_warn("%s: %s:%s at 0x%llx: %s/%s.args line %u disagrees with the note: %s: "
			"arg1..arg%u kept", path, n->provider, n->name,
			(unsigned long long)n->pc_off, pc_sdtnames_dir(), n->provider, e->line,
			ewhy, n->nargs);
	return ret == -EINVAL ? 0 : ret;
}

/* "sdt_P:N", "%sdt_P:N" or "%P:N" of @len bytes at @w: "P:N" in @spec. */
static bool user_probe(const char *w, size_t len, char *spec, size_t size)
{
	char prov[PROBECACHE_NAME_MAX + 1], name[PROBECACHE_NAME_MAX + 1];
	char word[2 * PROBECACHE_NAME_MAX + 8];
	const char *p = word;

	if (len >= sizeof(word))
		return false;
	memcpy(word, w, len);
	word[len] = '\0';
	if (*p == '%')
		p++;
	if (!strncmp(p, "sdt_", 4))
		p += 4;
	else if (p == word)
		return false;
	if (sscanf(p, "%63[A-Za-z0-9_]:%63[A-Za-z0-9_]", prov, name) != 2 ||
	    strlen(prov) + 1 + strlen(name) != strlen(p))
		return false;
	snprintf(spec, size, "%s:%s", prov, name);
	return true;
}

int pc_sdtuser_parse(const char *def, struct pc_sdtuser *u, char *why, size_t whylen)
{
	const char *w = def + strspn(def, " \t");
	size_t len = strcspn(w, " \t");

	memset(u, 0, sizeof(*u));
	if (!user_probe(w, len, u->spec, sizeof(u->spec)))
		return 0;
	if (pc_sdtargs_parse(w + len, &u->args, why, whylen))
		return -EINVAL;
	pc_sdtargs_format(&u->args, u->text, sizeof(u->text));
	return 1;
}

struct pc_sdtuser *pc_sdtuser_find(struct pc_sdtuser *u, size_t n, const char *spec)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(u[i].spec, spec))
			return &u[i];
	return NULL;
}
