/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf probe-definition syntax, parsed without any debuginfo:
 *
 *   [[GROUP:]EVENT=]FUNC[@SRC][:RLN|+OFFS|%return|;PTN] [ARG...]
 *   [[GROUP:]EVENT=]SRC:ALN [ARG...]
 *   [[GROUP:]EVENT=]SRC;PTN [ARG...]
 *
 *   ARG: [NAME=]VAR[->FIELD|.FIELD|[IDX]]...[:TYPE] | $params | $vars |
 *        $retval | %REG
 */
#ifndef _PC_PROBEPOINT_H
#define _PC_PROBEPOINT_H

#include <stdbool.h>
#include <stddef.h>

#define PC_PP_MAX_ARGS	16	/* PROBECACHE_MAX_ARGS */
#define PC_PP_MAX_FIELDS 8

struct pc_pp_field {
	char *name;		/* member name; NULL for an array index */
	bool ref;		/* reached through "->" (or [] on a pointer) */
	long index;		/* array index when name == NULL */
};

enum pc_pp_arg_kind {
	PC_PP_VAR,		/* a C variable with optional fields */
	PC_PP_PARAMS,		/* $params */
	PC_PP_VARS,		/* $vars */
	PC_PP_RETVAL,		/* $retval */
	PC_PP_REG,		/* %REG passed through */
};

struct pc_pp_arg {
	enum pc_pp_arg_kind kind;
	char *name;		/* NAME= given by the user, else NULL */
	char *var;		/* variable name, "$retval", "%di", ... */
	size_t nfields;
	struct pc_pp_field fields[PC_PP_MAX_FIELDS];
	char *type;		/* cast without ':' or NULL */
};

struct pc_probe_desc {
	char *group;		/* NULL: default group */
	char *event;		/* NULL: derived from the probe point */
	char *function;
	char *file;
	int line;		/* function-relative with function, else absolute */
	unsigned long offset;
	bool retprobe;
	char *lazy;		/* lazy line pattern */
	size_t nargs;
	struct pc_pp_arg args[PC_PP_MAX_ARGS];
};

/*
 * Parse @desc. 0 or -EINVAL/-E2BIG/-ENOMEM; on error @err (may be NULL)
 * says what is wrong. @pd is left empty on error.
 */
int pc_pp_parse(const char *desc, struct pc_probe_desc *pd, char *err, size_t errlen);
void pc_pp_free(struct pc_probe_desc *pd);

/* Argument name perf gives a variable argument: NAME, last field, or "var_TYPE". */
int pc_pp_arg_tvname(const struct pc_pp_arg *a, char *buf, size_t len);

/* True if @s is a C identifier. */
bool pc_pp_is_ident(const char *s);
/* Glob match (*, ?, [...], \ escapes) of the whole of @str. */
bool pc_glob_match(const char *str, const char *pat);
/* perf's lazy match: like pc_glob_match but blanks are ignored on both sides. */
bool pc_lazy_match(const char *str, const char *pat);
/* "probe_" + basename of @path cut at the first char not [A-Za-z0-9_]. */
int pc_pp_default_group(const char *path, char *buf, size_t len);

#endif /* _PC_PROBEPOINT_H */
