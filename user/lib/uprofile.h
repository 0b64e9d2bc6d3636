/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracefs's uprobe_profile: the kernel's own hit count of every uprobe of
 * uprobe_events, one line each, "  FILE EVENT HITS": the file as the probe's
 * definition named it, the event (Linux prints EVENT alone; GROUP/EVENT is
 * taken too) and the hits counted while the uprobe was registered.
 */
#ifndef _PC_UPROFILE_H
#define _PC_UPROFILE_H

#include <stddef.h>
#include <stdint.h>

struct pc_uprofile_row {
	const char *file;
	const char *event;	/* EVENT, or GROUP/EVENT */
	uint64_t hits;
};

struct pc_uprofile {
	size_t n;
	struct pc_uprofile_row *r;	/* in the file's order */
	char *buf;			/* the text the rows point into */
};

/*
 * Parse @len bytes of @buf (malloc'd, NUL-terminated; @out owns it from
 * now on, even on failure). 0; -EINVAL for a line that is not three
 * fields with a decimal HITS (its number in *@lineno; @out emptied);
 * -ENOMEM. Empty lines are skipped.
 */
int pc_uprofile_parse(char *buf, size_t len, struct pc_uprofile *out, size_t *lineno);

/*
 * Read pc_tracefs_dir()/uprobe_profile. No such file (tracefs not mounted,
 * a kernel without uprobe events): no rows, 0. Errors are reported:
 * -EBADMSG for a line not parsed (named by file and line), -errno.
 */
int pc_uprofile_read(struct pc_uprofile *out);
void pc_uprofile_free(struct pc_uprofile *u);

#endif /* _PC_UPROFILE_H */
