/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /proc/probecache_sites: every inode each of the module's probes is armed on,
 * or will be (the probe's own file, site 0, and the copies it follows).
 * Line format: include/uapi/linux/probecache.h.
 */
#ifndef _PC_KSITES_H
#define _PC_KSITES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/probecache.h>

struct pc_ksite {
	char name[2 * PROBECACHE_NAME_MAX + 2];	/* GROUP:EVENT */
	unsigned int site;	/* 0: the probe's own file */
	char state[16];
	uint64_t hits;
	int error;		/* 0, or -errno of its last failure to arm */
	bool unlinked;
	bool mapped;		/* some process maps it (a module without mapped=: true) */
	int64_t uid;		/* the inode's owner, -1 unknown (a module without uid=) */
	unsigned int dev_major, dev_minor;
	uint64_t ino;
	char *path;
};

struct pc_ksites {
	size_t n;
	struct pc_ksite *s;	/* in the module's order: by probe, site 0 first */
};

/*
 * Read the sites listing. A module without one (before sites) gives none,
 * not an error; a malformed line is reported by file and line: -EBADMSG.
 */
int pc_ksites_read(struct pc_ksites *out);
void pc_ksites_free(struct pc_ksites *k);
/* Does @k list the inode @dev/@ino (a stat()'s st_dev, st_ino) as a site of probe @name? */
bool pc_ksites_has(const struct pc_ksites *k, const char *name, dev_t dev, ino_t ino);
/* That site of @k, or NULL. */
const struct pc_ksite *pc_ksites_get(const struct pc_ksites *k, const char *name, dev_t dev,
				     ino_t ino);

#endif /* _PC_KSITES_H */
