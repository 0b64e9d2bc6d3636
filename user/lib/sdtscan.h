/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Scanning: the SDT notes of binaries into the cache (scan, and add and define
 * with a user's names). One file per build-id; its SDT entries are replaced,
 * its named ones (add's) kept, and the names a user gave a note kept.
 */
#ifndef _PC_SDTSCAN_H
#define _PC_SDTSCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "pc.h"
#include "sdtnames.h"

struct pc_scan_stats {
	/* in */
	bool recursive;			/* directories too */
	struct pc_sdtuser *users;	/* a user's names, by PROVIDER:NAME */
	size_t nusers;
	/* out */
	unsigned int elf, with_notes, without_notes, no_build_id, non_elf, failed;
	unsigned long events;
	struct pc_strset cached;	/* build-ids this run cached SDT entries for */
	/* the progress line on a terminal */
	bool progress;
	struct timespec start, last;
};

/* Scan one command-line @arg (a file; with @st->recursive a directory). */
int pc_scan_arg(const char *arg, struct pc_scan_stats *st);

/* After the last pc_scan_arg(): a user's names no note took count as failed. */
void pc_scan_finish(struct pc_scan_stats *st);

/*
 * @st->users for cached binaries: every one with notes they name, at its newest
 * path if that still holds its build-id, scanned again (pc_scan_arg()).
 * -ENOENT when no cached binary has such notes.
 */
int pc_scan_cached(struct pc_scan_stats *st);

/* Clear the progress line. */
void pc_scan_progress_done(struct pc_scan_stats *st);

#endif /* _PC_SDTSCAN_H */
