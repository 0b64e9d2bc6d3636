/* SPDX-License-Identifier: GPL-2.0 */
/* probecache-resolve: helpers shared by the commands (cmd/builtin.h) and the libraries. */
#ifndef _PC_H
#define _PC_H

#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/types.h>

extern int pc_verbose;		/* -v: 1, -vv: 2 */
extern bool pc_quiet;		/* -q: only problems */
extern const char *pc_prog;

/* Messages: "probecache-resolve: <what>: <why>" on stderr. */
void pc_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pc_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pc_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));	/* only with -v */
void pc_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));	/* only with -vv */

/* A line of a file in /etc/probecache: its '#' comment and outer blanks cut, in place. */
char *pc_conf_trim(char *s);

/*
 * Room for element @n of the array @arr of *@cap elements of @size bytes:
 * @arr itself while n < *cap, else @arr reallocated to twice *@cap (@first
 * when empty) and *@cap updated; NULL without memory (@arr left as it was).
 */
static inline void *pc_grow(void *arr, size_t *cap, size_t n, size_t size, size_t first)
{
	size_t c = *cap ? 2 * *cap : first;

	if (n < *cap)
		return arr;
	if (c < *cap || c > SIZE_MAX / size)
		return NULL;
	arr = realloc(arr, c * size);
	if (arr)
		*cap = c;
	return arr;
}

/* Levenshtein distance of two strings (SIZE_MAX without memory). */
size_t pc_edit_distance(const char *a, const char *b);
/* The one of @n candidates closest to @word, when close enough to be a typo, else NULL. */
const char *pc_closest(const char *word, const char *const *cands, size_t n);

/*
 * Reading files the user or the cache directory names: a FIFO, a device or a
 * symlink to /dev/zero must not hang or exhaust us. The file is opened
 * non-blocking (opening a FIFO then returns at once), must be a regular file
 * and is read up to a size cap. Errors: -errno; pc_file_strerror() words them.
 */
#define PC_RD_NOFOLLOW		0x1	/* refuse a symbolic link (-ELOOP) */

#define PC_CONF_MAX		(1u << 20)	/* --config files, preload state */
#define PC_ARCHIVE_MAX		(256u << 20)	/* import FILE */

/* Open @path read-only; -ENODEV if it is not a regular file. Fills @st. */
int pc_open_regular(const char *path, unsigned int flags, struct stat *st);
/* All of @path, NUL-terminated, in a malloc'd @buf; -EFBIG past @max bytes. */
int pc_read_file(const char *path, unsigned int flags, size_t max, char **buf, size_t *len);
/* The same from an open descriptor (stdin for 'import -'). */
int pc_read_fd(int fd, size_t max, char **buf, size_t *len);
/*
 * Next line of a pc_read_file() buffer ending at @end, NUL-terminated in
 * place; NULL after the last. *@newline is false for a last line cut short.
 */
char *pc_next_line(char **pos, char *end, bool *newline);
/* The newlines in @len bytes of @buf. */
size_t pc_count_lines(const char *buf, size_t len);
/* Two stats of one file: unchanged in between (size and mtime)? */
bool pc_same_content(const struct stat *a, const struct stat *b);
/* strerror() for the codes above: "not a regular file", "is a symbolic link"... */
const char *pc_file_strerror(int err);

/*
 * Finish a file written through @f into @tmp (beside @path): flushed, given
 * @mode (0: as created), synced and closed, then renamed over @path, so a
 * reader sees the old file or the new one whole; on any error @tmp is
 * removed. Returns 0 or -errno.
 */
int pc_file_commit(FILE *f, const char *tmp, const char *path, mode_t mode);

/*
 * A new temporary file beside @path ("PATH.tmpXXXXXX"), its name in @tmp
 * (@len bytes), open for writing: what pc_file_commit() renames over @path.
 * NULL with errno set (ENAMETOOLONG if the name does not fit).
 */
FILE *pc_file_tmp(const char *path, char *tmp, size_t len);

/* sysfs root: $PROBECACHE_SYSFS, else PROBECACHE_SYSFS_DIR (lets tests use a fake tree). */
const char *pc_sysfs_dir(void);
/*
 * tracefs root: $PROBECACHE_TRACEFS, else /sys/kernel/tracing if tracefs is
 * mounted there (it has instances/), else /sys/kernel/debug/tracing.
 */
const char *pc_tracefs_dir(void);
const char *pc_proc_dir(void);
/* Configuration (preload's, the follower's policy): $PROBECACHE_ETC, else /etc/probecache. */
const char *pc_etc_dir(void);
/* Run-time state (preload's, the follower's counters): $PROBECACHE_RUN, else /run/probecache. */
const char *pc_run_dir(void);

/* Minimal JSON string output (escapes per RFC 8259). */
void pc_json_str(FILE *f, const char *s);
/*
 * Fetch args "NAME=FETCHARG[:TYPE] ..." (record or uprobe_events syntax) as
 * a JSON list of {"name","location","type"}: name null if none was written,
 * type "u64" (the default) if none. NULL or "" gives [].
 */
void pc_json_args(FILE *f, const char *args);

/* A set of strings kept in insertion order (e.g. the probes one call armed). */
struct pc_strset {
	int n;
	char **v;
};

int pc_strset_add(struct pc_strset *s, const char *str);	/* 0 (added or present), -ENOMEM */
bool pc_strset_has(const struct pc_strset *s, const char *str);
void pc_strset_free(struct pc_strset *s);

/* insn.c: the instruction that contains an address, when it is no boundary. */
struct pc_insn {
	uint64_t addr;
	unsigned int size;
	char text[200];
};

/*
 * Is @addr the start of an instruction, disassembling from @entry over @len
 * bytes of @code (the bytes at @entry)? 0 yes; -EINVAL it lies inside the
 * instruction @at; -ERANGE outside @code; -ENOTSUP machine not handled;
 * -EILSEQ the bytes before it do not decode; -ENOMEM.
 */
int pc_insn_boundary(uint16_t machine, bool is64, const uint8_t *code, size_t len,
		     uint64_t entry, uint64_t addr, struct pc_insn *at);

#endif /* _PC_H */
