/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pure parsers for ELF note bytes: the generic note walk (Elf32/64_Nhdr are
 * the same 12 bytes), the SDT v3 payload and the GNU build-id. No libelf:
 * the bytes are untrusted and these functions are fuzzed
 * (tests/fuzz/fuzz_sdtnote.c). Every size is checked against the buffer.
 */
#ifndef _PC_SDTNOTE_H
#define _PC_SDTNOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PC_NT_STAPSDT		3	/* v3 layout: the only one probes are written in */
#define PC_NT_GNU_BUILD_ID	3
#define PC_SDT_NAME_MAX		58	/* "sdt_" + provider fits PROBECACHE_NAME_MAX (63) */

struct pc_note {
	uint32_t type;
	const char *name;	/* n_namesz bytes, not necessarily NUL-terminated */
	uint32_t namesz;
	const uint8_t *desc;
	uint32_t descsz;
};

/*
 * Next note of the @len bytes at @buf from *@pos (start with 0), entries
 * aligned to @align (4 or 8). Returns 1 with @n filled and *@pos advanced,
 * 0 at the clean end, -EINVAL (with @why) on a truncated or lying header.
 */
int pc_note_next(const void *buf, size_t len, size_t *pos, unsigned int align,
		 bool big_endian, struct pc_note *n, const char **why);

/* Does @n carry name @name (exact, with its NUL)? */
bool pc_note_is(const struct pc_note *n, const char *name);

/* One SDT note payload, decoded. Strings point into the note bytes. */
struct pc_sdtnote {
	uint64_t pc, base, sem;		/* link-time addresses as written */
	const char *provider, *name, *args;	/* NUL-terminated, inside desc */
};

/*
 * Decode a stapsdt v3 payload: three @is64-sized addresses, then
 * provider\0name\0args\0. provider and name must be non-empty C identifiers
 * of at most PC_SDT_NAME_MAX bytes (they become event names); args must be
 * printable ASCII (it is stored in line-based files). The args string may be
 * missing at the very end of the payload (old sdt.h): then it is "".
 * 0 or -EINVAL with @why.
 */
int pc_sdtnote_parse(const uint8_t *desc, size_t len, bool is64, bool big_endian,
		     struct pc_sdtnote *out, const char **why);

/* Build-id bytes of an NT_GNU_BUILD_ID note as lowercase hex; 0 or -EINVAL. */
int pc_build_id_hex(const struct pc_note *n, char hex[41], const char **why);

#endif /* _PC_SDTNOTE_H */
