/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names and types for SDT notes: a user's ARGs (sdtargs.h), else the
 * provider file (sdtdata.h) of the note's provider, found in
 * $PROBECACHE_SDT_DIR, else in DATADIR/sdt beside the program
 * (BINDIR/../share/probecache/sdt), each file read once per run.
 */
#ifndef _PC_SDTNAMES_H
#define _PC_SDTNAMES_H

#include <stddef.h>
#include <stdint.h>

#include <linux/probecache.h>

#include "sdt.h"
#include "sdtargs.h"
#include "sdtdata.h"

/* The directory the provider files are looked for in. */
const char *pc_sdtnames_dir(void);

/* @provider's file, NULL if there is none (a bad one is warned about, once). */
const struct pc_sdtdata *pc_sdtnames_provider(const char *provider);

/* The runtime switch @provider:@name needs ("-XX:+ExtendedDTraceProbes"), or NULL. */
const char *pc_sdtnames_switch(const char *provider, const char *name);

/* The same for an entry's spec "PROVIDER:NAME[ ARG...]". */
const char *pc_sdtnames_switch_spec(const char *spec);

/*
 * What gates a probe, for list and show: "semaphore" when @ref_ctr is set,
 * "needs SWITCH" when its provider file names one, joined by "; ", into
 * @buf ("" when neither). @spec is "PROVIDER:NAME[ ARG...]".
 */
void pc_sdtnames_gating(const char *spec, uint64_t ref_ctr, char *buf, size_t size);

/*
 * Named record args for note @n of @f (read from @path) in *@out (malloc'd),
 * from @user if given, else from the provider file's entry for the note;
 * *@out NULL when neither names it, or when the entry disagrees with the
 * note (warned, naming the entry's line and why: the note's arg1..argN
 * stay). -EINVAL when @user disagrees with the note (@why says how), -ENOMEM.
 */
int pc_sdtnames_args(const char *path, const struct pc_sdt_file *f, const struct pc_sdt_note *n,
		     const struct pc_sdtargs *user, char **out, char *why, size_t whylen);

/* A user's names for the notes PROVIDER:NAME: 'sdt_app:req path=arg1:string len=arg2:u32'. */
struct pc_sdtuser {
	char spec[2 * PROBECACHE_NAME_MAX + 2];	/* "PROVIDER:NAME" */
	char text[PC_SDTARGS_LEN];		/* the ARGs written back (pc_sdtargs_format) */
	struct pc_sdtargs args;
	unsigned int used;			/* notes they were applied to */
};

/*
 * @def as a user's names: its first word names an SDT probe (sdt_PROVIDER:NAME,
 * %sdt_PROVIDER:NAME or %PROVIDER:NAME), the other words are ARGs (none: the
 * user's names are dropped, the provider file's or arg1..argN apply again).
 * 1 when it is one, 0 when its first word is something else (a DWARF
 * probe-definition, a pattern), -EINVAL (@why set) when it is one with bad ARGs.
 */
int pc_sdtuser_parse(const char *def, struct pc_sdtuser *u, char *why, size_t whylen);

/* The one of @n that is for the notes @spec ("PROVIDER:NAME"), or NULL. */
struct pc_sdtuser *pc_sdtuser_find(struct pc_sdtuser *u, size_t n, const char *spec);

#endif /* _PC_SDTNAMES_H */
