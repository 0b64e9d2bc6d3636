/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Debuginfo probe points: a parsed perf probe-definition (probepoint.h) is
 * resolved against DWARF found through libdwfl (the binary itself,
 * .gnu_debuglink, /usr/lib/debug/.build-id, debuginfod when DEBUGINFOD_URLS
 * is set) into one or more locations, each a file offset plus fetch args in
 * both ftrace uprobe_events syntax (as `perf probe -D` prints) and record
 * syntax (include/uapi/linux/probecache.h). x86-64 only.
 */
#ifndef _PC_DWARF_H
#define _PC_DWARF_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probepoint.h"

struct pc_dw_loc {
	char event[128];	/* as perf names it (not made unique) */
	bool retprobe;
	uint64_t addr;		/* DWARF (link-time) address */
	char func[128];		/* the function the address is in (for show -V) */
	uint64_t func_off;	/* addr - that function's entry */
	uint64_t offset;	/* file offset of the probed instruction */
	char *uprobe_args;	/* " a=%di:s32 ..." (leading blank per arg), may be "" */
	char *rec_args;		/* "a=%di:s32 ..." record syntax, may be "" */
	unsigned int ndropped;	/* args left out with force */
};

struct pc_dw_result {
	char path[PATH_MAX];	/* real path of the probed binary */
	char build_id[41];	/* of the binary, hex */
	char debuginfo_id[41];	/* of the file the DWARF came from, hex */
	char debuginfo_path[PATH_MAX];
	char group[64];
	size_t nlocs;
	struct pc_dw_loc *locs;
};

/*
 * Resolve @pd in @binary. With @force, arguments that cannot be fetched at
 * a location are reported and left out instead of failing the whole probe.
 * Returns 0 or -errno; every failure is reported on stderr naming the
 * binary, location, argument, variable and DWARF operation involved.
 */
int pc_dw_resolve(const char *binary, const struct pc_probe_desc *pd, bool force,
		  struct pc_dw_result *res);
void pc_dw_result_free(struct pc_dw_result *res);

/*
 * The same for many definitions of one binary: pc_dw_open() reads the
 * binary and finds and loads its debuginfo once (errors reported, -errno),
 * pc_dw_resolve_in() resolves one definition against it (any number of
 * times; results as pc_dw_resolve() gives them), pc_dw_close() frees it.
 */
struct pc_dw_file;
int pc_dw_open(const char *binary, struct pc_dw_file **f);
/* The same, writing nothing into the cache directory (a copy there is still read). */
int pc_dw_open_readonly(const char *binary, struct pc_dw_file **f);
int pc_dw_resolve_in(struct pc_dw_file *f, const struct pc_probe_desc *pd, bool force,
		     struct pc_dw_result *res);
void pc_dw_close(struct pc_dw_file *f);

/*
 * Discovery (show -F, -L), against an opened file. pc_dw_functions: the
 * functions defined with code or inlined (what FUNC of a definition can
 * name) whose name matches @glob (NULL: all), sorted by name, one per name
 * and declaration; free(*out) only (the strings are the file's, valid
 * until pc_dw_close). pc_dw_func_lines: the lines of @func's own file with
 * a statement inside it (where FUNC:RLN or SRC:LINE can go), sorted; the
 * first CU's definition as a plain FUNC probe would search it. 0 or -errno
 * (reported, naming the binary).
 */
struct pc_dw_func {
	const char *name;
	const char *file;	/* declaration, NULL if unknown */
	int line;
};
int pc_dw_functions(struct pc_dw_file *f, const char *glob, struct pc_dw_func **out,
		    size_t *n);

struct pc_dw_lines {
	char func[128];
	char file[PATH_MAX];	/* the declaration's file, as DWARF names it */
	int decl_line;		/* line 0 of FUNC:RLN */
	size_t n;
	int *line;		/* absolute line numbers */
};
int pc_dw_func_lines(struct pc_dw_file *f, const char *func, struct pc_dw_lines *out);
void pc_dw_lines_free(struct pc_dw_lines *l);

/* Path, build-id and debuginfo of an opened file (res fields of a result). */
const struct pc_dw_result *pc_dw_file_meta(const struct pc_dw_file *f);

#endif /* _PC_DWARF_H */
