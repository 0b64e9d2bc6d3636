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

#include "sdt.h"
#include "sdtargs.h"
#include "sdtdata.h"

/* The directory the provider files are looked for in. */
const char *pc_sdtnames_dir(void);

/* @provider's file, NULL if there is none (a bad one is warned about, once). */
const struct pc_sdtdata *pc_sdtnames_provider(const char *provider);

/* The runtime switch @provider:@name needs ("-XX:+ExtendedDTraceProbes"), or NULL. */
const char *pc_sdtnames_switch(const char *provider, const char *name);

/*
 * Named record args for note @n of @f (read from @path) in *@out (malloc'd),
 * from @user if given, else from the provider file's entry for the note;
 * *@out NULL when neither names it, or when the entry disagrees with the
 * note (warned, naming the entry's line and why: the note's arg1..argN
 * stay). -EINVAL when @user disagrees with the note (@why says how), -ENOMEM.
 */
int pc_sdtnames_args(const char *path, const struct pc_sdt_file *f, const struct pc_sdt_note *n,
		     const struct pc_sdtargs *user, char **out, char *why, size_t whylen);

#endif /* _PC_SDTNAMES_H */
