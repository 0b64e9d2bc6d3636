/* SPDX-License-Identifier: GPL-2.0 */
/* What probecache.ko has defined and armed, read from /proc/probecache_probes. */
#ifndef _PC_ARMED_H
#define _PC_ARMED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/probecache.h>

#define PC_LISTING_MAX		(256u << 20)	/* bytes read of it at the most */

struct pc_kprobe {
	char name[2 * PROBECACHE_NAME_MAX + 2];	/* "GROUP:EVENT", as the listing names it */
	char group[PROBECACHE_NAME_MAX + 1];
	char event[PROBECACHE_NAME_MAX + 1];
	char state[32];		/* defined, armed, stale (older modules: armed only) */
	long consumers;		/* ftrace, perf, BPF and count consumers; -1: unknown */
	bool counting;		/* the module's own hit counter is a consumer */
	bool retprobe;		/* type=r */
	uint64_t hits;
	char build_id[2 * PROBECACHE_BUILD_ID_MAX + 1];
	char *path;
	uint64_t offset, ref_ctr;
	char *args;
	long pid;
	bool unlinked;	/* the probed inode has no name left (replaced) */
};

struct pc_kprobes {
	size_t n;
	struct pc_kprobe *p;
};

/*
 * Every probe of /proc/probecache_probes, sorted by name. Errors are
 * reported: -ENOENT the module is not loaded (or predates the listing),
 * -EBADMSG a malformed line (named by file and line number), -errno.
 */
int pc_kprobes_read(struct pc_kprobes *out);
void pc_kprobes_free(struct pc_kprobes *k);
/* The probe named "GROUP:EVENT" in a pc_kprobes_read() result, or NULL (gone). */
const struct pc_kprobe *pc_kprobes_get(const struct pc_kprobes *k, const char *name);
/*
 * Parse one listing line (no newline; cut in place) into @p. 0; -EINVAL with
 * "FIELD: WHY: 'TOKEN'" in @why; -ENOMEM. Free p->path and p->args after.
 */
int pc_kprobe_parse(char *line, struct pc_kprobe *p, char *why, size_t len);
struct pc_binary;
struct pc_entry;
/*
 * Is @p the module's definition of cached entry @e of @b: same build-id,
 * group and kind, at the entry's offset (or pc + 1, an SDT probe on its USDT
 * fast site), named EVENT or EVENT_XXXXXXXX (pattern.h, clash A). Probes
 * sharing an address (a function's entry and return, two named probes at one
 * line) are never taken for one another.
 */
bool pc_kprobe_is_entry(const struct pc_kprobe *p, const struct pc_binary *b,
			const struct pc_entry *e);
/* The probe of @k that pc_kprobe_is_entry() @e of @b, or NULL. */
const struct pc_kprobe *pc_kprobes_find_entry(const struct pc_kprobes *k,
					      const struct pc_binary *b,
					      const struct pc_entry *e);

/* Read PROBECACHE_SYSFS/@rel into @buf without the trailing newline. 0 or -errno. */
int pc_sysfs_read(const char *rel, char *buf, size_t size);
/*
 * Why the module refused this process's last control write, that failed with
 * errno @err: its last_error, else strerror(@err), into @why.
 */
void pc_last_error(char *why, size_t whylen, int err);
/*
 * The numeric field @key (consumers, hits, counting, pid, unlinked, offset,
 * ref_ctr_offset) of the listed probe @probe; -1 if the probe is not
 * listed, the key unknown or the listing unreadable (reported).
 */
long pc_kprobe_long(const char *probe, const char *key);

/*
 * Check a control line ("add RECORD", "del GROUP:EVENT") of @len bytes with
 * the module's parser; on rejection @why gets "col C: FIELD: WHY". 0 or -errno.
 * The register names may be those of any machine the module runs on: the
 * cache also holds records of other machines' binaries, scanned here to be
 * exported to them (the module of each machine takes only its own).
 */
int pc_record_check(const char *line, size_t len, char *why, size_t whylen);

struct pc_command;
struct pc_parse_error;
/*
 * common/record.c's pc_parse_command() with this host's register names, else
 * the first other machine's that accepts the line; @perr is the native
 * parse's error when none does.
 */
int pc_parse_any_machine(const char *line, size_t len, struct pc_command *cmd,
			 struct pc_parse_error *perr);

/* Strip trailing newlines and blanks; return @s. */
char *pc_chomp(char *s);

#endif /* _PC_ARMED_H */
