/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A provider file: the names and types of one SDT provider's arguments, kept
 * as data (sdt/PROVIDER.args in the source tree, DATADIR/sdt/ installed),
 * each entry citing the upstream declaration it comes from:
 *
 *   probecache-sdt-args 1            format version, the first line
 *   provider python                  the note's provider, once, before any probe
 *   source TEXT                      where the entries come from (one or more)
 *   switch GLOB TEXT                 probes GLOB (fnmatch) fire only with TEXT
 *   probe NAME [ARG...]              a probe's arguments, sdtargs.h syntax
 *   from TEXT                        its upstream declaration: one after each probe
 *
 * '#' starts a comment line; blank lines and leading blanks are ignored. The
 * parser is pure C over untrusted text, fuzzed (tests/fuzz/fuzz_sdtdata.c);
 * sdtnames.h finds, loads and applies the files.
 */
#ifndef _PC_SDTDATA_H
#define _PC_SDTDATA_H

#include <stddef.h>

#include "sdtargs.h"

#define PC_SDTDATA_MAGIC	"probecache-sdt-args 1"
#define PC_SDTDATA_FILE_MAX	(1u << 20)
#define PC_SDTDATA_PROBES_MAX	4096

struct pc_sdtdata_probe {
	char *name;
	char *text;		/* the ARGs as written */
	struct pc_sdtargs args;
	char *from;
	unsigned int line;
};

struct pc_sdtdata_switch {
	char *glob, *text;
};

struct pc_sdtdata {
	char *provider;
	size_t nsources, nprobes, nswitches, cap;
	char **sources;
	struct pc_sdtdata_probe *probes;
	struct pc_sdtdata_switch *switches;
};

/* Parse @len bytes of @buf. 0, or -EINVAL with @why "line N: ..."; -ENOMEM. */
int pc_sdtdata_parse(const char *buf, size_t len, struct pc_sdtdata *out, char *why,
		     size_t whylen);
void pc_sdtdata_free(struct pc_sdtdata *d);

const struct pc_sdtdata_probe *pc_sdtdata_find(const struct pc_sdtdata *d, const char *name);
/* The runtime switch probe @name needs, or NULL. */
const char *pc_sdtdata_switch(const struct pc_sdtdata *d, const char *name);

/* A provider or probe name a file may give: [A-Za-z_][A-Za-z0-9_]*, <= 63 bytes. */
int pc_sdtdata_name_ok(const char *s);

#endif /* _PC_SDTDATA_H */
