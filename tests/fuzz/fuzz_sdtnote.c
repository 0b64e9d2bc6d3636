// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for user/lib/sdtnote.c. Input: one flags byte (bit 0: ELF
 * class 64, bit 1: big-endian, bit 2: 8-byte note alignment), then the bytes
 * of a note section. Every note is walked; stapsdt payloads and GNU build-ids
 * are decoded. Checks that the walk always advances and ends inside the
 * buffer, and that every decoded string lies inside its note.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../user/lib/sdtnote.h"

static void inside(const void *p, size_t len, const uint8_t *lo, size_t n)
{
	const uint8_t *b = p;

	if (b < lo || b > lo + n || len > (size_t)(lo + n - b))
		abort();
}

static void one(const struct pc_note *n, bool is64, bool be)
{
	struct pc_sdtnote r;
	const char *why = NULL;
	char hex[41];

	if (pc_note_is(n, "stapsdt")) {
		if (pc_sdtnote_parse(n->desc, n->descsz, is64, be, &r, &why)) {
			if (!why)
				abort();
			return;
		}
		inside(r.provider, strlen(r.provider) + 1, n->desc, n->descsz);
		inside(r.name, strlen(r.name) + 1, n->desc, n->descsz);
		if (*r.args)
			inside(r.args, strlen(r.args) + 1, n->desc, n->descsz);
	} else if (pc_note_is(n, "GNU") && !pc_build_id_hex(n, hex, &why)) {
		if (strlen(hex) != 2 * n->descsz)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pc_note n;
	const char *why = NULL;
	size_t pos = 0, prev;
	bool is64, be;
	int ret;

	if (!size)
		return 0;
	is64 = data[0] & 1;
	be = data[0] & 2;
	data++;
	size--;
	for (;;) {
		prev = pos;
		ret = pc_note_next(data, size, &pos, data[-1] & 4 ? 8 : 4, be, &n, &why);
		if (ret != 1)
			break;
		if (pos <= prev || pos > size)
			abort();
		inside(n.name, n.namesz, data, size);
		inside(n.desc, n.descsz, data, size);
		one(&n, is64, be);
	}
	if (ret < 0 && !why)
		abort();
	return 0;
}
