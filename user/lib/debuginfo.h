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
 * inflated already). Best effort: reasons are said with -v only. True if a
 * copy is there now.
 */
struct Elf;
bool pc_debugcache_note(const char *debug_file, const char *bid, struct Elf *dw_elf);

/*
 * Next to a copy, DIR/debug/.build-id/XX/YYYY.funcs: which CUs define which
 * function names, as one walk of every CU with dwarf_getfuncs() found them
 * (dwarf_index.c), so that one definition searches only its CUs, not all of them.
 * Text: "probecache-funcs 1", "debug_info SIZE" (the section it describes),
 * then "NAME CU-OFFSET" lines sorted by name, then "end". Removed with its
 * copy. _read: 0 with the lines (from "debug_info" on) in a malloc'd
 * buffer, -ENOENT if none or not for a .debug_info of @info_size.
 */
int pc_debugcache_funcs_read(const char *bid, uint64_t info_size, char **buf, size_t *len);
int pc_debugcache_funcs_write(const char *bid, uint64_t info_size, const char *lines,
			      size_t len);

/*
 * Remove every copy for which @keep(build-id, @ctx) is false (with @dry,
 * only say so). Counts them in @removed.
 */
int pc_debugcache_gc(bool (*keep)(const char *bid, void *ctx), void *ctx, bool dry,
		     unsigned int *removed);

#endif /* _PC_DEBUGINFO_H */
