/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names and types for an SDT probe's arguments, as a user writes them at
 * scan/add/define ('sdt_app:req path=arg1:string len=arg2:u32') and as the
 * provider files under sdt/ give them (sdtdata.h):
 *
 *   ARG   [NAME=]EXPR[:TYPE]
 *   EXPR  argN | +OFF(EXPR) | -OFF(EXPR)    (N from 1; a load at OFF from EXPR's value)
 *   TYPE  u8..u64 s8..s64 x8..x64 string    (string: the NUL-terminated bytes EXPR's
 *                                            value points to)
 *
 * NAME defaults to argN for a plain argN and is required for a load. Applied
 * to a note's own args in record syntax ("arg1=%di:u64 arg2=+8(%sp):s32", as
 * user/lib/sdt.c translates them), every argument is checked against the
 * note first: a load or a string needs a pointer-sized argument; an integer
 * TYPE of a plain argN needs the note's size (a constant operand: a value
 * that fits TYPE; the sign is TYPE's to choose, as it only says how the bits
 * are shown); a provider entry must name every argument the note has.
 * Pure C over untrusted text, fuzzed (tests/fuzz/fuzz_sdtargs.c).
 */
#ifndef _PC_SDTARGS_H
#define _PC_SDTARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/probecache.h>

#define PC_SDTARGS_MAX	PROBECACHE_MAX_ARGS
#define PC_SDTARGS_LEN	4096	/* room for the record args of PC_SDTARGS_MAX args */

struct pc_sdtarg {
	char name[PROBECACHE_ARG_NAME_MAX + 1];
	unsigned int argn;			/* the note's argument, from 1 */
	unsigned int nload;			/* loads around argN */
	int64_t off[PROBECACHE_MAX_DEREF];	/* their offsets, innermost first */
	char type[8];				/* "" when not given */
};

struct pc_sdtargs {
	unsigned int n;
	struct pc_sdtarg a[PC_SDTARGS_MAX];
};

/* Parse blank-separated ARGs. 0 or -EINVAL / -E2BIG with @why set. */
int pc_sdtargs_parse(const char *text, struct pc_sdtargs *out, char *why, size_t whylen);

/* @s written back as text, each ARG in full ("path=arg1:string"). */
int pc_sdtargs_format(const struct pc_sdtargs *s, char *buf, size_t len);

/*
 * Record args for @s from the note's unnamed record args @rec_args of a note
 * with @nargs arguments in a binary of @wordsize-byte pointers. @whole: @s
 * must name each of the note's arguments (a provider entry). 0, or -EINVAL
 * (with @why: which argument disagrees with the note and how) or -ENOSPC.
 */
int pc_sdtargs_apply(const struct pc_sdtargs *s, const char *rec_args, unsigned int nargs,
		     unsigned int wordsize, bool whole, char *out, size_t len,
		     char *why, size_t whylen);

#endif /* _PC_SDTARGS_H */
