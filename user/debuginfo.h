/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Decompressed copies of debuginfo, kept in the cache directory by build-id
 * (like perf's buildid-cache): DIR/debug/.build-id/XX/YYYY.debug.
 *
 * Debian's -dbg packages ship their DWARF zlib-compressed (SHF_COMPRESSED);
 * libdw inflates every debug section each time it opens the file, which was
 * most of the time of resolving one definition. The first resolve against
 * such a file writes an uncompressed copy; later ones find it first through
 * libdwfl's debuginfo path (it checks the copy's build-id like any other
 * debuginfo) and map it as it is.
 *
 * Copies are written to a temp file, synced and renamed into place. The
 * whole directory is bounded by $PROBECACHE_DEBUG_MAX_MB (default 2048;
 * 0 keeps no copies): the least recently used copies go first. gc removes
 * copies no cached probe refers to. Nothing here is required for
 * correctness: any failure leaves a resolve reading the original file.
 */
#ifndef _PC_DEBUGINFO_H
#define _PC_DEBUGINFO_H

#include <stdbool.h>
#include <stdint.h>

/* libdwfl's debuginfo_path: our copies first, then libdwfl's default places. */
char *pc_debugcache_search_path(void);

/*
 * After a resolve found its DWARF in @debug_file (build-id @bid, hex):
 * a copy in use is marked as used; a compressed original gets its copy,
 * written from @dw_elf (libdw's own handle, whose debug sections libdw has
 * inflated already). Best effort: reasons are said with -v only.
 */
struct Elf;
void pc_debugcache_note(const char *debug_file, const char *bid, struct Elf *dw_elf);

/*
 * Remove every copy for which @keep(build-id, @ctx) is false (with @dry,
 * only say so). Counts them in @removed.
 */
int pc_debugcache_gc(bool (*keep)(const char *bid, void *ctx), void *ctx, bool dry,
		     unsigned int *removed);

#endif /* _PC_DEBUGINFO_H */
