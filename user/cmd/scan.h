/* SPDX-License-Identifier: GPL-2.0 */
/* scan's work, for add and define too: SDT notes cached with a user's names. */
#ifndef _PC_SCAN_H
#define _PC_SCAN_H

#include <stdbool.h>
#include <stddef.h>

#include "sdtnames.h"

enum pc_scan_then { PC_SCAN_CACHE, PC_SCAN_DEFINE, PC_SCAN_ARM };

/*
 * Cache the SDT notes of @paths (@recursive: directories too), the notes of a
 * PROVIDER:NAME in @users named by them (a rescan keeps the names it had), then
 * define (PC_SCAN_ARM: and count) what was cached if probecache.ko is loaded.
 * A user's names that disagree with a note, or that no note takes, fail. 0,
 * PC_EXIT_PARTIAL or -errno, as scan exits.
 */
int pc_scan_paths(char *const *paths, int n, struct pc_sdtuser *users, size_t nusers,
		  bool recursive, enum pc_scan_then then);

#endif /* _PC_SCAN_H */
