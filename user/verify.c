// SPDX-License-Identifier: GPL-2.0
/* Does the file at a cached path still hold the cached build-id? */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "pattern.h"
#include "sdt.h"

enum pc_file_state pc_file_check(const char *path, const char *build_id, char now[41])
{
	struct stat st;
	int ret;

	now[0] = '\0';
	if (stat(path, &st))
		return errno == ENOENT || errno == ENOTDIR ? PC_FILE_MISSING : PC_FILE_UNREADABLE;
	ret = pc_read_build_id(path, now);
	if (ret) {
		snprintf(now, 41, "%s", ret == -ENOENT ? "no build-id" : strerror(-ret));
		return PC_FILE_UNREADABLE;
	}
	return strcmp(now, build_id) ? PC_FILE_OTHER : PC_FILE_SAME;
}

const char *pc_file_state_name(enum pc_file_state st)
{
	switch (st) {
	case PC_FILE_SAME:
		return "ok";
	case PC_FILE_OTHER:
		return "changed";
	case PC_FILE_MISSING:
		return "missing";
	default:
		return "unreadable";
	}
}

