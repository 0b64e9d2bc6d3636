/* SPDX-License-Identifier: GPL-2.0 */
/* The export/import archive, parsed by archive.c (format: comment at the top of export.c). */
#ifndef _PC_ARCHIVE_H
#define _PC_ARCHIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache.h"

/* CRC-32 (IEEE 802.3, same values as zlib's crc32()); start with @crc = 0. */
uint32_t pc_crc32(uint32_t crc, const void *buf, size_t len);

struct pc_archive {
	size_t nbinaries;
	struct pc_binary **binaries;
	size_t nentries;
};

/*
 * Parse and fully validate the archive in @buf (@len bytes). On error
 * returns -EINVAL (or -ENOMEM) with "line N: why" in @err and nothing
 * allocated; on success the caller frees with pc_archive_free().
 */
int pc_archive_parse(const char *buf, size_t len, struct pc_archive *ar, char *err, size_t errlen);
void pc_archive_free(struct pc_archive *ar);

#endif /* _PC_ARCHIVE_H */
